//! Answers computed at most once per freshness per key and instance: a crowd asking for the
//! same thing at once costs one computation (the night's report, the line's progress).
//!
//! Invariants: at most one computation runs at a time per [`Fresh`] (the askers meanwhile wait
//! for it and take its answer); an answer is given for at most its freshness after it was
//! computed; the map keeps only the answers still fresh (it cannot grow with keys asked about
//! longer ago than that).

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

/// Answers by key, each at most `fresh` old. A std Mutex for the map (never held across an
/// await); a tokio one so that one computation runs at a time.
pub struct Fresh<V> {
    fresh: Duration,
    cached: Mutex<HashMap<String, (Instant, V)>>,
    computing: tokio::sync::Mutex<()>,
}

impl<V: Clone> Fresh<V> {
    pub fn new(fresh: Duration) -> Self {
        Self {
            fresh,
            cached: Mutex::default(),
            computing: tokio::sync::Mutex::new(()),
        }
    }

    fn fresh(&self, key: &str) -> Option<V> {
        let cached = self.cached.lock().expect("not poisoned");
        cached
            .get(key)
            .filter(|(at, _)| at.elapsed() < self.fresh)
            .map(|(_, value)| value.clone())
    }

    /// The answer for `key`: the one computed within the freshness, else `compute`'s (one
    /// computation at a time; a failed one keeps nothing).
    pub async fn get<E>(
        &self,
        key: &str,
        compute: impl AsyncFnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        if let Some(value) = self.fresh(key) {
            return Ok(value);
        }
        let _one = self.computing.lock().await;
        if let Some(value) = self.fresh(key) {
            return Ok(value);
        }
        let value = compute().await?;
        let mut cached = self.cached.lock().expect("not poisoned");
        cached.retain(|_, (at, _)| at.elapsed() < self.fresh);
        cached.insert(key.to_owned(), (Instant::now(), value.clone()));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_crowd_at_once_costs_one_computation_and_a_stale_answer_is_computed_again() {
        let fresh = std::sync::Arc::new(Fresh::<u64>::new(Duration::from_millis(200)));
        let runs = std::sync::Arc::new(AtomicUsize::new(0));
        let ask = || {
            let (fresh, runs) = (fresh.clone(), runs.clone());
            async move {
                fresh
                    .get("e", async || {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        Ok::<_, ()>(runs.fetch_add(1, Ordering::SeqCst) as u64)
                    })
                    .await
            }
        };
        let answers = futures_util::future::join_all((0..50).map(|_| ask())).await;
        assert!(answers.iter().all(|a| *a == Ok(0)));
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        tokio::time::sleep(Duration::from_millis(250)).await;
        assert_eq!(ask().await, Ok(1), "computed again once stale");
        let failed = fresh.get("f", async || Err::<u64, _>("down")).await;
        assert_eq!(failed, Err("down"));
        assert_eq!(
            fresh.get("f", async || Ok::<_, &str>(7)).await,
            Ok(7),
            "nothing kept of a failure"
        );
    }
}
