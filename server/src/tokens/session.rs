//! Buyer sessions: a signed token (HS256) naming a random buyer id, sent as `Authorization:
//! Bearer` by API clients and as an HttpOnly cookie by browsers.
//! Invariants: a session is created only through [`Sessions::issue`], `POST /api/session` is
//! rate-limited per client address across all instances, and the [`Buyer`] extractor is the
//! one place a request becomes a buyer (401 JSON otherwise).
//!
//! Keys: the server secret (at least 32 random bytes, [`check_session_secret`]) is never a
//! signing key itself. Each purpose signs with a key of its own, derived from it with HKDF
//! (SHA-256) under a label of its own: buyer sessions, place receipts, account ids, and the
//! tag of operators' secrets (their sessions live on the server: `operators::sessions`).
//!
//! Speed (the poll path runs 20,000 times every 3 s): a verified session is remembered for a
//! while in a bounded table, so a buyer's polls verify the signature once, not every 3 s; a
//! place receipt is an HMAC over its fields (about 75 bytes), not a JWT, and is sent again
//! only when what it says changed.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use app::wire::{BuyerId, EventId, SessionCreated};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::{
    config::Config,
    tokens::cookies::{self, SESSION_COOKIE},
};

const AUDIENCE: &str = "anteroom-session";
const PLACE_AUDIENCE: &str = "anteroom-place";

#[derive(Serialize, Deserialize)]
struct Claims {
    sub: String,
    aud: String,
    iat: i64,
    exp: i64,
    /// A signed-in account's session: the claim values it signed in with that a room's
    /// eligibility may ask for (`name=value` each). Absent: an anonymous session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    acc: Option<Vec<String>>,
}

/// The buyer a session names. Without a valid session a request has none (401).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Buyer {
    /// The buyer id: random for an anonymous session, the account's for a signed-in one (the
    /// same for every session of the account, so one place and one seat limit per account).
    pub id: BuyerId,
    /// The account a signed-in session names: its claims as they were at sign-in.
    pub account: Option<Arc<AccountClaims>>,
}

/// The claims of a signed-in account that a room's eligibility may ask for, as `name=value`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccountClaims(pub Vec<String>);

impl AccountClaims {
    /// Whether the account signed in with `value` in the claim `claim`.
    pub fn has(&self, claim: &str, value: &str) -> bool {
        self.0
            .iter()
            .any(|c| c.split_once('=') == Some((claim, value)))
    }
}

/// An account as its provider vouched for it (`accounts`): who issued it, its subject there,
/// and the claim values worth keeping.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    pub issuer: String,
    pub subject: String,
    pub claims: AccountClaims,
}

/// A buyer's place in an event's line as last answered to them: the receipt that lets the
/// line put back a place a Redis failover lost, and tell the buyer when their position went
/// back (see `queue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// The arrival number Redis gave the buyer's join.
    pub arrival: u64,
    /// The position last answered.
    pub position: u64,
    /// The room's epoch the place was given in (`Room::epoch`): the line of that night only.
    pub epoch: u32,
}

/// The longest a place receipt lives: the night of an on-sale, not the day of a session (the
/// room's epoch ends it sooner when the room is turned off).
pub const RECEIPT_TTL: Duration = Duration::from_secs(12 * 3600);

/// How many verified sessions an instance remembers: 65,536 x about 300 bytes bounds the
/// table at 20 MB whatever the traffic; past it the table starts over (a miss only costs one
/// signature check).
const VERIFIED_CAPACITY: usize = 65_536;

/// The HKDF labels of the keys derived from the server secret, one per purpose.
const SESSION_KEY_LABEL: &[u8] = b"anteroom buyer session key v1";
const RECEIPT_KEY_LABEL: &[u8] = b"anteroom place receipt key v1";
const OPERATOR_KEY_LABEL: &[u8] = b"anteroom operator secret tag key v1";
const ACCOUNT_KEY_LABEL: &[u8] = b"anteroom account id key v1";

/// The fewest bits of randomness a configured session secret must plausibly hold.
const SECRET_BITS: f64 = 256.0;

