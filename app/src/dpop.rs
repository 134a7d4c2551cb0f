//! DPoP proofs (RFC 9449) for rooms that bind admission tokens to the buyer's device (API.md
//! "Tokens bound to the device"). Shared by the server that checks proofs and by every client
//! that makes them (the WASM page through WebCrypto, the load test, the tests), so the two
//! sides cannot disagree on a byte.
//!
//! Invariants:
//! - A key's thumbprint (RFC 7638) hashes the four required members of its P-256 public JWK,
//!   in lexicographic order, with no blanks: one key has one thumbprint wherever computed.
//! - `htu` is the request's scheme, authority and path, never its query or fragment (RFC 9449
//!   section 4.2).
//! - A proof is `base64url(header JSON) "." base64url(claims JSON) "." base64url(signature)`,
//!   without padding; an ES256 signature is the 64 bytes r || s (what WebCrypto's ECDSA gives).
//! - `ath` is base64url(SHA-256(the admission token's ASCII)).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The request header that carries a proof.
pub const HEADER: &str = "DPoP";
/// A proof's `typ`.
pub const TYP: &str = "dpop+jwt";
/// The one algorithm a proof may use.
pub const ALG: &str = "ES256";
/// How far a proof's `iat` may be from the server's clock, either way.
pub const MAX_SKEW_SECS: i64 = 60;
/// The most bytes of a proof the server reads (a P-256 proof with `ath` is about 600).
pub const MAX_LEN: usize = 2048;

/// A P-256 public key as a JWK (RFC 7517, 7518 section 6.2): the only members a proof's
/// header needs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublicJwk {
    pub kty: String,
    pub crv: String,
    pub x: String,
    pub y: String,
}

impl PublicJwk {
    /// The JWK of the P-256 point (`x`, `y`), each 32 bytes big-endian.
    pub fn p256(x: &[u8], y: &[u8]) -> Self {
        Self {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: b64(x),
            y: b64(y),
        }
    }

    /// The key's RFC 7638 thumbprint, base64url: what a bound token's `cnf.jkt` holds.
    pub fn thumbprint(&self) -> String {
        // serde_json writes each member as a JSON string (escaped as JSON escapes it), and
        // the object by hand, in the members' lexicographic order, without blanks.
        let s = |v: &str| serde_json::to_string(v).unwrap_or_default();
        let canonical = format!(
            "{{\"crv\":{},\"kty\":{},\"x\":{},\"y\":{}}}",
            s(&self.crv),
            s(&self.kty),
            s(&self.x),
            s(&self.y)
        );
        b64(Sha256::digest(canonical.as_bytes()))
    }
}

/// A proof's JOSE header.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofHeader {
    pub typ: String,
    pub alg: String,
    pub jwk: PublicJwk,
}

impl ProofHeader {
    /// The header of a proof made with the P-256 key `jwk`.
    pub fn es256(jwk: PublicJwk) -> Self {
        Self {
            typ: TYP.into(),
            alg: ALG.into(),
            jwk,
        }
    }
}

/// A proof's claims (RFC 9449 section 4.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofClaims {
    /// The request's method.
    pub htm: String,
    /// The request's URL without query or fragment ([`htu`]).
    pub htu: String,
    /// When the proof was made, in seconds since the epoch.
    pub iat: i64,
    /// Unique per proof: the server refuses one it has seen.
    pub jti: String,
    /// With an admission token: [`ath`] of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ath: Option<String>,
}

/// The `htu` of a request to `path` (query and fragment dropped) at `origin` (scheme and
/// authority, no trailing slash), e.g. `https://tickets.example` and `/api/events/e/seats`.
pub fn htu(origin: &str, path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or_default();
    format!("{}{path}", origin.trim_end_matches('/'))
}

/// `ath` of an admission token: base64url(SHA-256(token)).
pub fn ath(token: &str) -> String {
    b64(Sha256::digest(token.as_bytes()))
}

/// What an ES256 signature of a proof covers: the encoded header and claims, joined by a dot.
pub fn signing_input(header: &ProofHeader, claims: &ProofClaims) -> String {
    // Serialising these plain structs cannot fail.
    let header = serde_json::to_vec(header).unwrap_or_default();
    let claims = serde_json::to_vec(claims).unwrap_or_default();
    format!("{}.{}", b64(header), b64(claims))
}

/// The compact proof: its signing input, a dot, and the 64-byte signature r || s.
pub fn compact(signing_input: &str, signature: &[u8]) -> String {
    format!("{signing_input}.{}", b64(signature))
}

/// base64url without padding, as JOSE writes every part.
pub fn b64(bytes: impl AsRef<[u8]>) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The bytes of base64url text without padding, if it is that.
pub fn unb64(text: &str) -> Option<Vec<u8>> {
    URL_SAFE_NO_PAD.decode(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of RFC 9449's examples (section 4.1) and the thumbprint its section 6.1 binds.
    #[test]
    fn the_thumbprint_of_the_rfcs_example_key_is_the_rfcs() {
        let jwk = PublicJwk {
            kty: "EC".into(),
            crv: "P-256".into(),
            x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs".into(),
            y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA".into(),
        };
        assert_eq!(
            jwk.thumbprint(),
            "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"
        );
    }

    #[test]
    fn htu_drops_the_query_and_the_fragment() {
        assert_eq!(
            htu("https://t.example/", "/api/events/e/seats?x=1#y"),
            "https://t.example/api/events/e/seats"
        );
        assert_eq!(htu("http://127.0.0.1:3000", "/a"), "http://127.0.0.1:3000/a");
    }

    #[test]
    fn the_signing_input_is_the_two_encoded_parts() {
        let header = ProofHeader::es256(PublicJwk::p256(&[1; 32], &[2; 32]));
        let claims = ProofClaims {
            htm: "GET".into(),
            htu: "http://h/p".into(),
            iat: 5,
            jti: "j".into(),
            ath: None,
        };
        let input = signing_input(&header, &claims);
        let (h, c) = input.split_once('.').unwrap();
        let h: ProofHeader = serde_json::from_slice(&unb64(h).unwrap()).unwrap();
        let c: serde_json::Value = serde_json::from_slice(&unb64(c).unwrap()).unwrap();
        assert_eq!(h, header);
        assert_eq!(c, serde_json::json!({"htm": "GET", "htu": "http://h/p", "iat": 5, "jti": "j"}));
        assert_eq!(compact(&input, &[0]), format!("{input}.AA"));
    }
}
