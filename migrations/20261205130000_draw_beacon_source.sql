-- A draw may commit, before its pre-queue opens, to a future drand round (review finding 4):
-- the source ({"kind", "chain_hash", "public_key", "round", ...}) and, once known and
-- verified, the round's signature, whose SHA-256 is then the draw's beacon.
alter table draw add column beacon_source jsonb;
alter table draw add column beacon_signature text check (beacon_signature ~ '^[0-9a-f]+$');
