//! `POST /api/events/{id}/admissions/done` (an API key with `admissions:done`, or an operator
//! of the event): the ticketer's site says a buyer it was handed finished or left.
//!
//! Invariants: the buyer is no longer counted among the admitted still shopping (the
//! automatic rate admits someone in their place at its next tick), and the proxy's gate lets
//! their admission pass no more (within `origin::revoked::FRESH` on every instance, at once on
//! this one). A report names the buyer (`sub`) or a redeemed hand-over (`jti`; unknown: 404);
//! reporting twice changes nothing more. What is stored lives no longer than an admission.

use app::wire::{BuyerId, Done};
use axum::{extract::State, http::StatusCode};
use chrono::Utc;

use crate::{
    error::{Error, Result},
    extract::{ApiJson, EventId},
    operators::Actor,
    origin::state::Origin,
    responses::{CheckedBody, NoEvent},
};

#[utoipa::path(
    post,
    path = "/api/events/{event_id}/admissions/done",
    tag = "admin",
    summary = "The ticketer's site says a buyer it was handed finished or left (an API key with admissions:done)",
    params(crate::extract::EventPath),
    request_body = app::wire::Done,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 204, description = "Noted"),
        CheckedBody, NoEvent,
    )
)]
pub async fn done(
    _actor: Actor,
    State(origin): State<Origin>,
    EventId(event_id): EventId,
    ApiJson(report): ApiJson<Done>,
) -> Result<StatusCode> {
    let state = &origin.line;
    report
        .validate()
        .map_err(|e| Error::Unprocessable(e.message))?;
    // 404 for an event nobody knows.
    state.rooms.get(&state.db, &event_id).await?;
    let buyer = match (report.sub, report.jti) {
        (Some(sub), _) => sub,
        (None, Some(jti)) => {
            let sub: Option<String> = redis::cmd("GET")
                .arg(state.keys.handoff(&event_id, &jti))
                .query_async(&mut state.redis.clone())
                .await?;
            BuyerId::from(sub.ok_or_else(|| {
                Error::NotFound(format!("no hand-over {jti:?} was redeemed in this event"))
            })?)
        }
        (None, None) => unreachable!("validated: one of the two"),
    };
    let now = Utc::now().timestamp();
    let life = i64::from(state.config.admission_ttl_seconds);
    let revoked = state.keys.revoked(&event_id);
    let () = redis::pipe()
        .zrem(state.keys.shopping(&event_id), buyer.as_str())
        .ignore()
        .zadd(&revoked, buyer.as_str(), now + life)
        .ignore()
        .cmd("ZREMRANGEBYSCORE")
        .arg(&revoked)
        .arg("-inf")
        .arg(now)
        .ignore()
        .expire(&revoked, life + 60)
        .ignore()
        .query_async(&mut state.redis.clone())
        .await?;
    origin.revoked.forget(&event_id);
    Ok(StatusCode::NO_CONTENT)
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(done))]
pub struct Api;
