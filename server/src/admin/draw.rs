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
    state::AppState,
};

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
    let entry = Entry {
        action: OperatorAction::SetBeacon,
        event_id: Some(&event_id),
        actor: &actor.label,
        actor_id: actor.id(),
        change: audit::json(&update),
        before: Some(before),
        after: Some(audit::json(&update)),
    };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    tracing::info!(event = %event_id, actor = %actor.label, "draw beacon set");
    opening::published(&state, &event_id).await
}
