-- Holds and sales. A seat names the one hold that has it (seat.hold_id): the database itself
-- cannot put a seat in two holds at once, and the check below keeps status and owner together.
create table hold (
    id              text primary key,
    event_id        text not null references event (id) on delete cascade,
    buyer_id        text not null,
    status          text not null default 'active'
                    check (status in ('active', 'expired', 'released', 'purchased')),
    idempotency_key text not null check (length(idempotency_key) between 1 and 200),
    expires_at      timestamptz not null,
    total_cents     bigint not null check (total_cents >= 0),
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    unique (buyer_id, idempotency_key)
);

-- The sweep finds active holds past their expiry; the per-buyer limit counts active holds.
create index hold_active_expiry on hold (expires_at) where status = 'active';
create index hold_active_buyer on hold (event_id, buyer_id) where status = 'active';

-- Which seats a hold took, kept after the hold ends (what `GET /api/holds/{id}` shows).
create table hold_seat (
    hold_id text not null references hold (id) on delete cascade,
    seat_id bigint not null references seat (id) on delete cascade,
    primary key (hold_id, seat_id)
);

alter table seat add column hold_id text references hold (id);
alter table seat add constraint seat_owner_matches_status
    check ((status = 'available') = (hold_id is null));
create index seat_hold on seat (hold_id) where hold_id is not null;

-- A confirmed purchase of one hold (written by checkout).
create table sale (
    id              text primary key,
    hold_id         text not null unique references hold (id),
    event_id        text not null references event (id) on delete cascade,
    buyer_id        text not null,
    total_cents     bigint not null check (total_cents >= 0),
    payment_id      text,
    idempotency_key text not null,
    created_at      timestamptz not null default now(),
    updated_at      timestamptz not null default now(),
    unique (buyer_id, idempotency_key)
);
