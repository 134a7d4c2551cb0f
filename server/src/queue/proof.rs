//! Proof of work at join (API.md "Proof of work at join"): with the room's `join_pow_bits`
//! above 0, a new place in line costs 2^bits hashes of the joiner's own device, a script's as
//! much as a browser's (the hashing is `app::pow`, the same code on both sides).
//!
//! Invariants: a challenge is signed for one buyer and one event (`Sessions::sign_for`, under
//! its own purpose label), names its bits and its expiry (2 minutes after it was given), and is
//! used once: the locate script marks it used in the same step that makes the place, the mark
//! living until the challenge expires, so a wrong, foreign, reused or expired proof never makes
//! a place (the joiner gets a fresh challenge instead); a rejoin of a place already held needs
//! no proof; issuing a challenge stores nothing.

use app::{
    pow,
    wire::{BuyerId, EventId, ProofChallenge},
};
use chrono::{DateTime, Duration, SubsecRound, Utc};

use crate::{ids, tokens::Sessions};

/// The header a join carries its proof in: `Join-Proof: <challenge>:<nonce>`.
pub const HEADER: &str = "join-proof";

/// What a challenge's MAC is signed for.
const PURPOSE: &str = "anteroom-join-proof";

/// How long a challenge may be answered.
const LIFETIME_SECS: i64 = 120;

/// A valid proof's challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proven {
    /// The challenge's random part: its used-once mark is keyed by it.
    pub id: String,
    pub expires_at: DateTime<Utc>,
}

/// A fresh challenge for `buyer` in the line of `event_id`, asking `bits` of work.
pub fn challenge(
    sessions: &Sessions,
    buyer: &BuyerId,
    event_id: &EventId,
    bits: u32,
    now: DateTime<Utc>,
) -> ProofChallenge {
    let expires_at = now.trunc_subsecs(0) + Duration::seconds(LIFETIME_SECS);
    // The id is base64url, the rest digits: no `:` anywhere, so the header splits at its first.
    let fields = format!("{bits}.{}.{}", expires_at.timestamp(), ids::random_id(12));
    ProofChallenge {
        challenge: sessions.sign_for(PURPOSE, buyer, event_id, &fields),
        bits,
        expires_at,
    }
}

/// The challenge of the `Join-Proof` header value `header` if it proves, at `now`, at least
/// `bits` of work by `buyer` for the line of `event_id` (whether it was used already is the
/// locate script's to say).
pub fn check(
    sessions: &Sessions,
    header: &str,
    buyer: &BuyerId,
    event_id: &EventId,
    bits: u32,
    now: DateTime<Utc>,
) -> Option<Proven> {
    let (challenge, nonce) = header.trim().split_once(':')?;
    if nonce.is_empty() || nonce.len() > pow::NONCE_MAX_LEN {
        return None;
    }
    let fields = sessions.signed_fields(PURPOSE, buyer, event_id, challenge)?;
    let mut parts = fields.splitn(3, '.');
    let (Some(asked), Some(expires), Some(id)) = (parts.next(), parts.next(), parts.next()) else {
        return None;
    };
    let asked: u32 = asked.parse().ok()?;
    let expires_at = DateTime::from_timestamp(expires.parse().ok()?, 0)?;
    // An operator who raised the bits since wants the new price paid; one who lowered them
    // accepts a proof of more.
    let valid = asked >= bits && expires_at > now && pow::meets(challenge, nonce, asked);
    valid.then(|| Proven {
        id: id.to_owned(),
        expires_at,
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration as StdDuration;

    use super::*;

    fn proof(c: &ProofChallenge) -> String {
        format!("{}:{}", c.challenge, pow::solve(&c.challenge, c.bits))
    }

    #[test]
    fn a_proof_holds_for_its_buyer_event_and_two_minutes_only() {
        let sessions = Sessions::new(b"secret", StdDuration::from_secs(60));
        let (buyer, event) = (BuyerId::from("b1"), EventId::from("e1"));
        let now = Utc::now();
        let given = challenge(&sessions, &buyer, &event, 8, now);
        assert!(!given.challenge.contains(':'));
        let header = proof(&given);
        let proven = check(&sessions, &header, &buyer, &event, 8, now).unwrap();
        assert_eq!(proven.expires_at, given.expires_at);
        assert!(check(&sessions, &header, &buyer, &event, 4, now).is_some());
        assert!(
            check(&sessions, &header, &buyer, &event, 9, now).is_none(),
            "bits raised"
        );
        let later = now + Duration::seconds(LIFETIME_SECS + 1);
        assert!(
            check(&sessions, &header, &buyer, &event, 8, later).is_none(),
            "expired"
        );
        let other = (BuyerId::from("b2"), EventId::from("e2"));
        assert!(check(&sessions, &header, &other.0, &event, 8, now).is_none());
        assert!(check(&sessions, &header, &buyer, &other.1, 8, now).is_none());
        let foreign = Sessions::new(b"another secret", StdDuration::from_secs(60));
        assert!(check(&foreign, &header, &buyer, &event, 8, now).is_none());
    }

    #[test]
    fn a_wrong_or_malformed_proof_is_no_proof() {
        let sessions = Sessions::new(b"secret", StdDuration::from_secs(60));
        let (buyer, event) = (BuyerId::from("b1"), EventId::from("e1"));
        let now = Utc::now();
        let given = challenge(&sessions, &buyer, &event, 16, now);
        let wrong = (0u64..)
            .map(|n| n.to_string())
            .find(|n| !pow::meets(&given.challenge, n, 16))
            .unwrap();
        let long = "7".repeat(pow::NONCE_MAX_LEN + 1);
        for header in [
            format!("{}:{wrong}", given.challenge),
            format!("{}:", given.challenge),
            format!("{}:{long}", given.challenge),
            given.challenge.clone(),
            format!("16.1.x.y:{wrong}"),
            String::new(),
        ] {
            assert!(
                check(&sessions, &header, &buyer, &event, 16, now).is_none(),
                "{header}"
            );
        }
    }
}
