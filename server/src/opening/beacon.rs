//! A draw's beacon from a future public randomness round (review finding 4; API.md "Before the
//! sale opens"): the room commits, before its pre-queue opens, to a round of a drand chain whose
//! time is after the opening; the draw waits for that round and takes as its beacon the round's
//! randomness, hex(SHA-256(signature)), once the signature verifies with the chain's public key.
//! Nobody, the operator included, knows the beacon while entrants can still enter, and nobody
//! chooses it.
//!
//! Invariants: a signature counts only when it verifies for the committed round and key (the
//! BLS pairing of `drand-verify`, the scheme `bls-unchained-g1-rfc9380` of the League of
//! Entropy's quicknet); it comes from the operator (`PUT .../draw {"round_signature"}`) or from
//! a drand relay the server asks (`ANTEROOM_DRAND_URLS`) once the round's time passed, and
//! either way is checked the same. The opening cannot be postponed to or past the round's time.

use app::wire::BeaconSource;
use chrono::{DateTime, Utc};
use drand_verify::{G2PubkeyRfc, Pubkey, derive_randomness};

/// A drand chain whose signatures this server checks: its hash, public key (hex), genesis
/// (Unix seconds) and period. Only chains known here: a chain's key and clock taken from the
/// operator would let the operator name a chain they sign themselves, or a round already out.
struct Chain {
    hash: &'static str,
    public_key: &'static str,
    genesis: i64,
    period: u32,
}

/// The League of Entropy's quicknet (`bls-unchained-g1-rfc9380`), as
/// `https://api.drand.sh/52db9ba7.../info` publishes it.
const CHAINS: [Chain; 1] = [Chain {
    hash: "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
    public_key: "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
    genesis: 1_692_803_367,
    period: 3,
}];

fn chain(source: &BeaconSource) -> Option<&'static Chain> {
    CHAINS.iter().find(|c| c.hash == source.chain_hash)
}

/// The time of `source`'s round, on its chain's clock (a known chain only).
pub fn round_time(source: &BeaconSource) -> Option<DateTime<Utc>> {
    let chain = chain(source)?;
    let offset = i64::try_from(source.round.checked_sub(1)?)
        .ok()?
        .checked_mul(i64::from(chain.period))?;
    DateTime::from_timestamp(chain.genesis.checked_add(offset)?, 0)
}

/// Why `source` cannot be committed to, if it cannot: a kind other than drand, a chain not
/// known here or a key other than its own, or round 0.
pub fn check(source: &BeaconSource) -> Result<(), String> {
    if source.kind != "drand" {
        return Err("beacon_source.kind must be \"drand\"".into());
    }
    let Some(chain) = chain(source) else {
        return Err(format!(
            "beacon_source.chain_hash names no chain known here; known: {}",
            CHAINS.map(|c| c.hash).join(", ")
        ));
    };
    if source.public_key != chain.public_key {
        return Err("beacon_source.public_key is not that chain's public key".into());
    }
    if round_time(source).is_none() {
        return Err("beacon_source.round is from 1 to a round the chain's clock reaches".into());
    }
    Ok(())
}

/// The randomness of `source`'s round (64 lowercase hex characters: the draw's beacon) if
/// `signature` (hex) is that round's signature under its chain's public key as known here (a
/// key published beside the draw is only compared with it: a server that published a key of its
/// own, and rounds it signed itself, would otherwise verify).
pub fn verify(source: &BeaconSource, signature: &str) -> Result<String, String> {
    check(source)?;
    let key = public_key(source)?;
    let bytes = hex::decode(signature)
        .ok()
        .ok_or("the round's signature is not hex")?;
    match key.verify(source.round, b"", &bytes) {
        Ok(true) => Ok(hex::encode(derive_randomness(&bytes))),
        Ok(false) => Err(format!(
            "that is not the signature of round {} of chain {}",
            source.round, source.chain_hash
        )),
        Err(e) => Err(format!("the round's signature is not a signature: {e}")),
    }
}

