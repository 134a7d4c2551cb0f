//! A device key as a browser keeps one in a room that binds tokens (API.md "Tokens bound to
//! the device"): a P-256 key that signs DPoP proofs (RFC 9449) with the shapes of `app::dpop`,
//! for the tests and the simulator. Each [`DeviceKey::proof`] has a fresh `jti`.

use app::dpop::{self, ProofClaims, ProofHeader, PublicJwk};
use p256::ecdsa::{Signature, SigningKey, signature::Signer};
use rand::RngCore;

/// A device's key pair.
#[derive(Clone)]
pub struct DeviceKey {
    signing: SigningKey,
    jwk: PublicJwk,
}

impl Default for DeviceKey {
    fn default() -> Self {
        Self::new()
    }
}

impl DeviceKey {
    /// A fresh random key.
    pub fn new() -> Self {
        let mut bytes = [0u8; 32];
        let signing = loop {
            rand::thread_rng().fill_bytes(&mut bytes);
            // Nearly every 32 bytes are a valid scalar; the loop skips the rare one that is not.
            if let Ok(key) = SigningKey::from_bytes(&bytes.into()) {
                break key;
            }
        };
        let point = signing.verifying_key().to_encoded_point(false);
        let jwk = PublicJwk::p256(
            point.x().expect("an uncompressed point has x"),
            point.y().expect("an uncompressed point has y"),
        );
        Self { signing, jwk }
    }

    /// The key's thumbprint: what a token bound to it carries as `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        self.jwk.thumbprint()
    }

    /// A proof for a `method` request of `url` (query and fragment are dropped), bound to the
    /// admission `token` if given, made now.
    pub fn proof(&self, method: &str, url: &str, token: Option<&str>) -> String {
        self.proof_with(method, url, token, chrono::Utc::now().timestamp(), &fresh_jti())
    }

    /// A proof with the `iat` and `jti` given (tests make stale and replayed ones with it).
    pub fn proof_with(
        &self,
        method: &str,
        url: &str,
        token: Option<&str>,
        iat: i64,
        jti: &str,
    ) -> String {
        let claims = ProofClaims {
            htm: method.to_owned(),
            htu: dpop::htu("", url),
            iat,
            jti: jti.to_owned(),
            ath: token.map(dpop::ath),
        };
        let input = dpop::signing_input(&ProofHeader::es256(self.jwk.clone()), &claims);
        let signature: Signature = self.signing.sign(input.as_bytes());
        dpop::compact(&input, &signature.to_bytes())
    }
}

/// A random `jti`: 16 bytes, base64url.
fn fresh_jti() -> String {
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    dpop::b64(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_says_what_it_was_made_for() {
        let key = DeviceKey::new();
        let proof = key.proof("GET", "http://h:1/a?b", Some("tok"));
        let claims = proof.split('.').nth(1).unwrap();
        let claims: ProofClaims =
            serde_json::from_slice(&dpop::unb64(claims).unwrap()).unwrap();
        assert_eq!(claims.htu, "http://h:1/a");
        assert_eq!(claims.ath, Some(dpop::ath("tok")));
        assert_ne!(key.thumbprint(), DeviceKey::new().thumbprint());
    }
}
