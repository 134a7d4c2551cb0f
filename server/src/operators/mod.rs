//! Operators are people (API.md "Operators"): named accounts with a role (`viewer`,
//! `operator`, `admin`) and the events they may touch, who sign in with a passkey or the
//! company's OpenID provider into a session kept on the server; and scoped API keys for
//! automation. One home per concern: `people` (the accounts, enrolment links), `sessions`,
//! `keys`, `passkeys`, `oidc` (the company's sign-in), `signin` (the end of every sign-in),
//! `secret` (the tagged random secrets behind cookies, links and keys), `roles` (the
//! permission each admin route needs, and who has it), `actor` (who asks), `guard` (the check
//! before every admin route), `routes` (the endpoints), `state`, and `cli` (bootstrap from a
//! shell).
//!
//! Invariants: no shared secret signs anyone in (the break-glass token exists only when
//! configured, and every use of it is logged and audited); nothing the database keeps signs
//! anyone in (secrets are stored as hashes, passkeys as public keys); every admin request is
//! one person's or one key's, and the audit names them.

pub mod actor;
pub mod cli;
pub mod guard;
pub mod keys;
pub mod oidc;
pub mod passkeys;
pub mod people;
pub mod roles;
pub mod routes;
pub mod secret;
pub mod sessions;
pub mod signin;
pub mod state;

pub use actor::Actor;
pub use roles::Permission;
