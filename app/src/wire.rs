//! The JSON of API.md, shared by the server (which serializes it) and the WASM client (which
//! reads it). A field renamed here changes the contract for browsers, apps and load tests, so
//! names follow API.md exactly; fields may be added, never removed.

use std::{fmt, ops::Deref};

use chrono::{DateTime, FixedOffset, Utc};
use serde::{Deserialize, Deserializer, Serialize};

/// A string id of one kind of thing. The JSON is the bare string (`serde(transparent)`); the
/// type is for the code, so that functions taking two ids (`verify(token, event, buyer)`)
/// cannot be handed them the wrong way round. It reads as a `&str` (`Deref`) wherever an id is
/// only looked at (a Redis key, an SQL bind); making one from a string says what it is.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(id: String) -> Self {
                Self(id)
            }
        }

        impl From<&str> for $name {
            fn from(id: &str) -> Self {
                Self(id.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> Self {
                id.0
            }
        }

        impl Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

string_id!(
    /// A buyer: the random id their session names (the member of every sorted set they are in).
    BuyerId
);
string_id!(
    /// An event (`[a-z0-9-]`, 1 to 64 characters, checked where it enters).
    EventId
);
string_id!(
    /// A hold (URL-safe base64, checked where it enters).
    HoldId
);

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

/// The error body of every 4xx/5xx answer. Read through [`ErrorBodyFields`] (see there why).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "ErrorBodyFields")]
pub struct ErrorBody {
    /// A stable machine code such as `not_found` or `rate_limited`.
    pub error: String,
    /// A sentence a person can read.
    pub message: String,
    /// Where a buyer without an admission token must go (only with `not_admitted`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_url: Option<String>,
    /// The seats that were taken (only with `seat_unavailable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_ids: Option<Vec<String>>,
    /// When the sale and its pre-queue open (only with `not_open`; boxed, like `proof`).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub opening: Option<Box<Opening>>,
    /// The proof of work a join must carry (only with `proof_required`; boxed, so that every
    /// other error stays small).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub proof: Option<Box<ProofChallenge>>,
    /// The place was moved to another device (only with `not_in_queue`: API.md "Moving a
    /// place to another device"; boxed, like `proof`).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub moved: Option<Box<Moved>>,
}

/// [`ErrorBody`] as it is read: the fields that `flatten` writes inline, read flat.
///
/// Serde reads a flattened type, and an internally tagged enum such as [`QueueStatus`], through
/// a buffer of every value it meets (its private `Content`), which is code of its own in the
/// buyer's WASM. Read flat, neither links it: with both, 24,783 bytes of the main WASM's
/// functions before optimisation, besides each type's own. Every optional part is whole or
/// absent, as with `flatten`.
#[derive(Deserialize)]
struct ErrorBodyFields {
    error: String,
    message: String,
    #[serde(default)]
    queue_url: Option<String>,
    #[serde(default)]
    seat_ids: Option<Vec<String>>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    opens_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    prequeue_opens_at: Option<DateTime<Utc>>,
    #[serde(default)]
    challenge: Option<String>,
    #[serde(default)]
    bits: Option<u32>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    expires_at: Option<DateTime<Utc>>,
    #[serde(default)]
    moved: Option<bool>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    moved_at: Option<DateTime<Utc>>,
}

impl From<ErrorBodyFields> for ErrorBody {
    fn from(f: ErrorBodyFields) -> Self {
        let opening = f.opens_at.zip(f.prequeue_opens_at);
        let proof = f.challenge.zip(f.bits).zip(f.expires_at);
        Self {
            error: f.error,
            message: f.message,
            queue_url: f.queue_url,
            seat_ids: f.seat_ids,
            opening: opening.map(|(opens_at, prequeue_opens_at)| {
                Box::new(Opening {
                    opens_at,
                    prequeue_opens_at,
                })
            }),
            proof: proof.map(|((challenge, bits), expires_at)| {
                Box::new(ProofChallenge {
                    challenge,
                    bits,
                    expires_at,
                })
            }),
            moved: f
                .moved
                .zip(f.moved_at)
                .map(|(moved, moved_at)| Box::new(Moved { moved, moved_at })),
        }
    }
}

/// A `not_in_queue` answer's fields for a place that moved to another device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Moved {
    /// Always true: the place moved.
    pub moved: bool,
    /// When it moved.
    #[serde(deserialize_with = "rfc3339::at")]
    pub moved_at: DateTime<Utc>,
}

/// `POST /api/events/{id}/queue/move`'s answer: the one-time code that moves the place to
/// another device, until `expires_at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveCode {
    /// What the other device types (or scans): short, unambiguous letters and digits.
    pub code: String,
    #[serde(deserialize_with = "rfc3339::at")]
    pub expires_at: DateTime<Utc>,
    /// The event page's address that claims the code when opened (what the QR code holds).
    pub claim_url: String,
    /// `claim_url` as a QR code, an SVG image drawn on the server.
    pub qr_svg: String,
}

