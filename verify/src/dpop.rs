//! Proof of possession for tokens bound to the buyer's device (RFC 9449, API.md "Tokens bound
//! to the device"). A bound token carries `cnf.jkt`, the thumbprint of the buyer's P-256 key;
//! every request that presents it must carry a `DPoP` header with a fresh proof made with that
//! key, so a copied token alone is useless.
//!
//! A proof passes only if all of these hold, checked in this order:
//! - it is at most [`MAX_PROOF_LEN`] bytes, a compact JWS, its header `typ: dpop+jwt`,
//!   `alg: ES256`, with the public P-256 `jwk` that made it (a private member is refused);
//! - its ES256 signature verifies with that key;
//! - `htm` is the request's method and `htu` its URL (scheme, host, port and path compared
//!   after the normalisation of RFC 3986 section 6.2.2-3; query and fragment ignored);
//! - `iat` is within [`MAX_SKEW_SECS`] of the verifier's clock; `jti` is 1 to 64 characters;
//! - `ath` is base64url(SHA-256(the token)) and the key's RFC 7638 thumbprint is `cnf.jkt`;
//! - its (key, `jti`) was not seen before. Last, so that a forged proof never takes a place
//!   in the replay cache.
//!
//! The replay cache is in memory, per [`Verifier`](crate::Verifier) (clones share it): a
//! service of several instances sees a replay to another instance as new. It forgets a proof
//! once its `iat` is too old to pass anyway, and holds at most its capacity: full of proofs
//! still young, it refuses new ones ([`ProofError::Busy`]) rather than forget one that could
//! be replayed.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, HashSet},
    sync::Mutex,
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// The request header that carries a proof.
pub const HEADER: &str = "DPoP";
/// How far a proof's `iat` may be from the verifier's clock, either way, in seconds.
pub const MAX_SKEW_SECS: i64 = 60;
/// The most bytes of a proof that are read (a P-256 proof with `ath` is about 600).
pub const MAX_PROOF_LEN: usize = 2048;

/// Why a request's DPoP proof did not pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProofError {
    /// The token is bound and the request carries no proof.
    #[error("the token is bound to a device key: the request needs a DPoP proof")]
    Missing,
    /// Not a proof: the reason names the part.
    #[error("the DPoP proof is malformed: {0}")]
    Malformed(&'static str),
    #[error("the DPoP proof's signature does not verify")]
    Signature,
    #[error("the DPoP proof was made for another method")]
    Method,
    #[error("the DPoP proof was made for another URL")]
    Url,
    /// Its `iat` is more than [`MAX_SKEW_SECS`] off the verifier's clock.
    #[error("the DPoP proof is more than 60 seconds off our clock")]
    Stale,
    /// Its `ath` is not the hash of the token presented with it.
    #[error("the DPoP proof was made for another token")]
    TokenHash,
    /// It was made with another key than the one the token is bound to.
    #[error("the DPoP proof was made with another key than the token is bound to")]
    WrongKey,
    #[error("the DPoP proof was used before; make a fresh one for each request")]
    Replayed,
    /// The replay cache is full of proofs still young enough to be replayed.
    #[error("too many recent DPoP proofs to remember; try again shortly")]
    Busy,
}

/// The request a proof must have been made for.
#[derive(Clone, Copy, Debug)]
pub struct ProofRequest<'a> {
    /// The request's method, `GET`, `POST`, ...
    pub method: &'a str,
    /// The URL the client sent the request to, as the client saw it (behind a proxy: the
    /// public one), e.g. `https://shop.example/api/seats`; a query or fragment is ignored.
    pub url: &'a str,
    /// The value of the request's `DPoP` header, if it has one.
    pub proof: Option<&'a str>,
}

/// `ath` of a token: base64url(SHA-256(its ASCII)), what a proof that accompanies it carries.
///
/// ```
/// assert_eq!(
///     anteroom_verify::dpop::ath("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU"),
///     "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo",
/// );
/// ```
pub fn ath(token: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()))
}

/// The RFC 7638 thumbprint of the P-256 public key whose coordinates are `x` and `y`
/// (base64url, as in its JWK): what a token bound to that key carries as `cnf.jkt`.
///
/// ```
/// // The key of RFC 9449's examples, and the `jkt` its section 6.1 binds to it.
/// assert_eq!(
///     anteroom_verify::dpop::thumbprint(
///         "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
///         "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
///     ),
///     "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I",
/// );
/// ```
pub fn thumbprint(x: &str, y: &str) -> String {
    // The required members only, in lexicographic order, no blanks (RFC 7638 section 3.2);
    // each value written as JSON writes a string.
    let string = |v: &str| serde_json::Value::from(v).to_string();
    let canonical = format!(
        r#"{{"crv":"P-256","kty":"EC","x":{},"y":{}}}"#,
        string(x),
        string(y)
    );
    URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
}

