//! The operator API: every `/api/admin/*` endpoint, in this one router. Invariants: every
//! endpoint needs the operator's credential (`tokens::Admin`; a buyer's session is never one),
//! except signing in, which checks the admin token itself; every operator write (creating an
//! event, changing a room, setting a draw's beacon, keeping a night, signing in and out) is recorded in the audit ([`audit`]) with who,
//! when, and the state before and after, in the same transaction as the write, so a change
//! that committed is always in the audit and a refused one never is.

pub mod audit;
mod draw;
mod eligible;
mod events;
mod nights;
mod room;
mod session;
pub mod stats;

use axum::{
    Router,
    extract::FromRequestParts,
    http::request::Parts,
    routing::{get, post, put},
};

use crate::{client::Client, error::Error, state::AppState, tokens::Admin};

pub fn router() -> Router<AppState> {
    Router::new()
        // The dashboard's sign-in (cookie) for the admin token.
        .route(
            "/api/admin/session",
            post(session::sign_in)
                .delete(session::sign_out)
                .get(session::whoami),
        )
        // Events and their rooms.
        .route("/api/admin/events", post(events::create))
        .route("/api/admin/events/{event_id}/room", put(room::update))
        .route("/api/admin/events/{event_id}/draw", put(draw::set_beacon))
        .route(
            "/api/admin/events/{event_id}/eligible",
            put(eligible::put_list),
        )
        // Reading: the panel's numbers, the payments and the audit.
        .route("/api/admin/events/{event_id}/stats", get(stats::stats))
        .route(
            "/api/admin/events/{event_id}/payments",
            get(crate::checkout::payments::admin_payments),
        )
        .route(
            "/api/admin/events/{event_id}/audit",
            get(audit::room_changes),
        )
        .route("/api/admin/audit", get(audit::recent))
        // The nights kept: keep one now, list them, read one (JSON or CSV).
        .route(
            "/api/admin/events/{event_id}/nights",
            post(nights::keep).get(nights::list),
        )
        .route(
            "/api/admin/events/{event_id}/nights/{night_id}/series",
            get(nights::series),
        )
        .route(
            "/api/admin/events/{event_id}/nights/{night_id}/csv",
            get(nights::csv),
        )
}

/// The operator making a request, named as the audit records them: the credential they used
/// and the address they came from.
pub struct Operator {
    /// `admin via api from 127.0.0.1`: what the audit's `actor` says.
    pub actor: String,
}

impl Operator {
    fn new(via: &str, client: Client) -> Self {
        Operator {
            actor: format!("admin via {via} from {client}"),
        }
    }
}

impl FromRequestParts<AppState> for Operator {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let admin = Admin::from_request_parts(parts, state).await?;
        let client = Client::from_request_parts(parts, state).await?;
        Ok(Operator::new(admin.via, client))
    }
}
