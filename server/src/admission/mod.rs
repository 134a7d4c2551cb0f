//! Admission: the ticker that lets buyers out of the line at N a second (see [`ticker`]), the
//! room settings every instance applies within a second (see [`rooms`]; the operator changes
//! them through `crate::admin`), the admission log the night's report reads ([`log`]), the
//! night's series kept in Postgres ([`archive`]), and the retirement of a line after its night
//! ([`retire`]).
//!
//! N is the rate in force ([`rate_in_force`]): the operator's `admit_rate_per_second`, or with
//! the room's `auto_rate` the rate the ticker's leader steers once a second by the rule of
//! [`rate`] (AIMD with a dead band: cut by a third when the hold path passes its limits, one
//! step up while holds are quick and fewer buyers shop than the target, hold in between; why
//! that rule, there), from the hold path's health measured on every instance ([`signals`])
//! and the buyers shopping. The leader keeps the rate in Redis with its reason (`Keys::rate`);
//! every instance reads it once a second, so the estimates agree with the ticker.
//! Invariant: the rate in force is always within the room's bounds while `auto_rate` is on,
//! and exactly the operator's N while it is off (the automatic proposal is then only shown).

pub mod archive;
pub mod log;
pub mod rate;
pub mod retire;
pub mod rooms;
pub mod signals;
pub mod ticker;

use app::wire::Room;
use tokio_util::sync::CancellationToken;

use crate::state::AppState;

/// The admissions a second in force for `event_id` (whose room is `room`): what the ticker
/// admits and the estimates divide by.
pub fn rate_in_force(state: &AppState, event_id: &str, room: &Room) -> u32 {
    if !room.auto_rate {
        return room.admit_rate_per_second;
    }
    state
        .rates
        .get(event_id)
        .map_or(room.admit_rate_per_second, |r| r.rate)
        .clamp(
            room.min_admit_rate_per_second,
            room.max_admit_rate_per_second
                .max(room.min_admit_rate_per_second),
        )
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
