//! Integration tests: the real server on port 0 against this machine's Postgres and Redis.

mod admission;
mod checkout;
mod events;
mod helpers;
mod holds;
mod operator;
mod ops;
mod pages;
mod queue;
mod seatmap;
mod sessions;
mod tokens;
