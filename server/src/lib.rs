//! Anteroom's server: the JSON API of API.md, server rendering of the `app` pages, and the
//! machinery behind them. `main.rs` only parses the command line and calls [`startup`].

// The operator panel's view types nest deeper than the default limit allows.
#![recursion_limit = "256"]

/// mimalloc rather than the system allocator: every request allocates a few dozen small
/// buffers (headers, tokens, JSON) and frees them on another thread; glibc's malloc took a
/// tenth of the server's time in the join benchmark (loadtest `bench line`). Declared here so
/// that the server binary, the load tools and the tests all run on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod accounts;
pub mod admin;
pub mod admission;
pub mod base;
pub mod checkout;
pub mod client;
pub mod config;
pub mod devdata;
pub mod error;
pub mod events;
pub mod extract;
pub mod forms;
pub mod fresh;
pub mod holds;
pub mod ids;
pub mod net;
pub mod openapi;
pub mod opening;
pub mod operators;
pub mod ops;
pub mod origin;
pub mod pages;
pub mod queue;
pub mod ratelimit;
pub mod redis;
pub mod report;
pub mod responses;
pub mod seatmap;
pub mod sql;
pub mod startup;
pub mod state;
pub mod telemetry;
pub mod tokens;
