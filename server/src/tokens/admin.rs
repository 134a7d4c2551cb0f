//! The operator's credential: `Authorization: Bearer <admin token>` (compared in constant
//! time), or the dashboard's HttpOnly cookie, a signed admin session that
//! `POST /api/admin/session` issues for the admin token. A buyer's session is never an admin
//! credential (its audience differs).

use axum::{
    Json,
    extract::FromRequestParts,
    http::{HeaderMap, StatusCode, request::Parts},
    response::{IntoResponse, Response},
};

use crate::{
    error::Error,
    state::AppState,
    tokens::cookies::{ADMIN_COOKIE, Cookie},
};

/// A request made by the operator, and how they signed in (for the audit).
pub struct Admin {
    pub via: &'static str,
}

impl FromRequestParts<AppState> for Admin {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        admin_via(state, &parts.headers)
            .map(|via| Admin { via })
            .ok_or_else(|| {
                Error::Unauthorized(
                    "the admin API needs Authorization: Bearer <admin token>".into(),
                )
            })
    }
}

/// How `headers` carry the operator's credential (`"api"`: the admin token, `"dashboard"`:
/// the signed-in cookie), or `None` when they carry none.
pub fn admin_via(state: &AppState, headers: &HeaderMap) -> Option<&'static str> {
    if let Some(given) = super::bearer(headers)
        && is_admin_token(state, given)
    {
        return Some("api");
    }
    if super::cookie(headers, ADMIN_COOKIE).is_some_and(|c| state.sessions.is_admin(c)) {
        return Some("dashboard");
    }
    None
}

/// Whether `given` is the configured admin token (never, when none is configured).
pub fn is_admin_token(state: &AppState, given: &str) -> bool {
    let expected = state.admin_token.expose();
    !expected.is_empty() && constant_time_eq(given.as_bytes(), expected.as_bytes())
}

/// Equality whose time does not depend on where the first differing byte is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The answer to a successful sign-in: 204 and the dashboard's signed admin cookie.
pub fn signed_in(state: &AppState) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    Cookie::Admin {
        token: &state.sessions.issue_admin(),
    }
    .set(&state.config, response.headers_mut());
    response
}

/// The answer to a sign-out: the admin cookie cleared.
pub fn signed_out(state: &AppState) -> Response {
    let mut response = Json(serde_json::json!({"signed_out": true})).into_response();
    Cookie::AdminSignedOut.set(&state.config, response.headers_mut());
    response
}
