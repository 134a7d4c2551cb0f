//! Proof of possession for rooms that bind admission tokens to the buyer's device (API.md
//! "Tokens bound to the device", RFC 9449). The shapes and encodings are `app::dpop`, shared
//! with every client that makes proofs.
//!
//! Invariants:
//! - A proof passes only if every one of these holds:
//!   - it is at most `dpop::MAX_LEN` bytes;
//!   - its header says `typ: dpop+jwt`, `alg: ES256` and carries a public P-256 `jwk` (a
//!     private member is refused);
//!   - its ES256 signature verifies with that key;
//!   - `htm` is the request's method, and `htu` names this host and the request's path. The
//!     scheme is not compared: behind a proxy that ends TLS we see `http` for an `https` URL;
//!     the host, path, method, key and token carry the binding.
//!   - `iat` is within `dpop::MAX_SKEW_SECS` of our clock;
//!   - `jti` is 1 to 64 characters and was not seen before;
//!   - with an admission token, `ath` is that token's hash.
//! - Everything but the `jti` is checked before Redis is asked, so a forged proof costs us no
//!   write. A `jti` is kept in the event's replay set for the minute of its `iat` (one Redis set
//!   per minute, hash-tagged with the event, living until no proof of that minute can pass),
//!   so a proof passes once, on any instance.
//! - The answer is the key's RFC 7638 thumbprint: what the place remembers and the token's
//!   `cnf.jkt` carries.

use app::dpop::{self, ProofClaims, PublicJwk};
use app::wire::EventId;
use axum::http::{HeaderMap, Method, header};
use jsonwebtoken::{Algorithm, DecodingKey};

use crate::{error::Result, tokens::state::Tokens};

/// Why a proof did not pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The request carries no `DPoP` header.
    Missing,
    /// The proof is malformed, signed badly, or for another request, time or token.
    Invalid(&'static str),
    /// The proof's `jti` was seen before.
    Replayed,
}

impl Refused {
    /// The sentence a refusal's error message gives.
    pub fn reason(self) -> &'static str {
        match self {
            Self::Missing => "this room binds tokens to the device: the request needs a DPoP proof",
            Self::Invalid(why) => why,
            Self::Replayed => "this DPoP proof was used before; make a fresh one for each request",
        }
    }
}

/// The request a proof must be made for.
pub struct ProofFor<'a> {
    pub method: &'a Method,
    /// The request's path (its query is not part of `htu`).
    pub path: &'a str,
    pub headers: &'a HeaderMap,
    /// The admission token the request presents, which `ath` must hash; `None` for a join.
    pub token: Option<&'a str>,
}

/// Checks the proof `request` carries, against the event's replay set: the thumbprint of the
/// key that made it, or why it does not pass. Every outcome is counted here, once
/// (`dpop_proofs_total{outcome}`); a caller that then finds the key is not the one it wants
/// counts that as `wrong_key` ([`wrong_key`]).
pub async fn check(
    state: &Tokens,
    event_id: &EventId,
    request: &ProofFor<'_>,
) -> Result<std::result::Result<String, Refused>> {
    let outcome = replay_checked(state, event_id, request).await?;
    let label = match outcome {
        Ok(_) => "ok",
        Err(Refused::Missing) => "missing",
        Err(Refused::Invalid(_)) => "invalid",
        Err(Refused::Replayed) => "replayed",
    };
    state.metrics.proofs.with_label_values(&[label]).inc();
    Ok(outcome)
}

/// Counts a proof that passed [`check`] but was made with another key than the one the place
/// or token is bound to.
pub fn wrong_key(state: &Tokens) {
    state.metrics.proofs.with_label_values(&["wrong_key"]).inc();
}

/// [`verify`], then the `jti` added to the event's replay set for the minute of its `iat`.
async fn replay_checked(
    state: &Tokens,
    event_id: &EventId,
    request: &ProofFor<'_>,
) -> Result<std::result::Result<String, Refused>> {
    let now = chrono::Utc::now().timestamp();
    let (jkt, claims) = match verify(request, now) {
        Ok(found) => found,
        Err(refused) => return Ok(Err(refused)),
    };
    let key = state.keys.proofs(event_id, claims.iat.div_euclid(60));
    let (added, _): (u32, bool) = redis::pipe()
        .atomic()
        .sadd(&key, &claims.jti)
        // The last proof of the minute can pass until MAX_SKEW_SECS after it.
        .expire(&key, 60 + dpop::MAX_SKEW_SECS + 60)
        .query_async(&mut state.redis.clone())
        .await?;
    if added == 0 {
        return Ok(Err(Refused::Replayed));
    }
    Ok(Ok(jkt))
}

