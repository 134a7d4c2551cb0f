//! Admission tokens: JWTs signed with Ed25519 (`EdDSA`), `kid` in the header, claims `sub`
//! (buyer), `evt` (event), `aud`, `iat`, `exp`, `jti`. Public keys are served as a JWKS so that
//! any service verifies them offline.
//!
//! Invariants (DESIGN.md 7): a token verifies only if its `kid` names a key we hold, its
//! algorithm is EdDSA (nothing else, `none` included, is tried), its signature holds, its
//! audience is ours, it has not expired, and `evt` and `sub` are the event and the buyer of the
//! request. [`AdmittedBuyer`] is the one place that checks this for the seat map and holds.
//! Several verification keys may be active at once: a rotated-out key verifies until removed.

use crate::extract::EventId;
use std::{
    collections::HashMap,
    fs, io,
    path::{Path, PathBuf},
};

use app::wire::AdmissionClaims;
use axum::{
    Json, Router,
    extract::{FromRequestParts, State},
    http::{HeaderValue, request::Parts},
    routing::get,
};
use base64::{
    Engine,
    engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD},
};
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

use crate::{
    devdata,
    error::{Error, Result},
    ids,
    state::AppState,
    tokens::{Buyer, cookie},
};

/// DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it.
const SPKI_ED25519_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// The signing key and every verification key.
pub struct AdmissionKeys {
    signing_kid: String,
    signing: EncodingKey,
    verifying: HashMap<String, DecodingKey>,
    jwks: Value,
    audience: String,
}

/// One Ed25519 key: with its PKCS#8 private part when we may sign with it.
pub struct KeyMaterial {
    pub kid: String,
    pub pkcs8: Option<Vec<u8>>,
    pub public: [u8; 32],
}

impl KeyMaterial {
    /// A fresh key pair whose kid sorts after every earlier generated one.
    pub fn generate() -> Self {
        let rng = ring::rand::SystemRandom::new();
        let doc = Ed25519KeyPair::generate_pkcs8(&rng).expect("the system RNG works");
        let kid = format!(
            "{}-{}",
            Utc::now().format("%Y%m%d%H%M%S"),
            &ids::random_id(4)
        );
        Self::from_pkcs8(kid, doc.as_ref().to_vec()).expect("a key ring just made")
    }

    pub fn from_pkcs8(kid: String, pkcs8: Vec<u8>) -> io::Result<Self> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&pkcs8)
            .map_err(|e| invalid(format!("key {kid}: not an Ed25519 PKCS#8 key ({e})")))?;
        let public = pair
            .public_key()
            .as_ref()
            .try_into()
            .map_err(|_| invalid(format!("key {kid}: public key is not 32 bytes")))?;
        Ok(Self {
            kid,
            pkcs8: Some(pkcs8),
            public,
        })
    }

    /// The same key without its private part: verification only.
    pub fn public_only(&self) -> Self {
        Self {
            kid: self.kid.clone(),
            pkcs8: None,
            public: self.public,
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl AdmissionKeys {
    /// Keys from `keys`; `signing_kid` names the signer (default: the greatest kid that has a
    /// private part, i.e. the newest generated one).
    pub fn new(
        keys: Vec<KeyMaterial>,
        signing_kid: Option<&str>,
        audience: &str,
    ) -> io::Result<Self> {
        let signer = match signing_kid {
            Some(kid) => keys.iter().find(|k| k.kid == kid && k.pkcs8.is_some()),
            None => keys
                .iter()
                .filter(|k| k.pkcs8.is_some())
                .max_by(|a, b| a.kid.cmp(&b.kid)),
        }
        .ok_or_else(|| invalid("no admission signing key (with a private part) found".into()))?;
        let signing = EncodingKey::from_ed_der(signer.pkcs8.as_deref().expect("filtered above"));
        let verifying = keys
            .iter()
            .map(|k| (k.kid.clone(), DecodingKey::from_ed_der(&k.public)))
            .collect();
        let jwks = json!({
            "keys": keys.iter().map(|k| json!({
                "kty": "OKP",
                "crv": "Ed25519",
                "alg": "EdDSA",
                "use": "sig",
                "kid": k.kid,
                "x": URL_SAFE_NO_PAD.encode(k.public),
            })).collect::<Vec<_>>()
        });
        Ok(Self {
            signing_kid: signer.kid.clone(),
            signing,
            verifying,
            jwks,
            audience: audience.to_owned(),
        })
    }

    /// Keys from a folder: `<kid>.key` (PKCS#8 PEM, signs and verifies), `<kid>.pub` (SPKI
    /// PEM, verifies only). An empty or missing folder gets a newly generated key.
    pub fn load_or_generate(
        dir: &Path,
        signing_kid: Option<&str>,
        audience: &str,
    ) -> io::Result<Self> {
        let mut keys = read_dir(dir)?;
        if !keys.iter().any(|k| k.pkcs8.is_some()) {
            let key = KeyMaterial::generate();
            fs::create_dir_all(dir)?;
            let pem = pem(
                "PRIVATE KEY",
                key.pkcs8.as_deref().expect("generated with one"),
            );
            devdata::write_private(&dir.join(format!("{}.key", key.kid)), pem.as_bytes())?;
            tracing::info!(kid = %key.kid, dir = %dir.display(), "generated an admission signing key");
            keys.push(key);
        }
        Self::new(keys, signing_kid, audience)
    }

    pub fn jwks(&self) -> &Value {
        &self.jwks
    }

    /// A token admitting `buyer` to `event` until `expires_at`.
    pub fn issue(&self, buyer: &str, event: &str, expires_at: DateTime<Utc>) -> String {
        let claims = AdmissionClaims {
            sub: buyer.to_owned(),
            evt: event.to_owned(),
            aud: self.audience.clone(),
            iat: Utc::now().timestamp(),
            exp: expires_at.timestamp(),
            jti: ids::random_id(12),
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.signing_kid.clone());
        jsonwebtoken::encode(&header, &claims, &self.signing)
            .expect("signing with a loaded Ed25519 key cannot fail")
    }

    /// The claims of `token` if it admits `buyer` to `event` now.
    pub fn verify(&self, token: &str, event: &str, buyer: &str) -> Option<AdmissionClaims> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        if header.alg != Algorithm::EdDSA {
            return None;
        }
        let key = self.verifying.get(header.kid.as_deref()?)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        validation.leeway = 0;
        let claims = jsonwebtoken::decode::<AdmissionClaims>(token, key, &validation)
            .ok()?
            .claims;
        (claims.evt == event && claims.sub == buyer).then_some(claims)
    }
}

fn read_dir(dir: &Path) -> io::Result<Vec<KeyMaterial>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut keys = Vec::new();
    for entry in entries {
        let path: PathBuf = entry?.path();
        let (Some(kid), Some(ext)) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        let der = || -> io::Result<Vec<u8>> { unpem(&fs::read_to_string(&path)?, &path) };
        match ext {
            "key" => keys.push(KeyMaterial::from_pkcs8(kid.to_owned(), der()?)?),
            "pub" => {
                let der = der()?;
                let public = der
                    .strip_prefix(&SPKI_ED25519_PREFIX[..])
                    .and_then(|k| <[u8; 32]>::try_from(k).ok())
                    .ok_or_else(|| {
                        invalid(format!("{}: not an Ed25519 public key", path.display()))
                    })?;
                keys.push(KeyMaterial {
                    kid: kid.to_owned(),
                    pkcs8: None,
                    public,
                });
            }
            _ => {}
        }
    }
    // A kid with both files is one key.
    keys.sort_by(|a, b| {
        a.kid
            .cmp(&b.kid)
            .then(b.pkcs8.is_some().cmp(&a.pkcs8.is_some()))
    });
    keys.dedup_by(|a, b| a.kid == b.kid);
    Ok(keys)
}

