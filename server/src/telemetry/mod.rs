//! Structured logs through `tracing`: text for people, JSON lines with `--log-json`.
//! `RUST_LOG` filters (default: info, with sqlx's statement logs at warn). Every request
//! carries an `x-request-id` (the client's, or one of [`RequestIds`]) in its log span and its
//! answer.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use axum::http::{HeaderValue, Request};
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing_subscriber::{EnvFilter, fmt};

pub mod metrics;

/// Request ids unique across instances and restarts: 64 random bits drawn when the instance
/// starts, then a counter ("Zq3...-1f"). One atomic add a request, where a UUID v4 cost a
/// `getrandom` system call each (a tenth of the system calls of a join).
#[derive(Clone)]
pub struct RequestIds {
    prefix: Arc<str>,
    next: Arc<AtomicU64>,
}

impl RequestIds {
    pub fn new() -> Self {
        Self {
            prefix: crate::ids::random_id(8).into(),
            next: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{}-{n:x}", self.prefix))
            .ok()
            .map(RequestId::new)
    }
}

pub fn init(json: bool) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let builder = fmt().with_env_filter(filter);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}
