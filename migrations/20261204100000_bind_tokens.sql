-- Tokens bound to the device (API.md "Tokens bound to the device"): with bind_tokens on, a
-- join carries a DPoP proof, the place keeps its key's thumbprint, and every gated request
-- must prove possession of that key.
alter table event add column bind_tokens boolean not null default false;
