//! An event as the API shows it ([`Event`], its venue's [`Zone`]) and the operator's new event
//! ([`NewEvent`], the sections of its layout) with the checks of what serde cannot check. Its
//! room is `room.rs`'s and the room's settings are `room_update.rs`'s; a layout has at most
//! [`MAX_SEATS_PER_EVENT`] seats.

use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Serialize};

use super::{
    DEFAULT_MAX_ADMIT_RATE, DEFAULT_MIN_ADMIT_RATE, ErrorBody, Room, RoomUpdate, rfc3339,
    unprocessable,
};
use crate::lang::Lang;

/// One event of `GET /api/events`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Event {
    pub id: String,
    pub name: String,
    #[serde(deserialize_with = "rfc3339::at")]
    pub starts_at: DateTime<Utc>,
    pub room: Room,
    /// The venue's time zone, as pages show the event's times (additive; absent: UTC).
    #[serde(default)]
    pub zone: Zone,
    /// The ISO 4217 code of the event's prices (additive; absent: EUR).
    #[serde(default = "default_currency")]
    pub currency: String,
    /// The language its buyer pages speak to a buyer who asked for none of ours (API.md
    /// "Languages"; additive; absent: English).
    #[serde(default)]
    pub language: Lang,
}

/// The currency of an event made before events had one.
pub const DEFAULT_CURRENCY: &str = "EUR";

fn default_currency() -> String {
    DEFAULT_CURRENCY.to_owned()
}

/// A venue's time zone as a page needs it: its name, and its UTC offset at the moments the
/// page shows (the server knows the zone's rules; the page does not carry them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Zone {
    /// The IANA name ("Europe/Berlin").
    pub name: String,
    /// The offset in seconds east of UTC from each moment on, in time order: the show, the
    /// sale's opening and its pre-queue, and the server's now when it answered.
    pub offsets: Vec<ZoneOffset>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ZoneOffset {
    #[serde(deserialize_with = "rfc3339::at")]
    pub from: DateTime<Utc>,
    pub seconds: i32,
}

impl Default for Zone {
    fn default() -> Self {
        Self {
            name: "UTC".into(),
            offsets: Vec::new(),
        }
    }
}

impl Zone {
    /// `t` on the venue's clock: at the offset of the latest moment at or before `t` (before
    /// all of them, the first one's; none: UTC).
    pub fn local(&self, t: DateTime<Utc>) -> DateTime<FixedOffset> {
        let seconds = self
            .offsets
            .iter()
            .rev()
            .find(|o| o.from <= t)
            .or(self.offsets.first())
            .map_or(0, |o| o.seconds);
        let offset = FixedOffset::east_opt(seconds).unwrap_or(FixedOffset::east_opt(0).expect("0"));
        t.with_timezone(&offset)
    }

    /// How a page names the zone: "Berlin time" for Europe/Berlin, "UTC" for UTC.
    pub fn label(&self) -> String {
        match self.name.rsplit('/').next() {
            Some(city) if self.name.contains('/') => format!("{} time", city.replace('_', " ")),
            _ => self.name.clone(),
        }
    }
}

/// One section of the layout in `POST /api/admin/events`.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewSection {
    pub name: String,
    pub rows: u32,
    pub seats_per_row: u32,
    pub price_cents: i64,
}

/// `POST /api/admin/events` body.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewEvent {
    pub name: String,
    pub starts_at: DateTime<Utc>,
    /// The venue's IANA time zone ("Europe/Berlin"; default UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// The ISO 4217 code of the prices (default EUR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// The buyer pages' language when a buyer asks for none of ours (default `en`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Lang>,
    pub sections: Vec<NewSection>,
    #[serde(default)]
    pub room: RoomUpdate,
}

/// The largest layout one event may have: big enough for a stadium, small enough that one
/// creation transaction stays short.
pub const MAX_SEATS_PER_EVENT: u64 = 100_000;

