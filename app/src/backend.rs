//! The server-side data source of server rendering (ssr only). `app` declares it, `server`
//! implements it over the same functions its HTTP handlers call, and provides it as context;
//! so the first paint and the JSON API never disagree, and nothing is written twice.

use std::{future::Future, pin::Pin, sync::Arc};

use crate::wire::{ErrorBody, Event, EventEntry};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What the pages read while rendering on the server.
pub trait Backend: Send + Sync + 'static {
    fn events(&self) -> BoxFuture<'_, Result<Vec<Event>, ErrorBody>>;
    fn event(&self, id: String) -> BoxFuture<'_, Result<Event, ErrorBody>>;
    /// Joins `buyer` to the event's line (or finds their place) and, once admitted, reads the
    /// seat map. The second value is the `Set-Cookie` that carries the admission to the browser.
    fn enter(
        &self,
        buyer: String,
        event_id: String,
    ) -> BoxFuture<'_, Result<(EventEntry, Option<String>), ErrorBody>>;
}

/// The backend as the server provides it in the Leptos context.
pub type SharedBackend = Arc<dyn Backend>;

/// The buyer of the request being rendered, put in the request's extensions by the server's
/// session middleware (which issues the session cookie on a first visit).
#[derive(Clone, Debug)]
pub struct PageBuyer(pub String);

/// Why the request being rendered has no buyer (put in the request's extensions by the
/// server's session middleware, so that the page tells the truth rather than blame the
/// cookies).
#[derive(Clone, Copy, Debug)]
pub enum SessionRefused {
    /// Its client's address reached the limit of new sessions, for this many seconds more.
    Limit { retry_after_secs: u64 },
    /// The store that counts new sessions did not answer.
    Unavailable,
}