/// A proof's header, as far as it is read.
#[derive(Deserialize)]
struct Header {
    typ: String,
    alg: String,
    jwk: Jwk,
}

/// A proof's public key; `d` is read only to refuse it.
#[derive(Deserialize)]
struct Jwk {
    kty: String,
    crv: String,
    x: String,
    y: String,
    d: Option<serde_json::Value>,
}

/// A proof's claims.
#[derive(Deserialize)]
struct ProofClaims {
    htm: String,
    htu: String,
    iat: i64,
    jti: String,
    ath: Option<String>,
}

/// A proof whose every check passed but the replay check.
#[derive(Debug)]
pub(crate) struct Checked {
    /// The thumbprint of the key that made it.
    pub(crate) jkt: String,
    pub(crate) jti: String,
    pub(crate) iat: i64,
}

/// Every check of `request`'s proof, made for `token` (whose `cnf.jkt` is `jkt`), at `now`
/// (seconds since the Unix epoch), but whether it was seen before.
pub(crate) fn check(
    request: &ProofRequest<'_>,
    token: &str,
    jkt: &str,
    now: i64,
) -> Result<Checked, ProofError> {
    let malformed = ProofError::Malformed;
    let proof = request.proof.ok_or(ProofError::Missing)?;
    if proof.len() > MAX_PROOF_LEN {
        return Err(malformed("it is too long"));
    }
    let mut parts = proof.split('.');
    let (Some(header), Some(claims), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(malformed("it is not a compact JWS"));
    };
    let header: Header = json(header).ok_or(malformed("its header is not base64url JSON"))?;
    if header.typ != "dpop+jwt" || header.alg != "ES256" {
        return Err(malformed("it must say typ dpop+jwt and alg ES256"));
    }
    let jwk = header.jwk;
    if jwk.d.is_some() {
        return Err(malformed("its jwk carries a private key"));
    }
    if jwk.kty != "EC" || jwk.crv != "P-256" || !coordinate(&jwk.x) || !coordinate(&jwk.y) {
        return Err(malformed("its jwk is not a P-256 public key"));
    }
    let key = DecodingKey::from_ec_components(&jwk.x, &jwk.y)
        .map_err(|_| malformed("its jwk is not a P-256 public key"))?;
    let message = &proof[..proof.len() - signature.len() - 1];
    let signed =
        jsonwebtoken::crypto::verify(signature, message.as_bytes(), &key, Algorithm::ES256)
            .unwrap_or(false);
    if !signed {
        return Err(ProofError::Signature);
    }
    let claims: ProofClaims =
        json(claims).ok_or(malformed("its claims need htm, htu, iat and jti"))?;
    if claims.htm != request.method {
        return Err(ProofError::Method);
    }
    match (normalised_url(&claims.htu), normalised_url(request.url)) {
        (Some(made_for), Some(sent_to)) if made_for == sent_to => {}
        _ => return Err(ProofError::Url),
    }
    if claims.iat.abs_diff(now) > MAX_SKEW_SECS.unsigned_abs() {
        return Err(ProofError::Stale);
    }
    if !(1..=64).contains(&claims.jti.len()) {
        return Err(malformed("its jti must be 1 to 64 characters"));
    }
    if claims.ath.as_deref() != Some(ath(token).as_str()) {
        return Err(ProofError::TokenHash);
    }
    let made_with = thumbprint(&jwk.x, &jwk.y);
    if made_with != jkt {
        return Err(ProofError::WrongKey);
    }
    Ok(Checked {
        jkt: made_with,
        jti: claims.jti,
        iat: claims.iat,
    })
}

/// The JSON in the base64url `part`, if it is that.
fn json<T: serde::de::DeserializeOwned>(part: &str) -> Option<T> {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).ok()?).ok()
}

/// Whether `text` is the base64url of a P-256 coordinate (32 bytes).
fn coordinate(text: &str) -> bool {
    URL_SAFE_NO_PAD
        .decode(text)
        .is_ok_and(|bytes| bytes.len() == 32)
}

/// `url` as two URLs that name the same resource compare equal (RFC 3986 section 6.2.2-3:
/// scheme and host in lower case, the default port left out, an empty path as `/`), without
/// its query and fragment; `None` unless it is an absolute http(s) URL.
pub(crate) fn normalised_url(url: &str) -> Option<String> {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let uri: http::Uri = url.parse().ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let authority = uri.authority()?;
    let host = authority.host().to_ascii_lowercase();
    let path = match uri.path() {
        "" => "/",
        path => path,
    };
    Some(match authority.port_u16().filter(|&p| p != default_port) {
        Some(port) => format!("{scheme}://{host}:{port}{path}"),
        None => format!("{scheme}://{host}{path}"),
    })
}