impl NewEvent {
    /// Checks what serde cannot: non-empty names, a layout that is neither empty nor huge.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        let name = self.name.trim();
        if name.is_empty() || name.chars().count() > 200 {
            return Err(unprocessable("name must have 1 to 200 characters"));
        }
        if self.sections.is_empty() || self.sections.len() > 50 {
            return Err(unprocessable("an event needs 1 to 50 sections"));
        }
        if let Some(currency) = &self.currency
            && !(currency.len() == 3 && currency.bytes().all(|b| b.is_ascii_uppercase()))
        {
            return Err(unprocessable(
                "currency must be an ISO 4217 code: three capital letters, like EUR",
            ));
        }
        // Whether the zone exists is the server's to say (it has the zone rules); here only
        // its shape.
        if let Some(zone) = &self.time_zone
            && !(1..=64).contains(&zone.len())
        {
            return Err(unprocessable(
                "time_zone must be an IANA name, like Europe/Berlin",
            ));
        }
        let mut total: u64 = 0;
        let mut names = std::collections::HashSet::new();
        for s in &self.sections {
            let sname = s.name.trim();
            if sname.is_empty() || sname.chars().count() > 40 {
                return Err(unprocessable("a section name must have 1 to 40 characters"));
            }
            if !names.insert(sname) {
                return Err(unprocessable(format!("section {sname} appears twice")));
            }
            if !(1..=100).contains(&s.rows) || !(1..=200).contains(&s.seats_per_row) {
                return Err(unprocessable(
                    "a section needs 1 to 100 rows of 1 to 200 seats",
                ));
            }
            if !(0..=100_000_000).contains(&s.price_cents) {
                return Err(unprocessable("price_cents must be from 0 to 100000000"));
            }
            total += u64::from(s.rows) * u64::from(s.seats_per_row);
        }
        if total > MAX_SEATS_PER_EVENT {
            return Err(unprocessable(format!(
                "an event has at most {MAX_SEATS_PER_EVENT} seats"
            )));
        }
        self.room.validate()?;
        self.room.new_room().gate.validate()?;
        self.room
            .validate_bounds(DEFAULT_MIN_ADMIT_RATE, DEFAULT_MAX_ADMIT_RATE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(rows: u32, seats: u32) -> NewEvent {
        NewEvent {
            name: "Night".into(),
            starts_at: Utc::now(),
            time_zone: None,
            currency: None,
            language: None,
            sections: vec![NewSection {
                name: "A".into(),
                rows,
                seats_per_row: seats,
                price_cents: 5000,
            }],
            room: RoomUpdate::default(),
        }
    }

    #[test]
    fn the_automatic_rate_bounds_keep_min_at_most_max_against_the_room_they_change() {
        let min = |n| RoomUpdate {
            min_admit_rate_per_second: Some(n),
            ..RoomUpdate::default()
        };
        assert!(min(10).validate().is_ok());
        assert!(min(10).validate_bounds(1, 1000).is_ok());
        assert!(min(1001).validate_bounds(1, 1000).is_err());
        let both = RoomUpdate {
            max_admit_rate_per_second: Some(5),
            ..min(10)
        };
        assert!(both.validate().is_err(), "min above max as sent");
        assert!(min(0).validate().is_err());
        let mut event = layout(1, 1);
        event.room = min(2000);
        assert!(event.validate().is_err(), "above the default maximum");
    }

    #[test]
    fn layouts_outside_the_bounds_are_refused() {
        assert!(layout(10, 20).validate().is_ok());
        assert!(layout(0, 20).validate().is_err());
        assert!(layout(100, 201).validate().is_err());
        let mut two = layout(10, 20);
        two.sections.push(two.sections[0].clone());
        assert!(two.validate().is_err(), "duplicate section names");
        let mut blank = layout(10, 20);
        blank.name = "   ".into();
        assert!(blank.validate().is_err());
    }
}
