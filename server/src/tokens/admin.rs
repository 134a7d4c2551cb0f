//! The operator's credential: `Authorization: Bearer <admin token>` (compared in constant
//! time), or the dashboard's HttpOnly cookie, a signed admin session that
//! `POST /api/admin/session` issues for the admin token. A buyer's session is never an admin
//! credential (its audience differs).

use axum::{
    Json, Router,
    extract::{FromRequestParts, State},
    http::{StatusCode, request::Parts},
    response::{IntoResponse, Response},
    routing::post,
};
use serde::Deserialize;

use crate::{
    error::Error,
    extract::ApiJson,
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
        if let Some(given) = super::bearer(&parts.headers)
            && is_admin_token(state, given)
        {
            return Ok(Admin { via: "api" });
        }
        if super::cookie(&parts.headers, ADMIN_COOKIE).is_some_and(|c| state.sessions.is_admin(c)) {
            return Ok(Admin { via: "dashboard" });
        }
        Err(Error::Unauthorized(
            "the admin API needs Authorization: Bearer <admin token>".into(),
        ))
    }
}

fn is_admin_token(state: &AppState, given: &str) -> bool {
    let expected = state.admin_token.expose();
    !expected.is_empty() && constant_time_eq(given.as_bytes(), expected.as_bytes())
}

/// Equality whose time does not depend on where the first differing byte is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/admin/session",
        post(sign_in).delete(sign_out).get(whoami),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignIn {
    token: String,
}

/// `POST /api/admin/session {"token"}`: the dashboard's cookie for the admin token.
async fn sign_in(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<SignIn>,
) -> Result<Response, Error> {
    if !is_admin_token(&state, body.token.trim()) {
        return Err(Error::Unauthorized("that is not the admin token".into()));
    }
    let mut response = StatusCode::NO_CONTENT.into_response();
    Cookie::Admin {
        token: &state.sessions.issue_admin(),
    }
    .set(&state.config, response.headers_mut());
    Ok(response)
}

/// `GET /api/admin/session`: 200 for the operator, 401 otherwise.
async fn whoami(admin: Admin) -> Json<serde_json::Value> {
    Json(serde_json::json!({"admin": true, "via": admin.via}))
}

async fn sign_out(State(state): State<AppState>) -> Response {
    let mut response = Json(serde_json::json!({"signed_out": true})).into_response();
    Cookie::AdminSignedOut.set(&state.config, response.headers_mut());
    response
}
