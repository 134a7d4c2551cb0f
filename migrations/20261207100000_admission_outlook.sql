-- The outlook a buyer was told at joining, and who they were, so that the night's report
-- says of the buyers told each outlook how many got a seat (issue 31). The buyer id never
-- leaves the server: the public log pages do not read it.
alter table admission
    add column buyer_id text,
    add column outlook text check (outlook in ('likely', 'uncertain', 'unlikely'));
create index admission_buyer on admission (event_id, buyer_id) where buyer_id is not null;
