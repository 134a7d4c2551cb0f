-- Events carry their venue's time zone (an IANA name, checked by the server on creation) and
-- the currency of their prices (ISO 4217), so pages show local times and the right money
-- (issue 19). Events made before keep UTC and euros.
alter table event add column time_zone text not null default 'UTC'
    check (length(time_zone) between 1 and 64);
alter table event add column currency text not null default 'EUR'
    check (currency ~ '^[A-Z]{3}$');