/// Issues and verifies buyer sessions and buyers' place receipts, and tags operators' secrets
/// (`operators::secret`), each with its own key derived from the server secret.
pub struct Sessions {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    /// The key of the HMAC of place receipts and join challenges ([`Sessions::sign_for`]: each
    /// carries a purpose label in what it signs, so none is ever valid as another, nor as a
    /// session).
    receipt_key: ring::hmac::Key,
    /// The key of the keyed hash that makes an account's buyer id from its issuer and subject.
    account_key: ring::hmac::Key,
    /// The key that tags operators' cookies and API keys, so that a made-up one is refused
    /// before the database is asked.
    operator_key: ring::hmac::Key,
    /// Sessions whose signature was checked, with their buyer and expiry (unix seconds). A
    /// std Mutex: held for one lookup or insert, never across an await.
    verified: Mutex<HashMap<Box<str>, (Buyer, i64)>>,
    ttl: Duration,
}

impl Sessions {
    /// Sessions signed with keys derived from `secret`.
    pub fn new(secret: &[u8], ttl: Duration) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_audience(&[AUDIENCE]);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        validation.leeway = 0;
        let session_key = derive(secret, &[SESSION_KEY_LABEL]);
        Self {
            encoding: EncodingKey::from_secret(&session_key),
            decoding: DecodingKey::from_secret(&session_key),
            receipt_key: ring::hmac::Key::new(
                ring::hmac::HMAC_SHA256,
                &derive(secret, &[RECEIPT_KEY_LABEL]),
            ),
            account_key: ring::hmac::Key::new(
                ring::hmac::HMAC_SHA256,
                &derive(secret, &[ACCOUNT_KEY_LABEL]),
            ),
            operator_key: ring::hmac::Key::new(
                ring::hmac::HMAC_SHA256,
                &derive(secret, &[OPERATOR_KEY_LABEL]),
            ),
            verified: Mutex::new(HashMap::new()),
            validation,
            ttl,
        }
    }

    /// A new buyer: a random 128-bit id (22 characters, short because it is the member of
    /// every sorted set the buyer is in) and its signed token.
    pub fn issue(&self) -> SessionCreated {
        self.sign(crate::ids::random_id(16), None)
    }

    /// A session of `account`: its buyer id is the account's ([`Sessions::account_id`]), so
    /// every session of one account is the same buyer. Its issuer is kept first among its
    /// claims (`iss=...`): an eligibility rule counts claims of its own issuer only.
    pub fn issue_account(&self, account: &Account) -> SessionCreated {
        let id = self.account_id(&account.issuer, &account.subject);
        let issuer = format!("iss={}", account.issuer);
        let claims = std::iter::once(issuer.clone())
            .chain(account.claims.0.iter().filter(|c| **c != issuer).cloned())
            .collect();
        self.sign(id.into(), Some(claims))
    }

    /// The buyer id of the account `subject` at `issuer`: a keyed hash of both (22
    /// characters, like a random id), so that neither is stored in Redis or published.
    pub fn account_id(&self, issuer: &str, subject: &str) -> BuyerId {
        use base64::Engine;
        let tag = ring::hmac::sign(&self.account_key, format!("{issuer}\n{subject}").as_bytes());
        BuyerId::from(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&tag.as_ref()[..16]))
    }

    fn sign(&self, buyer_id: String, acc: Option<Vec<String>>) -> SessionCreated {
        let now = chrono::Utc::now().timestamp();
        let account = acc.is_some();
        let claims = Claims {
            sub: buyer_id.clone(),
            aud: AUDIENCE.to_owned(),
            iat: now,
            exp: now + self.ttl.as_secs() as i64,
            acc,
        };
        let token = jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing with a byte secret cannot fail");
        SessionCreated {
            buyer_id,
            token,
            account,
        }
    }

    /// The tag of an operator's secret (`operators::secret`).
    pub fn operator_tag(&self, secret: &[u8]) -> ring::hmac::Tag {
        ring::hmac::sign(&self.operator_key, secret)
    }

    /// Whether `tag` is the tag of `secret` (in constant time).
    pub fn operator_tag_verifies(&self, secret: &[u8], tag: &[u8]) -> bool {
        ring::hmac::verify(&self.operator_key, secret, tag).is_ok()
    }

    /// The buyer of a valid token.
    pub fn verify(&self, token: &str) -> Option<Buyer> {
        let now = chrono::Utc::now().timestamp();
        if let Some((buyer, exp)) = self.remembered().get(token)
            && *exp > now
        {
            return Some(buyer.clone());
        }
        let claims = jsonwebtoken::decode::<Claims>(token, &self.decoding, &self.validation)
            .ok()?
            .claims;
        let buyer = Buyer {
            id: BuyerId::from(claims.sub),
            account: claims.acc.map(|c| Arc::new(AccountClaims(c))),
        };
        let mut verified = self.remembered();
        if verified.len() >= VERIFIED_CAPACITY {
            verified.clear();
        }
        verified.insert(token.into(), (buyer.clone(), claims.exp));
        Some(buyer)
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, HashMap<Box<str>, (Buyer, i64)>> {
        // A panic while the lock was held cannot leave the table half-written (one insert or
        // clear), so a poisoned lock is still a sound table.
        self.verified.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A signed receipt of `buyer`'s `place` in the line of `event_id`, valid for
    /// [`RECEIPT_TTL`] (or a session's life, if shorter): `arrival.position.epoch.exp.mac`,
    /// the MAC binding it to the buyer and the event.
    pub fn issue_place(&self, buyer: &BuyerId, event_id: &EventId, place: Place) -> String {
        let life = self.ttl.min(RECEIPT_TTL);
        let exp = chrono::Utc::now().timestamp() + life.as_secs() as i64;
        let fields = format!("{}.{}.{}.{exp}", place.arrival, place.position, place.epoch);
        self.sign_for(PLACE_AUDIENCE, buyer, event_id, &fields)
    }

    /// The place of a valid, unexpired receipt of `buyer` in the line of `event_id`.
    pub fn verify_place(
        &self,
        receipt: &str,
        buyer: &BuyerId,
        event_id: &EventId,
    ) -> Option<Place> {
        let fields = self.signed_fields(PLACE_AUDIENCE, buyer, event_id, receipt)?;
        let mut parts = fields.split('.').map(|p| p.parse::<u64>().ok());
        let (Some(Some(arrival)), Some(Some(position)), Some(Some(epoch)), Some(Some(exp)), None) = (
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
            parts.next(),
        ) else {
            return None;
        };
        let epoch = u32::try_from(epoch).ok()?;
        (exp as i64 > chrono::Utc::now().timestamp()).then_some(Place {
            arrival,
            position,
            epoch,
        })
    }

    /// `fields.mac`: `fields` (no `.` in the MAC, so the last `.` splits them) signed for one
    /// `purpose`, `buyer` and event. The purpose label is in what is signed, so no value signed
    /// for one purpose is ever valid for another, nor a session.
    pub fn sign_for(
        &self,
        purpose: &str,
        buyer: &BuyerId,
        event_id: &EventId,
        fields: &str,
    ) -> String {
        use base64::Engine;
        let signed = format!("{purpose}\n{buyer}\n{event_id}\n{fields}");
        let tag = ring::hmac::sign(&self.receipt_key, signed.as_bytes());
        let mac = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(tag.as_ref());
        format!("{fields}.{mac}")
    }

    /// The fields of `value` if [`sign_for`](Self::sign_for) signed it for this `purpose`,
    /// `buyer` and event.
    pub fn signed_fields<'a>(
        &self,
        purpose: &str,
        buyer: &BuyerId,
        event_id: &EventId,
        value: &'a str,
    ) -> Option<&'a str> {
        use base64::Engine;
        let (fields, mac) = value.rsplit_once('.')?;
        let mac = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(mac)
            .ok()?;
        let signed = format!("{purpose}\n{buyer}\n{event_id}\n{fields}");
        // ring compares in constant time: the MAC must not leak how much of a guess was right.
        ring::hmac::verify(&self.receipt_key, signed.as_bytes(), &mac).ok()?;
        Some(fields)
    }

    /// The buyer of a request: the bearer token first, then the cookie.
    pub fn buyer_of(&self, config: &Config, headers: &http::HeaderMap) -> Option<Buyer> {
        super::bearer(headers)
            .or_else(|| cookies::read(config, headers, SESSION_COOKIE))
            .and_then(|t| self.verify(t))
    }
}

