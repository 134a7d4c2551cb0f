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
#[cfg(feature = "hydrate")]
pub mod device;
pub mod dpop;
pub mod estimate;
pub mod lang;
mod onsale;
mod pages;
pub mod pow;
pub mod presence;
mod title;
pub mod wire;
pub mod words;

#[cfg(feature = "hydrate")]
pub use pages::hydrate;
pub use pages::{App, event_of_page, shell};

use std::sync::atomic::AtomicBool;

/// Set once the page in this browser has hydrated (never on the server, where effects do not
/// run): what is built after it is built by script, not rendered by the server.
static HYDRATED: AtomicBool = AtomicBool::new(false);

/// Whether the page has hydrated (see [`HYDRATED`]).
#[cfg(feature = "hydrate")]
pub(crate) fn hydrated() -> bool {
    HYDRATED.load(std::sync::atomic::Ordering::Relaxed)
}
