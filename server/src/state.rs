//! The composed state: each capability's own state, built once at startup
//! (`startup::Application::build`), and what only the composition needs (load shedding, the
//! public reports, Leptos's options). Capabilities never import this module: each takes its
//! own state through axum's `FromRef` ([`Base`] < `Catalog` < `Tokens` < `Line` < `HoldPath` <
//! `Checkout`, each extending the one before it), so a capability reaches only what is below
//! it. The operator API, the pages and the operations routes, which span every capability,
//! take the composed state. Cheap to clone: one `Arc`.

use std::{ops::Deref, sync::Arc};

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;

use crate::{
    base::Base,
    checkout::state::Checkout,
    events::state::Catalog,
    holds::state::HoldPath,
    opening::Opening,
    operators::state::Staff,
    ops::shed::{Shed, Shedding},
    origin::{revoked::Revoked, state::Origin},
    queue::state::Line,
    report::{Public, Reports},
    tokens::state::Tokens,
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
    /// Every capability's state, from the top of the chain (checkout extends the hold path,
    /// which extends the line, ... down to the [`Base`]).
    pub checkout: Checkout,
    /// The night's public reports, computed at most once per `report::FRESH` per event.
    pub reports: Arc<Reports>,
    /// The concurrency budgets of this instance (load shedding).
    pub shed: Arc<Shed>,
    /// The operators' settings: the break-glass token, passkeys, the company's sign-in.
    pub staff: Arc<Staff>,
    /// The buyers the ticketer's sites reported done (the gate's: `origin::state::Origin`).
    pub revoked: Arc<Revoked>,
    /// Leptos's site options, for server rendering and the static files.
    pub leptos: LeptosOptions,
}

/// The composed state reads as the top capability's: `state.db`, `state.rooms`,
/// `state.payments`, ...; and a `&AppState` passes where a capability asks for its own.
impl Deref for Shared {
    type Target = Checkout;

    fn deref(&self) -> &Checkout {
        &self.checkout
    }
}

impl FromRef<AppState> for Base {
    fn from_ref(state: &AppState) -> Self {
        state.base.clone()
    }
}

impl FromRef<AppState> for Catalog {
    fn from_ref(state: &AppState) -> Self {
        state.catalog.clone()
    }
}

impl FromRef<AppState> for Tokens {
    fn from_ref(state: &AppState) -> Self {
        state.tokens.clone()
    }
}

impl FromRef<AppState> for Line {
    fn from_ref(state: &AppState) -> Self {
        state.line.clone()
    }
}

impl FromRef<AppState> for HoldPath {
    fn from_ref(state: &AppState) -> Self {
        state.holds.clone()
    }
}

impl FromRef<AppState> for Checkout {
    fn from_ref(state: &AppState) -> Self {
        state.checkout.clone()
    }
}

impl FromRef<AppState> for Opening {
    fn from_ref(state: &AppState) -> Self {
        state.line.opening()
    }
}

impl FromRef<AppState> for Origin {
    fn from_ref(state: &AppState) -> Self {
        Origin {
            line: state.line.clone(),
            revoked: state.revoked.clone(),
        }
    }
}

impl FromRef<AppState> for Public {
    fn from_ref(state: &AppState) -> Self {
        Public {
            catalog: state.catalog.clone(),
            reports: state.reports.clone(),
        }
    }
}

impl FromRef<AppState> for Shedding {
    fn from_ref(state: &AppState) -> Self {
        Shedding {
            tokens: state.tokens.clone(),
            shed: state.shed.clone(),
            staff: state.staff.clone(),
        }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
