-- The operator's priors for a first night (issue 64): the seats a hold is expected to take
-- and the share of admitted buyers expected to hold. Existing rooms take the defaults of
-- app::wire::DEFAULT_ROOM; like every room setting, the column keeps no default after.
alter table event
    add column expected_seats_per_hold integer not null default 1
        check (expected_seats_per_hold between 1 and 50),
    add column expected_holding_percent integer not null default 100
        check (expected_holding_percent between 1 and 100);
alter table event
    alter column expected_seats_per_hold drop default,
    alter column expected_holding_percent drop default;
