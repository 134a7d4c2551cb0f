//! `PUT /api/admin/events/{id}/draw`: the operator sets the draw's beacon (a value someone
//! else publishes after the pre-queue closes) until the sale opens, commits the draw to a
//! future drand round before the pre-queue opens, or enters that round's signature
//! (`opening::update_draw`). The change and its audit entry commit together; the answer is the
//! draw as published.

use app::wire::{BeaconUpdate, OperatorAction};
use axum::{extract::State, response::Response};

use super::audit::{self, Entry};
use crate::{
    error::{Error, Result},
    extract::{ApiJson, EventId},
    opening,
    operators::Actor,
    responses::{CheckedBody, NoEvent},
    state::AppState,
};

#[utoipa::path(
    put,
    path = "/api/admin/events/{event_id}/draw",
    tag = "admin",
    summary = "Set the draw's beacon (up to opens_at)",
    params(crate::extract::EventPath),
    request_body = app::wire::BeaconUpdate,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The draw", body = app::wire::Draw),
        (status = 409, description = "conflict: after opens_at, or a beacon source is committed", body = app::wire::ErrorBody),
        CheckedBody, NoEvent,
    )
)]
pub async fn set_beacon(
    actor: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    ApiJson(update): ApiJson<BeaconUpdate>,
) -> Result<Response> {
    update
        .validate()
        .map_err(|e| Error::Unprocessable(e.message))?;
    let mut tx = state.db.begin().await?;
    let before = opening::update_draw(&mut tx, &event_id, &update).await?;
    let entry = Entry::by(&actor, OperatorAction::SetBeacon, Some(&event_id))
        .change(&update)
        .before(&before)
        .after(&update);
    audit::commit(tx, entry).await?;
    tracing::info!(event = %event_id, actor = %actor.label, "draw beacon set");
    opening::published(&state.opening(), &event_id).await
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(set_beacon))]
pub struct Api;
