//! The operator's change to a room: [`RoomUpdate`] (a field absent keeps the setting, a null
//! is told apart from it), how it applies to a room, and the range of each setting. A room's
//! settings are validated here once, for the API and the admin page; turning a room on or off
//! begins a new epoch.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use super::{
    DEFAULT_ROOM, Eligible, ErrorBody, Gate, Identity, Room, prequeue_opens_at, unprocessable,
};

/// `PUT /api/admin/events/{id}/room` body, and the optional `room` of a new event: every field
/// is optional, unknown fields are refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RoomUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admit_rate_per_second: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_ttl_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats_per_buyer: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hold_sweep_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_pow_bits: Option<u32>,
    /// `Some(None)` (`"opens_at": null`) opens the sale now; absent keeps it.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub opens_at: Option<Option<DateTime<Utc>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prequeue_seconds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_rate: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_admit_rate_per_second: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_admit_rate_per_second: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_hold_p99_ms: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_seats_per_hold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_holding_percent: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bind_tokens: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<Identity>,
    /// `Some(None)` (`"eligible": null`) lets anyone in; absent keeps it.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub eligible: Option<Option<Eligible>>,
    /// `Some(None)` (`"target_url": null`) brings buyers back to Anteroom's own seat map. The
    /// gate settings are set through the API only: the operator's panel (WASM) sends none.
    #[cfg_attr(target_arch = "wasm32", serde(skip))]
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub target_url: Option<Option<String>>,
    #[cfg_attr(target_arch = "wasm32", serde(skip))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protect: Option<Vec<String>>,
    #[cfg_attr(target_arch = "wasm32", serde(skip))]
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin_probe_url: Option<Option<String>>,
}

/// A field that may be sent as null, told apart from one not sent: `Some(None)` is a null.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Bounds of `admit_rate_per_second` (API.md: 1 to 100,000).
pub const ADMIT_RATE_RANGE: std::ops::RangeInclusive<u32> = 1..=100_000;
/// Bounds of `target_hold_p99_ms`: a millisecond to a minute.
pub const TARGET_HOLD_P99_MS_RANGE: std::ops::RangeInclusive<u32> = 1..=60_000;
/// Bounds of the tick length: 100 ms is the shortest the ticker is built for.
pub const TICK_MS_RANGE: std::ops::RangeInclusive<u32> = 100..=60_000;
/// Bounds of `prequeue_seconds` (API.md: 0 to 86,400, a day).
pub const PREQUEUE_SECONDS_RANGE: std::ops::RangeInclusive<u32> = 0..=86_400;
/// Bounds of the join's proof of work: 32 zero bits already cost a browser hours.
pub const JOIN_POW_BITS_RANGE: std::ops::RangeInclusive<u32> = 0..=32;

impl RoomUpdate {
    /// `room` with this update's settings in place of its own (absent: kept). Turning the
    /// room on or off begins a new epoch; the pre-queue's opening follows the opening.
    pub fn apply_to(&self, room: &Room) -> Room {
        let enabled = self.enabled.unwrap_or(room.enabled);
        let opens_at = self.opens_at.unwrap_or(room.opens_at);
        let prequeue_seconds = self.prequeue_seconds.unwrap_or(room.prequeue_seconds);
        Room {
            enabled,
            paused: self.paused.unwrap_or(room.paused),
            admit_rate_per_second: self
                .admit_rate_per_second
                .unwrap_or(room.admit_rate_per_second),
            tick_ms: self.tick_ms.unwrap_or(room.tick_ms),
            hold_ttl_seconds: self.hold_ttl_seconds.unwrap_or(room.hold_ttl_seconds),
            seats_per_buyer: self.seats_per_buyer.unwrap_or(room.seats_per_buyer),
            hold_sweep_seconds: self.hold_sweep_seconds.unwrap_or(room.hold_sweep_seconds),
            epoch: room.epoch + u32::from(enabled != room.enabled),
            join_pow_bits: self.join_pow_bits.unwrap_or(room.join_pow_bits),
            opens_at,
            prequeue_seconds,
            prequeue_opens_at: prequeue_opens_at(opens_at, prequeue_seconds),
            auto_rate: self.auto_rate.unwrap_or(room.auto_rate),
            min_admit_rate_per_second: self
                .min_admit_rate_per_second
                .unwrap_or(room.min_admit_rate_per_second),
            max_admit_rate_per_second: self
                .max_admit_rate_per_second
                .unwrap_or(room.max_admit_rate_per_second),
            target_hold_p99_ms: self.target_hold_p99_ms.unwrap_or(room.target_hold_p99_ms),
            expected_seats_per_hold: self
                .expected_seats_per_hold
                .unwrap_or(room.expected_seats_per_hold),
            expected_holding_percent: self
                .expected_holding_percent
                .unwrap_or(room.expected_holding_percent),
            bind_tokens: self.bind_tokens.unwrap_or(room.bind_tokens),
            identity: self.identity.unwrap_or(room.identity),
            eligible: self
                .eligible
                .clone()
                .unwrap_or_else(|| room.eligible.clone()),
            gate: Gate {
                target_url: self
                    .target_url
                    .clone()
                    .unwrap_or_else(|| room.gate.target_url.clone()),
                protect: self
                    .protect
                    .clone()
                    .unwrap_or_else(|| room.gate.protect.clone()),
                origin_probe_url: self
                    .origin_probe_url
                    .clone()
                    .unwrap_or_else(|| room.gate.origin_probe_url.clone()),
            },
        }
    }