fn pem(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

fn unpem(text: &str, path: &Path) -> io::Result<Vec<u8>> {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect();
    STANDARD
        .decode(body)
        .map_err(|e| invalid(format!("{}: not PEM ({e})", path.display())))
}

/// The cookie that carries the admission token of one event in a browser.
pub fn cookie_name(event_id: &str) -> String {
    format!("anteroom_admission_{event_id}")
}

/// `Set-Cookie` for an admission token: HttpOnly, SameSite=Strict, gone when it expires.
pub fn admission_cookie(
    event_id: &str,
    token: &str,
    expires_at: DateTime<Utc>,
    secure: bool,
) -> HeaderValue {
    let max_age = (expires_at - Utc::now()).num_seconds().max(0);
    let secure = if secure { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}",
        cookie_name(event_id)
    ))
    .expect("ids and tokens are header-safe")
}

/// A buyer who may see the seat map and hold seats of the event in the path: admitted with a
/// valid token, or any buyer while the event's room is off. Otherwise 403 `not_admitted` with
/// the queue URL (401 without a session, 404 for an unknown event).
pub struct AdmittedBuyer {
    pub buyer: Buyer,
    pub event_id: String,
    /// The event's room, as the gate read it (handlers need not read it again).
    pub room: app::wire::Room,
    /// The token's claims; `None` when the room is off.
    pub claims: Option<AdmissionClaims>,
}

impl AdmittedBuyer {
    /// The gate itself: whether `buyer`, with the admission token in `headers` (the
    /// `Admission-Token` header or the event's cookie), may pass into `event_id`.
    pub async fn check(
        state: &AppState,
        buyer: Buyer,
        event_id: String,
        headers: &http::HeaderMap,
    ) -> Result<Self> {
        let room = state.rooms.get(&state.db, &event_id).await?;
        if !room.enabled {
            return Ok(Self {
                buyer,
                event_id,
                room,
                claims: None,
            });
        }
        let token = headers
            .get("admission-token")
            .and_then(|v| v.to_str().ok())
            .or_else(|| cookie(headers, &cookie_name(&event_id)));
        match token.and_then(|t| state.admission.verify(t.trim(), &event_id, &buyer.id)) {
            Some(claims) => Ok(Self {
                buyer,
                event_id,
                room,
                claims: Some(claims),
            }),
            None => Err(Error::NotAdmitted { event_id }),
        }
    }
}

