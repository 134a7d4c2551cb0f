//! The operator's credential: `Authorization: Bearer <admin token>` (compared in constant
//! time), or the dashboard's HttpOnly cookie, a signed admin session that
//! `POST /api/admin/session` issues for the admin token. A buyer's session is never an admin
//! credential (its audience differs).
//!
//! Invariants: an admin write (any method but GET and HEAD) carries
//! `Content-Type: application/json` (415 otherwise), so no HTML form can send one; one made
//! with the cookie also comes from the dashboard's own origin (`Sec-Fetch-Site: same-origin`,
//! or an `Origin` naming the request's host; 403 otherwise); sign-in attempts are limited per
//! client address across instances (`admin::session`); a configured admin token has at least
//! [`MIN_ADMIN_TOKEN_CHARS`] characters (the server refuses to start otherwise).

use axum::{
    Json,
    extract::{FromRef, FromRequestParts},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header, request::Parts},
    response::{IntoResponse, Response},
};

use crate::{
    error::Error,
    tokens::cookies::{self, ADMIN_COOKIE, Cookie},
    tokens::state::Tokens,
};

/// The shortest admin token the server accepts from configuration.
pub const MIN_ADMIN_TOKEN_CHARS: usize = 32;

/// A request made by the operator, and how they signed in (for the audit).
pub struct Admin {
    pub via: &'static str,
}

impl<S: Send + Sync> FromRequestParts<S> for Admin
where
    Tokens: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = &Tokens::from_ref(state);
        let write = !matches!(parts.method, Method::GET | Method::HEAD);
        let via = admin_via(state, &parts.headers).ok_or_else(|| {
            Error::Unauthorized("the admin API needs Authorization: Bearer <admin token>".into())
        })?;
        if write && via == "dashboard" && !same_origin(&parts.headers) {
            return Err(Error::Forbidden(
                "an admin change made with the dashboard's cookie must come from the \
                 dashboard's own page"
                    .into(),
            ));
        }
        if write && !is_admin_body(&parts.headers) {
            return Err(Error::UnsupportedMediaType(
                "admin changes take a JSON body with Content-Type: application/json (a list: \
                 text/csv)"
                    .into(),
            ));
        }
        Ok(Admin { via })
    }
}

/// Whether an admin change's body is JSON, or CSV (an eligibility list): neither is a type a
/// form of another site can send without the browser asking first (CORS), unlike
/// `text/plain` or a form's own types.
fn is_admin_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("application/json") || v.eq_ignore_ascii_case("text/csv")
        })
}

/// Whether the browser says the request comes from a page of this site: `Sec-Fetch-Site`
/// when it sends one, else an `Origin` whose host is the request's `Host`. Neither: no.
fn same_origin(headers: &HeaderMap) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        return site == "same-origin";
    }
    match (text(header::ORIGIN), text(header::HOST)) {
        (Some(origin), Some(host)) => origin
            .split_once("://")
            .is_some_and(|(_, origin_host)| origin_host.eq_ignore_ascii_case(host)),
        _ => false,
    }
}

/// A configured admin token too short to resist guessing is refused at start.
pub fn check_admin_token(token: &str) -> Result<(), String> {
    if token.chars().count() < MIN_ADMIN_TOKEN_CHARS {
        return Err(format!(
            "the admin token (ANTEROOM_ADMIN_TOKEN) must have at least {MIN_ADMIN_TOKEN_CHARS} \
             characters; generate one with `openssl rand -base64 32`"
        ));
    }
    Ok(())
}

/// How `headers` carry the operator's credential (`"api"`: the admin token, `"dashboard"`:
/// the signed-in cookie), or `None` when they carry none.
pub fn admin_via(state: &Tokens, headers: &HeaderMap) -> Option<&'static str> {
    if let Some(given) = super::bearer(headers)
        && is_admin_token(state, given)
    {
        return Some("api");
    }
    if cookies::read(&state.config, headers, ADMIN_COOKIE)
        .is_some_and(|c| state.sessions.is_admin(c))
    {
        return Some("dashboard");
    }
    None
}

/// Whether `given` is the configured admin token (never, when none is configured).
pub fn is_admin_token(state: &Tokens, given: &str) -> bool {
    let expected = state.admin_token.expose();
    !expected.is_empty() && constant_time_eq(given.as_bytes(), expected.as_bytes())
}

/// Equality whose time does not depend on where the first differing byte is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The answer to a successful sign-in: 204 and the dashboard's signed admin cookie.
pub fn signed_in(state: &Tokens) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    Cookie::Admin {
        token: &state.sessions.issue_admin(),
    }
    .set(&state.config, response.headers_mut());
    response
}

/// The answer to a sign-out: the admin cookie cleared.
pub fn signed_out(state: &Tokens) -> Response {
    let mut response = Json(serde_json::json!({"signed_out": true})).into_response();
    Cookie::AdminSignedOut.set(&state.config, response.headers_mut());
    response
}
