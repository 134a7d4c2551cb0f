//! Integration tests: the real server on port 0 against this machine's Postgres and Redis.

mod events;
mod helpers;
mod ops;
mod pages;
mod sessions;
