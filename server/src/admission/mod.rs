//! Admission: the ticker that lets buyers out of the line at N a second (see [`ticker`]), the
//! room settings every instance applies within a second (see [`rooms`]), and the operator's
//! `PUT /api/admin/events/{id}/room`.

pub mod rooms;
pub mod ticker;

use app::wire::{Room, RoomUpdate};
use axum::{
    Json, Router,
    extract::{Path, State},
    routing::put,
};
use tokio_util::sync::CancellationToken;

use crate::{error::Result, extract::ApiJson, state::AppState, tokens::Admin};

pub fn router() -> Router<AppState> {
    Router::new().route("/api/admin/events/{event_id}/room", put(update_room))
}

async fn update_room(
    _: Admin,
    State(state): State<AppState>,
    Path(event_id): Path<String>,
    ApiJson(update): ApiJson<RoomUpdate>,
) -> Result<Json<Room>> {
    let room = state.rooms.update(&state.db, &event_id, &update).await?;
    tracing::info!(event = %event_id, ?update, "room settings changed");
    Ok(Json(room))
}

/// Re-reads every room from Postgres every `room_refresh_ms` until `shutdown`.
pub async fn refresh_rooms(state: AppState, shutdown: CancellationToken) {
    let period = std::time::Duration::from_millis(u64::from(state.config.room_refresh_ms));
    loop {
        if let Err(e) = state.rooms.refresh(&state.db).await {
            tracing::warn!(error = %e, "could not re-read the room settings");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(period) => {}
        }
    }
}
