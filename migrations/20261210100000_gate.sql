-- In front of the ticketer's own site (API.md "The gate"): where admitted buyers are sent
-- (null: Anteroom's own seat map), the path prefixes the gate protects on that host, and the
-- URL the automatic rate probes. Like every room setting, no default is kept by the table
-- (migration 20261206100000): the server writes each one.
alter table event
    add column target_url text check (target_url is null or length(target_url) <= 2000),
    add column protect text[] not null default '{}'
        check (cardinality(protect) <= 20),
    add column origin_probe_url text
        check (origin_probe_url is null or length(origin_probe_url) <= 2000);
alter table event alter column protect drop default;
