//! The names of things and the error every refusal carries: typed string ids (the JSON is the
//! bare string), the claims of an admission token that carry them, and [`ErrorBody`], the body
//! of every 4xx/5xx answer, read flat so that the buyer's WASM links no serde buffering.

use std::{fmt, ops::Deref};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Moved, Opening, ProofChallenge, rfc3339};

/// A string id of one kind of thing. The JSON is the bare string (`serde(transparent)`); the
/// type is for the code, so that functions taking two ids (`verify(token, event, buyer)`)
/// cannot be handed them the wrong way round. It reads as a `&str` (`Deref`) wherever an id is
/// only looked at (a Redis key, an SQL bind); making one from a string says what it is.
macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        #[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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
    pub seat_ids: Option<Box<[String]>>,
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
    /// Where to sign in, or why not (API.md "Accounts"; boxed, like `proof`).
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub why: Option<Box<Why>>,
}

/// The error body's schema: `error` and `message`, and every optional field, those of the
/// flattened parts too (written inline, each whole or absent).
#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for ErrorBody {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{
            RefOr,
            schema::{ArrayBuilder, ObjectBuilder, Schema, Type},
        };
        let text = |about: &str| {
            ObjectBuilder::new()
                .schema_type(Type::String)
                .description(Some(about))
        };
        let mut body = ObjectBuilder::new()
            .description(Some(
                "The body of every 4xx/5xx answer of the JSON API (API.md \"Errors\").",
            ))
            .property("error", text("A stable machine code such as `not_found`"))
            .required("error")
            .property("message", text("A sentence a person can read"))
            .required("message")
            .property(
                "queue_url",
                text("Where a buyer without an admission token must go (not_admitted)"),
            )
            .property(
                "seat_ids",
                ArrayBuilder::new()
                    .items(ObjectBuilder::new().schema_type(Type::String))
                    .description(Some("The seats that were taken (seat_unavailable)")),
            );
        let parts = [
            <Opening as utoipa::PartialSchema>::schema(),
            <ProofChallenge as utoipa::PartialSchema>::schema(),
            <Moved as utoipa::PartialSchema>::schema(),
            <Why as utoipa::PartialSchema>::schema(),
        ];
        for part in parts {
            if let RefOr::T(Schema::Object(part)) = part {
                for (name, property) in part.properties {
                    body = body.property(name, property);
                }
            }
        }
        body.into()
    }
}

#[cfg(feature = "ssr")]
impl utoipa::ToSchema for ErrorBody {}

/// What an account's refusal adds to an error: where to sign in (`unauthorized` from a room
/// that takes accounts only), or the reason (`not_eligible` with `forbidden`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Why {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sign_in_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// [`ErrorBody`] as it is read: the fields that `flatten` writes inline, read flat.
///
/// Serde reads a flattened type, and an internally tagged enum such as [`QueueStatus`], through
/// a buffer of every value it meets (its private `Content`), which is code of its own in the
/// buyer's WASM. Read flat, neither links it: with both, 24,783 bytes of the main WASM's
/// functions before optimisation, besides each type's own. Every optional part is whole or
/// absent, as with `flatten`.
///
/// [`QueueStatus`]: super::QueueStatus
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
    #[serde(default)]
    sign_in_url: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

impl From<ErrorBodyFields> for ErrorBody {
    fn from(f: ErrorBodyFields) -> Self {
        let opening = f.opens_at.zip(f.prequeue_opens_at);
        let proof = f.challenge.zip(f.bits).zip(f.expires_at);
        Self {
            error: f.error,
            message: f.message,
            queue_url: f.queue_url,
            seat_ids: f.seat_ids.map(Vec::into_boxed_slice),
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
            why: (f.sign_in_url.is_some() || f.reason.is_some()).then(|| {
                Box::new(Why {
                    sign_in_url: f.sign_in_url,
                    reason: f.reason,
                })
            }),
        }
    }
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
            why: None,
        }
    }
}

impl std::fmt::Display for ErrorBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// An `unprocessable` refusal: the answer of every check of a request body in `wire`.
pub(super) fn unprocessable(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new("unprocessable", message)
}

/// The claims of an admission token (API.md "Keys").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Confirmation {
    /// The RFC 7638 thumbprint of the key (base64url SHA-256).
    pub jkt: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::reads_back;

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
    fn an_error_body_reads_back_its_flattened_parts_whole_or_not_at_all() {
        let t = "2026-12-01T19:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let mut full = ErrorBody::new("proof_required", "Work first.");
        full.queue_url = Some("/events/e".into());
        full.seat_ids = Some(vec!["A-1".into()].into());
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
}
