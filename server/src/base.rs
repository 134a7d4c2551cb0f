//! The handles every capability shares, built once at startup: the Postgres pool, the Redis
//! handle with its key names and scripts, the configuration and the metrics. Each
//! capability's own state (`events::Catalog`, `tokens::Tokens`, `queue::Line`,
//! `holds::HoldPath`, `checkout::Checkout`, `report::Public`) starts from a [`Base`] and adds
//! what that capability owns; `state.rs` composes them.
//!
//! Invariant: this module imports only the bottom layer (config, redis, telemetry), so a
//! capability that takes a [`Base`] reaches nothing above itself through it.

use std::{ops::Deref, sync::Arc};

use axum::{
    extract::{FromRef, FromRequestParts},
    http::request::Parts,
};
use sqlx::PgPool;

use crate::{
    client::Client,
    config::Config,
    error::Error,
    redis::{keys::Keys, scripts::Scripts, store::Redis},
    telemetry::metrics::Metrics,
};

/// The shared handles behind one `Arc`: a clone (every request's state extraction makes
/// one) is a single reference count.
#[derive(Clone)]
pub struct Base(Arc<Handles>);

/// What a [`Base`] holds.
pub struct Handles {
    /// The Postgres pool: events, seats, holds, sales and the audit, the durable truth.
    pub db: PgPool,
    /// One Redis or Redis Cluster handle shared by all requests (multiplexed connections that
    /// reconnect by themselves after Redis comes back or a cluster fails over).
    pub redis: Redis,
    /// Every Redis key name, under this deployment's prefix (tests run side by side on one
    /// Redis with a prefix each).
    pub keys: Keys,
    /// The Lua scripts, loaded once per Redis and called by SHA.
    pub scripts: Scripts,
    /// The configuration the instance started with (limits, timeouts, cookie flags).
    pub config: Config,
    /// This instance's Prometheus metrics (`/metrics`).
    pub metrics: Metrics,
}

impl Base {
    pub fn new(handles: Handles) -> Self {
        Self(Arc::new(handles))
    }
}

impl Deref for Base {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.0
    }
}

/// Who is asking, read with the configuration's trusted proxies ([`Client::of`]): here, not in
/// `client.rs`, so that the bottom layer never reaches up to the handles.
impl<S: Send + Sync> FromRequestParts<S> for Client
where
    Base: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let base = Base::from_ref(state);
        Self::from_request(&parts.extensions, &parts.headers, &base.config)
    }
}
