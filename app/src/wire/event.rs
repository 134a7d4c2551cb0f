//! An event and its waiting room: [`Event`] and [`Room`] as the API shows them, the operator's
//! [`NewEvent`] and [`RoomUpdate`] with their defaults and ranges, and the checks of what serde
//! cannot check. A room's settings are validated here once, for the API and the admin page.

use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Deserializer, Serialize};

use super::{ErrorBody, Gate, rfc3339, unprocessable};
use crate::lang::Lang;

/// The waiting-room settings of one event, as the API shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Room {
    pub enabled: bool,
    pub paused: bool,
    pub admit_rate_per_second: u32,
    /// Length of one admission tick. The browser's WASM reads none of the ticker's settings
    /// below that say so (`skip_deserializing` there): each field read costs every buyer's
    /// first download.
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub tick_ms: u32,
    /// How long a hold keeps its seats.
    pub hold_ttl_seconds: u32,
    /// The most seats one buyer may hold in this event.
    pub seats_per_buyer: u32,
    /// How often expired holds are swept while the room is on.
    pub hold_sweep_seconds: u32,
    /// Bumped each time the room is turned on or off; admission tokens of another epoch do
    /// not pass the gate.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub epoch: u32,
    /// Leading zero bits of the proof of work a join must carry (0: none asked).
    #[serde(default)]
    pub join_pow_bits: u32,
    /// When the sale opens; `None`: open now.
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    pub opens_at: Option<DateTime<Utc>>,
    /// How long before `opens_at` the pre-queue opens (0: no pre-queue).
    pub prequeue_seconds: u32,
    /// `opens_at` minus `prequeue_seconds` (`None` with `opens_at`).
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    pub prequeue_opens_at: Option<DateTime<Utc>>,
    /// Whether the ticker's rate follows the hold path and the buyers shopping (between the
    /// bounds below), starting from `admit_rate_per_second`; off: the rate is the operator's.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub auto_rate: bool,
    /// The least the automatic rate may fall to.
    #[serde(default = "default_min_rate")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub min_admit_rate_per_second: u32,
    /// The most the automatic rate may rise to.
    #[serde(default = "default_max_rate")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub max_admit_rate_per_second: u32,
    /// The hold transaction's p99 the automatic rate keeps under.
    #[serde(default = "default_target_hold_p99_ms")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub target_hold_p99_ms: u32,
    /// The operator's priors for a first night (DESIGN.md "The estimate"): the seats a hold is
    /// expected to take (at most `seats_per_buyer` in use) and the share of admitted buyers
    /// expected to hold, in percent. Until the house's earlier nights or this night's holds
    /// say otherwise the estimate counts with them, and before the night's first hold a buyer
    /// on the seat map holds back `expected_seats_per_hold` seats.
    /// The buyer's WASM does not read them (they shape the server's answers only).
    #[serde(default = "default_expected_seats_per_hold")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub expected_seats_per_hold: u32,
    #[serde(default = "default_expected_holding_percent")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub expected_holding_percent: u32,
    /// Whether admission tokens are bound to the buyer's device key (API.md "Tokens bound to
    /// the device"): joins and gated requests carry a DPoP proof.
    #[serde(default)]
    pub bind_tokens: bool,
    /// Who may join (API.md "Accounts"): any session, or only one signed in to an account of
    /// the ticketer (one place and one seat limit per account).
    #[serde(default)]
    pub identity: Identity,
    /// Which accounts may join: anyone (`None`), those whose sign-in carries a claim value, or
    /// those on the operator's list. The browser's WASM does not read it (the buyer's page
    /// learns it from a join's refusal; the operator's panel shows `identity` only, and
    /// `GET /api/events/{id}` the rule): its reader would cost every buyer's first download.
    #[serde(default)]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub eligible: Option<Eligible>,
    /// In front of the ticketer's own site (API.md "The gate"): `target_url`, `protect` and
    /// `origin_probe_url`, as fields of the room. The buyer's WASM does not read them (an
    /// admitted answer carries the hand-over's address).
    #[cfg_attr(not(target_arch = "wasm32"), serde(flatten))]
    #[cfg_attr(target_arch = "wasm32", serde(skip))]
    pub gate: Gate,
}