/// `POST /api/events/{id}/queue/claim`'s body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimRequest {
    pub code: String,
}

/// `GET /api/events/{id}/queue/claim?code=`: where the place a move code would bring here
/// stands, so that a page with a place of its own shows both before the buyer chooses.
/// Read flat (no internally tagged enum: its decoding would link serde's buffering into the
/// buyer's WASM).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimPreview {
    pub status: MovingPlace,
    /// Its position in line, while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
}

/// Where a place that a move code would bring here stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MovingPlace {
    Waiting,
    Admitted,
    PreQueue,
}

/// When a sale that has not opened opens, and its pre-queue (a `not_open` answer's fields).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opening {
    #[serde(deserialize_with = "rfc3339::at")]
    pub opens_at: DateTime<Utc>,
    #[serde(deserialize_with = "rfc3339::at")]
    pub prequeue_opens_at: DateTime<Utc>,
}

/// What a `proof_required` answer asks of a join (API.md "Proof of work at join"): a `nonce`
/// such that SHA-256(challenge ":" nonce) starts with `bits` zero bits, sent back as the
/// `Join-Proof: <challenge>:<nonce>` header before `expires_at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofChallenge {
    pub challenge: String,
    pub bits: u32,
    #[serde(deserialize_with = "rfc3339::at")]
    pub expires_at: DateTime<Utc>,
}

