-- A hold's Idempotency-Key names one request of one buyer for one event: the same key on
-- another event is another request, and the hold remembers a digest of what was asked, so that
-- a key reused with a different request is refused instead of answered with the first hold.
-- Holds made before this have no digest; their keys replay as before.
alter table hold drop constraint hold_buyer_id_idempotency_key_key;
alter table hold
    add constraint hold_buyer_event_idempotency_key unique (buyer_id, event_id, idempotency_key);
alter table hold add column request_digest text;
