-- Operators are people (API.md "Operators"): named accounts with a role and the events they
-- may touch, their passkeys, one-time enrolment links, server-side sessions, and scoped API
-- keys for automation. Secrets (session cookies, enrolment links, API keys) are stored only
-- as their SHA-256: a copy of this database signs nobody in.

create table operator (
    id text primary key,
    -- Lower case; one account per address.
    email text not null unique,
    name text not null,
    role text not null check (role in ('viewer', 'operator', 'admin')),
    -- The events they may touch: null = all of them.
    events text[],
    created_at timestamptz not null default now()
);

create table operator_passkey (
    credential_id text primary key,
    operator_id text not null references operator(id) on delete cascade,
    -- webauthn-rs's Passkey: the public key and its counter, nothing secret.
    passkey jsonb not null,
    created_at timestamptz not null default now(),
    last_used_at timestamptz
);
create index operator_passkey_operator on operator_passkey (operator_id);

create table operator_enrolment (
    token_hash bytea primary key,
    operator_id text not null references operator(id) on delete cascade,
    expires_at timestamptz not null,
    used_at timestamptz
);

create table operator_session (
    -- The SHA-256 of the cookie's value, base64url: the id an admin sees and ends.
    id text primary key,
    operator_id text not null references operator(id) on delete cascade,
    -- How the session signed in: 'passkey' or 'oidc'.
    via text not null,
    address text not null,
    created_at timestamptz not null default now(),
    last_seen_at timestamptz not null default now(),
    -- The last time the person proved themselves (sign-in or step-up).
    authenticated_at timestamptz not null default now(),
    ended_at timestamptz
);
create index operator_session_operator on operator_session (operator_id) where ended_at is null;

create table api_key (
    id text primary key,
    secret_hash bytea not null unique,
    name text not null,
    scopes text[] not null,
    -- The events it may touch: null = all of them.
    events text[],
    created_by text not null,
    created_at timestamptz not null default now(),
    expires_at timestamptz,
    last_used_at timestamptz,
    revoked_at timestamptz
);

-- The audit names the person or key (its id, for filtering) besides the sentence `actor`.
alter table operator_action add column actor_id text;
create index operator_action_actor on operator_action (actor_id, created_at desc);
alter table operator_action drop constraint operator_action_action_check;
alter table operator_action add constraint operator_action_action_check
    check (action in ('create_event', 'change_room', 'sign_in', 'sign_out', 'set_beacon',
                      'keep_night', 'set_eligible', 'refused_sign_in', 'step_up',
                      'add_operator', 'change_operator', 'remove_operator', 'enrol',
                      'end_session', 'add_key', 'revoke_key', 'break_glass'));