impl ErrorBody {
    pub fn new(error: &str, message: impl Into<String>) -> Self {
        Self {
            error: error.to_owned(),
            message: message.into(),
            queue_url: None,
            seat_ids: None,
            opening: None,
            proof: None,
            moved: None,
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// `POST /api/session` body. Unknown fields are refused so a typo is not silently ignored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSession {
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /api/session` answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SessionCreated {
    pub buyer_id: String,
    pub token: String,
}

/// The waiting-room settings of one event, as the API shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Room {
    pub enabled: bool,
    pub paused: bool,
    pub admit_rate_per_second: u32,
    /// Length of one admission tick.
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
    pub auto_rate: bool,
    /// The least the automatic rate may fall to.
    #[serde(default = "default_min_rate")]
    pub min_admit_rate_per_second: u32,
    /// The most the automatic rate may rise to.
    #[serde(default = "default_max_rate")]
    pub max_admit_rate_per_second: u32,
    /// The hold transaction's p99 the automatic rate keeps under.
    #[serde(default = "default_target_hold_p99_ms")]
    pub target_hold_p99_ms: u32,
    /// Whether admission tokens are bound to the buyer's device key (API.md "Tokens bound to
    /// the device"): joins and gated requests carry a DPoP proof.
    #[serde(default)]
    pub bind_tokens: bool,
}

/// A room's automatic-rate settings before the operator sets them (as the migration has them).
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

/// When the pre-queue of a sale opening at `opens_at` opens.
pub fn prequeue_opens_at(
    opens_at: Option<DateTime<Utc>>,
    prequeue_seconds: u32,
) -> Option<DateTime<Utc>> {
    opens_at.map(|t| t - chrono::Duration::seconds(i64::from(prequeue_seconds)))
}

/// One event of `GET /api/events`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}

/// The currency of an event made before events had one.
pub const DEFAULT_CURRENCY: &str = "EUR";

fn default_currency() -> String {
    DEFAULT_CURRENCY.to_owned()
}

/// A venue's time zone as a page needs it: its name, and its UTC offset at the moments the
/// page shows (the server knows the zone's rules; the page does not carry them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    /// The IANA name ("Europe/Berlin").
    pub name: String,
    /// The offset in seconds east of UTC from each moment on, in time order: the show, the
    /// sale's opening and its pre-queue, and the server's now when it answered.
    pub offsets: Vec<ZoneOffset>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub struct NewSection {
    pub name: String,
    pub rows: u32,
    pub seats_per_row: u32,
    pub price_cents: i64,
}

/// `POST /api/admin/events` body.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewEvent {
    pub name: String,
    pub starts_at: DateTime<Utc>,
    /// The venue's IANA time zone ("Europe/Berlin"; default UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<String>,
    /// The ISO 4217 code of the prices (default EUR).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    pub sections: Vec<NewSection>,
    #[serde(default)]
    pub room: RoomUpdate,
}

/// `PUT /api/admin/events/{id}/room` body, and the optional `room` of a new event: every field
/// is optional, unknown fields are refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    pub bind_tokens: Option<bool>,
}

/// A field that may be sent as null, told apart from one not sent: `Some(None)` is a null.
fn present<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// The answer of join and poll (`/api/events/{id}/queue`). Written with its `status` tag
/// inside; read through [`QueueStatusFields`] (see [`ErrorBodyFields`] why).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "status",
    rename_all = "snake_case",
    try_from = "QueueStatusFields"
)]
pub enum QueueStatus {
    Waiting {
        /// 1-based: 1 is the next buyer to be admitted.
        position: u64,
        /// `ceil(position / N)`; `None` while the room is paused.
        estimated_wait_seconds: Option<u64>,
        /// The honest band around the estimate, `[low, high]` seconds (see [`Band`]); `None`
        /// while the room is paused.
        #[serde(default)]
        estimate_range_seconds: Option<[u64; 2]>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        paused: bool,
        /// Present (true) when the line's store had failed over and lost its last changes:
        /// this buyer's lost place was put back at its arrival order, or their position is
        /// larger than the last one they were told (admissions lost in the failover are made
        /// again first). Absent otherwise.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        recovered: bool,
        /// The buyer's arrival number in this line: arrivals are admitted in its order, so a
        /// client (the load test) can check first come, first served exactly. Additive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arrival: Option<u64>,
        /// Whether seats are likely to be left when this buyer's turn comes (the rule is the
        /// server's `queue` module's). Absent only while the line does not know the event's
        /// seats yet (before the admission ticker's first count).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outlook: Option<Outlook>,
        /// A drawn entrant's pre-queue ticket: the one whose place in the published draw gave
        /// them this place in line.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ticket: Option<String>,
    },
    /// In the pre-queue: the place comes with the draw at `opens_at`.
    PreQueue {
        opens_at: DateTime<Utc>,
        /// 32 lowercase hex characters, random: it names the entrant in the published draw
        /// and says nothing about the buyer.
        ticket: String,
        /// Always null here (API.md): nobody has a place before the draw.
        position: Option<u64>,
        /// Always null here, like `position`.
        estimated_wait_seconds: Option<u64>,
    },
    /// Every seat of the event is sold: the line is over, for the waiting and the admitted.
    SoldOut,
    Admitted {
        admitted: bool,
        admission_token: String,
        expires_at: DateTime<Utc>,
        /// Present (true) when the line's store had lost this admission in a failover and it
        /// was marked again from the buyer's admission token.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        recovered: bool,
    },
}

/// [`QueueStatus`] as it is read: its tag and every variant's fields, read flat, then checked
/// against the tag (a field the tag's variant requires must be there; others are ignored, as
/// the tagged form does).
#[derive(Deserialize)]
struct QueueStatusFields {
    status: QueueStatusTag,
    #[serde(default)]
    position: Option<u64>,
    #[serde(default)]
    estimated_wait_seconds: Option<u64>,
    #[serde(default)]
    estimate_range_seconds: Option<[u64; 2]>,
    #[serde(default)]
    paused: bool,
    #[serde(default)]
    recovered: bool,
    #[serde(default)]
    arrival: Option<u64>,
    #[serde(default)]
    outlook: Option<Outlook>,
    #[serde(default)]
    ticket: Option<String>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    opens_at: Option<DateTime<Utc>>,
    #[serde(default)]
    admitted: Option<bool>,
    #[serde(default)]
    admission_token: Option<String>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    expires_at: Option<DateTime<Utc>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum QueueStatusTag {
    Waiting,
    PreQueue,
    SoldOut,
    Admitted,
}

impl TryFrom<QueueStatusFields> for QueueStatus {
    type Error = String;

    fn try_from(f: QueueStatusFields) -> Result<Self, String> {
        fn needs<T>(value: Option<T>, field: &str) -> Result<T, String> {
            value.ok_or_else(|| format!("missing field `{field}`"))
        }
        Ok(match f.status {
            QueueStatusTag::Waiting => Self::Waiting {
                position: needs(f.position, "position")?,
                estimated_wait_seconds: f.estimated_wait_seconds,
                estimate_range_seconds: f.estimate_range_seconds,
                paused: f.paused,
                recovered: f.recovered,
                arrival: f.arrival,
                outlook: f.outlook,
                ticket: f.ticket,
            },
            QueueStatusTag::PreQueue => Self::PreQueue {
                opens_at: needs(f.opens_at, "opens_at")?,
                ticket: needs(f.ticket, "ticket")?,
                position: f.position,
                estimated_wait_seconds: f.estimated_wait_seconds,
            },
            QueueStatusTag::SoldOut => Self::SoldOut,
            QueueStatusTag::Admitted => Self::Admitted {
                admitted: needs(f.admitted, "admitted")?,
                admission_token: needs(f.admission_token, "admission_token")?,
                expires_at: needs(f.expires_at, "expires_at")?,
                recovered: f.recovered,
            },
        })
    }
}

/// Whether seats are likely to be left when a waiting buyer's turn comes (API.md "Sold out,
/// and the outlook").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outlook {
    Likely,
    Uncertain,
    Unlikely,
}

/// The claims of an admission token (API.md "Keys").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdmissionClaims {
    /// The buyer id.
    pub sub: BuyerId,
    /// The event id.
    pub evt: EventId,
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    pub jti: String,
    /// The room's epoch when the token was minted (`Room::epoch`): the gate lets it pass only
    /// in that epoch. Absent (0) in tokens minted before epochs were.
    #[serde(default)]
    pub epc: u32,
    /// In a room that binds tokens: the thumbprint of the device key the token is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<Confirmation>,
}

/// The `cnf` claim of a bound token (RFC 9449 section 6).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The RFC 7638 thumbprint of the key (base64url SHA-256).
    pub jkt: String,
}

/// A seat's state on the map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatStatus {
    Available,
    Held,
    Sold,
}

/// One seat of `GET /api/events/{id}/seats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub id: String,
    pub number: u32,
    pub price_cents: i64,
    pub status: SeatStatus,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowView {
    pub label: String,
    pub seats: Vec<SeatView>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionView {
    pub name: String,
    pub rows: Vec<RowView>,
}

/// `GET /api/events/{id}/seats`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatMap {
    pub event_id: String,
    pub sections: Vec<SectionView>,
}

/// `POST /api/events/{id}/holds` body: either `seat_ids` (chosen seats) or `section` and
/// `quantity` (the best available). [`HoldRequest::choice`] tells which, or why neither.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HoldRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quantity: Option<u32>,
}

/// What a well-formed hold request asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HoldChoice {
    /// Seat ids, distinct, in ascending order (the order rows are locked in).
    Seats(Vec<i64>),
    BestAvailable {
        section: String,
        quantity: u32,
    },
}

impl HoldRequest {
    /// The request's choice; a malformed one (both forms, neither, no seats, a seat named
    /// twice, an id that cannot name a seat, a zero quantity) is `unprocessable`.
    pub fn choice(&self) -> Result<HoldChoice, ErrorBody> {
        match (&self.seat_ids, &self.section, self.quantity) {
            (Some(ids), None, None) => {
                if ids.is_empty() {
                    return Err(unprocessable("seat_ids must name at least one seat"));
                }
                let mut parsed = ids
                    .iter()
                    .map(|id| id.parse::<i64>().ok().filter(|n| *n > 0))
                    .collect::<Option<Vec<i64>>>()
                    .ok_or_else(|| unprocessable("seat_ids contains an id that is not a seat"))?;
                parsed.sort_unstable();
                let before = parsed.len();
                parsed.dedup();
                if parsed.len() != before {
                    return Err(unprocessable("seat_ids names a seat twice"));
                }
                Ok(HoldChoice::Seats(parsed))
            }
            (None, Some(section), Some(quantity)) => {
                if quantity == 0 {
                    return Err(unprocessable("quantity must be at least 1"));
                }
                Ok(HoldChoice::BestAvailable {
                    section: section.trim().to_owned(),
                    quantity,
                })
            }
            _ => Err(unprocessable(
                "send either {\"seat_ids\": [...]} or {\"section\": ..., \"quantity\": n}",
            )),
        }
    }

