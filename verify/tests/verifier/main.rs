//! The verifier from the outside, against keys served over HTTP as Anteroom serves its own,
//! in one integration binary. The test against a real Anteroom, which needs Redis and
//! Postgres, is `tests/anteroom.rs`.

mod dpop;
mod keys;
mod layer;
mod origin;
mod support;
mod tokens;
