//! Admission: the ticker that lets buyers out of the line at N a second (see [`ticker`]), the
//! room settings every instance applies within a second (see [`rooms`]; the operator changes
//! them through `crate::admin`), the admission log the night's report reads ([`log`]), the
//! night's series kept in Postgres ([`archive`]), and the retirement of a line after its night
//! ([`retire`]).

pub mod archive;
pub mod log;
pub mod retire;
pub mod rooms;
pub mod ticker;

use tokio_util::sync::CancellationToken;

use crate::state::AppState;

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
