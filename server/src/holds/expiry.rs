//! The expiry sweep: every `hold_sweep_seconds` (per event, the operator's setting; the
//! shortest among the rooms that are on wins), marks active holds past their expiry as expired
//! and frees the seats they still own, in one transaction (DESIGN.md 9). One instance sweeps
//! at a time (a `Lock` with a lease); the hold transaction does not wait for it, since it
//! already treats an expired hold's seats as free.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::{
    error::Result,
    holds::after_seat_change,
    holds::state::HoldPath,
    redis::{Counter, Lock},
};

/// One sweep, if no other instance is sweeping. Returns the holds it expired.
pub async fn sweep(state: &HoldPath) -> Result<u64> {
    let lease = Duration::from_secs(u64::from(
        state.rooms.sweep_interval(state.config.hold_sweep_seconds),
    ));
    if !Lock::new(state.keys.sweep_lock())
        .acquire(&state.redis, lease)
        .await?
    {
        return Ok(0);
    }
    let expired: Vec<(String, String)> = sqlx::query_as(
        "with expired as ( \
             update hold set status = 'expired', updated_at = now() \
             where status = 'active' and expires_at <= now() \
             returning id, event_id), \
         freed as ( \
             update seat set status = 'available', hold_id = null, version = version + 1, \
                 updated_at = now() \
             where status = 'held' and hold_id in (select id from expired)) \
         select id, event_id from expired",
    )
    .fetch_all(&state.db)
    .await?;
    let mut events: Vec<&str> = expired.iter().map(|(_, e)| e.as_str()).collect();
    events.sort_unstable();
    events.dedup();
    for event_id in events {
        after_seat_change(state, event_id, Counter::Expiries).await;
    }
    // The lock stays until its lease ends: one sweep per interval across all instances.
    Ok(expired.len() as u64)
}

/// Sweeps until `shutdown`, every `hold_sweep_seconds` of the rooms that are on (re-read each
/// time, so the operator's change applies at the next sweep), else of the configuration.
pub async fn run(state: HoldPath, shutdown: CancellationToken) {
    loop {
        let period = Duration::from_secs(u64::from(
            state.rooms.sweep_interval(state.config.hold_sweep_seconds),
        ));
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(period) => {}
        }
        match sweep(&state).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(holds = n, "expired holds swept"),
            Err(e) => tracing::warn!(error = %e, "hold sweep failed"),
        }
    }
}
