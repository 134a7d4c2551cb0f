//! The gate in front of the seat map and the hold path, and the one way a token a request
//! presents is found (a header for API clients, else the event's cookie for browsers).
//!
//! Invariant (DESIGN.md 7): while an event's room is on, [`AdmittedBuyer`] lets a request
//! through only with an admission token valid now for that event and for the session's buyer
//! (checked by [`crate::tokens::keys::AdmissionKeys::verify`]) and minted in the room's
//! present epoch (a token from before the room was last turned on or off does not pass);
//! anything else is 403 `not_admitted` with the queue URL, 401 without a session, 404 for an
//! unknown event. With the room off, every buyer passes. No other code decides who is
//! admitted: [`admission`] is the one check of a presented token.
//!
//! In a room that binds tokens (`bind_tokens`, API.md "Tokens bound to the device") a token
//! passes only with its `cnf.jkt` and a fresh DPoP proof of this request made with that very
//! key, bound to that very token (`tokens::dpop`); a token without `cnf` (minted before the
//! room bound tokens) does not pass there, and the buyer's next poll mints a bound one.

use app::wire::{AdmissionClaims, BuyerId, EventId, Room};
use axum::{
    Json, Router,
    extract::{FromRef, FromRequestParts, State},
    http::{HeaderMap, HeaderValue, Method, header, request::Parts},
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::{
    config::Config,
    error::{Error, Result},
    extract,
    responses::{Admitted, NoEvent},
    tokens::{
        buyer::Buyer,
        cookies::{self, admission_cookie_name},
        dpop::{self, ProofFor},
        keys::JWKS_MAX_AGE,
        state::Tokens,
    },
};

/// The header in which API clients present their admission token.
pub const ADMISSION_HEADER: &str = "admission-token";

/// The token a request presents: the `header` (API clients), else the cookie `cookie_name`
/// (browsers), surrounding blanks trimmed. Whether it is valid is the caller's question.
pub fn presented<'a>(
    config: &Config,
    headers: &'a HeaderMap,
    header: &str,
    cookie_name: &str,
) -> Option<&'a str> {
    headers
        .get(header)
        .and_then(|v| v.to_str().ok())
        .or_else(|| cookies::read(config, headers, cookie_name))
        .map(str::trim)
}

/// The claims of the admission token in `headers` if it admits `buyer` to `event` now, in
/// `room` (the event's room in force).
pub fn admission(
    state: &Tokens,
    headers: &HeaderMap,
    event: &EventId,
    buyer: &BuyerId,
    room: &Room,
) -> Option<AdmissionClaims> {
    presented(
        &state.config,
        headers,
        ADMISSION_HEADER,
        &admission_cookie_name(event),
    )
    .and_then(|token| state.keyring.current().verify(token, event, buyer))
    .filter(|claims| claims.epc == room.epoch)
}

/// A buyer who may see the seat map and hold seats of the event in the path: admitted with a
/// valid token, or any buyer while the event's room is off.
pub struct AdmittedBuyer {
    /// Who passed.
    pub buyer: Buyer,
    /// Into which event.
    pub event_id: EventId,
    /// The event's room, as the gate read it (handlers need not read it again).
    pub room: Room,
    /// The token's claims; `None` when the room is off.
    pub claims: Option<AdmissionClaims>,
}

impl AdmittedBuyer {
    /// The gate itself: whether `buyer`, with the admission token in `headers`, may pass into
    /// `event_id` by a `method` request of `path`.
    pub async fn check(
        state: &Tokens,
        buyer: Buyer,
        event_id: EventId,
        (method, path): (&Method, &str),
        headers: &HeaderMap,
    ) -> Result<Self> {
        let room = state.rooms.get(&state.db, &event_id).await?;
        let claims = if room.enabled {
            let Some(claims) = admission(state, headers, &event_id, &buyer.id, &room) else {
                return Err(Error::NotAdmitted {
                    event_id: event_id.into(),
                });
            };
            if room.bind_tokens {
                let request = ProofFor {
                    method,
                    path,
                    headers,
                    token: presented(
                        &state.config,
                        headers,
                        ADMISSION_HEADER,
                        &admission_cookie_name(&event_id),
                    ),
                };
                if let Err(reason) = bound(state, &event_id, &claims, &request).await? {
                    return Err(Error::NotProven {
                        event_id: event_id.into(),
                        reason,
                    });
                }
            }
            Some(claims)
        } else {
            // No line, no token: but the room's rules of who may come in still hold.
            crate::accounts::eligible::check(&state.base, &room, &buyer, &event_id).await?;
            None
        };
        Ok(Self {
            buyer,
            event_id,
            room,
            claims,
        })
    }
}

