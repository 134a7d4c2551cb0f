//! The state every handler shares. Cheap to clone: one `Arc` (every request clones it several
//! times, in middleware and extractors, so a clone is a single reference count).

use std::{ops::Deref, sync::Arc};

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use sqlx::PgPool;

use crate::{
    admission::{rate::Board, rooms::Rooms, signals::Health},
    checkout::provider::Payments,
    config::{Config, Secret},
    opening,
    ops::{metrics::Metrics, shed::Shed},
    queue::estimate::Bands,
    redis::{Keys, Redis, Scripts},
    report::Reports,
    tokens::{Sessions, rotation::KeyRing},
};

#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] shares: everything a handler, a background task or a page render needs,
/// built once at startup (`startup::Application::build`).
pub struct Shared {
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
    /// Signs and verifies buyer sessions and the dashboard's admin session.
    pub sessions: Sessions,
    /// The operator's credential, compared in constant time by `tokens::Admin`; resolved at
    /// startup (configuration or the data folder), so never re-read per request.
    pub admin_token: Secret,
    /// The admission tokens' signing key and the public keys served as the JWKS, as they
    /// rotate.
    pub admission: KeyRing,
    /// The payment provider's client (bulkhead, breaker).
    pub payments: Payments,
    /// Room settings, re-read from Postgres every `room_refresh_ms`.
    pub rooms: Rooms,
    /// This instance's Prometheus metrics (`/metrics`).
    pub metrics: Metrics,
    /// The concurrency budgets of this instance (load shedding).
    pub shed: Shed,
    /// The draws this instance has published once made (a made draw never changes).
    pub draws: opening::Published,
    /// What each event's estimate band is made of, read at most every few seconds.
    pub bands: Bands,
    /// The night's public reports, computed at most once per `report::FRESH` per event.
    pub reports: Reports,
    /// This instance's measurements of the hold path and the event loop (the automatic rate's
    /// signals, shared through Redis once a second by the ticker loop).
    pub health: Health,
    /// The rate in force of each event as this instance last read it (`admission::rate_in_force`).
    pub rates: Board,
    /// Leptos's site options, for server rendering and the static files.
    pub leptos: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
