//! What the event page starts from ([`EventEntry`]): the event, the buyer's place, and the parts
//! of the buyer's turn kept unread ([`Deferred`]) until the turn's own WASM chunk reads them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Event, Hold, Order, QueueStatus, SeatRuns, rfc3339};

/// What the event page starts from: the event, the buyer's place in its line (joined while
/// rendering), the seat map once admitted, and the time it was answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventEntry {
    pub event: Event,
    /// `None` before the sale's pre-queue opens (the join answered `not_open`; nothing is
    /// stored): the page counts down to the opening in `event.room`.
    pub queue: Option<QueueStatus>,
    pub seats: Option<Deferred<SeatRuns>>,
    /// The server's clock when it answered: the page's countdowns run from it, so the server's
    /// rendering and the hydrated page say the same, and a browser whose clock is wrong still
    /// counts down to the server's opening.
    #[serde(deserialize_with = "rfc3339::at")]
    pub now: DateTime<Utc>,
    /// The server only looked and found no place (a first visit without a session cookie, or a
    /// prefetch, never joins): the browser joins by script, or without script by reloading
    /// with the session cookie it has now.
    #[serde(default)]
    pub arriving: bool,
    /// The buyer's newest hold of this event when it is active or bought: a reloaded page
    /// goes back to it (with `order` once bought) instead of to the line.
    #[serde(default)]
    pub hold: Option<Deferred<Hold>>,
    #[serde(default)]
    pub order: Option<Deferred<Order>>,
    /// What the page's forms carry, so that they work without JavaScript (server rendering
    /// only; a page the browser built itself posts by script).
    #[serde(default)]
    pub forms: Option<PageForms>,
    /// When the buyer's place moved to another device (API.md "Moving a place to another
    /// device"): a reloaded page says where it went, as the polling page does.
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    pub moved_at: Option<DateTime<Utc>>,
}

/// A part of the event page's data that the page reads only when the buyer gets to it: the
/// seat map, the hold and the order, the stages of the buyer's turn. Written as the value
/// itself, so its JSON is the value's. Read, it stays the JSON it came as until
/// [`Deferred::read`], which the turn's own code calls: the JSON readers of those types are then
/// in the turn's WASM chunk, not in what a buyer downloads to wait in line. Only serde_json
/// reads it (it keeps the JSON text as it came).
#[derive(Clone, Debug)]
pub enum Deferred<T> {
    /// Built here: by the server, or by the page from an answer it has read.
    Ready(T),
    /// As it came over the wire, not read yet.
    Raw(Box<serde_json::value::RawValue>),
}

impl<T: serde::de::DeserializeOwned> Deferred<T> {
    /// The value, read from its JSON if it came as JSON.
    pub fn read(self) -> Result<T, serde_json::Error> {
        match self {
            Self::Ready(value) => Ok(value),
            Self::Raw(json) => serde_json::from_str(json.get()),
        }
    }
}

impl<T: PartialEq> PartialEq for Deferred<T> {
    /// Equal when both are built and equal, or both unread and the same JSON text. A built value
    /// and an unread one compare as different: a stage seen as changed is only shown again.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Ready(a), Self::Ready(b)) => a == b,
            (Self::Raw(a), Self::Raw(b)) => a.get() == b.get(),
            _ => false,
        }
    }
}

impl<T: Serialize> Serialize for Deferred<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Ready(value) => value.serialize(serializer),
            Self::Raw(json) => json.serialize(serializer),
        }
    }
}

impl<'de, T> Deserialize<'de> for Deferred<T> {
    /// Keeps the JSON text: no reader of `T` here.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<serde_json::value::RawValue>::deserialize(deserializer).map(Self::Raw)
    }
}

/// The hidden fields of the event page's forms (hold, release, pay) as server rendering writes
/// them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageForms {
    /// Signed for this session and event: a form posted from another site cannot carry it.
    pub token: String,
    /// New at each rendering: the idempotency key of its hold and pay forms, so that a double
    /// submit holds (or pays) once, and a form from the next rendering is a new attempt.
    pub key: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{HeldSeat, HoldStatus};

    #[test]
    fn a_deferred_part_is_written_as_its_value_and_read_only_when_asked() {
        let hold = Hold {
            hold_id: "h1".into(),
            event_id: "e1".into(),
            seat_ids: vec!["3".into()],
            expires_at: "2026-12-01T19:05:00Z".parse().unwrap(),
            total_cents: 4500,
            status: HoldStatus::Active,
            seats: vec![HeldSeat {
                id: "3".into(),
                section: "Stalls".into(),
                row: "10".into(),
                number: 3,
                price_cents: 4500,
            }],
        };
        let json = serde_json::to_string(&hold).unwrap();
        let ready = Deferred::Ready(hold.clone());
        assert_eq!(
            serde_json::to_string(&ready).unwrap(),
            json,
            "written as the value"
        );

        let came: Deferred<Hold> = serde_json::from_str(&json).unwrap();
        assert!(matches!(came, Deferred::Raw(_)), "kept unread");
        assert_eq!(came.clone().read().unwrap(), hold);
        assert_eq!(
            serde_json::to_string(&came).unwrap(),
            json,
            "written again as it came"
        );
        assert_ne!(came, ready, "one read, one not: seen as changed");
        assert_eq!(came, serde_json::from_str(&json).unwrap());

        // Inside the page's data, and absent or null there.
        let entry = |hold: &str| {
            format!(
                r#"{{"event": {{"id": "e1", "name": "Night", "starts_at": "2026-12-01T19:00:00Z",
                "room": {{"enabled": true, "paused": false, "admit_rate_per_second": 10,
                "tick_ms": 200, "hold_ttl_seconds": 300, "seats_per_buyer": 4,
                "hold_sweep_seconds": 5, "prequeue_seconds": 0}}}},
                "queue": null, "seats": null, "now": "2026-12-01T19:00:00Z"{hold}}}"#
            )
        };
        let none: EventEntry = serde_json::from_str(&entry("")).unwrap();
        assert_eq!((none.hold, none.order, none.seats), (None, None, None));
        let null: EventEntry = serde_json::from_str(&entry(r#", "hold": null"#)).unwrap();
        assert_eq!(null.hold, None);
        let with: EventEntry =
            serde_json::from_str(&entry(&format!(r#", "hold": {json}"#))).unwrap();
        assert_eq!(with.hold.unwrap().read().unwrap(), hold);

        // JSON that is not a hold comes in, and is refused when read.
        let wrong: Deferred<Hold> = serde_json::from_str(r#"{"hold_id": 7}"#).unwrap();
        assert!(wrong.read().is_err());
        assert!(
            serde_json::from_str::<Deferred<Hold>>("{").is_err(),
            "not JSON at all"
        );
    }
}
