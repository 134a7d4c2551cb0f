-- The opening of a sale (issue 17): when it opens (null: open now) and how long the pre-queue
-- before it lasts, and the draw that orders the pre-queue's entrants at the opening.
alter table event add column opens_at timestamptz;
alter table event add column prequeue_seconds integer not null default 900
    check (prequeue_seconds between 0 and 86400);

-- One draw per event, made when its opening is first set. The commitment (hex SHA-256 of the
-- secret) is public from then on and never changes; the secret is published only once the
-- draw is made. The beacon (someone else's public random value) may change until the opening.
create table draw (
    event_id     text primary key references event (id) on delete cascade,
    secret       text not null check (secret ~ '^[0-9a-f]{64}$'),
    commitment   text not null check (commitment ~ '^[0-9a-f]{64}$'),
    beacon       text not null default '',
    committed_at timestamptz not null default now(),
    updated_at   timestamptz not null default now()
);

-- Setting the draw's beacon is an operator write like the others.
alter table operator_action drop constraint operator_action_action_check;
alter table operator_action add constraint operator_action_action_check
    check (action in ('create_event', 'change_room', 'sign_in', 'sign_out', 'set_beacon'));
