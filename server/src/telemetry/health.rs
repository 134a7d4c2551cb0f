//! This instance's measurements of the hold path and its event loop ([`Health`]), which the
//! automatic rate follows: each hold transaction's own duration and its wait for a pooled
//! connection ([`Health::record`]), and the worst lag of the tokio event loop
//! ([`Health::lagged`]), read once a second as a [`Measured`] (`admission::signals` publishes
//! it and the leader combines every instance's).
//!
//! Invariant: memory is bounded: at most [`MAX_SAMPLES`] samples, none older than [`WINDOW`].

use std::{
    collections::VecDeque,
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};

/// How far back the percentiles look.
pub const WINDOW: Duration = Duration::from_secs(5);
/// The most samples kept: at a thousand holds a second, the last ten seconds' worth.
pub const MAX_SAMPLES: usize = 10_000;
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

    /// Raises the worst lag seen since the last [`Health::measure`] (the sampler's report).
    pub fn lagged(&self, lag: Duration) {
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
}
