//! In front of the ticketer's own site (API.md "The gate", DESIGN.md): a room with a
//! `target_url` hands its admitted buyers over to that site ([`handoff`]), a reverse proxy
//! in front of the site asks whether a request may pass ([`check`]), the site says when a
//! buyer is done ([`done`], remembered for the gate in [`revoked`], which this capability's
//! own state carries: [`state::Origin`]). With the automatic rate the ticker's leader follows
//! the site's health (`admission::probe`). Anteroom's own seat map and hold path stay the
//! default: a room without a target behaves as before.
//!
//! Invariants: every token this capability accepts was signed with the admission keys and is
//! checked against the room as this instance knows it (epoch, target); a hand-over is used at
//! most once; the proxy's gate calls neither Postgres nor (but once a second per event) Redis.

pub mod check;
pub mod done;
pub mod handoff;
pub mod revoked;
pub mod state;

use axum::{
    Router,
    extract::FromRef,
    routing::{get, post},
};

use crate::{origin::state::Origin, queue::state::Line, tokens::state::Tokens};

/// The buyer-facing and the proxy-facing routes (`done` is an operator route: `admin`).
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Line: FromRef<S>,
    Origin: FromRef<S>,
    Tokens: FromRef<S>,
{
    Router::new()
        .route("/api/handoff/redeem", post(handoff::redeem))
        .route("/api/gate/check", get(check::check))
        .route(
            "/events/{event_id}/continue",
            get(handoff::continue_handler),
        )
}
