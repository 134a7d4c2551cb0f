//! Accounts: buyers who are the ticketer's signed-in people (API.md "Accounts"). A session
//! becomes an account's through the ticketer's OpenID provider (`oidc`, `routes`) or a signed
//! hand-over from the ticketer's site (`assertion`), and then names the account's buyer id,
//! a keyed hash of issuer and subject (`tokens::session`).
//!
//! Invariants: one account is one buyer in every event, whatever its devices and sessions: one
//! place in a line and one `seats_per_buyer` across holds and purchases (both follow from the
//! buyer id); no name, email or subject is stored in Redis or published; a refused sign-in or
//! assertion stores nothing; the line never calls the provider (`eligible` reads the claims the
//! session carries). One home per concern: `jwks` (a provider's keys, cached), `claims` (the
//! claims kept), `assertion` (the hand-over), `oidc` (the relying party), `routes` (the
//! browser's sign-in), `eligible` (who may join), `state` (the configured parts).

pub mod assertion;
pub mod claims;
pub mod eligible;
pub mod jwks;
pub mod oidc;
pub mod routes;
pub mod state;
