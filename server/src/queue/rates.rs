//! The rate in force of each event as this instance knows it ([`Board`]): refreshed once a
//! second by the ticker loop from Redis, where the ticker's leader writes it, and read by
//! every answer of the line (the estimate divides by it) and by the ticker (it admits by it).
//!
//! Invariant: [`Board::in_force`] is the one place that says which rate is in force: the
//! operator's N in a room without the automatic rate, else the leader's, within the room's
//! bounds.

use std::{collections::HashMap, sync::RwLock};

use app::wire::Room;

/// The rate in force for one event, with its reason and the automatic proposal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InForce {
    pub rate: u32,
    pub reason: String,
    pub proposal: u32,
}

/// What this instance knows of each event's rate in force (refreshed once a second by the
/// ticker loop from Redis, where the leader writes it). A std lock: held for a map access.
#[derive(Default)]
pub struct Board {
    rates: RwLock<HashMap<String, InForce>>,
}

impl Board {
    /// The admissions a second in force for `event_id` (whose room is `room`): what the
    /// ticker admits and the estimates divide by.
    pub fn in_force(&self, event_id: &str, room: &Room) -> u32 {
        if !room.auto_rate {
            return room.admit_rate_per_second;
        }
        self.get(event_id)
            .map_or(room.admit_rate_per_second, |r| r.rate)
            .clamp(
                room.min_admit_rate_per_second,
                room.max_admit_rate_per_second
                    .max(room.min_admit_rate_per_second),
            )
    }

    pub fn get(&self, event_id: &str) -> Option<InForce> {
        self.rates
            .read()
            .expect("not poisoned")
            .get(event_id)
            .cloned()
    }

    pub fn set(&self, event_id: &str, in_force: InForce) {
        self.rates
            .write()
            .expect("not poisoned")
            .insert(event_id.to_owned(), in_force);
    }
}
