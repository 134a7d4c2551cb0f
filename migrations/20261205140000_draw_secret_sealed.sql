-- The draw's secret is no longer stored before the draw (review finding 4): a random nonce is,
-- and the secret is HMAC-SHA256(key, event ":" nonce) with a key derived from the deployment's
-- session secret, which the database does not hold. The draw writes the secret it publishes.
alter table draw alter column secret drop not null;
alter table draw add column secret_nonce text check (secret_nonce ~ '^[0-9a-f]{64}$');
alter table draw add constraint draw_secret_or_nonce
    check (secret is not null or secret_nonce is not null);
