//! A waiting room as the API shows it: [`Room`], each setting's one default ([`DEFAULT_ROOM`],
//! for a new event and for a field an older client leaves out), who it takes in ([`Identity`],
//! [`Eligible`] and its check) and when its sale opens. The buyer's WASM reads only the
//! settings it uses: each field read costs every buyer's first download.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ErrorBody, Gate, rfc3339, unprocessable};

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

/// When a sale that has not opened opens, and its pre-queue (a `not_open` answer's fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Opening {
    #[serde(deserialize_with = "rfc3339::at")]
    pub opens_at: DateTime<Utc>,
    #[serde(deserialize_with = "rfc3339::at")]
    pub prequeue_opens_at: DateTime<Utc>,
}
