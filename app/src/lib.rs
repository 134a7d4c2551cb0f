//! Anteroom's shared crate: the JSON wire types of API.md and the Leptos pages, compiled into
//! the server (feature `ssr`) and into the browser's WASM (feature `hydrate`). Nothing here
//! talks to Redis, Postgres or signing keys; the server reaches the pages only through
//! [`backend::Backend`].

// The operator panel's view types nest deeper than the default limit allows; the lazy route
// turns them into a view here (for the browser), no longer only in the frontend crate.
#![recursion_limit = "256"]

mod admin;
pub mod api;
#[cfg(feature = "ssr")]
pub mod backend;
mod onsale;
mod pages;
pub mod pow;
pub mod wire;
pub mod words;

pub use pages::{App, shell};
