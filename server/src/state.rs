//! The state every handler shares. Cheap to clone: one `Arc` (every request clones it several
//! times, in middleware and extractors, so a clone is a single reference count).

use std::{ops::Deref, sync::Arc};

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use sqlx::PgPool;

use crate::{
    admission::rooms::Rooms,
    checkout::provider::Payments,
    config::{Config, Secret},
    ops::{metrics::Metrics, shed::Shed},
    redis::{Keys, Redis, Scripts},
    tokens::{Sessions, admission::AdmissionKeys},
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

/// What [`AppState`] shares.
pub struct Shared {
    pub db: PgPool,
    /// One Redis or Redis Cluster handle shared by all requests (multiplexed connections that
    /// reconnect by themselves after Redis comes back or a cluster fails over).
    pub redis: Redis,
    pub keys: Keys,
    pub scripts: Scripts,
    pub config: Config,
    pub sessions: Sessions,
    pub admin_token: Secret,
    pub admission: AdmissionKeys,
    /// The payment provider's client (bulkhead, breaker).
    pub payments: Payments,
    /// Room settings, re-read from Postgres every `room_refresh_ms`.
    pub rooms: Rooms,
    pub metrics: Metrics,
    /// The concurrency budgets of this instance (load shedding).
    pub shed: Shed,
    pub leptos: LeptosOptions,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