/// Who a room takes in its line (room setting `identity`). Read from its name as a string
/// (the buyer's WASM, which reads rooms, links no enum reader for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Identity {
    /// Any buyer session: one place per session.
    #[default]
    Anonymous,
    /// Only a session signed in to an account: one place per account.
    Account,
}

impl Identity {
    /// The setting's name, as the API and the table write it.
    pub fn name(self) -> &'static str {
        match self {
            Identity::Anonymous => "anonymous",
            Identity::Account => "account",
        }
    }

    /// The setting of `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Self> {
        [Identity::Anonymous, Identity::Account]
            .into_iter()
            .find(|i| i.name() == name)
    }
}

impl TryFrom<String> for Identity {
    type Error = &'static str;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        Identity::from_name(&name).ok_or("identity is \"anonymous\" or \"account\"")
    }
}

/// Which accounts a room admits (room setting `eligible`): a presale's or a fan club's.
/// Read through [`EligibleFields`], not as an untagged enum: serde reads those through a buffer
/// of every value (its `Content`), code of its own in the buyer's WASM (which reads rooms).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged, try_from = "EligibleFields")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Eligible {
    /// Accounts whose sign-in carries `value` in the claim `claim` (a string, or a list of
    /// strings that contains it), as `{"claim": "groups", "value": "fanclub"}`, signed in at
    /// `issuer` (none: the buyers' OpenID provider, or the one issuer configured): another
    /// issuer's account carries claims of another's making.
    Claim {
        claim: String,
        value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        issuer: Option<String>,
    },
    /// Accounts on the list the operator uploaded (`{"list": true}`).
    List { list: bool },
}

/// [`Eligible`] as it is read: every field optional, the shape decided after.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EligibleFields {
    claim: Option<String>,
    value: Option<String>,
    issuer: Option<String>,
    list: Option<bool>,
}

impl TryFrom<EligibleFields> for Eligible {
    type Error = &'static str;

    fn try_from(f: EligibleFields) -> Result<Self, Self::Error> {
        match f {
            EligibleFields {
                claim: Some(claim),
                value: Some(value),
                issuer,
                list: None,
            } => Ok(Eligible::Claim {
                claim,
                value,
                issuer,
            }),
            EligibleFields {
                claim: None,
                value: None,
                issuer: None,
                list: Some(list),
            } => Ok(Eligible::List { list }),
            _ => Err(
                "eligible is null (anyone), {\"claim\", \"value\"[, \"issuer\"]} or {\"list\": true}",
            ),
        }
    }
}

/// The longest claim name and value an eligibility rule may name.
pub const ELIGIBLE_CLAIM_MAX: usize = 64;
pub const ELIGIBLE_VALUE_MAX: usize = 200;

impl Eligible {
    /// Checks what serde cannot: a claim name and value of sensible length, a list that is on.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        match self {
            Eligible::Claim {
                claim,
                value,
                issuer,
            } => {
                if issuer
                    .as_ref()
                    .is_some_and(|i| i.is_empty() || i.len() > ELIGIBLE_VALUE_MAX)
                {
                    return Err(unprocessable(format!(
                        "eligible.issuer must have 1 to {ELIGIBLE_VALUE_MAX} bytes"
                    )));
                }
                if claim.is_empty() || claim.len() > ELIGIBLE_CLAIM_MAX {
                    return Err(unprocessable(format!(
                        "eligible.claim must have 1 to {ELIGIBLE_CLAIM_MAX} bytes"
                    )));
                }
                if value.is_empty() || value.len() > ELIGIBLE_VALUE_MAX {
                    return Err(unprocessable(format!(
                        "eligible.value must have 1 to {ELIGIBLE_VALUE_MAX} bytes"
                    )));
                }
                Ok(())
            }
            Eligible::List { list: true } => Ok(()),
            Eligible::List { list: false } => Err(unprocessable(
                "eligible is null (anyone), {\"claim\", \"value\"} or {\"list\": true}",
            )),
        }
    }
}

