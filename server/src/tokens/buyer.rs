//! The buyer of a request ([`Buyer`]: who the session token names, else 401) and the
//! session routes: `POST /api/session` issues a buyer session (rate-limited per client
//! address), `GET /api/session` says whose it is.

use std::time::Duration;

use app::wire::NewSession;
use axum::{
    Json, Router,
    extract::{FromRef, FromRequestParts, State},
    http::{StatusCode, request::Parts},
    response::{IntoResponse, Response},
    routing::post,
};

use crate::{
    base::Base,
    client::Client,
    error::Error,
    extract::ApiJson,
    ratelimit,
    responses::{JsonBody, RateLimited, Session},
    tokens::{cookies::Cookie, state::Tokens},
};

pub use crate::tokens::session::Buyer;

/// The buyer making the request. Without a valid session: 401 `unauthorized`.
impl<S: Send + Sync> FromRequestParts<S> for Buyer
where
    Tokens: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = &Tokens::from_ref(state);
        state
            .sessions
            .buyer_of(&state.config, &parts.headers)
            .ok_or_else(|| {
                Error::Unauthorized(
                    "start a session first (POST /api/session) and send its token".into(),
                )
            })
    }
}

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: FromRef<S>,
    Base: FromRef<S>,
{
    Router::new().route("/api/session", post(create).get(whoami))
}

/// `GET /api/session`: the buyer this session names, and whether it is an account's.
#[utoipa::path(
    get,
    path = "/api/session",
    tag = "session",
    summary = "Who the session is",
    security(("session" = [])),
    responses(
        (status = 200, description = "The buyer (buyer_id, account)", body = Object),
        Session,
    )
)]
async fn whoami(buyer: Buyer) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "buyer_id": buyer.id, "account": buyer.account.is_some() }))
}

/// `POST /api/session`.
#[utoipa::path(
    post,
    path = "/api/session",
    tag = "session",
    summary = "Start a buyer session (anonymous, or an account by the ticketer's assertion)",
    request_body = app::wire::NewSession,
    responses(
        (status = 201, description = "The session (and a Set-Cookie)", body = app::wire::SessionCreated),
        (status = 401, description = "unauthorized: a bad, expired or replayed assertion", body = app::wire::ErrorBody),
        JsonBody, RateLimited,
    )
)]
async fn create(
    State(state): State<Tokens>,
    client: Client,
    ApiJson(body): ApiJson<NewSession>,
) -> Result<Response, Error> {
    if body.name.as_ref().is_some_and(|n| n.chars().count() > 100) {
        return Err(Error::Unprocessable(
            "name must have at most 100 characters".into(),
        ));
    }
    ratelimit::check(
        &state,
        "session",
        &client.address(),
        state.config.sessions_per_minute,
        Duration::from_secs(60),
    )
    .await?;
    // A hand-over from the ticketer's site makes the session the account's; the assertion is
    // checked (and used up) only once the address is within its limit.
    let created = match &body.assertion {
        Some(jwt) => {
            let account = state.accounts.assertions.verify(&state.base, jwt).await?;
            state.sessions.issue_account(&account)
        }
        None => state.sessions.issue(),
    };
    let mut response = (StatusCode::CREATED, Json(&created)).into_response();
    Cookie::Session {
        token: &created.token,
    }
    .set(&state.config, response.headers_mut());
    Ok(response)
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, whoami))]
pub struct Api;