impl FromRequestParts<AppState> for AdmittedBuyer {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let buyer = Buyer::from_request_parts(parts, state).await?;
        let EventId(event_id) = EventId::from_request_parts(parts, state).await?;
        Self::check(state, buyer, event_id, &parts.headers).await
    }
}

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/.well-known/jwks.json", get(jwks))
        .route("/api/events/{event_id}/admission", get(admission))
}

async fn jwks(State(state): State<AppState>) -> Json<Value> {
    Json(state.admission.jwks().clone())
}

/// `GET /api/events/{id}/admission`: whether this request passes the gate, and until when.
async fn admission(admitted: AdmittedBuyer) -> Json<Value> {
    Json(json!({
        "event_id": admitted.event_id,
        "buyer_id": admitted.buyer.id,
        "admitted": true,
        "expires_at": admitted.claims.map(|c| DateTime::<Utc>::from_timestamp(c.exp, 0)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_keys() -> (KeyMaterial, AdmissionKeys) {
        let key = KeyMaterial::generate();
        let keys = AdmissionKeys::new(
            vec![KeyMaterial::from_pkcs8(key.kid.clone(), key.pkcs8.clone().unwrap()).unwrap()],
            None,
            "anteroom",
        )
        .unwrap();
        (key, keys)
    }

    fn soon() -> DateTime<Utc> {
        Utc::now() + chrono::Duration::minutes(10)
    }

    #[test]
    fn a_token_verifies_for_its_event_and_buyer_only() {
        let (_, keys) = fresh_keys();
        let token = keys.issue("buyer", "evt", soon());
        let claims = keys.verify(&token, "evt", "buyer").expect("verifies");
        assert_eq!(
            (
                claims.sub.as_str(),
                claims.evt.as_str(),
                claims.aud.as_str()
            ),
            ("buyer", "evt", "anteroom")
        );
        assert!(keys.verify(&token, "other-event", "buyer").is_none());
        assert!(keys.verify(&token, "evt", "other-buyer").is_none());
    }

    #[test]
    fn tampered_expired_unsigned_foreign_and_garbage_tokens_are_refused() {
        let (_, keys) = fresh_keys();
        let token = keys.issue("buyer", "evt", soon());
        let parts: Vec<&str> = token.split('.').collect();

        let forged_claims = URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&json!({"sub": "buyer", "evt": "evt2", "aud": "anteroom", "iat": 0, "exp": 4_000_000_000i64, "jti": "x"})).unwrap(),
        );
        let tampered = format!("{}.{}.{}", parts[0], forged_claims, parts[2]);
        assert!(keys.verify(&tampered, "evt2", "buyer").is_none());

        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        assert!(
            keys.verify(&format!("{none_header}.{}.", parts[1]), "evt", "buyer")
                .is_none()
        );

        let expired = keys.issue("buyer", "evt", Utc::now() - chrono::Duration::seconds(5));
        assert!(keys.verify(&expired, "evt", "buyer").is_none());

        let (_, stranger) = fresh_keys();
        let foreign = stranger.issue("buyer", "evt", soon());
        assert!(
            keys.verify(&foreign, "evt", "buyer").is_none(),
            "unknown kid"
        );

        for garbage in ["", "a.b.c", "not a token", "eyJ.eyJ.sig"] {
            assert!(keys.verify(garbage, "evt", "buyer").is_none());
        }
    }

    #[test]
    fn a_rotated_out_key_keeps_verifying_until_removed() {
        let old = KeyMaterial::generate();
        let before = AdmissionKeys::new(
            vec![KeyMaterial::from_pkcs8(old.kid.clone(), old.pkcs8.clone().unwrap()).unwrap()],
            None,
            "anteroom",
        )
        .unwrap();
        let token = before.issue("b", "e", soon());
        let new = KeyMaterial::generate();
        let new_kid = new.kid.clone();
        let after = AdmissionKeys::new(vec![old.public_only(), new], None, "anteroom").unwrap();
        assert!(
            after.verify(&token, "e", "b").is_some(),
            "old tokens still pass"
        );
        let fresh = after.issue("b", "e", soon());
        assert_eq!(
            jsonwebtoken::decode_header(&fresh).unwrap().kid.unwrap(),
            new_kid
        );
        assert_eq!(after.jwks()["keys"].as_array().unwrap().len(), 2);
        let removed = AdmissionKeys::new(vec![KeyMaterial::generate()], None, "anteroom").unwrap();
        assert!(removed.verify(&token, "e", "b").is_none());
    }

    #[test]
    fn keys_survive_a_restart_through_their_folder() {
        let dir = std::env::temp_dir().join(format!("anteroom-keys-{}", ids::random_id(6)));
        let first = AdmissionKeys::load_or_generate(&dir, None, "anteroom").unwrap();
        let token = first.issue("b", "e", soon());
        let second = AdmissionKeys::load_or_generate(&dir, None, "anteroom").unwrap();
        assert!(second.verify(&token, "e", "b").is_some());
        fs::remove_dir_all(dir).unwrap();
    }
}
