//! This instance's measurements of the hold path, which the automatic rate follows: each hold
//! transaction's own duration and its wait for a pooled connection ([`Health::record`]), and
//! the tokio event loop's lag ([`sample_loop_lag`]). Once a second the ticker loop publishes
//! [`Health::measure`] for every ticking event in the event's `health` hash in Redis (one
//! field per instance, written with a time), where the leader combines them
//! ([`Measured::combine`]): the leader sees every instance, not just itself.
//!
//! Invariants: memory is bounded (at most [`MAX_SAMPLES`] samples, none older than
//! [`WINDOW`]); the Redis hash is bounded by the instances alive (it expires [`KEEP`] after
//! its last write, and a field older than [`WINDOW`] is ignored and dropped by the leader).

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::rate::Signals;
use crate::base::Base;

/// How far back the percentiles look.
pub const WINDOW: Duration = Duration::from_secs(5);
/// The most samples kept: at a thousand holds a second, the last ten seconds' worth.
pub const MAX_SAMPLES: usize = 10_000;
/// How long an event's `health` hash outlives its last write.
pub const KEEP: Duration = Duration::from_secs(10);
/// How often the event loop's lag is sampled.
const LAG_PERIOD: Duration = Duration::from_millis(100);

/// One hold transaction.
struct Sample {
    at: Instant,
    transaction_ms: f64,
    wait_ms: f64,
}

/// The hold path's recent samples and the loop's worst lag. Std locks and atomics: touched for
/// a push or a scan, never across `.await`.
#[derive(Default)]
pub struct Health {
    samples: Mutex<VecDeque<Sample>>,
    /// The worst lag since the last [`Health::measure`], in µs (the sampler raises it).
    loop_lag_us: AtomicU64,
}

/// One instance's measurements, as published in Redis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// When measured (epoch ms, this instance's clock).
    pub at_ms: i64,
    pub hold_p99_ms: Option<f64>,
    pub acquire_wait_p99_ms: Option<f64>,
    pub loop_lag_ms: f64,
    pub holds: u64,
}

impl Health {
    /// Records one hold transaction: its own duration and its wait for a connection.
    pub fn record(&self, transaction: Duration, wait: Duration) {
        let mut samples = self.samples.lock().expect("not poisoned");
        if samples.len() >= MAX_SAMPLES {
            samples.pop_front();
        }
        samples.push_back(Sample {
            at: Instant::now(),
            transaction_ms: transaction.as_secs_f64() * 1000.0,
            wait_ms: wait.as_secs_f64() * 1000.0,
        });
    }

    fn lagged(&self, lag: Duration) {
        let us = u64::try_from(lag.as_micros()).unwrap_or(u64::MAX);
        self.loop_lag_us.fetch_max(us, Ordering::Relaxed);
    }

    /// The p99s over the last [`WINDOW`] and the worst loop lag since the last call (which
    /// starts a new second of lag).
    pub fn measure(&self, at_ms: i64) -> Measured {
        let mut samples = self.samples.lock().expect("not poisoned");
        while samples.front().is_some_and(|s| s.at.elapsed() > WINDOW) {
            samples.pop_front();
        }
        let transactions: Vec<f64> = samples.iter().map(|s| s.transaction_ms).collect();
        let waits: Vec<f64> = samples.iter().map(|s| s.wait_ms).collect();
        drop(samples);
        Measured {
            at_ms,
            hold_p99_ms: p99(transactions.clone()),
            acquire_wait_p99_ms: p99(waits),
            loop_lag_ms: self.loop_lag_us.swap(0, Ordering::Relaxed) as f64 / 1000.0,
            holds: transactions.len() as u64,
        }
    }
}

/// The 99th percentile (nearest rank), `None` of nothing.
fn p99(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let rank = (values.len() as f64 * 0.99).ceil() as usize;
    Some(values[rank.clamp(1, values.len()) - 1])
}

impl Measured {
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
    fn the_p99_is_the_nearest_rank() {
        assert_eq!(p99(vec![]), None);
        assert_eq!(p99(vec![3.0]), Some(3.0));
        let hundred: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(p99(hundred), Some(99.0));
    }

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
        let signals = Measured::combine([&quick, &slow, &stale], 500, 4);
        assert_eq!(signals.hold_p99_ms, Some(90.0));
        assert_eq!(signals.acquire_wait_ms, None);
        assert_eq!((signals.loop_lag_ms, signals.shopping), (7.0, 4));
    }
}
