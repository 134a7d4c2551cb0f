-- An admission of a buyer who was skipped at their turn while away and admitted ahead of the
-- line when they came back (issue 18): by design after later arrivals, so the night's report
-- counts it apart from the line's order (not an inversion, not an estimate sample).
alter table admission add column back_from_away boolean not null default false;

-- A night closes by itself once the line has been quiet for a while (`night_idle_seconds`).
alter table night drop constraint night_reason_check;
alter table night add constraint night_reason_check
    check (reason in ('room_off', 'operator', 'line_empty'));