    /// How many seats the request asks for.
    pub fn seat_count(choice: &HoldChoice) -> usize {
        match choice {
            HoldChoice::Seats(ids) => ids.len(),
            HoldChoice::BestAvailable { quantity, .. } => *quantity as usize,
        }
    }
}

/// The state of a hold: the JSON of API.md and, through the server's `sql::Text`, the `status`
/// column of the `hold` table (the same four words).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HoldStatus {
    Active,
    Expired,
    Released,
    Purchased,
}

/// A held seat, with where it is, for people.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldSeat {
    pub id: String,
    pub section: String,
    pub row: String,
    pub number: u32,
    pub price_cents: i64,
}

/// A hold, as `POST /api/events/{id}/holds` and `GET /api/holds/{id}` answer it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hold {
    pub hold_id: String,
    pub event_id: String,
    pub seat_ids: Vec<String>,
    #[serde(deserialize_with = "rfc3339::at")]
    pub expires_at: DateTime<Utc>,
    pub total_cents: i64,
    pub status: HoldStatus,
    pub seats: Vec<HeldSeat>,
}

/// `POST /api/holds/{id}/checkout` answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub hold_id: String,
    pub status: OrderStatus,
    pub total_cents: i64,
}

/// The state of an order. An order exists only once its sale is recorded, so it is always
/// `confirmed`; the type says so instead of a free string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    Confirmed,
}

/// What the event page starts from: the event, the buyer's place in its line (joined while
/// rendering), the seat map once admitted, and the time it was answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventEntry {
    pub event: Event,
    /// `None` before the sale's pre-queue opens (the join answered `not_open`; nothing is
    /// stored): the page counts down to the opening in `event.room`.
    pub queue: Option<QueueStatus>,
    pub seats: Option<Deferred<SeatMap>>,
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

/// Seat counts by status.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatCounts {
    pub available: i64,
    pub held: i64,
    pub sold: i64,
}

/// One second of the operator's series.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
}

/// Buyers a room that binds tokens turned away, by why (API.md "Tokens bound to the device").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
pub struct Night {
    pub id: i64,
    pub started_at: DateTime<Utc>,
    pub ended_at: DateTime<Utc>,
    /// `room_off`, `operator`, or `line_empty` (the line quiet for `night_idle_seconds`).
    pub reason: String,
}

