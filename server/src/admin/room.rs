//! `PUT /api/admin/events/{id}/room`: the operator changes a room's settings. The change and
//! its audit entry commit together; this instance applies the new room at once, the others at
//! their next refresh (within `room_refresh_ms`). Stopping a room that takes buyers, or
//! allowing more seats per buyer, needs a step-up (`Actor::step_up`). Turning a room off keeps its night
//! (`admission::archive`).

use app::wire::{OperatorAction, Room, RoomUpdate};
use axum::{Json, extract::State};

use super::audit::{self, Entry};
use crate::{
    admission::archive,
    error::Result,
    extract::{ApiJson, EventId},
    operators::Actor,
    state::AppState,
};

/// Whether a room change needs a step-up (API.md "Operators"): a room turned off or paused
/// while it takes buyers, more seats allowed per buyer, or admitted buyers sent to a new site.
fn dangerous(before: &Room, after: &Room) -> bool {
    let stops = before.enabled && !before.paused && (!after.enabled || after.paused);
    // Where admitted buyers are sent: another site is the room's most valuable setting to
    // an attacker.
    let elsewhere =
        after.gate.target_url.is_some() && after.gate.target_url != before.gate.target_url;
    stops || elsewhere || after.seats_per_buyer > before.seats_per_buyer
}

#[utoipa::path(
    put,
    path = "/api/admin/events/{event_id}/room",
    tag = "admin",
    summary = "Change the room's settings (within one second)",
    params(crate::extract::EventPath),
    request_body = app::wire::RoomUpdate,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The room", body = app::wire::Room),
        (status = 400, description = "A malformed body", body = app::wire::ErrorBody),
        (status = 404, description = "No such event", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: opens_at brought forward after the pre-queue opened", body = app::wire::ErrorBody),
        (status = 422, description = "unprocessable: a value out of range, or an unknown field", body = app::wire::ErrorBody),
    )
)]
pub async fn update(
    actor: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    ApiJson(update): ApiJson<RoomUpdate>,
) -> Result<Json<Room>> {
    let mut tx = state.db.begin().await?;
    let (before, after) =
        crate::events::apply_room_update(&mut tx, &event_id, &update, state.draws.key()).await?;
    if dangerous(&before, &after.room) {
        // Refused here, the transaction rolls back: nothing changed.
        actor.step_up()?;
    }
    let entry = Entry {
        action: OperatorAction::ChangeRoom,
        event_id: Some(&event_id),
        actor: &actor.label,
        actor_id: actor.id(),
        change: audit::json(&update),
        before: Some(audit::json(&before)),
        after: Some(audit::json(&after.room)),
    };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    state.rooms.remember(&after);
    if before.enabled && !after.room.enabled {
        // The night is over: keep it. Best effort (the room is off either way); the operator
        // can keep it again on demand.
        let kept = match state.db.acquire().await {
            Ok(mut db) => archive::close(&state, &mut db, &event_id, &after.room, "room_off")
                .await
                .map(|_| ()),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = kept {
            tracing::warn!(event = %event_id, error = %e, "could not keep the night of a room turned off");
        }
    }
    tracing::info!(event = %event_id, actor = %actor.label, ?update, "room settings changed");
    Ok(Json(after.room))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(update))]
pub struct Api;
