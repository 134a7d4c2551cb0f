-- The night's report and the night kept (issue 18, part B).
-- One row per admission, in the order they happened (n: the event's admission number, given
-- in the same Redis step as the admission), with the arrival number the buyer had and, when
-- the line recorded their joining, the estimate and band they were given then. Written by the
-- ticker's flush, idempotently (a repeated flush finds its rows there).
create table admission (
    event_id              text not null references event (id) on delete cascade,
    n                     bigint not null check (n > 0),
    arrival               bigint not null check (arrival >= 0),
    admitted_at           timestamptz not null,
    joined_at             timestamptz,
    estimate_seconds      bigint check (estimate_seconds >= 0),
    estimate_low_seconds  bigint check (estimate_low_seconds >= 0),
    estimate_high_seconds bigint check (estimate_high_seconds >= 0),
    created_at            timestamptz not null default now(),
    primary key (event_id, n)
);

-- The per-second series of an event, kept beyond the ten minutes Redis keeps them.
create table night_second (
    event_id              text not null references event (id) on delete cascade,
    t                     timestamptz not null,
    admissions            bigint not null default 0,
    holds                 bigint not null default 0,
    checkouts             bigint not null default 0,
    queue_length          bigint not null default 0,
    admit_rate_per_second bigint not null default 0,
    primary key (event_id, t)
);

-- A finished night: the seconds of night_second from started_at to ended_at.
create table night (
    id         bigserial primary key,
    event_id   text not null references event (id) on delete cascade,
    started_at timestamptz not null,
    ended_at   timestamptz not null check (ended_at >= started_at),
    reason     text not null check (reason in ('room_off', 'operator')),
    created_at timestamptz not null default now()
);
create index night_event on night (event_id, ended_at);

-- The operator may keep a night on demand.
alter table operator_action drop constraint operator_action_action_check;
alter table operator_action add constraint operator_action_action_check
    check (action in ('create_event', 'change_room', 'sign_in', 'sign_out', 'set_beacon',
                      'keep_night'));

-- What a retired line's Redis keys knew of the report: the last admission number given (a line
-- made again numbers after it) and the places made in it (the report's `joined`).
alter table event_line add column logged_through bigint not null default 0
    check (logged_through >= 0);
alter table event_line add column joined_before bigint not null default 0
    check (joined_before >= 0);
