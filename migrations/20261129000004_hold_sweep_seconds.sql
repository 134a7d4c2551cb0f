-- How often expired holds are swept while this event's room is on (every 30 s during an
-- on-sale, so an abandoned seat is back on the map within half a minute).
alter table event add column hold_sweep_seconds integer not null default 30
    check (hold_sweep_seconds between 1 and 3600);
