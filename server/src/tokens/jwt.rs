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

use app::wire::{AdmissionClaims, BuyerId, Confirmation, EventId, QueueStatus};

/// How far past its `exp` a token still verifies here: its expiry is set on Redis's clock and
/// cut to whole seconds, and is read on this instance's clock, which may run a little ahead.
pub const LEEWAY_SECS: u64 = 2;
use chrono::{DateTime, Utc};
use jsonwebtoken::{Algorithm, Header, Validation};

use crate::{ids, tokens::keys::AdmissionKeys};

impl AdmissionKeys {
    /// The answer that admits `buyer` to `event` until `expires_at`, in the room's `epoch`,
    /// with its fresh token; `recovered` when the line had lost the admission and marked it
    /// again; `jkt`, in a room that binds tokens, the thumbprint of the device key the place
    /// is bound to (the token's `cnf`).
    pub fn mint(
        &self,
        buyer: &BuyerId,
        event: &EventId,
        epoch: u32,
        expires_at: DateTime<Utc>,
        recovered: bool,
        jkt: Option<String>,
    ) -> QueueStatus {
        let cnf = jkt.map(|jkt| Confirmation { jkt });
        QueueStatus::Admitted {
            admitted: true,
            admission_token: self.sign(buyer, event, epoch, expires_at, cnf),
            expires_at,
            recovered,
        }
    }

    /// A token admitting `buyer` to `event` in `epoch` until `expires_at` (only through
    /// [`Self::mint`]).
    fn sign(
        &self,
        buyer: &BuyerId,
        event: &EventId,
        epoch: u32,
        expires_at: DateTime<Utc>,
        cnf: Option<Confirmation>,
    ) -> String {
        let claims = AdmissionClaims {
            sub: buyer.clone(),
            evt: event.clone(),
            aud: self.audience.clone(),
            iat: Utc::now().timestamp(),
            exp: expires_at.timestamp(),
            jti: ids::random_id(12),
            epc: epoch,
            cnf,
        };
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.signing_kid.clone());
        jsonwebtoken::encode(&header, &claims, &self.signing)
            .expect("signing with a loaded Ed25519 key cannot fail")
    }

    /// The claims of `token` if it admits `buyer` to `event` now.
    pub fn verify(&self, token: &str, event: &EventId, buyer: &BuyerId) -> Option<AdmissionClaims> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        if header.alg != Algorithm::EdDSA {
            return None;
        }
        let key = self.verifying.get(header.kid.as_deref()?)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_audience(&[&self.audience]);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        validation.leeway = LEEWAY_SECS;
        let claims = jsonwebtoken::decode::<AdmissionClaims>(token, key, &validation)
            .ok()?
            .claims;
        (claims.evt == *event && claims.sub == *buyer).then_some(claims)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    use serde_json::json;

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

    fn soon() -> DateTime<Utc> {
        Utc::now() + chrono::Duration::minutes(10)
    }

    #[test]
    fn a_token_verifies_for_its_event_and_buyer_only() {
        let (_, keys) = fresh_keys();
        let token = keys.sign(&b("buyer"), &e("evt"), 0, soon(), None);
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
    fn tampered_expired_unsigned_foreign_and_garbage_tokens_are_refused() {
        let (_, keys) = fresh_keys();
        let token = keys.sign(&b("buyer"), &e("evt"), 0, soon(), None);
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

        let expired = keys.sign(
            &b("buyer"),
            &e("evt"),
            0,
            Utc::now() - chrono::Duration::seconds(5),
            None,
        );
        assert!(keys.verify(&expired, &e("evt"), &b("buyer")).is_none());
        // Review finding 14: an expiry a second behind this clock is within the leeway.
        let just = keys.sign(
            &b("buyer"),
            &e("evt"),
            0,
            Utc::now() - chrono::Duration::seconds(1),
            None,
        );
        assert!(keys.verify(&just, &e("evt"), &b("buyer")).is_some());

        let (_, stranger) = fresh_keys();
        let foreign = stranger.sign(&b("buyer"), &e("evt"), 0, soon(), None);
        assert!(
            keys.verify(&foreign, &e("evt"), &b("buyer")).is_none(),
            "unknown kid"
        );

        for garbage in ["", "a.b.c", "not a token", "eyJ.eyJ.sig"] {
            assert!(keys.verify(garbage, &e("evt"), &b("buyer")).is_none());
        }
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
        let token = before.sign(&b("b"), &e("e"), 0, soon(), None);
        let new = KeyMaterial::generate();
        let new_kid = new.kid.clone();
        let after = AdmissionKeys::new(&[old.public_only(), new], None, "anteroom").unwrap();
        assert!(
            after.verify(&token, &e("e"), &b("b")).is_some(),
            "old tokens still pass"
        );
        let fresh = after.sign(&b("b"), &e("e"), 0, soon(), None);
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
        let token = first.sign(&b("b"), &e("e"), 0, soon(), None);
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