/// One second of a kept night (`GET /api/admin/events/{id}/nights/{night}/series`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub struct Payments {
    pub counts: PaymentCounts,
    pub refunds: Vec<PaymentEntry>,
    pub pending: Vec<PaymentEntry>,
}

/// Payments of an event by state.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PaymentCounts {
    pub pending: u64,
    pub succeeded: u64,
    pub declined: u64,
    pub refunded: u64,
    pub failed: u64,
}

/// One payment: an attempt to pay for a hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
pub enum OperatorAction {
    CreateEvent,
    ChangeRoom,
    SignIn,
    SignOut,
    SetBeacon,
    /// Kept the night so far in the archive (`POST /api/admin/events/{id}/nights`).
    KeepNight,
}

/// One entry of `GET /api/admin/audit` and `GET /api/admin/events/{id}/audit`: who did what,
/// when, and the state before and after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    pub action: OperatorAction,
    /// The event acted on (none for signing in and out).
    pub event_id: Option<String>,
    /// Who: the credential used and the client address.
    pub actor: String,
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
pub enum DrawState {
    Pending,
    Drawn,
}

/// `GET /api/events/{id}/draw`: the draw anyone can check (API.md gives the hashing).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

fn unprocessable(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new("unprocessable", message)
}

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
        self.room
            .validate_bounds(DEFAULT_MIN_ADMIT_RATE, DEFAULT_MAX_ADMIT_RATE)
    }
}

impl RoomUpdate {
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

/// The honest estimate of DESIGN.md invariant 6: `ceil(position / N)` seconds.
pub fn estimated_wait_seconds(position: u64, admit_rate_per_second: u32) -> u64 {
    position.div_ceil(u64::from(admit_rate_per_second.max(1)))
}

/// What the band around an estimate is made of: the rate in force and how the admission rate
/// really moved lately (in thousandths of an admission a second, so that the band is exact
/// integer arithmetic and its record is a short string), and the share of admitted buyers who
/// actually came (thousandths). Invariant: `slow_milli <= 1000 * rate <= fast_milli` and
/// `came_milli <= 1000`, so that `low <= estimate <= high` for every position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// The admission rate in force (a second).
    pub rate: u32,
    /// The slow end of the rate lately, in milli-admissions a second.
    pub slow_milli: u64,
    /// The fast end of the rate lately, in milli-admissions a second.
    pub fast_milli: u64,
    /// Thousandths of the admitted buyers who came (held a seat): the others' turns may be
    /// skipped or given to the next buyer, so the line may move faster than the rate.
    pub came_milli: u64,
    /// Places the free seats serve now (at the average seats a hold): behind them, admission
    /// waits for held seats to come back (`u64::MAX`: the seats are not known).
    pub free_places: u64,
    /// Places the free and held seats serve in one hold's time, once the free ones are taken.
    pub cycle_places: u64,
    /// A hold's time: how long admission may wait for held seats to come back.
    pub cycle_seconds: u64,
    /// With the automatic rate, its floor (a second; 0 with the operator's fixed N): once the
    /// free seats are taken, admission follows the seats that come back, and the rate eases
    /// toward its floor, so the places beyond the free seats may move no faster than it.
    pub floor_rate: u32,
}

impl Band {
    /// The band of a rate nothing is known about yet: the rate exactly, everyone coming.
    pub fn exact(rate: u32) -> Self {
        let milli = u64::from(rate.max(1)) * 1000;
        Self {
            rate: rate.max(1),
            slow_milli: milli,
            fast_milli: milli,
            came_milli: 1000,
            free_places: u64::MAX,
            cycle_places: 1,
            cycle_seconds: 0,
            floor_rate: 0,
        }
    }

    /// `(estimate, [low, high])` in seconds for a buyer at `position`: the estimate is
    /// `ceil(position / rate)`, the band runs from the fast rate with the absent buyers'
    /// turns skipped (rounded down) to the slower of two: the slow rate (rounded up) plus a
    /// hold's time for each round of held seats the buyers ahead must wait for once the free
    /// seats are taken; and, with the automatic rate, the free seats' places at the slow rate
    /// and the rest at the rate's floor.
    pub fn wait(&self, position: u64) -> (u64, [u64; 2]) {
        let estimate = estimated_wait_seconds(position, self.rate);
        let milli = u64::from(self.rate) * 1000;
        let slow = self.slow_milli.clamp(1, milli);
        let fast = self.fast_milli.max(milli);
        let came = self.came_milli.min(1000);
        // Seconds for `places` at the slow rate, rounded up.
        let at_slow = |places: u64| (u128::from(places) * 1000).div_ceil(u128::from(slow));
        let low = u128::from(position) * u128::from(came) / u128::from(fast);
        let clamp = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        let beyond = position.saturating_sub(self.free_places);
        let rounds = beyond.div_ceil(self.cycle_places.max(1));
        let high =
            clamp(at_slow(position)).saturating_add(rounds.saturating_mul(self.cycle_seconds));
        // The free seats' places at the slow rate, the rest at the automatic rate's floor.
        let at_floor = match self.floor_rate {
            0 => 0,
            floor => {
                clamp(at_slow(position - beyond) + u128::from(beyond.div_ceil(u64::from(floor))))
            }
        };
        (
            estimate,
            [clamp(low).min(estimate), high.max(at_floor).max(estimate)],
        )
    }

