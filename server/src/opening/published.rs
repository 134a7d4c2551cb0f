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
    /// What this instance read of each pre-queue it leads before its opening (`prefetch`),
    /// taken by the draw: at most one entry an event with a pre-queue, gone at its draw.
    entered: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Entered>>>>,
}

/// The entries of a pre-queue (`Keys::entered`) an instance has read, folded: each entrant's
/// buyer by ticket, and how many entries were read.
#[derive(Default)]
pub struct Entered {
    pub(super) read: usize,
    pub(super) buyers: HashMap<String, String>,
}

impl Entered {
    /// Folds the next `entries` ("ticket buyer") in: a ticket with a buyer enters or moves to
    /// that buyer, a ticket with none was given up.
    pub(super) fn fold(&mut self, entries: &[String]) {
        self.read += entries.len();
        for entry in entries {
            let (ticket, buyer) = entry.split_once(' ').unwrap_or((entry, ""));
            if buyer.is_empty() {
                self.buyers.remove(ticket);
            } else {
                self.buyers.insert(ticket.to_owned(), buyer.to_owned());
            }
        }
    }
}

impl Published {
    pub fn new(key: SecretKey) -> Self {
        Self {
            key,
            made: Mutex::default(),
            rounds_asked: Mutex::default(),
            placing: Mutex::default(),
            entered: Mutex::default(),
        }
    }

    /// This instance's reading of `event_id`'s pre-queue, made on first use.
    pub(super) fn entered(&self, event_id: &str) -> Arc<tokio::sync::Mutex<Entered>> {
        let mut entered = self.entered.lock().expect("not poisoned");
        entered.entry(event_id.to_owned()).or_default().clone()
    }

    /// Takes this instance's reading of `event_id`'s pre-queue (the draw's), if any.
    pub(super) fn take_entered(&self, event_id: &str) -> Option<Arc<tokio::sync::Mutex<Entered>>> {
        self.entered.lock().expect("not poisoned").remove(event_id)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_fold_into_each_entrants_buyer_in_the_order_they_came() {
        let mut entered = Entered::default();
        let entries = |list: &[&str]| list.iter().map(|e| e.to_string()).collect::<Vec<_>>();
        entered.fold(&entries(&["t1 alice", "t2 bob", "t3 carol"]));
        // Carol claims Bob's place: her own ticket is given up, his moves to her.
        entered.fold(&entries(&["t3 ", "t2 carol"]));
        entered.fold(&entries(&["t4 dan"]));
        let mut buyers: Vec<(&str, &str)> = entered
            .buyers
            .iter()
            .map(|(t, b)| (t.as_str(), b.as_str()))
            .collect();
        buyers.sort();
        assert_eq!(buyers, [("t1", "alice"), ("t2", "carol"), ("t4", "dan")]);
        assert_eq!(entered.read, 6, "every entry counts, to read on from");
    }
}