/// Whether the bound token `claims` comes with a proof of `request` made by the key it is bound
/// to; else the reason it does not pass.
async fn bound(
    state: &Tokens,
    event_id: &EventId,
    claims: &AdmissionClaims,
    request: &ProofFor<'_>,
) -> Result<std::result::Result<(), &'static str>> {
    let Some(cnf) = &claims.cnf else {
        return Ok(Err(
            "this admission token is not bound to a device; ask for your place again",
        ));
    };
    Ok(match dpop::check(state, event_id, request).await? {
        Ok(jkt) if jkt == cnf.jkt => Ok(()),
        Ok(_) => {
            dpop::wrong_key(state);
            Err("the DPoP proof was made with another key than the token is bound to")
        }
        Err(refused) => Err(refused.reason()),
    })
}

impl<S: Send + Sync> FromRequestParts<S> for AdmittedBuyer
where
    Tokens: FromRef<S>,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self> {
        let state = &Tokens::from_ref(state);
        let buyer = <Buyer as FromRequestParts<Tokens>>::from_request_parts(parts, state).await?;
        let extract::EventId(event_id) = extract::EventId::from_request_parts(parts, state).await?;
        Self::check(
            state,
            buyer,
            event_id.into(),
            (&parts.method, parts.uri.path()),
            &parts.headers,
        )
        .await
    }
}

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/api/events/{event_id}/admission", get(admission_handler))
        .route("/.well-known/jwks.json", get(jwks))
}

/// `GET /api/events/{id}/admission`: whether this request passes the gate, and until when.
#[utoipa::path(
    get,
    path = "/api/events/{event_id}/admission",
    tag = "session",
    summary = "Whether the admission token admits this buyer to this event",
    params(crate::extract::EventPath),
    security(("session" = [], "admission" = [])),
    responses(
        (status = 200, description = "Admitted", body = Object),
        Admitted, NoEvent,
    )
)]
async fn admission_handler(admitted: AdmittedBuyer) -> Json<Value> {
    Json(json!({
        "event_id": admitted.event_id,
        "buyer_id": admitted.buyer.id,
        "admitted": true,
        "expires_at": admitted.claims.map(|c| DateTime::<Utc>::from_timestamp(c.exp, 0)),
    }))
}

/// `GET /.well-known/jwks.json`, cacheable for [`JWKS_MAX_AGE`]: `rotation` signs with a new
/// key only after every instance has published it longer than that.
#[utoipa::path(
    get,
    path = "/.well-known/jwks.json",
    tag = "session",
    summary = "The public keys that verify admission tokens (RFC 7517)",
    responses(
        (status = 200, description = "The key set", body = Object),
    )
)]
async fn jwks(State(state): State<Tokens>) -> Response {
    let mut response = Json(state.keyring.current().jwks().clone()).into_response();
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_str(&format!("public, max-age={}", JWKS_MAX_AGE.as_secs()))
            .expect("ASCII"),
    );
    response
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(admission_handler, jwks))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_presented_token_is_the_header_first_then_the_cookie() {
        let config = Config {
            dev: true,
            ..Config::defaults()
        };
        let mut h = HeaderMap::new();
        h.append(
            "cookie",
            "a=1; anteroom_admission_e=from-cookie".parse().unwrap(),
        );
        assert_eq!(
            presented(&config, &h, ADMISSION_HEADER, "anteroom_admission_e"),
            Some("from-cookie")
        );
        assert_eq!(
            presented(&config, &h, ADMISSION_HEADER, "anteroom_admission_f"),
            None
        );
        h.append(ADMISSION_HEADER, " from-header ".parse().unwrap());
        assert_eq!(
            presented(&config, &h, ADMISSION_HEADER, "anteroom_admission_e"),
            Some("from-header")
        );
    }
}
