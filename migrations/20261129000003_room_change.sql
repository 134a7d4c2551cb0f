-- Every change of an event's room settings, with who made it and when (the operator's audit).
create table room_change (
    id         bigserial primary key,
    event_id   text not null references event (id) on delete cascade,
    actor      text not null,
    change     jsonb not null,
    created_at timestamptz not null default now()
);

create index room_change_event on room_change (event_id, created_at desc);
