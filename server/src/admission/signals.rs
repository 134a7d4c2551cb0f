//! The automatic rate's signals across instances: once a second the ticker loop publishes
//! this instance's [`Measured`] (`telemetry::health`) for every ticking event in the event's
//! `health` hash in Redis (one field per instance, written with a time), where the leader
//! combines them ([`combine`]): the leader sees every instance, not just itself. The event
//! loop's lag is sampled here ([`sample_loop_lag`]).
//!
//! Invariant: the Redis hash is bounded by the instances alive (it expires [`KEEP`] after its
//! last write, and a field older than `telemetry::health::WINDOW` is ignored and dropped by
//! the leader).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use tokio_util::sync::CancellationToken;

use super::rate::Signals;
use crate::base::Base;
pub use crate::telemetry::health::{Health, Measured, WINDOW};

/// How long an event's `health` hash outlives its last write.
pub const KEEP: Duration = Duration::from_secs(10);
/// How often the event loop's lag is sampled.
const LAG_PERIOD: Duration = Duration::from_millis(100);

/// The worst of every instance's measurements taken since `fresh_from_ms`, with the
/// buyers `shopping`: every instance serves holds from the same pool and rows, so the
/// slowest one is the one the line must not outrun.
pub fn combine<'a>(
    all: impl IntoIterator<Item = &'a Measured>,
    fresh_from_ms: i64,
    shopping: u64,
) -> Signals {
    let max = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    all.into_iter().filter(|m| m.at_ms >= fresh_from_ms).fold(
        Signals {
            shopping,
            ..Signals::default()
        },
        |s, m| Signals {
            hold_p99_ms: max(s.hold_p99_ms, m.hold_p99_ms),
            acquire_wait_ms: max(s.acquire_wait_ms, m.acquire_wait_p99_ms),
            loop_lag_ms: s.loop_lag_ms.max(m.loop_lag_ms),
            shopping,
            origin: None,
        },
    )
}

/// Measures how late the event loop wakes a task that sleeps [`LAG_PERIOD`], until `shutdown`.
pub async fn sample_loop_lag(health: Arc<Health>, base: Base, shutdown: CancellationToken) {
    loop {
        let asked = Instant::now();
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(LAG_PERIOD) => {}
        }
        let lag = asked.elapsed().saturating_sub(LAG_PERIOD);
        health.lagged(lag);
        base.metrics.loop_lag.set(lag.as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worst_fresh_instance_counts_and_stale_ones_do_not() {
        let quick = Measured {
            at_ms: 1000,
            hold_p99_ms: Some(5.0),
            ..Measured::default()
        };
        let slow = Measured {
            at_ms: 1000,
            hold_p99_ms: Some(90.0),
            loop_lag_ms: 7.0,
            ..Measured::default()
        };
        let stale = Measured {
            at_ms: 10,
            hold_p99_ms: Some(900.0),
            ..Measured::default()
        };
        let signals = combine([&quick, &slow, &stale], 500, 4);
        assert_eq!(signals.hold_p99_ms, Some(90.0));
        assert_eq!(signals.acquire_wait_ms, None);
        assert_eq!((signals.loop_lag_ms, signals.shopping), (7.0, 4));
    }
}
