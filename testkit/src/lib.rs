//! Test support, shared by the integration tests (`server/tests`), the benchmark and the
//! on-sale simulator (`loadtest`); never linked into the production server.
//!
//! - [`scratch`]: a database, a Redis key prefix and a data folder of a run's own, and their
//!   removal (also of what killed runs left).
//! - [`device`]: a device key that makes DPoP proofs as a browser does, for rooms that bind
//!   tokens.
//! - [`deployment`]: Anteroom started in this process on a scratch deployment, one instance or
//!   several.
//! - [`cluster`]: real Redis Clusters on free ports.
//! - [`oidc`]: a real OpenID provider (`oidc-provider`, by Node) for the accounts' sign-in.
//! - [`operators`]: API keys and signed-in operators made straight in a deployment's
//!   database (as `anteroom keys add` and a passkey sign-in would).
//! - [`ticketer`]: a ticketer's signing keys, its JWKS over HTTP, and hand-over assertions.
//! - [`stripe`]: a real Stripe-compatible server (`localstripe`, by Python) for payments.
//! - [`procs`]: processes and faults: `anteroom serve`, a redis-server of one's own, a proxy
//!   that cuts Postgres.

pub mod cluster;
pub mod deployment;
pub mod device;
pub mod oidc;
pub mod operators;
pub mod procs;
pub mod scratch;
pub mod stripe;
pub mod ticketer;
