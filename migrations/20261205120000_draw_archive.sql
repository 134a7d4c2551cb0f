-- A made draw is kept in Postgres (review finding 12): its seed, its entrant count and every
-- ticket in draw order, so a published draw stays verifiable when Redis loses it, and the
-- draw's Redis keys may expire with the rest of the line.
alter table draw add column seed text check (seed ~ '^[0-9a-f]{64}$');
alter table draw add column drawn_entrants bigint check (drawn_entrants >= 0);
alter table draw add column tickets text[];
alter table draw add column drawn_at timestamptz;

-- The rooms every instance re-reads each half second: the events still relevant (see
-- admission/rooms.rs), found through these.
create index event_starts_at on event (starts_at);
