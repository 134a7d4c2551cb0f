-- An event carries its waiting-room settings: Postgres is their durable source of truth and
-- every instance re-reads them at least once a second.
create table event (
    id                    text primary key,
    name                  text not null check (length(btrim(name)) between 1 and 200),
    starts_at             timestamptz not null,
    room_enabled          boolean not null default true,
    room_paused           boolean not null default false,
    admit_rate_per_second integer not null default 50 check (admit_rate_per_second between 1 and 100000),
    tick_ms               integer not null default 1000 check (tick_ms between 100 and 60000),
    hold_ttl_seconds      integer not null default 600 check (hold_ttl_seconds between 10 and 3600),
    seats_per_buyer       integer not null default 6 check (seats_per_buyer between 1 and 50),
    created_at            timestamptz not null default now(),
    updated_at            timestamptz not null default now()
);

create table seat (
    id          bigserial primary key,
    event_id    text not null references event (id) on delete cascade,
    section     text not null,
    row_label   text not null,
    number      integer not null check (number > 0),
    price_cents bigint not null check (price_cents >= 0),
    status      text not null default 'available' check (status in ('available', 'held', 'sold')),
    version     integer not null default 0,
    created_at  timestamptz not null default now(),
    updated_at  timestamptz not null default now(),
    unique (event_id, section, row_label, number)
);

create index seat_event_status on seat (event_id, status);
