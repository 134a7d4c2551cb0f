//! The JSON of API.md, shared by the server (which serializes it) and the WASM client (which
//! reads it). A field renamed here changes the contract for browsers, apps and load tests, so
//! names follow API.md exactly; fields may be added, never removed.
//!
//! By resource, each file with its own checks and tests: `ids` (typed ids, the admission
//! token's claims, the error body), `event` (events, their venue's zone, a new event and its
//! layout), `room` (a room as shown, its settings' defaults, who it takes in), `room_update` (the
//! operator's change to a room, its ranges and checks),
//! `queue` (the line's answers, the estimate and its band, sessions, moving a place),
//! `seats` (the seat map, and the same map in runs), `holds` (hold requests, holds, orders), `entry` (what the event page starts from),
//! `operator` (stats, nights, payments, audit, draw), `staff` (operators, their roles,
//! sessions and API keys), `gate` (in front of the ticketer's site: the gate settings, the
//! hand-over), `progress` (the line's progress any cache may serve) and `report`. Everything is
//! re-exported here: a type's path is `app::wire::X`, whichever file it is in.

mod entry;
mod event;
mod gate;
mod holds;
mod ids;
mod operator;
mod progress;
mod queue;
mod report;
mod room;
mod room_update;
mod seats;
mod staff;

pub use entry::*;
pub use event::*;
pub use gate::*;
pub use holds::*;
pub use ids::*;
pub use operator::*;
pub use progress::*;
pub use queue::*;
pub use report::*;
pub use room::*;
pub use room_update::*;
pub use seats::*;
pub use staff::*;

/// Times are read as strict RFC 3339, the form the server writes them in
/// (`DateTime::parse_from_rfc3339`), in the types the buyer's page reads. chrono's own reader
/// also takes relaxed forms through its general parser, which is code the buyer's WASM need
/// not carry. Inputs from operators (`RoomUpdate`) keep chrono's reader.
mod rfc3339 {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, de::Error};

    fn parse<E: Error>(text: &str) -> Result<DateTime<Utc>, E> {
        DateTime::parse_from_rfc3339(text)
            .map(|t| t.with_timezone(&Utc))
            .map_err(|e| E::custom(format!("{e}: {text:?}")))
    }

    pub fn at<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
        parse(&String::deserialize(d)?)
    }

    pub fn maybe<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| parse(&text))
            .transpose()
    }
}

/// Asserts that `value` reads back from the JSON it writes.
#[cfg(test)]
fn reads_back<T>(value: &T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let json = serde_json::to_string(value).unwrap();
    assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value, "{json}");
}
