-- A room's settings have one default each, in the code (`app::wire::DEFAULT_ROOM`), and the
-- INSERT of a new event writes every one of them (server/src/events/room.rs): a setting it
-- forgot fails here, instead of taking a default of the table's that may differ.
alter table event
    alter column room_enabled drop default,
    alter column room_paused drop default,
    alter column admit_rate_per_second drop default,
    alter column tick_ms drop default,
    alter column hold_ttl_seconds drop default,
    alter column seats_per_buyer drop default,
    alter column hold_sweep_seconds drop default,
    alter column room_epoch drop default,
    alter column join_pow_bits drop default,
    alter column prequeue_seconds drop default,
    alter column auto_rate drop default,
    alter column min_admit_rate_per_second drop default,
    alter column max_admit_rate_per_second drop default,
    alter column target_hold_p99_ms drop default,
    alter column bind_tokens drop default,
    alter column time_zone drop default,
    alter column currency drop default;
