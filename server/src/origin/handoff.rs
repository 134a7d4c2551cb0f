//! Handing an admitted buyer over to the ticketer's site (API.md "The gate"): the address
//! that takes a buyer there (`GET /events/{id}/continue`, for pages and forms) and the one-time
//! redemption of a hand-over token (`POST /api/handoff/redeem`, for the site).
//!
//! Invariants: a hand-over is signed only for a buyer the gate admits now (`AdmittedBuyer`),
//! for the room's target origin, for a minute; every hand-over of one admission has the same
//! `jti`, and a `jti` is redeemed once (Redis `SET NX`, kept until the admission ends), so a
//! copied link is worth nothing once used; a return address only ever chooses a path on the
//! target's origin.

use app::wire::{EventId, HandoverClaims, Redeem, Redeemed, Room, landing, target_origin};
use axum::{
    Json,
    extract::{Query, Request, State},
    http::{HeaderMap, Method, Uri, header},
    middleware::Next,
    response::Response,
};
use chrono::Utc;
use serde::Deserialize;

use crate::{
    accounts::routes::see_other,
    error::{Error, Result},
    extract::{self, ApiJson},
    queue::state::Line,
    responses::JsonBody,
    tokens::{
        cookies::{self, admission_cookie_name},
        gate::AdmittedBuyer,
        state::Tokens,
    },
};

/// `POST /api/handoff/redeem`: the claims of a hand-over token the first time it is shown,
/// 409 after, 401 when it is not one of ours, has expired, or is not for the target its room
/// sends buyers to now.
#[utoipa::path(
    post,
    path = "/api/handoff/redeem",
    tag = "gate",
    summary = "Redeem a hand-over token once (the ticketer's site, server to server)",
    request_body = app::wire::Redeem,
    responses(
        (status = 200, description = "The buyer and event it admits", body = app::wire::Redeemed),
        (status = 401, description = "unauthorized: a bad or expired token", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: redeemed before", body = app::wire::ErrorBody),
        JsonBody,
    )
)]
pub async fn redeem(
    State(state): State<Line>,
    ApiJson(body): ApiJson<Redeem>,
) -> Result<Json<Redeemed>> {
    let claims = verified(&state, &body.token).await?;
    if !first_use(&state, &claims).await? {
        return Err(Error::Conflict(
            "this hand-over was already used; a copied link admits nobody".into(),
        ));
    }
    Ok(Json(Redeemed {
        sub: claims.sub,
        evt: claims.evt,
        jti: claims.jti,
        exp: claims.exp,
        until: claims.until,
    }))
}

/// The claims of the hand-over `token` if this deployment signed it, it has not expired, and
/// it [`fits`] its event's room; else 401.
async fn verified(state: &Tokens, token: &str) -> Result<HandoverClaims> {
    let refused =
        || Error::Unauthorized("this hand-over token is not valid (or has expired)".into());
    let claims = state
        .keyring
        .current()
        .verify_handover(token.trim())
        .ok_or_else(refused)?;
    let room = state
        .rooms
        .get(&state.db, &claims.evt)
        .await
        .map_err(|_| refused())?;
    fits(&claims, &room).then_some(claims).ok_or_else(refused)
}

/// Whether the hand-over `claims` is one `room` gives now: for its target's origin, in its
/// epoch.
pub fn fits(claims: &HandoverClaims, room: &Room) -> bool {
    let target = room.gate.target_url.as_deref().and_then(target_origin);
    target.as_deref() == Some(claims.aud.as_str()) && claims.epc == room.epoch
}

/// Marks the hand-over `claims` used; `false` when it already was. Kept until the admission
/// behind it ends, with the buyer it handed over (what `done` reads for a `jti`).
pub async fn first_use(state: &Tokens, claims: &HandoverClaims) -> Result<bool> {
    let keep = (claims.until - Utc::now().timestamp()).max(claims.exp - claims.iat);
    let set: Option<String> = redis::cmd("SET")
        .arg(state.keys.handoff(&claims.evt, &claims.jti))
        .arg(claims.sub.as_str())
        .arg("NX")
        .arg("EX")
        .arg(keep.max(1))
        .query_async(&mut state.redis.clone())
        .await?;
    Ok(set.is_some())
}

