//! The admission token itself: a JWT signed with Ed25519 (`EdDSA`), `kid` in the header,
//! claims `sub` (buyer), `evt` (event), `aud`, `iat`, `exp`, `jti`, and `epc`, the room's
//! epoch it was minted in ([`AdmissionClaims`]; the gate compares it with the room in force).
//!
//! Invariants (DESIGN.md 7): a token verifies only if its `kid` names a key we hold, its
//! algorithm is EdDSA (nothing else, `none` included, is tried), its signature holds, its
//! audience is ours, it has not expired (beyond [`LEEWAY_SECS`]: its expiry is Redis's clock
//! in whole seconds, read here on the instance's), and `evt` and `sub` are the event and the
//! buyer asked about. [`AdmissionKeys::mint`] is the one function that mints a token, whatever
//! admitted the buyer (the ticker, the room off, a place put back after a failover).

use app::wire::{
    AdmissionClaims, BuyerId, Confirmation, EventId, HandoverClaims, QueueStatus, Room, landing,
    target_origin,
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, Header, Validation};
use serde::{Serialize, de::DeserializeOwned};

use crate::{ids, tokens::keys::AdmissionKeys};

/// How far past its `exp` a token still verifies here: its expiry is set on Redis's clock and
/// cut to whole seconds, and is read on this instance's clock, which may run a little ahead.
pub const LEEWAY_SECS: u64 = 2;
/// How long a hand-over token lives (API.md "The gate": `exp` = `iat` + 60).
pub const HANDOFF_SECS: i64 = 60;
/// The query parameter that carries a hand-over token to the target.
pub const HANDOFF_PARAM: &str = "anteroom_token";

impl AdmissionKeys {
    /// The answer that admits `buyer` to `event` in `room` until `expires_at`, with its fresh
    /// token (of the room's epoch); `recovered` when the line had lost the admission and
    /// marked it again; `jkt`, in a room that binds tokens, the thumbprint of the device key
    /// the place is bound to (the token's `cnf`); in a room in front of the ticketer's site,
    /// the hand-over to its `target_url`.
    pub fn mint(
        &self,
        buyer: &BuyerId,
        event: &EventId,
        room: &Room,
        expires_at: DateTime<Utc>,
        recovered: bool,
        jkt: Option<String>,
    ) -> QueueStatus {
        let claims = self.admission(buyer, event, room.epoch, expires_at.timestamp(), jkt);
        QueueStatus::Admitted {
            admitted: true,
            admission_token: self.sign(&claims),
            expires_at,
            recovered,
            handoff_url: room
                .gate
                .target_url
                .as_deref()
                .and_then(|target| self.handoff_url(&claims, target, None)),
        }
    }

    /// The admission behind the hand-over `handover`, signed again for this deployment (the
    /// proxy's gate sets it as the cookie of the site's host): its token and claims.
    pub fn reissue(&self, handover: &HandoverClaims) -> (String, AdmissionClaims) {
        let jkt = handover.cnf.as_ref().map(|c| c.jkt.clone());
        let claims = self.admission(
            &handover.sub,
            &handover.evt,
            handover.epc,
            handover.until,
            jkt,
        );
        (self.sign(&claims), claims)
    }

    /// Fresh admission claims (the only place they are made).
    fn admission(
        &self,
        buyer: &BuyerId,
        event: &EventId,
        epoch: u32,
        exp: i64,
        jkt: Option<String>,
    ) -> AdmissionClaims {
        AdmissionClaims {
            sub: buyer.clone(),
            evt: event.clone(),
            aud: self.audience.clone(),
            iat: Utc::now().timestamp(),
            exp,
            jti: ids::random_id(12),
            epc: epoch,
            cnf: jkt.map(|jkt| Confirmation { jkt }),
        }
    }

    /// The address that hands the buyer of `admission` over to the target `target_url`: its
    /// origin and `return_path` if one is given (else the target itself), with the hand-over
    /// token in `anteroom_token`. `None` when the target is not one a room may have.
    pub fn handoff_url(
        &self,
        admission: &AdmissionClaims,
        target_url: &str,
        return_path: Option<&str>,
    ) -> Option<String> {
        let origin = target_origin(target_url)?;
        let place = landing(target_url, return_path)?;
        let token = self.sign(&self.handover(admission, &origin));
        let joiner = if place.contains('?') { '&' } else { '?' };
        Some(format!("{place}{joiner}{HANDOFF_PARAM}={token}"))
    }

