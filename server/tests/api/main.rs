//! Integration tests: the real server on port 0 against this machine's Postgres and Redis.

mod admission;
mod checkout;
mod events;
mod faults;
mod fuzz;
mod helpers;
mod holds;
mod operator;
mod ops;
mod pages;
mod procs;
mod queue;
mod seatmap;
mod sessions;
mod shedding;
mod tokens;
