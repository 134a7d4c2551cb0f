-- The automatic admission rate (API.md "Admin"): with auto_rate on, the ticker's rate follows
-- the hold path's health and the buyers shopping, between the operator's bounds, starting from
-- admit_rate_per_second.
alter table event
    add column auto_rate boolean not null default false,
    add column min_admit_rate_per_second integer not null default 1
        check (min_admit_rate_per_second between 1 and 100000),
    add column max_admit_rate_per_second integer not null default 1000
        check (max_admit_rate_per_second between 1 and 100000),
    add column target_hold_p99_ms integer not null default 50
        check (target_hold_p99_ms between 1 and 60000),
    add constraint event_admit_rate_bounds
        check (min_admit_rate_per_second <= max_admit_rate_per_second);
