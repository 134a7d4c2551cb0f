//! A circuit breaker around the payment provider. Closed: calls pass, consecutive failures are
//! counted. After `threshold` of them it opens: calls are refused at once (503) for `open_for`.
//! Then it is half-open: one call goes through as a probe; its success closes the breaker, its
//! failure opens it again. A std `Mutex`: held for a few comparisons, never across `.await`.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Closed { failures: u32 },
    Open { until: Instant },
    HalfOpen,
}

pub struct Breaker {
    state: Mutex<State>,
    threshold: u32,
    open_for: Duration,
}

impl Breaker {
    pub fn new(threshold: u32, open_for: Duration) -> Self {
        Self {
            state: Mutex::new(State::Closed { failures: 0 }),
            threshold: threshold.max(1),
            open_for,
        }
    }

    /// May a call go now? `Err(wait)` while open (or while a half-open probe is out).
    pub fn allow(&self) -> Result<(), Duration> {
        let mut state = self.state.lock().expect("not poisoned");
        match *state {
            State::Closed { .. } => Ok(()),
            State::Open { until } => {
                let now = Instant::now();
                if now < until {
                    Err(until - now)
                } else {
                    *state = State::HalfOpen;
                    Ok(())
                }
            }
            State::HalfOpen => Err(Duration::from_secs(1)),
        }
    }

    pub fn success(&self) {
        *self.state.lock().expect("not poisoned") = State::Closed { failures: 0 };
    }

    pub fn failure(&self) {
        let mut state = self.state.lock().expect("not poisoned");
        *state = match *state {
            State::Closed { failures } if failures + 1 < self.threshold => State::Closed {
                failures: failures + 1,
            },
            _ => State::Open {
                until: Instant::now() + self.open_for,
            },
        };
    }

    pub fn is_open(&self) -> bool {
        !matches!(
            *self.state.lock().expect("not poisoned"),
            State::Closed { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_threshold_probes_once_and_closes_on_success() {
        let b = Breaker::new(3, Duration::from_millis(50));
        b.failure();
        b.failure();
        assert!(b.allow().is_ok(), "two failures keep it closed");
        b.failure();
        assert!(b.allow().is_err(), "open after three");
        std::thread::sleep(Duration::from_millis(60));
        assert!(b.allow().is_ok(), "the probe");
        assert!(b.allow().is_err(), "only one probe at a time");
        b.failure();
        assert!(b.allow().is_err(), "a failed probe opens it again");
        std::thread::sleep(Duration::from_millis(60));
        assert!(b.allow().is_ok());
        b.success();
        assert!(b.allow().is_ok() && b.allow().is_ok(), "closed");
        assert!(!b.is_open());
    }
}
