//! What the operator reads and sets: the live stats and the automatic rate's figures, the nights
//! kept, payments, the audit of operator actions, and the draw with its beacon (checked here
//! before the server commits it).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{ErrorBody, unprocessable};

/// Seat counts by status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SeatCounts {
    pub available: i64,
    pub held: i64,
    pub sold: i64,
}

/// One second of the operator's series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct StatsPoint {
    pub t: DateTime<Utc>,
    pub admissions: u64,
    pub holds: u64,
    pub checkouts: u64,
    pub queue_length: u64,
    /// The admission rate in force in that second (0: no leader steered it).
    #[serde(default)]
    pub admit_rate_per_second: u64,
}

/// `GET /api/admin/events/{id}/stats`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Stats {
    pub queue_length: u64,
    pub admitted_total: u64,
    pub holds_active: i64,
    pub seats: SeatCounts,
    /// The owner token of the instance holding the ticker lock (host/pid/random).
    pub ticker_holder: Option<String>,
    pub series: Vec<StatsPoint>,
    /// The admissions a second in force now.
    pub admit_rate_per_second: u32,
    /// Why: the automatic rule's sentence, or "set by the operator".
    pub rate_reason: String,
    /// The automatic rate, its proposal (what it would admit, shown while the operator's N
    /// is in force too) and its bounds.
    pub rate: RateFigures,
    /// In a room that binds tokens: the buyers refused because their browser could not bind
    /// a place to the device.
    #[serde(default)]
    pub device_refusals: DeviceRefusals,
    /// What the estimate counts a buyer to take, beside what the night measured.
    #[serde(default)]
    pub shares: Shares,
}

/// The seats a hold takes and the share of admitted buyers who hold (DESIGN.md "The
/// estimate"): the operator's expectation for a first night, this night's own measure, and
/// what the estimate uses now (the night's measure weighed with the earlier nights', or with
/// the expectation where there are none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Shares {
    pub seats_per_hold: Share,
    pub holding: Share,
}

/// One of [`Shares`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Share {
    /// The room's `expected_seats_per_hold` (within its seat limit), or
    /// `expected_holding_percent` as a share.
    pub expected: f64,
    /// This night's own measure (`None` before it has one) and over how many holds or
    /// admitted buyers.
    pub measured: Option<f64>,
    pub samples: u64,
    /// What the estimate counts with now.
    pub in_use: f64,
}

/// Buyers a room that binds tokens turned away, by why (API.md "Tokens bound to the device").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct DeviceRefusals {
    /// Joins that came without a proof: the browser could not make or keep a key (WebCrypto
    /// blocked), or a client that does not bind.
    pub no_key: u64,
    /// Pages opened without JavaScript.
    pub no_script: u64,
}

/// The automatic rate on the panel: the proposal, the bounds, and the signals against their
/// limits as the ticker's leader last combined them across instances.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct RateFigures {
    pub auto_rate: bool,
    pub proposal: u32,
    pub min_admit_rate_per_second: u32,
    pub max_admit_rate_per_second: u32,
    /// Worst hold-transaction p99 of any instance (`None`: no hold in the window).
    pub hold_p99_ms: Option<f64>,
    pub target_hold_p99_ms: u32,
    /// Worst wait for a pooled Postgres connection (p99) in hold transactions.
    pub acquire_wait_ms: Option<f64>,
    pub acquire_wait_limit_ms: f64,
    /// Worst event-loop lag of any instance over the last second.
    pub loop_lag_ms: Option<f64>,
    pub loop_lag_limit_ms: u32,
    /// Admitted buyers still shopping, and the target.
    pub shopping: u64,
    pub target_shoppers: u64,
}

/// A finished night of an event, kept in Postgres (`GET /api/admin/events/{id}/nights`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Night {
    pub id: i64,
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    /// `room_off`, `operator`, or `line_empty` (the line quiet for `night_idle_seconds`).
    pub reason: String,
}

/// One second of a kept night (`GET /api/admin/events/{id}/nights/{night}/series`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NightPoint {
    pub t: DateTime<Utc>,
    pub admissions: u64,
    pub holds: u64,
    pub checkouts: u64,
    pub queue_length: u64,
    /// The admission rate in force in that second.
    pub admit_rate_per_second: u64,
}

/// `GET /api/admin/events/{id}/payments`: the event's payments by state, every refund, and
/// the payments still pending (newest first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Payments {
    pub counts: PaymentCounts,
    pub refunds: Vec<PaymentEntry>,
    pub pending: Vec<PaymentEntry>,
}

/// Payments of an event by state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentCounts {
    pub pending: u64,
    pub succeeded: u64,
    pub declined: u64,
    pub refunded: u64,
    pub failed: u64,
}