/// The proofs seen recently, by key and `jti`, each forgotten once its `iat` is too old for
/// it to pass again.
pub(crate) struct ReplayCache {
    /// The most proofs remembered at once.
    capacity: usize,
    /// A std lock: held for a few map operations, never across an await.
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    /// `"<jkt>.<jti>"` of each proof remembered (a thumbprint is base64url: it has no dot).
    proofs: HashSet<String>,
    /// The same, by the last second at which each could pass, soonest first.
    by_expiry: BinaryHeap<Reverse<(i64, String)>>,
}

impl ReplayCache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            seen: Mutex::default(),
        }
    }

    /// Remembers `proof` at `now` (seconds); refuses it if it was seen before, or if the
    /// cache is full of proofs that could still pass.
    pub(crate) fn first_use(&self, proof: &Checked, now: i64) -> Result<(), ProofError> {
        // A poisoned lock only means a panic elsewhere mid-insert: the sets stay usable.
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(Reverse((expiry, _))) = seen.by_expiry.peek()
            && *expiry < now
        {
            let Some(Reverse((_, key))) = seen.by_expiry.pop() else {
                break;
            };
            seen.proofs.remove(&key);
        }
        let key = format!("{}.{}", proof.jkt, proof.jti);
        if seen.proofs.contains(&key) {
            return Err(ProofError::Replayed);
        }
        if seen.proofs.len() >= self.capacity {
            return Err(ProofError::Busy);
        }
        seen.proofs.insert(key.clone());
        seen.by_expiry
            .push(Reverse((proof.iat.saturating_add(MAX_SKEW_SECS), key)));
        Ok(())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.seen.lock().unwrap().proofs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(jti: &str, iat: i64) -> Checked {
        Checked {
            jkt: "key".into(),
            jti: jti.into(),
            iat,
        }
    }

    #[test]
    fn a_proof_is_refused_the_second_time_until_it_is_too_old_to_pass_anyway() {
        let cache = ReplayCache::new(10);
        cache.first_use(&proof("a", 1_000), 1_000).unwrap();
        assert_eq!(
            cache.first_use(&proof("a", 1_000), 1_030),
            Err(ProofError::Replayed)
        );
        assert_eq!(
            cache.first_use(&proof("a", 1_000), 1_060),
            Err(ProofError::Replayed),
            "at iat + 60 the proof still passes the clock check"
        );
        cache.first_use(&proof("b", 1_050), 1_061).unwrap();
        assert_eq!(cache.len(), 1, "a is forgotten, b is remembered");
    }

    #[test]
    fn a_full_cache_refuses_new_proofs_rather_than_forget_young_ones() {
        let cache = ReplayCache::new(2);
        cache.first_use(&proof("a", 100), 100).unwrap();
        cache.first_use(&proof("b", 100), 100).unwrap();
        assert_eq!(
            cache.first_use(&proof("c", 100), 100),
            Err(ProofError::Busy)
        );
        cache.first_use(&proof("c", 200), 200).unwrap();
    }

    #[test]
    fn the_same_jti_from_two_keys_is_two_proofs() {
        let cache = ReplayCache::new(10);
        cache.first_use(&proof("a", 100), 100).unwrap();
        let other = Checked {
            jkt: "other".into(),
            jti: "a".into(),
            iat: 100,
        };
        cache.first_use(&other, 100).unwrap();
    }

    #[test]
    fn urls_compare_after_normalisation_without_query_or_fragment() {
        let same = [
            (
                "https://Shop.Example/api/a",
                "https://shop.example:443/api/a?x=1",
            ),
            ("HTTP://127.0.0.1:80/a#frag", "http://127.0.0.1/a"),
            ("https://shop.example", "https://shop.example/"),
        ];
        for (a, b) in same {
            assert_eq!(normalised_url(a), normalised_url(b), "{a} {b}");
            assert!(normalised_url(a).is_some());
        }
        let different = [
            ("https://shop.example/api/a", "http://shop.example/api/a"),
            (
                "https://shop.example/api/a",
                "https://shop.example:8443/api/a",
            ),
            ("https://shop.example/api/a", "https://shop.example/api/b"),
            ("https://shop.example/api/a", "https://evil.example/api/a"),
        ];
        for (a, b) in different {
            assert_ne!(normalised_url(a), normalised_url(b), "{a} {b}");
        }
        for bad in ["/api/a", "ftp://shop.example/a", "", "https://"] {
            assert_eq!(normalised_url(bad), None, "{bad}");
        }
    }
}
