//! Tokens bound to a device key: what proof lets a request through.

use anteroom_verify::{Error, Verifier, dpop::ProofError, dpop::ProofRequest};
use serde_json::{Value, json};

use crate::support::{Device, JwksServer, SigningKey, claims, now, random_id};

const URL: &str = "https://shop.example/api/seats";

/// A key, its JWKS, a verifier, a device and a token bound to it.
struct Bound {
    _jwks: JwksServer,
    verifier: Verifier,
    device: Device,
    token: String,
}

async fn bound() -> Bound {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let device = Device::new();
    let mut bound = claims();
    bound["cnf"] = json!({"jkt": device.thumbprint()});
    Bound {
        verifier: jwks.verifier(),
        token: key.sign(&bound),
        device,
        _jwks: jwks,
    }
}

impl Bound {
    async fn present(&self, method: &str, url: &str, proof: Option<&str>) -> Result<(), Error> {
        let request = ProofRequest { method, url, proof };
        self.verifier
            .verify_request(&self.token, &request)
            .await
            .map(|_| ())
    }

    /// A proof from the device with these claims changed.
    fn proof_with(&self, changes: Value) -> String {
        let mut claims = json!({
            "htm": "GET", "htu": URL, "iat": now(), "jti": random_id(),
            "ath": anteroom_verify::dpop::ath(&self.token),
        });
        for (name, value) in changes.as_object().unwrap() {
            claims[name] = value.clone();
        }
        let header = json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.device.jwk()});
        self.device.proof_with(&header, &claims)
    }
}

#[tokio::test]
async fn a_bound_token_with_a_fresh_proof_from_its_key_passes() {
    let b = bound().await;
    let proof = b.device.proof("GET", URL, &b.token);
    b.present("GET", URL, Some(&proof)).await.unwrap();
    // The same URL as the client may write it: case, default port, a query.
    let proof = b
        .device
        .proof("POST", "https://SHOP.example:443/api/seats?x=1", &b.token);
    b.present("POST", URL, Some(&proof)).await.unwrap();
}

#[tokio::test]
async fn a_bound_token_without_a_proof_is_refused() {
    let b = bound().await;
    assert_eq!(
        b.present("GET", URL, None).await,
        Err(Error::Proof(ProofError::Missing))
    );
}

#[tokio::test]
async fn a_proof_from_another_key_is_refused() {
    let b = bound().await;
    let thief = Device::new();
    let proof = thief.proof("GET", URL, &b.token);
    assert_eq!(
        b.present("GET", URL, Some(&proof)).await,
        Err(Error::Proof(ProofError::WrongKey))
    );
}

#[tokio::test]
async fn a_replayed_proof_is_refused() {
    let b = bound().await;
    let proof = b.device.proof("GET", URL, &b.token);
    b.present("GET", URL, Some(&proof)).await.unwrap();
    assert_eq!(
        b.present("GET", URL, Some(&proof)).await,
        Err(Error::Proof(ProofError::Replayed))
    );
    // Also through a clone of the verifier: they share the replay cache.
    let clone = b.verifier.clone();
    let request = ProofRequest {
        method: "GET",
        url: URL,
        proof: Some(&proof),
    };
    assert_eq!(
        clone.verify_request(&b.token, &request).await.map(|_| ()),
        Err(Error::Proof(ProofError::Replayed))
    );
}

#[tokio::test]
async fn a_proof_made_more_than_a_minute_away_from_now_is_refused() {
    let b = bound().await;
    for iat in [now() - 120, now() + 120] {
        let proof = b.proof_with(json!({"iat": iat}));
        assert_eq!(
            b.present("GET", URL, Some(&proof)).await,
            Err(Error::Proof(ProofError::Stale))
        );
    }
    let proof = b.proof_with(json!({"iat": now() - 30}));
    b.present("GET", URL, Some(&proof)).await.unwrap();
}

#[tokio::test]
async fn a_proof_made_for_another_token_is_refused() {
    let b = bound().await;
    let proof = b.proof_with(json!({"ath": anteroom_verify::dpop::ath("another token")}));
    assert_eq!(
        b.present("GET", URL, Some(&proof)).await,
        Err(Error::Proof(ProofError::TokenHash))
    );
    let proof = b.proof_with(json!({"ath": null}));
    assert_eq!(
        b.present("GET", URL, Some(&proof)).await,
        Err(Error::Proof(ProofError::TokenHash))
    );
}

#[tokio::test]
async fn a_proof_made_for_another_url_or_method_is_refused() {
    let b = bound().await;
    for htu in [
        "https://shop.example/api/holds",
        "https://evil.example/api/seats",
        "http://shop.example/api/seats",
        "/api/seats",
    ] {
        let proof = b.proof_with(json!({"htu": htu}));
        assert_eq!(
            b.present("GET", URL, Some(&proof)).await,
            Err(Error::Proof(ProofError::Url)),
            "{htu}"
        );
    }
    let proof = b.proof_with(json!({"htm": "POST"}));
    assert_eq!(
        b.present("GET", URL, Some(&proof)).await,
        Err(Error::Proof(ProofError::Method))
    );
}

#[tokio::test]
async fn a_proof_whose_signature_or_header_is_wrong_is_refused() {
    let b = bound().await;
    let proof = b.device.proof("GET", URL, &b.token);
    let (input, _) = proof.rsplit_once('.').unwrap();
    let other = b.device.proof("GET", URL, &b.token);
    let (_, other_signature) = other.rsplit_once('.').unwrap();
    assert_eq!(
        b.present("GET", URL, Some(&format!("{input}.{other_signature}")))
            .await,
        Err(Error::Proof(ProofError::Signature))
    );
    let claims = json!({
        "htm": "GET", "htu": URL, "iat": now(), "jti": random_id(),
        "ath": anteroom_verify::dpop::ath(&b.token),
    });
    let mut with_private = b.device.jwk();
    with_private["d"] = "c2VjcmV0".into();
    for header in [
        json!({"typ": "JWT", "alg": "ES256", "jwk": b.device.jwk()}),
        json!({"typ": "dpop+jwt", "alg": "EdDSA", "jwk": b.device.jwk()}),
        json!({"typ": "dpop+jwt", "alg": "ES256"}),
        json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": with_private}),
    ] {
        let proof = b.device.proof_with(&header, &claims);
        assert!(
            matches!(
                b.present("GET", URL, Some(&proof)).await,
                Err(Error::Proof(ProofError::Malformed(_)))
            ),
            "{header}"
        );
    }
    for garbage in ["", "a.b.c", "x".repeat(3000).as_str()] {
        assert!(matches!(
            b.present("GET", URL, Some(garbage)).await,
            Err(Error::Proof(ProofError::Malformed(_)))
        ));
    }
}

#[tokio::test]
async fn an_unbound_token_needs_no_proof() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let request = ProofRequest {
        method: "GET",
        url: URL,
        proof: None,
    };
    assert!(
        jwks.verifier()
            .verify_request(&key.sign(&claims()), &request)
            .await
            .is_ok()
    );
}
