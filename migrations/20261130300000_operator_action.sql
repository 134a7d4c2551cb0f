-- Every operator write, with who, when, what was asked and the state before and after (the
-- operator's audit). It generalises room_change, whose rows it takes over.
create table operator_action (
    id         bigserial primary key,
    action     text not null
               check (action in ('create_event', 'change_room', 'sign_in', 'sign_out')),
    event_id   text references event (id) on delete cascade,
    actor      text not null,
    change     jsonb,
    before     jsonb,
    after      jsonb,
    created_at timestamptz not null default now()
);

create index operator_action_event on operator_action (event_id, created_at desc);
create index operator_action_recent on operator_action (created_at desc);

insert into operator_action (action, event_id, actor, change, created_at)
select 'change_room', event_id, actor, change, created_at from room_change order by id;

drop table room_change;
