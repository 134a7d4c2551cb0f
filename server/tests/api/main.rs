//! Integration tests: the real server on port 0 against this machine's Postgres and Redis.

mod admission;
mod events;
mod helpers;
mod ops;
mod pages;
mod queue;
mod sessions;
mod tokens;