/// Everything about the proof `request` carries but whether its `jti` is new, at `now`
/// (seconds): the key's thumbprint and the claims.
pub fn verify(
    request: &ProofFor<'_>,
    now: i64,
) -> std::result::Result<(String, ProofClaims), Refused> {
    let invalid = Refused::Invalid;
    let proof = request
        .headers
        .get(dpop::HEADER)
        .ok_or(Refused::Missing)?
        .to_str()
        .map_err(|_| invalid("the DPoP proof is not text"))?;
    if proof.len() > dpop::MAX_LEN {
        return Err(invalid("the DPoP proof is too long"));
    }
    let mut parts = proof.split('.');
    let (Some(header), Some(claims), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("the DPoP proof is not a compact JWT"));
    };
    let json = |part: &str| -> Option<serde_json::Value> {
        serde_json::from_slice(&dpop::unb64(part)?).ok()
    };
    let head = json(header).ok_or(invalid("the DPoP proof's header is not base64url JSON"))?;
    if head["typ"] != dpop::TYP || head["alg"] != dpop::ALG {
        return Err(invalid("a DPoP proof must say typ dpop+jwt and alg ES256"));
    }
    if head["jwk"].get("d").is_some() {
        return Err(invalid("a DPoP proof's jwk must not carry a private key"));
    }
    let jwk: PublicJwk = serde_json::from_value(head["jwk"].clone())
        .map_err(|_| invalid("a DPoP proof's header must carry its public jwk"))?;
    if jwk.kty != "EC" || jwk.crv != "P-256" {
        return Err(invalid("a DPoP proof's key must be a P-256 EC key"));
    }
    let key = DecodingKey::from_ec_components(&jwk.x, &jwk.y)
        .map_err(|_| invalid("a DPoP proof's jwk is not a P-256 point"))?;
    let message = &proof[..header.len() + 1 + claims.len()];
    let signed =
        jsonwebtoken::crypto::verify(signature, message.as_bytes(), &key, Algorithm::ES256)
            .unwrap_or(false);
    if !signed {
        return Err(invalid("the DPoP proof's signature does not verify"));
    }
    let claims: ProofClaims = json(claims)
        .and_then(|c| serde_json::from_value(c).ok())
        .ok_or(invalid(
            "the DPoP proof's claims need htm, htu, iat and jti",
        ))?;
    if claims.htm != request.method.as_str() {
        return Err(invalid("the DPoP proof was made for another method"));
    }
    if !same_url(&claims.htu, request) {
        return Err(invalid("the DPoP proof was made for another URL"));
    }
    if (claims.iat - now).abs() > dpop::MAX_SKEW_SECS {
        return Err(invalid(
            "the DPoP proof is more than 60 seconds off our clock",
        ));
    }
    if !(1..=64).contains(&claims.jti.len()) {
        return Err(invalid("a DPoP proof's jti must be 1 to 64 characters"));
    }
    if let Some(token) = request.token
        && claims.ath.as_deref() != Some(dpop::ath(token).as_str())
    {
        return Err(invalid(
            "the DPoP proof is not bound to this admission token (ath)",
        ));
    }
    Ok((jwk.thumbprint(), claims))
}

/// Whether `htu` is an http(s) URL of this host (the request's `Host`) and of the request's
/// path, without a query or a fragment.
fn same_url(htu: &str, request: &ProofFor<'_>) -> bool {
    let Some(rest) = htu
        .strip_prefix("https://")
        .or_else(|| htu.strip_prefix("http://"))
    else {
        return false;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = request
        .headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok());
    Some(authority) == host && path == request.path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request<'a>(headers: &'a HeaderMap, token: Option<&'a str>) -> ProofFor<'a> {
        ProofFor {
            method: &Method::GET,
            path: "/api/events/e/seats",
            headers,
            token,
        }
    }

    #[test]
    fn a_request_without_a_proof_is_missing_one_and_garbage_is_invalid() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            verify(&request(&headers, None), 0).unwrap_err(),
            Refused::Missing
        );
        for garbage in ["", "a.b", "a.b.c", "a.b.c.d", "eyJ9.eyJ9.AA"] {
            headers.insert(dpop::HEADER, garbage.parse().unwrap());
            assert!(matches!(
                verify(&request(&headers, None), 0),
                Err(Refused::Invalid(_))
            ));
        }
    }

    #[test]
    fn the_url_must_name_this_host_and_this_path() {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, "t.example:3000".parse().unwrap());
        let r = request(&headers, None);
        assert!(same_url("https://t.example:3000/api/events/e/seats", &r));
        assert!(same_url("http://t.example:3000/api/events/e/seats", &r));
        assert!(!same_url("https://t.example/api/events/e/seats", &r));
        assert!(!same_url("https://t.example:3000/api/events/e/seats?x", &r));
        assert!(!same_url("https://t.example:3000/api/events/e/holds", &r));
        assert!(!same_url("ftp://t.example:3000/api/events/e/seats", &r));
        assert!(!same_url("https://t.example:3000", &r));
    }
}