/// The query of `/events/{id}/continue`: where on the target's site to land.
#[derive(Deserialize)]
pub struct Continue {
    #[serde(rename = "return")]
    back: Option<String>,
}

/// `GET /events/{id}/continue?return=<path>`: a buyer the gate admits to a room with a target
/// goes there (`303`) with a fresh hand-over, to `return` on the target's origin if given;
/// with the room off, to the target without one (the room lets everyone through then). Anyone
/// else goes back to the event's page, which says where they stand.
#[utoipa::path(
    get,
    path = "/events/{event_id}/continue",
    tag = "gate",
    summary = "An admitted buyer goes on to the ticketer's site (a redirect)",
    params(crate::extract::EventPath),
    responses(
        (status = 303, description = "To the target with a hand-over token, or back to the event page"),
        (status = 404, description = "not_found: no such event", body = app::wire::ErrorBody),
    )
)]
pub async fn continue_handler(
    State(state): State<Tokens>,
    extract::EventId(event_id): extract::EventId,
    Query(query): Query<Continue>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let page = format!("/events/{event_id}");
    let place = admitted(&state, &event_id, &method, uri.path(), &headers)
        .await
        .and_then(|admitted| destination(&state, &admitted, query.back.as_deref()));
    see_other(place.as_deref().unwrap_or(&page))
}

/// The buyer of the session in `headers`, if the gate admits them to `event_id` for this
/// `method` request of `path`.
async fn admitted(
    state: &Tokens,
    event_id: &str,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
) -> Option<AdmittedBuyer> {
    let buyer = state.sessions.buyer_of(&state.config, headers)?;
    AdmittedBuyer::check(
        state,
        buyer,
        EventId::from(event_id),
        (method, path),
        headers,
    )
    .await
    .ok()
}

/// Where `admitted` goes: the room's target (or `back` on its origin), with a hand-over while
/// the room is on. `None`: the room has no target.
fn destination(state: &Tokens, admitted: &AdmittedBuyer, back: Option<&str>) -> Option<String> {
    let target = admitted.room.gate.target_url.as_deref()?;
    match &admitted.claims {
        Some(claims) => state.keyring.current().handoff_url(claims, target, back),
        None => landing(target, back),
    }
}

/// Middleware of the event pages: in a room with a target, a buyer the gate admits is sent on
/// (`/events/{id}/continue`, the page's query kept, so `return` too) instead of being shown
/// Anteroom's own seat map, whether they arrive admitted or the page's own poll admits them
/// (the answer then sets the admission cookie, which the redirect keeps).
pub async fn send_on(State(state): State<Tokens>, request: Request, next: Next) -> Response {
    let event_id = match request.uri().path().split('/').collect::<Vec<_>>()[..] {
        ["", "events", id] if request.method() == Method::GET => id.to_owned(),
        _ => return next.run(request).await,
    };
    let targeted = match state.rooms.get(&state.db, &event_id).await {
        Ok(room) => room.gate.target_url.is_some(),
        Err(_) => false,
    };
    if !targeted {
        return next.run(request).await;
    }
    let onward = match request.uri().query() {
        Some(query) => format!("/events/{event_id}/continue?{query}"),
        None => format!("/events/{event_id}/continue"),
    };
    let (method, path) = (request.method(), request.uri().path());
    if admitted(&state, &event_id, method, path, request.headers())
        .await
        .is_some_and(|a| a.claims.is_some())
    {
        return see_other(&onward);
    }
    let response = next.run(request).await;
    if !cookies::sets(
        &state.config,
        response.headers(),
        &admission_cookie_name(&event_id),
    ) {
        return response;
    }
    let mut onward = see_other(&onward);
    for value in response.headers().get_all(header::SET_COOKIE) {
        onward
            .headers_mut()
            .append(header::SET_COOKIE, value.clone());
    }
    onward
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(redeem, continue_handler))]
pub struct Api;
