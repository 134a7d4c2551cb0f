-- Money is recorded before it moves: a payment row is written (`pending`) before the payment
-- provider is called, and ends `succeeded` (in the sale's transaction), `declined`,
-- `refunded` or `failed` (the provider has no charge under its key). The provider's
-- idempotency key is derived from the hold and the attempt, never from the client's header.
create table payment (
    id            bigserial primary key,
    hold_id       text not null references hold (id) on delete cascade,
    event_id      text not null references event (id) on delete cascade,
    buyer_id      text not null,
    -- 1 for the hold's first payment; the next only after the last one ended without a sale.
    attempt       integer not null check (attempt > 0),
    provider_key  text not null unique,
    amount_cents  bigint not null check (amount_cents >= 0),
    state         text not null default 'pending'
                  check (state in ('pending', 'succeeded', 'declined', 'refunded', 'failed')),
    charge_id     text,
    -- The Idempotency-Key of the request that started it (the sale records it).
    idempotency_key text not null,
    -- Why it was refunded or failed, for the operator.
    note          text,
    -- A pending payment is driven by one party at a time (the request that wrote it, a retry,
    -- or reconciliation) until this moment; after it, anyone may take it over.
    claimed_until timestamptz not null,
    created_at    timestamptz not null default now(),
    updated_at    timestamptz not null default now(),
    unique (hold_id, attempt)
);

-- One hold is charged at most once: at most one payment of a hold is pending or succeeded.
create unique index payment_one_live_per_hold on payment (hold_id)
    where state in ('pending', 'succeeded');
create index payment_pending on payment (claimed_until) where state = 'pending';
create index payment_event_state on payment (event_id, state);

-- Checkout is idempotent per hold (one order per hold, whatever key), so a buyer who reuses a
-- key on a second hold gets a second order, not a constraint violation after the charge.
alter table sale drop constraint sale_buyer_id_idempotency_key_key;
