//! The draw's arithmetic, as API.md publishes it, in one place: the server orders the line
//! with it, and `anteroom verify-draw` and the on-sale simulator check a published draw with
//! it. Pure: no I/O, no clock, no randomness.
//!
//! - commitment = hex(SHA-256(secret)), the secret being 64 lowercase hex characters;
//! - seed = hex(SHA-256(secret ":" beacon)), the beacon "" when none was set;
//! - a ticket's key = hex(SHA-256(seed ":" ticket)); entrants stand in ascending key order.
//!
//! All hashes are over the UTF-8 strings as written, in lowercase hex. Invariant: the order
//! depends only on the seed and the set of tickets, never on the order the entrants are read
//! in.

use app::wire::{Draw, DrawState};
use ring::digest::{Context, Digest, SHA256};

/// SHA-256 over `parts` joined by ":".
fn sha256(parts: &[&str]) -> Digest {
    let mut context = Context::new(&SHA256);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            context.update(b":");
        }
        context.update(part.as_bytes());
    }
    context.finish()
}

fn sha256_hex(parts: &[&str]) -> String {
    hex::encode(sha256(parts))
}

pub fn commitment(secret: &str) -> String {
    sha256_hex(&[secret])
}

pub fn seed(secret: &str, beacon: &str) -> String {
    sha256_hex(&[secret, beacon])
}

pub fn key(seed: &str, ticket: &str) -> String {
    sha256_hex(&[seed, ticket])
}

/// `entrants` in draw order under `seed`, each named by its ticket: ascending [`key`]s,
/// compared as the digests' bytes (which order as their lowercase hex does, without writing a
/// hundred thousand strings). Equal keys come only from equal tickets.
pub fn order<T>(seed: &str, mut entrants: Vec<T>, ticket: impl Fn(&T) -> &str) -> Vec<T> {
    entrants.sort_by_cached_key(|e| {
        let digest = sha256(&[seed, ticket(e)]);
        <[u8; 32]>::try_from(digest.as_ref()).expect("SHA-256 has 32 bytes")
    });
    entrants
}

/// Whether `s` is `len` lowercase hex characters.
pub fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A published draw that checks out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    pub entrants: usize,
}

impl Verified {
    /// `ticket`'s place in the line (1 is the first), if it was drawn.
    pub fn place_of(draw: &Draw, ticket: &str) -> Option<usize> {
        draw.tickets
            .as_ref()?
            .iter()
            .position(|t| t == ticket)
            .map(|i| i + 1)
    }
}

