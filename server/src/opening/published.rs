//! What an instance keeps of the draws it published (see [`Published`]).

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::Instant,
};

use axum::body::Bytes;
use tokio::sync::OnceCell;

use super::secret::SecretKey;

/// The draws this instance has published once made: a made draw never changes, so all its
/// tickets are read once and answered from memory after (one `OnceCell` per event, so a crowd
/// asking at the moment of the draw makes one read, not one each). At most [`MADE_KEPT`]
/// draws are kept: an old one is read again from its archive in Postgres when asked.
pub struct Published {
    /// Makes each draw's secret ([`SecretKey`]).
    pub(super) key: SecretKey,
    pub(super) made: Mutex<HashMap<String, Arc<OnceCell<Bytes>>>>,
    /// When this instance last asked the relays for a round ("chain:round"), kept only while
    /// recent.
    pub(super) rounds_asked: Mutex<HashMap<String, Instant>>,
    /// The events whose drawn order a task of this instance is putting in line.
    placing: Mutex<HashSet<String>>,
}

impl Published {
    pub fn new(key: SecretKey) -> Self {
        Self {
            key,
            made: Mutex::default(),
            rounds_asked: Mutex::default(),
            placing: Mutex::default(),
        }
    }

    /// Marks `event_id`'s order as being placed by this instance; false when it was already.
    pub(super) fn placing(&self, event_id: &str) -> bool {
        let mut placing = self.placing.lock().expect("not poisoned");
        placing.insert(event_id.to_owned())
    }

    /// The task placing `event_id`'s order ended.
    pub(super) fn placed(&self, event_id: &str) {
        self.placing.lock().expect("not poisoned").remove(event_id);
    }

    /// The key that makes this deployment's draw secrets.
    pub fn key(&self) -> &SecretKey {
        &self.key
    }
}
