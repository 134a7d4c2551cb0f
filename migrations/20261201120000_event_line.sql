-- What Postgres keeps of an event's line, whose Redis keys expire once the room is off and the
-- line empty (the night is over): the greatest arrival number ever admitted (a place receipt
-- at or before it names a place already used, even after Redis forgot the line), and the
-- admissions of the lines retired so far, for the operator's count.
create table event_line (
    event_id         text primary key references event (id) on delete cascade,
    admitted_through bigint not null default 0 check (admitted_through >= 0),
    admitted_before  bigint not null default 0 check (admitted_before >= 0),
    -- The head of the last line whose admissions admitted_before counts: retiring that line
    -- again (after a crash between archiving and expiring) adds nothing.
    archived_through bigint not null default 0 check (archived_through >= 0),
    updated_at       timestamptz not null default now()
);
