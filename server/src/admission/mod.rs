//! Admission: the ticker that lets buyers out of the line at N a second (see [`ticker`]), the
//! room settings every instance applies within a second (see [`rooms`]), and the operator's
//! `PUT /api/admin/events/{id}/room`.

pub mod rooms;
pub mod ticker;

use crate::extract::EventId;
use app::wire::{Room, RoomChange, RoomUpdate};
use std::net::SocketAddr;

use axum::{
    Json, Router,
    extract::{ConnectInfo, State},
    routing::{get, put},
};
use tokio_util::sync::CancellationToken;

use crate::{error::Result, extract::ApiJson, state::AppState, tokens::Admin};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/admin/events/{event_id}/room", put(update_room))
        .route("/api/admin/events/{event_id}/audit", get(audit))
}

async fn update_room(
    admin: Admin,
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    EventId(event_id): EventId,
    ApiJson(update): ApiJson<RoomUpdate>,
) -> Result<Json<Room>> {
    let actor = format!("admin via {} from {}", admin.via, peer.ip());
    let room = state
        .rooms
        .update(&state.db, &event_id, &update, &actor)
        .await?;
    tracing::info!(event = %event_id, %actor, ?update, "room settings changed");
    Ok(Json(room))
}

/// `GET /api/admin/events/{id}/audit`: the room changes, newest first.
async fn audit(
    _: Admin,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Vec<RoomChange>>> {
    let rows: Vec<(
        String,
        sqlx::types::Json<RoomUpdate>,
        chrono::DateTime<chrono::Utc>,
    )> = sqlx::query_as(
        "select actor, change, created_at from room_change where event_id = $1 \
         order by created_at desc, id desc limit 100",
    )
    .bind(&event_id)
    .fetch_all(&state.db)
    .await?;
    Ok(Json(
        rows.into_iter()
            .map(|(actor, change, at)| RoomChange {
                actor,
                change: change.0,
                at,
            })
            .collect(),
    ))
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
