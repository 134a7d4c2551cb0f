-- The proof of work a join must carry (API.md "Proof of work at join"): leading zero bits of
-- SHA-256(challenge ":" nonce); 0 asks for none.
alter table event add column join_pow_bits integer not null default 0
    check (join_pow_bits between 0 and 32);