    /// The room of a new event with this update's settings, the rest [`DEFAULT_ROOM`]'s (a
    /// new room's first epoch whether it starts on or off).
    pub fn new_room(&self) -> Room {
        Room {
            epoch: DEFAULT_ROOM.epoch,
            ..self.apply_to(&DEFAULT_ROOM)
        }
    }

    /// Range checks of every field present. The bounds of the automatic rate are checked
    /// against each other as sent; [`RoomUpdate::validate_bounds`] checks them against the
    /// room they change.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        for (name, rate) in [
            ("admit_rate_per_second", self.admit_rate_per_second),
            ("min_admit_rate_per_second", self.min_admit_rate_per_second),
            ("max_admit_rate_per_second", self.max_admit_rate_per_second),
        ] {
            if let Some(n) = rate
                && !ADMIT_RATE_RANGE.contains(&n)
            {
                return Err(unprocessable(format!(
                    "{name} must be an integer from 1 to 100000"
                )));
            }
        }
        if let Some(t) = self.target_hold_p99_ms
            && !TARGET_HOLD_P99_MS_RANGE.contains(&t)
        {
            return Err(unprocessable("target_hold_p99_ms must be from 1 to 60000"));
        }
        if let (Some(min), Some(max)) = (
            self.min_admit_rate_per_second,
            self.max_admit_rate_per_second,
        ) {
            self.validate_bounds(min, max)?;
        }
        if let Some(t) = self.tick_ms
            && !TICK_MS_RANGE.contains(&t)
        {
            return Err(unprocessable("tick_ms must be from 100 to 60000"));
        }
        if let Some(t) = self.hold_ttl_seconds
            && !(10..=3600).contains(&t)
        {
            return Err(unprocessable("hold_ttl_seconds must be from 10 to 3600"));
        }
        if let Some(s) = self.seats_per_buyer
            && !(1..=50).contains(&s)
        {
            return Err(unprocessable("seats_per_buyer must be from 1 to 50"));
        }
        if let Some(s) = self.hold_sweep_seconds
            && !(1..=3600).contains(&s)
        {
            return Err(unprocessable("hold_sweep_seconds must be from 1 to 3600"));
        }
        if let Some(s) = self.prequeue_seconds
            && !PREQUEUE_SECONDS_RANGE.contains(&s)
        {
            return Err(unprocessable("prequeue_seconds must be from 0 to 86400"));
        }
        if let Some(b) = self.join_pow_bits
            && !JOIN_POW_BITS_RANGE.contains(&b)
        {
            return Err(unprocessable("join_pow_bits must be from 0 to 32"));
        }
        if let Some(s) = self.expected_seats_per_hold
            && !(1..=50).contains(&s)
        {
            return Err(unprocessable(
                "expected_seats_per_hold must be from 1 to 50 (in use, at most seats_per_buyer)",
            ));
        }
        if let Some(p) = self.expected_holding_percent
            && !(1..=100).contains(&p)
        {
            return Err(unprocessable(
                "expected_holding_percent must be from 1 to 100",
            ));
        }
        if let Some(Some(eligible)) = &self.eligible {
            eligible.validate()?;
        }
        Ok(())
    }
}

impl RoomUpdate {
    /// Whether the automatic rate's bounds, as this update leaves a room whose bounds are
    /// `min` and `max`, keep min <= max.
    pub fn validate_bounds(&self, min: u32, max: u32) -> Result<(), ErrorBody> {
        let min = self.min_admit_rate_per_second.unwrap_or(min);
        let max = self.max_admit_rate_per_second.unwrap_or(max);
        if min > max {
            return Err(unprocessable(format!(
                "min_admit_rate_per_second ({min}) must not exceed max_admit_rate_per_second ({max})"
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Room updates: accepted exactly when every present field is in its range.
        #[test]
        fn room_updates_are_accepted_exactly_in_range(
            rate in proptest::option::of(0u32..200_000),
            tick in proptest::option::of(0u32..70_000),
        ) {
            let update = RoomUpdate {
                admit_rate_per_second: rate,
                tick_ms: tick,
                ..RoomUpdate::default()
            };
            let ok = rate.is_none_or(|r| ADMIT_RATE_RANGE.contains(&r))
                && tick.is_none_or(|t| TICK_MS_RANGE.contains(&t));
            prop_assert_eq!(update.validate().is_ok(), ok);
        }
    }
}
