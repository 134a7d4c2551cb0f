-- Every charge is made, recorded and refunded in its event's currency (review finding 6):
-- before, the provider was asked for EUR whatever the event sold in.
alter table payment add column currency text not null default 'EUR'
    check (currency ~ '^[A-Z]{3}$');
update payment p set currency = e.currency from event e where e.id = p.event_id;
alter table payment alter column currency drop default;