    /// The band as the line records it at a join:
    /// `rate:slow:fast:came:free:cycle:seconds:floor`.
    pub fn record(&self) -> String {
        format!(
            "{}:{}:{}:{}:{}:{}:{}:{}",
            self.rate,
            self.slow_milli,
            self.fast_milli,
            self.came_milli,
            self.free_places,
            self.cycle_places,
            self.cycle_seconds,
            self.floor_rate
        )
    }

    /// The band of a [`Band::record`].
    pub fn from_record(record: &str) -> Option<Self> {
        let mut parts = record
            .split(':')
            .map(str::parse::<u64>)
            .collect::<Result<Vec<u64>, _>>()
            .ok()?;
        // A record made before the floor was part of the band has seven parts and no floor.
        let floor = if parts.len() == 8 { parts.pop()? } else { 0 };
        let [rate, slow, fast, came, free, cycle, seconds] = <[u64; 7]>::try_from(parts).ok()?;
        Some(Self {
            rate: u32::try_from(rate).ok()?.max(1),
            slow_milli: slow,
            fast_milli: fast,
            came_milli: came,
            free_places: free,
            cycle_places: cycle,
            cycle_seconds: seconds,
            floor_rate: u32::try_from(floor).ok()?,
        })
    }
}

/// `GET /api/events/{id}/report`: the night's public report (API.md "The night's report").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Buyers who took a place in the line (or entered its pre-queue).
    pub joined: u64,
    /// Admissions in the admission log.
    pub admitted: u64,
    /// Admissions of a buyer who arrived before someone admitted earlier (buyers back from
    /// away apart).
    pub fifo_inversions: u64,
    /// Admissions of a buyer skipped at their turn while away and admitted ahead on return
    /// (additive): after later arrivals by design, so neither inversions nor estimate samples.
    #[serde(default)]
    pub back_from_away: u64,
    pub estimate: EstimateReport,
    pub admission_log_url: String,
}

/// How the estimates given at joining compare with the waits the buyers really had.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EstimateReport {
    /// Admissions whose buyer was given an estimate at joining.
    pub samples: u64,
    /// `None` without samples.
    pub median_abs_error_seconds: Option<f64>,
    pub p90_abs_error_seconds: Option<f64>,
    /// Share of samples whose real wait fell inside the band given at joining.
    pub within_range_share: Option<f64>,
}

/// `GET /api/events/{id}/report/admissions`: a page of the admission log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdmissionLog {
    pub entries: Vec<AdmissionEntry>,
    /// The `after` of the next page; `None` on the last one.
    pub next: Option<u64>,
}

