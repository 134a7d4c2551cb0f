//! The admission tokens this instance has already verified, so that the gate, asked about every
//! request of the protected site, checks a token's signature once and not on each request
//! (issue 66: a gate check within 15 us).
//!
//! Invariants: an entry is the claims of a token whose signature, algorithm, `kid` and audience
//! verified under this set of keys ([`super::keys::AdmissionKeys`] owns it, and a set of keys
//! with other `kid`s starts empty: a key withdrawn takes its tokens' entries with it); it is
//! keyed by the SHA-256 of the whole token, so only that exact token finds it; it answers only
//! until the token's `exp` (and the leeway), exactly as a fresh verification would; and the
//! memory is bounded: at most [`CAPACITY`] entries, the expired ones dropped first, then all.

use std::{collections::HashMap, sync::RwLock};

use app::wire::AdmissionClaims;

/// The most tokens remembered (each about 300 bytes with its claims): a few tens of megabytes
/// at most, for as many buyers on the site at once per instance.
pub const CAPACITY: usize = 65_536;

type Digest = [u8; 32];

#[derive(Default)]
pub struct Verified {
    entries: RwLock<HashMap<Digest, AdmissionClaims>>,
}

fn digest(token: &str) -> Digest {
    let d = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    d.as_ref().try_into().expect("SHA-256 is 32 bytes")
}

/// Whether claims expiring at `exp` still verify at unix time `now` with `leeway` seconds.
fn alive(claims: &AdmissionClaims, now: i64, leeway: u64) -> bool {
    now <= claims.exp.saturating_add(leeway as i64)
}

impl Verified {
    /// The claims of `token` if it was verified before and has not expired at `now`.
    pub fn get(&self, token: &str, now: i64, leeway: u64) -> Option<AdmissionClaims> {
        let entries = self.entries.read().expect("not poisoned");
        entries
            .get(&digest(token))
            .filter(|claims| alive(claims, now, leeway))
            .cloned()
    }

    /// Remembers that `token` verified with `claims`, within the bound.
    pub fn put(&self, token: &str, claims: &AdmissionClaims, now: i64, leeway: u64) {
        let mut entries = self.entries.write().expect("not poisoned");
        if entries.len() >= CAPACITY {
            entries.retain(|_, c| alive(c, now, leeway));
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(digest(token), claims.clone());
    }

    /// A copy of `other`'s entries (the same keys, read again).
    pub fn copy_of(other: &Verified) -> Self {
        let entries = other.entries.read().expect("not poisoned").clone();
        Self {
            entries: RwLock::new(entries),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.read().expect("not poisoned").len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use app::wire::{BuyerId, EventId};

    use super::*;

    fn claims(exp: i64) -> AdmissionClaims {
        AdmissionClaims {
            sub: BuyerId::from("b"),
            evt: EventId::from("e"),
            aud: "anteroom".into(),
            iat: 0,
            exp,
            jti: "j".into(),
            epc: 1,
            cnf: None,
        }
    }

    #[test]
    fn only_the_same_token_finds_its_claims_and_only_until_they_expire() {
        let v = Verified::default();
        v.put("token-a", &claims(100), 50, 2);
        assert_eq!(v.get("token-a", 50, 2), Some(claims(100)));
        assert_eq!(
            v.get("token-a", 102, 2),
            Some(claims(100)),
            "within the leeway"
        );
        assert_eq!(v.get("token-a", 103, 2), None, "expired");
        assert_eq!(v.get("token-b", 50, 2), None);
        assert_eq!(
            v.get("token-a ", 50, 2),
            None,
            "another spelling is another token"
        );
    }

    #[test]
    fn the_memory_is_bounded_the_expired_going_first() {
        let v = Verified::default();
        for i in 0..CAPACITY {
            let exp = if i % 2 == 0 { 10 } else { 1_000 };
            v.put(&format!("t{i}"), &claims(exp), 0, 0);
        }
        assert_eq!(v.len(), CAPACITY);
        // Full at time 500: the half that expired goes, the live half stays.
        v.put("new", &claims(1_000), 500, 0);
        assert_eq!(v.len(), CAPACITY / 2 + 1);
        assert!(v.get("t1", 500, 0).is_some());
        // Full of live ones: all go.
        for i in 0..CAPACITY {
            v.put(&format!("u{i}"), &claims(1_000), 500, 0);
        }
        assert!(v.len() <= CAPACITY);
    }
}