/// Recomputes `draw` from its own published values: the commitment from the secret, the seed
/// from the secret and the beacon, the order from the seed and the tickets. Every mismatch is
/// named, in words.
pub fn verify(draw: &Draw) -> Result<Verified, Vec<String>> {
    let (DrawState::Drawn, Some(secret), Some(published_seed), Some(tickets)) =
        (draw.state, &draw.secret, &draw.seed, &draw.tickets)
    else {
        return Err(vec![
            "the draw is not made yet: nothing to verify but the commitment".to_owned(),
        ]);
    };
    let mut wrong = Vec::new();
    if !is_hex(secret, 64) {
        wrong.push(format!(
            "the secret {secret:?} is not 64 lowercase hex characters"
        ));
    }
    let commitment = commitment(secret);
    if commitment != draw.commitment {
        wrong.push(format!(
            "the secret hashes to {commitment}, not to the published commitment {}",
            draw.commitment
        ));
    }
    // A draw committed to a randomness round: its beacon is that round's randomness, from a
    // signature that verifies with the round's public key.
    if let Some(source) = &draw.beacon_source {
        // The round must come after the opening: one already out when entrants could still
        // enter lets whoever saw it steer the order.
        match (super::beacon::round_time(source), draw.opens_at) {
            (Some(round), Some(opens)) if round > opens => {}
            (Some(round), Some(opens)) => wrong.push(format!(
                "drand round {} came at {}, not after the opening at {}",
                source.round,
                round.to_rfc3339(),
                opens.to_rfc3339()
            )),
            (_, None) => wrong.push(
                "the draw committed to a drand round but publishes no opening time".to_owned(),
            ),
            (None, _) => {} // beacon::verify names the unknown chain.
        }
        match draw
            .beacon_signature
            .as_deref()
            .map(|s| super::beacon::verify(source, s))
        {
            None => wrong.push(format!(
                "the draw committed to drand round {} but publishes no signature of it",
                source.round
            )),
            Some(Err(e)) => wrong.push(e),
            Some(Ok(randomness)) if randomness != draw.beacon => wrong.push(format!(
                "drand round {}'s randomness is {randomness}, not the beacon {:?}",
                source.round, draw.beacon
            )),
            Some(Ok(_)) => {}
        }
    }
    let seed = seed(secret, &draw.beacon);
    if &seed != published_seed {
        wrong.push(format!(
            "the secret and the beacon make the seed {seed}, not the published {published_seed}"
        ));
    }
    if tickets.len() as u64 != draw.entrants {
        wrong.push(format!(
            "{} tickets are published for {} entrants",
            tickets.len(),
            draw.entrants
        ));
    }
    if let Some(bad) = tickets.iter().find(|t| !is_hex(t, 32)) {
        wrong.push(format!(
            "the ticket {bad:?} is not 32 lowercase hex characters"
        ));
    }
    let recomputed = order(&seed, tickets.iter().map(String::as_str).collect(), |t| *t);
    let mut distinct = recomputed.clone();
    distinct.dedup();
    if distinct.len() != recomputed.len() {
        wrong.push("a ticket is published twice".to_owned());
    }
    if let Some(place) = recomputed
        .iter()
        .zip(tickets)
        .position(|(recomputed, published)| *recomputed != published)
    {
        wrong.push(format!(
            "place {} is published as ticket {}, but the seed puts {} there",
            place + 1,
            tickets[place],
            recomputed[place]
        ));
    }
    if wrong.is_empty() {
        Ok(Verified {
            entrants: tickets.len(),
        })
    } else {
        Err(wrong)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(secret: &str, beacon: &str, tickets: Vec<String>) -> Draw {
        let seed = seed(secret, beacon);
        let tickets = order(&seed, tickets, String::as_str);
        Draw {
            opens_at: None,
            committed_at: chrono::Utc::now(),
            commitment: commitment(secret),
            state: DrawState::Drawn,
            entrants: tickets.len() as u64,
            secret: Some(secret.to_owned()),
            beacon: beacon.to_owned(),
            seed: Some(seed),
            tickets: Some(tickets),
            beacon_source: None,
            beacon_signature: None,
        }
    }

    #[test]
    fn hashes_are_lowercase_hex_sha256_of_the_strings_as_written() {
        // SHA-256("abc"), the FIPS 180-2 example.
        assert_eq!(
            commitment("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(seed("a", "b"), commitment("a:b"));
        assert_eq!(key("s", "t"), commitment("s:t"));
    }

    #[test]
    fn the_order_does_not_depend_on_the_order_entrants_are_read_in() {
        let tickets: Vec<String> = (0..50).map(|i| format!("{i:032x}")).collect();
        let mut reversed = tickets.clone();
        reversed.reverse();
        let a = order("seed", tickets, String::as_str);
        let b = order("seed", reversed, String::as_str);
        assert_eq!(a, b);
        assert!(
            a.windows(2)
                .all(|w| key("seed", &w[0]) < key("seed", &w[1]))
        );
    }

    #[test]
    fn a_published_draw_verifies_and_any_change_to_it_is_named() {
        let secret = "ab".repeat(32);
        let tickets: Vec<String> = (0..20).map(|i| format!("{:032x}", i * 7919)).collect();
        let good = drawn(&secret, "round 123", tickets);
        assert_eq!(verify(&good), Ok(Verified { entrants: 20 }));
        let first = good.tickets.as_ref().unwrap()[0].clone();
        assert_eq!(Verified::place_of(&good, &first), Some(1));

        let mut swapped = good.clone();
        swapped.tickets.as_mut().unwrap().swap(3, 4);
        assert!(verify(&swapped).unwrap_err()[0].contains("place 4"));
        let mut other_beacon = good.clone();
        other_beacon.beacon = "round 124".into();
        assert!(verify(&other_beacon).is_err());
        let mut other_commitment = good.clone();
        other_commitment.commitment = commitment("something else");
        assert!(verify(&other_commitment).is_err());
        let mut pending = good;
        pending.state = DrawState::Pending;
        assert!(verify(&pending).is_err());
    }

    /// Review finding 4: a draw committed to a drand round verifies only with that round's
    /// signature, and only when its beacon is the round's randomness.
    #[test]
    fn a_draw_committed_to_a_drand_round_verifies_only_with_that_rounds_randomness() {
        use crate::opening::beacon::tests::{ROUND_123, ROUND_657413, quicknet};
        let randomness = super::super::beacon::verify(&quicknet(657413), ROUND_657413).unwrap();
        let tickets: Vec<String> = (0..20).map(|i| format!("{i:032x}")).collect();
        let mut draw = drawn(&"5".repeat(64), &randomness, tickets);
        draw.beacon_source = Some(quicknet(657413));
        draw.beacon_signature = Some(ROUND_657413.to_owned());
        let round = super::super::beacon::round_time(&quicknet(657413)).unwrap();
        draw.opens_at = Some(round - chrono::Duration::seconds(1));
        assert!(verify(&draw).is_ok());
        // A round out before (or at) the opening: refused, whatever its signature.
        for opens in [round, round + chrono::Duration::seconds(30)] {
            let early = Draw {
                opens_at: Some(opens),
                ..draw.clone()
            };
            let wrong = verify(&early).err().unwrap();
            assert!(wrong[0].contains("not after the opening"), "{wrong:?}");
        }
        let undated = Draw {
            opens_at: None,
            ..draw.clone()
        };
        assert!(verify(&undated).is_err());
        // A key published beside the draw that is not the chain's: refused as such, whatever
        // the signature (a server signing rounds itself would publish its own key).
        let mut own_key = draw.clone();
        if let Some(source) = own_key.beacon_source.as_mut() {
            source.public_key = source.public_key.replace("83cf", "93cf");
        }
        let wrong = verify(&own_key).err().unwrap();
        assert!(
            wrong
                .iter()
                .any(|w| w.contains("not that chain's public key")),
            "{wrong:?}"
        );
        let mut other_round = draw.clone();
        other_round.beacon_signature = Some(ROUND_123.to_owned());
        assert!(verify(&other_round).is_err());
        let mut unsigned = draw.clone();
        unsigned.beacon_signature = None;
        assert!(verify(&unsigned).is_err());
        // The operator's own beacon under a drand source: the order is not the round's.
        let chosen = drawn(&"5".repeat(64), "chosen", draw.tickets.clone().unwrap());
        let mut steered = chosen;
        steered.beacon_source = draw.beacon_source.clone();
        steered.beacon_signature = draw.beacon_signature.clone();
        assert!(verify(&steered).is_err());
    }
}