/// One admission, in the order they happened. No buyer id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdmissionEntry {
    /// The admission's number in the event (1, 2, ...; a gap is an admission the log lost).
    pub n: u64,
    /// The arrival number the buyer had (a drawn entrant's: their place in the draw).
    pub arrival: u64,
    pub admitted_at: DateTime<Utc>,
    /// The buyer was skipped at their turn while away and admitted ahead on return
    /// (additive; absent: false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub back_from_away: bool,
    /// When the buyer took their place, if the line recorded it (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joined_at: Option<DateTime<Utc>>,
    /// The estimate the buyer was given at joining (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_wait_seconds: Option<u64>,
    /// The band the buyer was given at joining (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate_range_seconds: Option<[u64; 2]>,
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
    fn a_band_recorded_before_the_floor_reads_back_without_one() {
        let band = Band::from_record("10:7500:10000:1000:5:10:60").expect("a seven-part record");
        assert_eq!(band.floor_rate, 0);
        assert_eq!(band.wait(105), (11, [10, 614]));
        assert_eq!(Band::from_record("10:7500:10000:1000:5:10:60:2:9"), None);
        assert_eq!(Band::from_record("10:7500:10000:1000:5:10"), None);
    }

    #[test]
    fn typed_ids_are_bare_strings_in_the_json() {
        let claims = AdmissionClaims {
            sub: BuyerId::from("b1"),
            evt: EventId::from("e1"),
            aud: "anteroom".into(),
            iat: 1,
            exp: 2,
            jti: "j".into(),
            epc: 3,
            cnf: None,
        };
        let json = serde_json::to_value(&claims).unwrap();
        assert_eq!(json["sub"], "b1");
        assert_eq!(json["evt"], "e1");
        let back: AdmissionClaims = serde_json::from_value(json).unwrap();
        assert_eq!(back, claims);
        assert_eq!(serde_json::to_string(&HoldId::from("h")).unwrap(), "\"h\"");
    }

    #[test]
    fn estimate_rounds_up_and_is_zero_only_at_position_zero() {
        assert_eq!(estimated_wait_seconds(14_812, 300), 50);
        assert_eq!(estimated_wait_seconds(1, 300), 1);
        assert_eq!(estimated_wait_seconds(300, 300), 1);
        assert_eq!(estimated_wait_seconds(301, 300), 2);
        assert_eq!(estimated_wait_seconds(0, 300), 0);
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

    #[test]
    fn a_hold_request_is_either_chosen_seats_or_best_available() {
        let seats = HoldRequest {
            seat_ids: Some(vec!["9".into(), "3".into()]),
            ..HoldRequest::default()
        };
        assert_eq!(seats.choice().unwrap(), HoldChoice::Seats(vec![3, 9]));
        let best = HoldRequest {
            section: Some("A".into()),
            quantity: Some(2),
            ..HoldRequest::default()
        };
        assert!(matches!(
            best.choice().unwrap(),
            HoldChoice::BestAvailable { quantity: 2, .. }
        ));
        for bad in [
            HoldRequest::default(),
            HoldRequest {
                seat_ids: Some(vec![]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["1".into(), "1".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["x".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["-4".into()]),
                ..HoldRequest::default()
            },
            HoldRequest {
                section: Some("A".into()),
                quantity: Some(0),
                ..HoldRequest::default()
            },
            HoldRequest {
                seat_ids: Some(vec!["1".into()]),
                section: Some("A".into()),
                quantity: Some(1),
            },
        ] {
            assert!(bad.choice().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn queue_status_serializes_as_api_md_says() {
        let waiting = QueueStatus::Waiting {
            position: 3,
            estimated_wait_seconds: None,
            estimate_range_seconds: None,
            paused: true,
            recovered: false,
            arrival: None,
            outlook: Some(Outlook::Uncertain),
            ticket: None,
        };
        assert_eq!(
            serde_json::to_value(&waiting).unwrap(),
            serde_json::json!({"status": "waiting", "position": 3, "estimated_wait_seconds": null, "estimate_range_seconds": null, "paused": true, "outlook": "uncertain"})
        );
        assert_eq!(
            serde_json::to_value(QueueStatus::SoldOut).unwrap(),
            serde_json::json!({"status": "sold_out"})
        );
    }

    /// Asserts that `value` reads back from the JSON it writes.
    fn reads_back<T>(value: &T)
    where
        T: Serialize + serde::de::DeserializeOwned + PartialEq + fmt::Debug,
    {
        let json = serde_json::to_string(value).unwrap();
        assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value, "{json}");
    }

    #[test]
    fn queue_status_reads_back_what_it_writes_and_needs_its_variants_fields() {
        let t = "2026-12-01T19:00:00Z".parse::<DateTime<Utc>>().unwrap();
        for status in [
            QueueStatus::Waiting {
                position: 7,
                estimated_wait_seconds: Some(3),
                estimate_range_seconds: Some([2, 9]),
                paused: true,
                recovered: true,
                arrival: Some(41),
                outlook: Some(Outlook::Likely),
                ticket: Some("ab".into()),
            },
            QueueStatus::PreQueue {
                opens_at: t,
                ticket: "cd".into(),
                position: None,
                estimated_wait_seconds: None,
            },
            QueueStatus::SoldOut,
            QueueStatus::Admitted {
                admitted: true,
                admission_token: "tok".into(),
                expires_at: t,
                recovered: true,
            },
        ] {
            reads_back(&status);
        }
        for (json, missing) in [
            (
                r#"{"status":"waiting","estimated_wait_seconds":1}"#,
                "position",
            ),
            (r#"{"status":"pre_queue","ticket":"cd"}"#, "opens_at"),
            (
                r#"{"status":"admitted","admitted":true,"expires_at":"2026-12-01T19:00:00Z"}"#,
                "admission_token",
            ),
        ] {
            let e = serde_json::from_str::<QueueStatus>(json)
                .unwrap_err()
                .to_string();
            assert!(e.contains(missing), "{json}: {e}");
        }
        assert!(serde_json::from_str::<QueueStatus>(r#"{"status":"gone"}"#).is_err());
        // Another variant's fields are ignored, as the tagged form ignores unknown ones.
        assert_eq!(
            serde_json::from_str::<QueueStatus>(r#"{"status":"sold_out","position":3}"#).unwrap(),
            QueueStatus::SoldOut
        );
    }

    #[test]
    fn times_read_back_as_the_server_writes_them_whatever_their_fraction_or_offset() {
        let t = "2026-12-01T19:00:00Z".parse::<DateTime<Utc>>().unwrap();
        for at in [
            t,
            t + chrono::Duration::milliseconds(123),
            t + chrono::Duration::nanoseconds(1),
        ] {
            reads_back(&Moved {
                moved: true,
                moved_at: at,
            });
        }
        let read = |at: &str| {
            serde_json::from_str::<Moved>(&format!(r#"{{"moved":true,"moved_at":"{at}"}}"#))
                .map(|m| m.moved_at)
        };
        assert_eq!(read("2026-12-01T20:00:00+01:00").unwrap(), t);
        for not_rfc3339 in ["1 Dec 2026 19:00:00 +0000", "2026-12-01", "19:00"] {
            assert!(read(not_rfc3339).is_err(), "{not_rfc3339}");
        }
        // An optional time (`rfc3339::maybe`) reads null and absent as none, and a bad one as
        // an error, not as none.
        let opens_at =
            |json: &str| serde_json::from_str::<QueueStatusFields>(json).map(|f| f.opens_at);
        assert_eq!(
            opens_at(r#"{"status":"sold_out","opens_at":null}"#).unwrap(),
            None
        );
        assert_eq!(opens_at(r#"{"status":"sold_out"}"#).unwrap(), None);
        assert_eq!(
            opens_at(r#"{"status":"sold_out","opens_at":"2026-12-01T19:00:00Z"}"#).unwrap(),
            Some(t)
        );
        assert!(opens_at(r#"{"status":"sold_out","opens_at":"19:00"}"#).is_err());
    }

    #[test]
    fn an_error_body_reads_back_its_flattened_parts_whole_or_not_at_all() {
        let t = "2026-12-01T19:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let mut full = ErrorBody::new("proof_required", "Work first.");
        full.queue_url = Some("/events/e".into());
        full.seat_ids = Some(vec!["A-1".into()]);
        full.opening = Some(Box::new(Opening {
            opens_at: t,
            prequeue_opens_at: t,
        }));
        full.proof = Some(Box::new(ProofChallenge {
            challenge: "c".into(),
            bits: 12,
            expires_at: t,
        }));
        full.moved = Some(Box::new(Moved {
            moved: true,
            moved_at: t,
        }));
        for body in [full, ErrorBody::new("not_found", "No such event.")] {
            reads_back(&body);
        }
        // A part with a field missing is absent, not half there.
        let partial = serde_json::from_str::<ErrorBody>(
            r#"{"error":"x","message":"y","challenge":"c","bits":3,"moved":true}"#,
        )
        .unwrap();
        assert_eq!(partial, ErrorBody::new("x", "y"));
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            /// Any list of strings: accepted exactly when every one is a positive integer and
            /// none repeats, and then as the sorted ids.
            #[test]
            fn seat_ids_parse_exactly_when_positive_and_distinct(
                ids in proptest::collection::vec(
                    prop_oneof!["[0-9]{1,20}", "-?[0-9]{1,5}", "\\PC{0,8}"], 0..12)
            ) {
                let request = HoldRequest { seat_ids: Some(ids.clone()), ..HoldRequest::default() };
                let parsed: Option<Vec<i64>> =
                    ids.iter().map(|i| i.parse::<i64>().ok().filter(|n| *n > 0)).collect();
                let expected = parsed.filter(|p| {
                    !p.is_empty() && p.iter().collect::<std::collections::HashSet<_>>().len() == p.len()
                });
                match (request.choice(), expected) {
                    (Ok(HoldChoice::Seats(got)), Some(mut want)) => {
                        want.sort_unstable();
                        prop_assert_eq!(got, want);
                    }
                    (Err(e), None) => prop_assert_eq!(e.error, "unprocessable"),
                    (got, want) => prop_assert!(false, "{:?} but expected {:?}", got, want),
                }
            }

            /// The estimate is the smallest whole number of seconds in which N a second admit
            /// the buyer: never optimistic, never more than a second pessimistic.
            #[test]
            fn the_estimate_is_the_ceiling_of_position_over_n(
                position in 1u64..10_000_000_000, n in 1u32..=100_000
            ) {
                let wait = estimated_wait_seconds(position, n);
                prop_assert!(wait * u64::from(n) >= position);
                prop_assert!((wait - 1) * u64::from(n) < position);
            }

            /// Whatever the rate did lately, the band holds the estimate, and its record
            /// gives back the same band.
            #[test]
            fn the_band_holds_the_estimate_and_survives_its_record(
                position in 1u64..10_000_000_000, rate in 1u32..=100_000,
                slow in 0u64..200_000_000, fast in 0u64..200_000_000, came in 0u64..2000,
                free in 0u64..1_000_000, cycle in 0u64..1000, seconds in 0u64..1000,
                floor in 0u32..=100_000,
            ) {
                let band = Band {
                    rate, slow_milli: slow, fast_milli: fast, came_milli: came,
                    free_places: free, cycle_places: cycle, cycle_seconds: seconds,
                    floor_rate: floor,
                };
                let (estimate, [low, high]) = band.wait(position);
                prop_assert_eq!(estimate, estimated_wait_seconds(position, rate));
                prop_assert!(low <= estimate && estimate <= high);
                prop_assert_eq!(Band::from_record(&band.record()), Some(band));
            }

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
