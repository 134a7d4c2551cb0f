//! The buyers the ticketer's site reported done, as this instance knows them, for the proxy's
//! gate. Redis keeps them (`Keys::revoked`: a sorted set per event, scored by the end of each
//! admission); an instance reads an event's set at most once a [`FRESH`] and answers from
//! memory in between, so the gate, which sits in front of every request of the protected site,
//! asks Redis about once a second per event, whatever the traffic.
//!
//! Invariants: one read at a time refreshes (the others wait for it and use what it read, never
//! a second read); the memory holds one set per event the gate was asked about, and only ids of
//! admissions that have not ended (Redis drops the ended ones on each report); a report is
//! honoured everywhere within [`FRESH`].

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use crate::{base::Handles, error::Result};

/// How long a read of an event's set is answered from memory.
pub const FRESH: Duration = Duration::from_secs(1);

/// One event's reported buyers, and when they were read.
struct Seen {
    at: Instant,
    ids: Arc<HashSet<String>>,
}

/// Event id -> the buyers reported done. Std lock: held for a lookup, never across `.await`.
#[derive(Default)]
pub struct Revoked {
    seen: RwLock<HashMap<String, Seen>>,
    refreshing: tokio::sync::Mutex<()>,
}

impl Revoked {
    /// Whether `buyer`'s admission to `event_id` was reported done.
    pub async fn contains(&self, base: &Handles, event_id: &str, buyer: &str) -> Result<bool> {
        if let Some(ids) = self.fresh(event_id) {
            return Ok(ids.contains(buyer));
        }
        let _one = self.refreshing.lock().await;
        // Read by another request while this one waited.
        if let Some(ids) = self.fresh(event_id) {
            return Ok(ids.contains(buyer));
        }
        let now = chrono::Utc::now().timestamp();
        let ids: Vec<String> = redis::cmd("ZRANGEBYSCORE")
            .arg(base.keys.revoked(event_id))
            .arg(now)
            .arg("+inf")
            .query_async(&mut base.redis.clone())
            .await?;
        let ids = Arc::new(ids.into_iter().collect::<HashSet<_>>());
        let found = ids.contains(buyer);
        self.seen.write().expect("not poisoned").insert(
            event_id.to_owned(),
            Seen {
                at: Instant::now(),
                ids,
            },
        );
        Ok(found)
    }

    /// Forgets what this instance read of `event_id` (a report made here is honoured here at
    /// once).
    pub fn forget(&self, event_id: &str) {
        self.seen.write().expect("not poisoned").remove(event_id);
    }

    fn fresh(&self, event_id: &str) -> Option<Arc<HashSet<String>>> {
        let seen = self.seen.read().expect("not poisoned");
        seen.get(event_id)
            .filter(|s| s.at.elapsed() < FRESH)
            .map(|s| s.ids.clone())
    }
}