/// The room of a new event before the operator's settings: the one default of each setting.
/// The server writes every setting of a new event from it (the table keeps no default of its
/// own), and serde fills a missing field of an older client's `Room` from it.
pub const DEFAULT_ROOM: Room = Room {
    enabled: true,
    paused: false,
    admit_rate_per_second: 50,
    tick_ms: 1000,
    hold_ttl_seconds: 600,
    seats_per_buyer: 6,
    hold_sweep_seconds: 30,
    epoch: 0,
    join_pow_bits: 0,
    opens_at: None,
    prequeue_seconds: 900,
    prequeue_opens_at: None,
    auto_rate: false,
    min_admit_rate_per_second: DEFAULT_MIN_ADMIT_RATE,
    max_admit_rate_per_second: DEFAULT_MAX_ADMIT_RATE,
    target_hold_p99_ms: DEFAULT_TARGET_HOLD_P99_MS,
    expected_seats_per_hold: DEFAULT_EXPECTED_SEATS_PER_HOLD,
    expected_holding_percent: DEFAULT_EXPECTED_HOLDING_PERCENT,
    bind_tokens: false,
    identity: Identity::Anonymous,
    eligible: None,
    gate: Gate {
        target_url: None,
        protect: Vec::new(),
        origin_probe_url: None,
    },
};

/// A room's automatic-rate settings before the operator sets them.
/// (`DEFAULT_ROOM` takes them from here: a constant cannot read a field of a room, whose
/// protected paths need dropping.)
pub const DEFAULT_MIN_ADMIT_RATE: u32 = 1;
pub const DEFAULT_MAX_ADMIT_RATE: u32 = 1000;
pub const DEFAULT_TARGET_HOLD_P99_MS: u32 = 50;

fn default_min_rate() -> u32 {
    DEFAULT_MIN_ADMIT_RATE
}

fn default_max_rate() -> u32 {
    DEFAULT_MAX_ADMIT_RATE
}

fn default_target_hold_p99_ms() -> u32 {
    DEFAULT_TARGET_HOLD_P99_MS
}

/// The first night's priors before the operator sets them: they favour admitting (one seat a
/// hold: a guess never keeps free seats from the line) and every admitted buyer holding (the
/// estimate's wait is then the longer one, never a promise the seats cannot keep).
pub const DEFAULT_EXPECTED_SEATS_PER_HOLD: u32 = 1;
pub const DEFAULT_EXPECTED_HOLDING_PERCENT: u32 = 100;

fn default_expected_seats_per_hold() -> u32 {
    DEFAULT_EXPECTED_SEATS_PER_HOLD
}

fn default_expected_holding_percent() -> u32 {
    DEFAULT_EXPECTED_HOLDING_PERCENT
}

impl Room {
    /// The seats a hold is expected to take, within this room's limit a buyer.
    pub fn expected_seats(&self) -> u32 {
        self.expected_seats_per_hold
            .clamp(1, self.seats_per_buyer.max(1))
    }
}

/// When the pre-queue of a sale opening at `opens_at` opens.
pub fn prequeue_opens_at(
    opens_at: Option<DateTime<Utc>>,
    prequeue_seconds: u32,
) -> Option<DateTime<Utc>> {
    opens_at.map(|t| t - chrono::Duration::seconds(i64::from(prequeue_seconds)))
}

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

/// When a sale that has not opened opens, and its pre-queue (a `not_open` answer's fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Opening {
    #[serde(deserialize_with = "rfc3339::at")]
    pub opens_at: DateTime<Utc>,
    #[serde(deserialize_with = "rfc3339::at")]
    pub prequeue_opens_at: DateTime<Utc>,
}

/// The largest layout one event may have: big enough for a stadium, small enough that one
/// creation transaction stays short.
pub const MAX_SEATS_PER_EVENT: u64 = 100_000;
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
}