/// A 32-byte key for one purpose: HKDF-SHA256 of `secret`, expanded with `info` (the
/// purpose's label, and whatever else the key must depend on).
fn derive(secret: &[u8], info: &[&[u8]]) -> [u8; 32] {
    let prk = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, b"anteroom").extract(secret);
    let mut key = [0u8; 32];
    prk.expand(info, ring::hkdf::HKDF_SHA256)
        .and_then(|okm| okm.fill(&mut key))
        .expect("32 bytes is SHA-256's length, which HKDF always expands to");
    key
}

/// A configured session secret too weak to sign sessions is refused at start: it must hold
/// at least 32 random bytes, as `openssl rand -base64 32` (44 characters) or `-hex 32` (64)
/// makes them. Randomness cannot be measured from one value; this refuses the short and the
/// plainly patterned (few distinct characters), counting each character for the alphabet it
/// seems drawn from (hex digits 4 bits, base64 6, anything else 6.5).
pub fn check_session_secret(secret: &str) -> Result<(), String> {
    let distinct = secret
        .chars()
        .collect::<std::collections::HashSet<_>>()
        .len();
    let hex = secret.chars().all(|c| c.is_ascii_hexdigit());
    let base64 = secret
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "+/-_=".contains(c));
    let bits_per_char = if hex {
        4.0
    } else if base64 {
        6.0
    } else {
        6.5
    };
    let bits = secret.trim_end_matches('=').chars().count() as f64 * bits_per_char;
    if bits < SECRET_BITS || distinct < 16 {
        return Err(
            "the session secret (ANTEROOM_SESSION_SECRET) must hold at least 32 random bytes; \
             make one with `openssl rand -base64 32`"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_verifies_only_with_its_own_secret_and_untampered() {
        let s = Sessions::new(b"one secret", Duration::from_secs(60));
        let other = Sessions::new(b"another secret", Duration::from_secs(60));
        let created = s.issue();
        assert_eq!(
            s.verify(&created.token).map(|b| b.id),
            Some(BuyerId::from(created.buyer_id.clone()))
        );
        assert_eq!(other.verify(&created.token), None);
        let mut tampered = created.token.clone();
        tampered.insert(tampered.len() / 2, 'x');
        assert_eq!(s.verify(&tampered), None);
        assert_eq!(created.buyer_id.len(), 22);
    }

    #[test]
    fn each_purpose_signs_with_its_own_key() {
        let s = Sessions::new(b"one secret", Duration::from_secs(60));
        assert_ne!(
            s.operator_tag(b"x").as_ref(),
            Sessions::new(b"another secret", Duration::from_secs(60))
                .operator_tag(b"x")
                .as_ref()
        );
        let (session, receipt) = (
            derive(b"x", &[SESSION_KEY_LABEL]),
            derive(b"x", &[RECEIPT_KEY_LABEL]),
        );
        assert_ne!(session, receipt);
        assert_ne!(&session[..], b"x");
    }

    #[test]
    fn every_session_of_one_account_names_one_buyer_and_carries_its_claims() {
        let s = Sessions::new(b"one secret", Duration::from_secs(60));
        let ada = Account {
            issuer: "https://idp.example".into(),
            subject: "ada".into(),
            claims: AccountClaims(vec!["groups=fanclub".into()]),
        };
        let (phone, laptop) = (s.issue_account(&ada), s.issue_account(&ada));
        assert!(phone.account && !s.issue().account);
        assert_eq!(phone.buyer_id, laptop.buyer_id);
        assert_eq!(phone.buyer_id.len(), 22);
        let buyer = s.verify(&laptop.token).unwrap();
        assert!(buyer.account.unwrap().has("groups", "fanclub"));
        assert_eq!(s.verify(&s.issue().token).unwrap().account, None);
        // Another issuer's same subject, or another secret: another buyer.
        let elsewhere = Account {
            issuer: "https://other.example".into(),
            ..ada.clone()
        };
        assert_ne!(s.issue_account(&elsewhere).buyer_id, phone.buyer_id);
        let other = Sessions::new(b"another secret", Duration::from_secs(60));
        assert_ne!(other.issue_account(&ada).buyer_id, phone.buyer_id);
    }

    #[test]
    fn a_secret_under_32_random_bytes_is_refused() {
        for weak in [
            "",
            "change-me-too",
            "session-secret-of-the-test-deployment",
            &"ab".repeat(40),
            &"0123456789abcdef".repeat(2),
        ] {
            assert!(check_session_secret(weak).is_err(), "{weak}");
        }
        for strong in [
            "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5Xz0=",
            "3f2a9c1d7e5b4a8f9c0d1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0e1f2a3",
            &crate::ids::random_id(32),
        ] {
            assert!(check_session_secret(strong).is_ok(), "{strong}");
        }
    }

    #[test]
    fn a_place_receipt_verifies_for_its_buyer_and_event_only() {
        let s = Sessions::new(b"one secret", Duration::from_secs(60));
        let place = Place {
            arrival: 1_764_417_600_123_456,
            position: 42,
            epoch: 3,
        };
        let (b1, b2, e1, e2) = (
            BuyerId::from("b1"),
            BuyerId::from("b2"),
            EventId::from("e1"),
            EventId::from("e2"),
        );
        let receipt = s.issue_place(&b1, &e1, place);
        assert_eq!(s.verify_place(&receipt, &b1, &e1), Some(place));
        assert_eq!(s.verify_place(&receipt, &b2, &e1), None);
        assert_eq!(s.verify_place(&receipt, &b1, &e2), None);
        let session = s.issue();
        assert_eq!(
            s.verify_place(&session.token, &session.buyer_id.clone().into(), &e1),
            None
        );
        assert_eq!(s.verify(&receipt), None, "a receipt is no session");
        assert!(receipt.len() < 80, "{receipt}");
        let (fields, mac) = receipt.rsplit_once('.').unwrap();
        let moved_forward = fields.replacen(".42.", ".1.", 1);
        assert_eq!(
            s.verify_place(&format!("{moved_forward}.{mac}"), &b1, &e1),
            None
        );
        let other = Sessions::new(b"another secret", Duration::from_secs(60));
        assert_eq!(other.verify_place(&receipt, &b1, &e1), None);
        for garbage in ["", ".", "1.2.3", "1.2.3.4", "1.2.3.4.5.6", "a.b.c.d.e"] {
            assert_eq!(s.verify_place(garbage, &b1, &e1), None, "{garbage}");
        }
    }

    #[test]
    fn an_expired_receipt_is_refused() {
        let s = Sessions::new(b"one secret", Duration::ZERO);
        let (b, e) = (BuyerId::from("b"), EventId::from("e"));
        let receipt = s.issue_place(
            &b,
            &e,
            Place {
                arrival: 1,
                position: 1,
                epoch: 0,
            },
        );
        assert_eq!(s.verify_place(&receipt, &b, &e), None);
    }

    #[test]
    fn a_remembered_session_still_expires_and_a_forged_one_is_never_remembered() {
        let s = Sessions::new(b"one secret", Duration::from_secs(1));
        let created = s.issue();
        assert!(s.verify(&created.token).is_some());
        assert!(s.verify(&created.token).is_some(), "from the table");
        let forged = format!("{}x", created.token);
        assert_eq!(s.verify(&forged), None);
        assert_eq!(s.remembered().len(), 1);
        // Past the token's own expiry second, the table does not keep it alive.
        std::thread::sleep(Duration::from_millis(2_100));
        assert_eq!(s.verify(&created.token), None);
    }
}