    /// The hand-over claims of `admission` for the target's `origin`: a minute long, with one
    /// `jti` for every hand-over of this admission (so that one of them is redeemed, once).
    fn handover(&self, admission: &AdmissionClaims, origin: &str) -> HandoverClaims {
        let iat = Utc::now().timestamp();
        let seed = format!(
            "{}\n{}\n{}\n{}",
            admission.evt, admission.sub, admission.epc, admission.exp
        );
        let digest = ring::digest::digest(&ring::digest::SHA256, seed.as_bytes());
        HandoverClaims {
            sub: admission.sub.clone(),
            evt: admission.evt.clone(),
            aud: origin.to_owned(),
            iat,
            exp: iat + HANDOFF_SECS,
            jti: URL_SAFE_NO_PAD.encode(&digest.as_ref()[..16]),
            epc: admission.epc,
            until: admission.exp,
            cnf: admission.cnf.clone(),
        }
    }

    /// `claims` signed with the signing key, its `kid` in the header.
    fn sign(&self, claims: &impl Serialize) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.signing_kid.clone());
        jsonwebtoken::encode(&header, claims, &self.signing)
            .expect("signing with a loaded Ed25519 key cannot fail")
    }

    /// The claims of `token` if one of our keys signed it (its header read once: EdDSA and a
    /// `kid` we hold, nothing else tried) and it has not expired beyond the leeway; its
    /// audience ours when `ours`, else anything but ours (a hand-over's, which the caller
    /// compares with the room's target).
    fn decode<T: DeserializeOwned>(&self, token: &str, ours: bool) -> Option<T> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        if header.alg != Algorithm::EdDSA {
            return None;
        }
        let key = self.verifying.get(header.kid.as_deref()?)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.leeway = LEEWAY_SECS;
        if ours {
            validation.set_audience(&[&self.audience]);
            validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        } else {
            validation.validate_aud = false;
            validation.set_required_spec_claims(&["exp", "sub"]);
        }
        jsonwebtoken::decode::<T>(token, key, &validation)
            .ok()
            .map(|data| data.claims)
    }

    /// The claims of the hand-over `token` if this deployment signed it and it has not
    /// expired (its audience is the target's, which the caller compares).
    pub fn verify_handover(&self, token: &str) -> Option<HandoverClaims> {
        self.decode::<HandoverClaims>(token, false)
            // An admission token is not a hand-over.
            .filter(|claims| claims.aud != self.audience)
    }

    /// The claims of the admission `token` if it admits somebody to `event` now (whom: its
    /// `sub`; the proxy's gate asks without a session).
    /// A token verified before under these keys is not verified again until it expires
    /// ([`super::verified`]).
    pub fn verify_for_event(&self, token: &str, event: &EventId) -> Option<AdmissionClaims> {
        let now = Utc::now().timestamp();
        let claims = match self.verified.get(token, now, LEEWAY_SECS) {
            Some(claims) => claims,
            None => {
                let claims = self.decode::<AdmissionClaims>(token, true)?;
                self.verified.put(token, &claims, now, LEEWAY_SECS);
                claims
            }
        };
        Some(claims).filter(|claims| claims.evt == *event)
    }

    /// The claims of `token` if it admits `buyer` to `event` now.
    pub fn verify(&self, token: &str, event: &EventId, buyer: &BuyerId) -> Option<AdmissionClaims> {
        self.verify_for_event(token, event)
            .filter(|claims| claims.sub == *buyer)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use serde_json::json;

    use app::wire::{DEFAULT_ROOM, Gate};

    use super::*;
    use crate::{
        devdata::Strictness,
        tokens::keys::{KeyMaterial, load_or_generate},
    };

    fn b(id: &str) -> BuyerId {
        BuyerId::from(id)
    }

    fn e(id: &str) -> EventId {
        EventId::from(id)
    }

    fn fresh_keys() -> (KeyMaterial, AdmissionKeys) {
        let key = KeyMaterial::generate();
        let keys = AdmissionKeys::new(
            &[KeyMaterial::from_pkcs8(key.kid.clone(), key.pkcs8.clone().unwrap()).unwrap()],
            None,
            "anteroom",
        )
        .unwrap();
        (key, keys)
    }

    /// A token of `keys` admitting `buyer` to `event` in `epoch` until `expires_at`.
    fn signed(
        keys: &AdmissionKeys,
        buyer: &BuyerId,
        event: &EventId,
        epoch: u32,
        expires_at: DateTime<Utc>,
        jkt: Option<String>,
    ) -> String {
        let room = Room {
            epoch,
            ..DEFAULT_ROOM
        };
        match keys.mint(buyer, event, &room, expires_at, false, jkt) {
            QueueStatus::Admitted {
                admission_token, ..
            } => admission_token,
            other => panic!("{other:?}"),
        }
    }

    fn soon() -> DateTime<Utc> {
        Utc::now() + chrono::Duration::minutes(10)
    }

    #[test]
    fn a_token_verifies_for_its_event_and_buyer_only() {
        let (_, keys) = fresh_keys();
        let token = signed(&keys, &b("buyer"), &e("evt"), 0, soon(), None);
        let claims = keys
            .verify(&token, &e("evt"), &b("buyer"))
            .expect("verifies");
        assert_eq!(
            (
                claims.sub.as_str(),
                claims.evt.as_str(),
                claims.aud.as_str()
            ),
            ("buyer", "evt", "anteroom")
        );
        assert!(
            keys.verify(&token, &e("other-event"), &b("buyer"))
                .is_none()
        );
        assert!(keys.verify(&token, &e("evt"), &b("other-buyer")).is_none());
    }

    #[test]
    fn a_token_verified_before_is_refused_once_expired_or_under_other_keys() {
        let (key, keys) = fresh_keys();
        // Expires within the second (its `exp` is cut to whole seconds): verified once, then
        // remembered, then refused after its expiry and the leeway as a new verification would.
        let short = Utc::now() + chrono::Duration::seconds(1);
        let token = signed(&keys, &b("buyer"), &e("evt"), 0, short, None);
        assert!(keys.verify(&token, &e("evt"), &b("buyer")).is_some());
        assert_eq!(keys.verified.len(), 1);
        let later = short.timestamp() + LEEWAY_SECS as i64 + 1;
        assert!(keys.verified.get(&token, later, LEEWAY_SECS).is_none());
        // Remembered under these keys: still for its own event and buyer only.
        let long = signed(&keys, &b("buyer"), &e("evt"), 0, soon(), None);
        assert!(keys.verify(&long, &e("evt"), &b("buyer")).is_some());
        assert!(keys.verify(&long, &e("other"), &b("buyer")).is_none());
        assert!(keys.verify(&long, &e("evt"), &b("other")).is_none());
        // The same keys read again keep what was verified; a set without the token's key
        // starts afresh and refuses it.
        let mut again = AdmissionKeys::new(
            &[KeyMaterial::from_pkcs8(key.kid.clone(), key.pkcs8.clone().unwrap()).unwrap()],
            None,
            "anteroom",
        )
        .unwrap();
        again.keep_verified(&keys);
        assert_eq!(again.verified.len(), keys.verified.len());
        let (_, mut other) = fresh_keys();
        other.keep_verified(&keys);
        assert!(other.verified.is_empty());
        assert!(other.verify(&long, &e("evt"), &b("buyer")).is_none());
    }

    #[test]
    fn tampered_expired_unsigned_foreign_and_garbage_tokens_are_refused() {
        let (_, keys) = fresh_keys();
        let token = signed(&keys, &b("buyer"), &e("evt"), 0, soon(), None);
        let parts: Vec<&str> = token.split('.').collect();

        let forged_claims = URL_SAFE_NO_PAD.encode(
            serde_json::to_vec(&json!({"sub": "buyer", "evt": "evt2", "aud": "anteroom", "iat": 0, "exp": 4_000_000_000i64, "jti": "x"})).unwrap(),
        );
        let tampered = format!("{}.{}.{}", parts[0], forged_claims, parts[2]);
        assert!(keys.verify(&tampered, &e("evt2"), &b("buyer")).is_none());

        let none_header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
        assert!(
            keys.verify(
                &format!("{none_header}.{}.", parts[1]),
                &e("evt"),
                &b("buyer")
            )
            .is_none()
        );

        let expired = signed(
            &keys,
            &b("buyer"),
            &e("evt"),
            0,
            Utc::now() - chrono::Duration::seconds(5),
            None,
        );
        assert!(keys.verify(&expired, &e("evt"), &b("buyer")).is_none());
        // Review finding 14: an expiry a second behind this clock is within the leeway.
        let just = signed(
            &keys,
            &b("buyer"),
            &e("evt"),
            0,
            Utc::now() - chrono::Duration::seconds(1),
            None,
        );
        assert!(keys.verify(&just, &e("evt"), &b("buyer")).is_some());

        let (_, stranger) = fresh_keys();
        let foreign = signed(&stranger, &b("buyer"), &e("evt"), 0, soon(), None);
        assert!(
            keys.verify(&foreign, &e("evt"), &b("buyer")).is_none(),
            "unknown kid"
        );

        for garbage in ["", "a.b.c", "not a token", "eyJ.eyJ.sig"] {
            assert!(keys.verify(garbage, &e("evt"), &b("buyer")).is_none());
        }
    }

    #[test]
    fn a_hand_over_is_for_the_target_only_and_one_per_admission() {
        let (_, keys) = fresh_keys();
        let room = Room {
            epoch: 3,
            gate: Gate {
                target_url: Some("https://shop.example/buy?x=1#frag".into()),
                ..Gate::default()
            },
            ..DEFAULT_ROOM
        };
        let admitted =
            |expires_at| match keys.mint(&b("buyer"), &e("evt"), &room, expires_at, false, None) {
                QueueStatus::Admitted {
                    admission_token,
                    handoff_url,
                    ..
                } => (admission_token, handoff_url.expect("a hand-over")),
                other => panic!("{other:?}"),
            };
        let until = soon();
        let (admission, url) = admitted(until);
        let (_, again) = admitted(until);
        let token = |url: &str| url.rsplit_once("&anteroom_token=").unwrap().1.to_owned();
        assert!(
            url.starts_with("https://shop.example/buy?x=1&anteroom_token="),
            "{url}"
        );
        let claims = keys.verify_handover(&token(&url)).expect("verifies");
        assert_eq!(
            (
                claims.aud.as_str(),
                claims.epc,
                claims.until,
                claims.exp - claims.iat
            ),
            ("https://shop.example", 3, until.timestamp(), HANDOFF_SECS)
        );
        let second = keys.verify_handover(&token(&again)).unwrap();
        assert_eq!(
            second.jti, claims.jti,
            "one jti for every hand-over of one admission"
        );
        let (_, later) = admitted(until + chrono::Duration::seconds(1));
        assert_ne!(
            keys.verify_handover(&token(&later)).unwrap().jti,
            claims.jti,
            "another admission, another jti"
        );
        // Neither kind passes for the other.
        assert!(keys.verify_handover(&admission).is_none());
        assert!(keys.verify(&token(&url), &e("evt"), &b("buyer")).is_none());
        // A return path stays on the target's origin.
        let admission_claims = keys.verify(&admission, &e("evt"), &b("buyer")).unwrap();
        let back = keys
            .handoff_url(
                &admission_claims,
                "https://shop.example/buy",
                Some("/seat/4"),
            )
            .unwrap();
        assert!(
            back.starts_with("https://shop.example/seat/4?anteroom_token="),
            "{back}"
        );
        let away = keys
            .handoff_url(
                &admission_claims,
                "https://shop.example/buy",
                Some("//evil.example"),
            )
            .unwrap();
        assert!(
            away.starts_with("https://shop.example/buy?anteroom_token="),
            "{away}"
        );
    }

    #[test]
    fn a_rotated_out_key_keeps_verifying_until_removed() {
        let old = KeyMaterial::generate();
        let before = AdmissionKeys::new(
            &[KeyMaterial::from_pkcs8(old.kid.clone(), old.pkcs8.clone().unwrap()).unwrap()],
            None,
            "anteroom",
        )
        .unwrap();
        let token = signed(&before, &b("b"), &e("e"), 0, soon(), None);
        let new = KeyMaterial::generate();
        let new_kid = new.kid.clone();
        let after = AdmissionKeys::new(&[old.public_only(), new], None, "anteroom").unwrap();
        assert!(
            after.verify(&token, &e("e"), &b("b")).is_some(),
            "old tokens still pass"
        );
        let fresh = signed(&after, &b("b"), &e("e"), 0, soon(), None);
        assert_eq!(
            jsonwebtoken::decode_header(&fresh).unwrap().kid.unwrap(),
            new_kid
        );
        assert_eq!(after.jwks()["keys"].as_array().unwrap().len(), 2);
        let removed = AdmissionKeys::new(&[KeyMaterial::generate()], None, "anteroom").unwrap();
        assert!(removed.verify(&token, &e("e"), &b("b")).is_none());
    }

    #[test]
    fn keys_survive_a_restart_through_their_folder() {
        let dir = std::env::temp_dir().join(format!("anteroom-keys-{}", ids::random_id(6)));
        let first = AdmissionKeys::new(
            &load_or_generate(&dir, Strictness::Refuse).unwrap(),
            None,
            "anteroom",
        )
        .unwrap();
        let token = signed(&first, &b("b"), &e("e"), 0, soon(), None);
        let second = AdmissionKeys::new(
            &load_or_generate(&dir, Strictness::Refuse).unwrap(),
            None,
            "anteroom",
        )
        .unwrap();
        assert!(second.verify(&token, &e("e"), &b("b")).is_some());
        fs::remove_dir_all(dir).unwrap();
    }
}
