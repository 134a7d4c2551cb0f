//! The line: [`QueueStatus`] (the answer of join and poll, read flat), the honest estimate and
//! its band (computed by [`crate::estimate`]: `low <= estimate <= high` for every position), the
//! outlook, the proof of work a join may owe, sessions, and moving a place to another device.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::rfc3339;

/// The answer of join and poll (`/api/events/{id}/queue`). Written with its `status` tag
/// inside; read through [`QueueStatusFields`] (see [`ErrorBodyFields`] why).
///
/// [`ErrorBodyFields`]: super::ids::ErrorBodyFields
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "status",
    rename_all = "snake_case",
    try_from = "QueueStatusFields"
)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum QueueStatus {
    Waiting {
        /// 1-based: 1 is the next buyer to be admitted.
        position: u64,
        /// The model's estimate ([`crate::estimate::Model::wait`]); `None` while the room is
        /// paused.
        estimated_wait_seconds: Option<u64>,
        /// The honest band around the estimate, `[low, high]` seconds (see [`crate::estimate`]); `None`
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
        /// Within how many seconds the page asks for its place again (`crate::presence`):
        /// this answer keeps the buyer present for twice as long. Few seconds near the front,
        /// minutes far back. Additive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        poll_within_seconds: Option<u64>,
        /// How often the page refreshes what it shows from the line's public progress (and a
        /// page without JavaScript reloads), seconds. Additive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        refresh_seconds: Option<u64>,
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
        /// In a room in front of the ticketer's site (API.md "The gate"): the target's address
        /// with a hand-over token (`?anteroom_token=`), where the buyer goes now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        handoff_url: Option<String>,
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
    #[serde(default)]
    poll_within_seconds: Option<u64>,
    #[serde(default)]
    refresh_seconds: Option<u64>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    opens_at: Option<DateTime<Utc>>,
    #[serde(default)]
    admitted: Option<bool>,
    #[serde(default)]
    admission_token: Option<String>,
    #[serde(default, deserialize_with = "rfc3339::maybe")]
    expires_at: Option<DateTime<Utc>>,
    #[serde(default)]
    handoff_url: Option<String>,
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
                poll_within_seconds: f.poll_within_seconds,
                refresh_seconds: f.refresh_seconds,
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
                handoff_url: f.handoff_url,
            },
        })
    }
}

/// Whether seats are likely to be left when a waiting buyer's turn comes (API.md "Sold out,
/// and the outlook").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Outlook {
    Likely,
    Uncertain,
    Unlikely,
}

impl Outlook {
    /// Its name as the JSON and the admission log write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Likely => "likely",
            Self::Uncertain => "uncertain",
            Self::Unlikely => "unlikely",
        }
    }
}

/// What a `proof_required` answer asks of a join (API.md "Proof of work at join"): a `nonce`
/// such that SHA-256(challenge ":" nonce) starts with `bits` zero bits, sent back as the
/// `Join-Proof: <challenge>:<nonce>` header before `expires_at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProofChallenge {
    pub challenge: String,
    pub bits: u32,
    #[serde(deserialize_with = "rfc3339::at")]
    pub expires_at: DateTime<Utc>,
}

/// A `not_in_queue` answer's fields for a place that moved to another device.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ClaimRequest {
    pub code: String,
}

/// `GET /api/events/{id}/queue/claim?code=`: where the place a move code would bring here
/// stands, so that a page with a place of its own shows both before the buyer chooses.
/// Read flat (no internally tagged enum: its decoding would link serde's buffering into the
/// buyer's WASM).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ClaimPreview {
    pub status: MovingPlace,
    /// Its position in line, while it waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
}

/// Where a place that a move code would bring here stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum MovingPlace {
    Waiting,
    Admitted,
    PreQueue,
}

/// `POST /api/session` body. Unknown fields are refused so a typo is not silently ignored.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NewSession {
    #[serde(default)]
    pub name: Option<String>,
    /// A signed-in buyer handed over by the ticketer's site (API.md "Accounts"): a short-lived
    /// JWT the ticketer signs; the session is then the account's.
    #[serde(default)]
    pub assertion: Option<String>,
}

/// `POST /api/session` answer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct SessionCreated {
    pub buyer_id: String,
    pub token: String,
    /// Whether the session is an account's (signed in), not an anonymous one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub account: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::reads_back;

    #[test]
    fn an_outlooks_name_is_its_json() {
        for outlook in [Outlook::Likely, Outlook::Uncertain, Outlook::Unlikely] {
            assert_eq!(serde_json::to_value(outlook).unwrap(), outlook.name());
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
            poll_within_seconds: None,
            refresh_seconds: None,
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
                poll_within_seconds: Some(30),
                refresh_seconds: Some(3),
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
                handoff_url: Some("https://shop.example/?anteroom_token=t".into()),
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
}