/// One payment: an attempt to pay for a hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct PaymentEntry {
    pub payment_id: String,
    pub hold_id: String,
    pub buyer_id: String,
    /// The idempotency key at the provider: the hold and the attempt.
    pub provider_key: String,
    pub amount_cents: i64,
    /// The event's currency (ISO 4217): charged and refunded in it.
    pub currency: String,
    /// `pending`, `succeeded`, `declined`, `refunded` or `failed`.
    pub state: String,
    pub charge_id: Option<String>,
    /// Why it was refunded or failed.
    pub note: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What an operator did (the `action` of an audit entry, and of the `operator_action` table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum OperatorAction {
    CreateEvent,
    ChangeRoom,
    SignIn,
    SignOut,
    SetBeacon,
    /// Kept the night so far in the archive (`POST /api/admin/events/{id}/nights`).
    KeepNight,
    /// Uploaded the accounts a room with `{"list": true}` admits (`PUT
    /// /api/admin/events/{id}/eligible`).
    SetEligible,
    /// A sign-in that failed (a passkey that did not verify, an unknown person at the
    /// company's sign-in); rate-limited per address before it is recorded.
    RefusedSignIn,
    /// Proved themselves again for a dangerous change (API.md "Step-up").
    StepUp,
    AddOperator,
    /// Changed an operator's name, role or events (their sessions end).
    ChangeOperator,
    RemoveOperator,
    /// Enrolled a passkey from a one-time link.
    Enrol,
    /// Ended a session (their own, by signing out, or anyone's, as an admin).
    EndSession,
    AddKey,
    RevokeKey,
    /// Used the break-glass admin token (`ANTEROOM_ADMIN_TOKEN`), which is off by default.
    BreakGlass,
}

/// One entry of `GET /api/admin/audit` and `GET /api/admin/events/{id}/audit`: who did what,
/// when, and the state before and after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AuditEntry {
    pub action: OperatorAction,
    /// The event acted on (none for signing in and out).
    pub event_id: Option<String>,
    /// Who: the person (name, address, role) or key, and the client address.
    pub actor: String,
    /// The operator's or the key's id (null for the break-glass token and old entries).
    #[serde(default)]
    pub actor_id: Option<String>,
    /// What was asked (a room change: the fields sent; an event: its definition).
    pub change: serde_json::Value,
    /// The state before (a room change: the room settings; null for a creation).
    pub before: Option<serde_json::Value>,
    /// The state after (the room settings, the event created).
    pub after: Option<serde_json::Value>,
    pub at: DateTime<Utc>,
}

/// Whether an event's draw has been made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum DrawState {
    Pending,
    Drawn,
}

/// `GET /api/events/{id}/draw`: the draw anyone can check (API.md gives the hashing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Draw {
    pub opens_at: Option<DateTime<Utc>>,
    pub committed_at: DateTime<Utc>,
    /// hex(SHA-256(secret)): published before the pre-queue opens, never changed.
    pub commitment: String,
    pub state: DrawState,
    /// Entrants so far (pending), or drawn.
    pub entrants: u64,
    /// 64 lowercase hex characters, once drawn.
    pub secret: Option<String>,
    /// The operator's beacon, "" when none was set.
    pub beacon: String,
    /// hex(SHA-256(secret ":" beacon)), once drawn.
    pub seed: Option<String>,
    /// Every entrant's ticket in draw order (the first got place 1), once drawn.
    pub tickets: Option<Vec<String>>,
    /// The public randomness round the draw committed to, if any: its randomness is the
    /// beacon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_source: Option<BeaconSource>,
    /// That round's signature (hex), once known: anyone checks it with the source's public key,
    /// and the beacon is hex(SHA-256(it)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_signature: Option<String>,
}

/// A future public randomness round a draw commits to (API.md "Before the sale opens"): a
/// round of a drand chain whose signatures are on G1 and public key on G2
/// (`bls-unchained-g1-rfc9380`, the League of Entropy's quicknet). The round's randomness,
/// hex(SHA-256(signature)), is the draw's beacon.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BeaconSource {
    /// `drand`.
    pub kind: String,
    /// The chain's hash: 64 lowercase hex characters.
    pub chain_hash: String,
    /// The chain's public key: 192 lowercase hex characters (a compressed G2 point).
    pub public_key: String,
    pub round: u64,
}

/// `PUT /api/admin/events/{id}/draw` body: exactly one of a free-text `beacon` (until the
/// sale opens), a `beacon_source` (before the pre-queue opens) or the committed round's
/// `round_signature` (checked against the source's public key, any time before the draw).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct BeaconUpdate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_source: Option<BeaconSource>,
    /// Hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_signature: Option<String>,
}

/// The longest beacon: a lottery result or a beacon round's value with its name fits easily.
pub const MAX_BEACON_CHARS: usize = 256;

impl BeaconUpdate {
    /// A beacon is printable text (it is hashed as written and shown to buyers) of at most
    /// [`MAX_BEACON_CHARS`] characters.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        let given = [
            self.beacon.is_some(),
            self.beacon_source.is_some(),
            self.round_signature.is_some(),
        ];
        if given.iter().filter(|g| **g).count() != 1 {
            return Err(unprocessable(
                "give exactly one of beacon, beacon_source and round_signature",
            ));
        }
        if let Some(beacon) = &self.beacon
            && (beacon.chars().count() > MAX_BEACON_CHARS || beacon.chars().any(char::is_control))
        {
            return Err(unprocessable(format!(
                "a beacon is printable text of at most {MAX_BEACON_CHARS} characters"
            )));
        }
        if let Some(signature) = &self.round_signature
            && (signature.len() > 512 || !signature.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(unprocessable("round_signature is hex"));
        }
        Ok(())
    }
}