/// Asks each of `relays` (drand HTTP endpoints) for `source`'s round, and answers the first
/// signature that verifies. `None` when none has it (not yet published, unreachable).
pub async fn fetch(
    http: &reqwest::Client,
    relays: &[String],
    source: &BeaconSource,
) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Round {
        round: u64,
        signature: String,
    }
    for relay in relays {
        let url = format!(
            "{}/{}/public/{}",
            relay.trim_end_matches('/'),
            source.chain_hash,
            source.round
        );
        let answer = match http.get(&url).send().await {
            Ok(r) if r.status().is_success() => r.json::<Round>().await,
            Ok(r) => {
                tracing::debug!(%url, status = %r.status(), "drand relay has no such round yet");
                continue;
            }
            Err(e) => {
                tracing::debug!(%url, error = %e, "drand relay unreachable");
                continue;
            }
        };
        match answer {
            Ok(round)
                if round.round == source.round && verify(source, &round.signature).is_ok() =>
            {
                return Some(round.signature.to_ascii_lowercase());
            }
            Ok(_) => tracing::warn!(%url, "a drand relay answered a round that does not verify"),
            Err(e) => tracing::warn!(%url, error = %e, "a drand relay's answer is not a round"),
        }
    }
    None
}

fn public_key(source: &BeaconSource) -> Result<G2PubkeyRfc, String> {
    let bytes: [u8; 96] = hex::decode(&source.public_key)
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or("beacon_source.public_key is 192 hex characters (a compressed G2 point)")?;
    G2PubkeyRfc::from_fixed(bytes).map_err(|e| format!("beacon_source.public_key: {e}"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Quicknet's public key, as `https://api.drand.sh/<chain hash>/info` publishes it.
    pub const QUICKNET_KEY: &str = "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a";
    /// Quicknet's round 123 and round 657413, as the relays publish them (public facts).
    pub const ROUND_123: &str = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";
    pub const ROUND_657413: &str = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b";

    pub fn quicknet(round: u64) -> BeaconSource {
        BeaconSource {
            kind: "drand".into(),
            chain_hash: CHAINS[0].hash.into(),
            public_key: QUICKNET_KEY.into(),
            round,
        }
    }

    #[test]
    fn a_recorded_quicknet_round_verifies_and_gives_its_published_randomness() {
        assert_eq!(
            verify(&quicknet(657413), ROUND_657413).unwrap(),
            "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587"
        );
        assert!(verify(&quicknet(123), ROUND_123).is_ok());
        // Another round's signature, a flipped byte, garbage: refused.
        assert!(verify(&quicknet(124), ROUND_123).is_err());
        let mut flipped = ROUND_123.to_owned();
        flipped.replace_range(10..12, "00");
        assert!(verify(&quicknet(123), &flipped).is_err());
        assert!(verify(&quicknet(123), "zz").is_err());
        let mut other_key = quicknet(123);
        other_key.public_key = other_key.public_key.replace("83cf", "93cf");
        assert!(verify(&other_key, ROUND_123).is_err());
    }

    #[test]
    fn a_rounds_time_is_its_chains_genesis_plus_whole_periods() {
        assert_eq!(round_time(&quicknet(1)).unwrap().timestamp(), 1_692_803_367);
        assert_eq!(
            round_time(&quicknet(101)).unwrap().timestamp(),
            1_692_803_367 + 300
        );
        let mut other = quicknet(3);
        other.chain_hash = "ab".repeat(32);
        assert!(round_time(&other).is_none() && check(&other).is_err());
        // The operator's own key under quicknet's name: refused.
        let mut own_key = quicknet(3);
        own_key.public_key = own_key.public_key.replace("83cf", "93cf");
        assert!(check(&own_key).is_err());
        assert!(check(&quicknet(0)).is_err());
        assert!(check(&quicknet(u64::MAX / 4)).is_err());
        let mut kind = quicknet(5);
        kind.kind = "lottery".into();
        assert!(check(&kind).is_err());
        assert!(check(&quicknet(5)).is_ok());
    }
}
