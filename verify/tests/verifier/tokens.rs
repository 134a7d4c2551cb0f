//! What passes and what is refused: one signed token at a time.

use std::time::Duration;

use anteroom_verify::{Error, Verifier, dpop::ProofError};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;

use crate::support::{AUD, EVENT, JwksServer, SigningKey, claims, now, unsigned};

#[tokio::test]
async fn a_token_signed_with_a_published_key_passes_with_its_claims() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let token = key.sign(&claims());
    let claims = jwks.verifier().verify(&token).await.unwrap();
    assert_eq!(
        (
            claims.sub.as_str(),
            claims.evt.as_str(),
            claims.aud.as_str()
        ),
        ("buyer-1", EVENT, AUD)
    );
    assert_eq!(
        (claims.epc, claims.until, claims.cnf),
        (Some(1), None, None)
    );
    assert_eq!(claims.exp - claims.iat, 600);
}

#[tokio::test]
async fn a_token_whose_claims_were_changed_is_refused() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let token = key.sign(&claims());
    let parts: Vec<&str> = token.split('.').collect();
    let mut forged = claims();
    forged["sub"] = "someone-else".into();
    let forged = URL_SAFE_NO_PAD.encode(forged.to_string());
    let tampered = format!("{}.{forged}.{}", parts[0], parts[2]);
    assert_eq!(
        jwks.verifier().verify(&tampered).await,
        Err(Error::Signature)
    );
}

#[tokio::test]
async fn an_unsigned_token_is_refused() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let payload = URL_SAFE_NO_PAD.encode(claims().to_string());
    for header in [
        json!({"alg": "none", "kid": "k1"}),
        json!({"alg": "none", "typ": "JWT", "kid": "k1"}),
    ] {
        let header = URL_SAFE_NO_PAD.encode(header.to_string());
        for token in [
            format!("{header}.{payload}."),
            format!("{header}.{payload}"),
        ] {
            assert_eq!(
                jwks.verifier().verify(&token).await,
                Err(Error::Algorithm("none".into())),
                "{token}"
            );
        }
    }
}

#[tokio::test]
async fn an_hmac_token_keyed_with_the_public_key_is_refused() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let x = key.jwk["x"].as_str().unwrap();
    // The classic confusion: the public key, which anyone has, used as an HMAC secret.
    let secrets = [
        URL_SAFE_NO_PAD.decode(x).unwrap(),
        x.as_bytes().to_vec(),
        key.jwk.to_string().into_bytes(),
    ];
    for secret in secrets {
        for alg in [Algorithm::HS256, Algorithm::HS384, Algorithm::HS512] {
            let mut header = Header::new(alg);
            header.kid = Some("k1".into());
            let token =
                jsonwebtoken::encode(&header, &claims(), &EncodingKey::from_secret(&secret))
                    .unwrap();
            assert!(
                matches!(
                    jwks.verifier().verify(&token).await,
                    Err(Error::Algorithm(_))
                ),
                "{alg:?}"
            );
        }
    }
    assert_eq!(jwks.fetches(), 0, "refused before any key was looked up");
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let mut other = claims();
    other["aud"] = "https://other-shop.example".into();
    assert_eq!(
        jwks.verifier().verify(&key.sign(&other)).await,
        Err(Error::Audience)
    );
    // Every configured audience is accepted.
    let both = Verifier::builder(&jwks.url)
        .audience(AUD)
        .audience("https://other-shop.example")
        .build()
        .unwrap();
    assert!(both.verify(&key.sign(&other)).await.is_ok());
    assert!(both.verify(&key.sign(&claims())).await.is_ok());
}

#[tokio::test]
async fn a_token_for_another_event_is_refused_when_events_are_configured() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let mut other = claims();
    other["evt"] = "e-other".into();
    let token = key.sign(&other);
    let one_event = Verifier::builder(&jwks.url)
        .audience(AUD)
        .event(EVENT)
        .build()
        .unwrap();
    assert_eq!(one_event.verify(&token).await, Err(Error::Event));
    assert!(one_event.verify(&key.sign(&claims())).await.is_ok());
    assert!(
        jwks.verifier().verify(&token).await.is_ok(),
        "without events configured, any event passes"
    );
}

#[tokio::test]
async fn a_token_expired_beyond_the_leeway_is_refused_and_within_it_passes() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let verifier = jwks.verifier();
    let mut expired = claims();
    expired["exp"] = (now() - 30).into();
    assert_eq!(
        verifier.verify(&key.sign(&expired)).await,
        Err(Error::Expired)
    );
    expired["exp"] = (now() - 2).into();
    assert!(
        verifier.verify(&key.sign(&expired)).await.is_ok(),
        "2 s past, within the default 5 s"
    );
    let strict = Verifier::builder(&jwks.url)
        .audience(AUD)
        .leeway(Duration::ZERO)
        .build()
        .unwrap();
    assert_eq!(
        strict.verify(&key.sign(&expired)).await,
        Err(Error::Expired)
    );
}

#[tokio::test]
async fn a_token_not_valid_yet_is_refused() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let mut early = claims();
    early["nbf"] = (now() + 60).into();
    assert_eq!(
        jwks.verifier().verify(&key.sign(&early)).await,
        Err(Error::NotYetValid)
    );
}

#[tokio::test]
async fn a_token_of_a_key_that_is_not_published_is_refused() {
    let key = SigningKey::ed25519("k1");
    let stranger = SigningKey::ed25519("k2");
    let jwks = JwksServer::start(&[&key]).await;
    assert_eq!(
        jwks.verifier().verify(&stranger.sign(&claims())).await,
        Err(Error::UnknownKey)
    );
    // Another key under a published kid: the signature does not hold.
    let impostor = stranger.sign_as(Algorithm::EdDSA, "k1", &claims());
    assert_eq!(
        jwks.verifier().verify(&impostor).await,
        Err(Error::Signature)
    );
}

#[tokio::test]
async fn garbage_is_refused_as_malformed() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let verifier = jwks.verifier();
    let long = "a".repeat(10_000);
    let garbage = ["", "not a token", "a.b.c", "eyJ.eyJ.sig", "....", &long];
    for token in garbage {
        assert!(
            matches!(verifier.verify(token).await, Err(Error::Malformed(_))),
            "{token:.20}"
        );
    }
    // A header that names a key but claims that are not an admission token's.
    let token = key.sign(&json!({"sub": "b", "aud": AUD, "exp": now() + 60}));
    assert!(matches!(
        verifier.verify(&token).await,
        Err(Error::Malformed(_))
    ));
    let token = unsigned(&json!({"alg": "EdDSA", "kid": "k1"}), &json!("text"));
    assert!(matches!(
        verifier.verify(&token).await,
        Err(Error::Malformed(_) | Error::Signature)
    ));
}

#[tokio::test]
async fn a_p256_key_verifies_es256_tokens_and_no_key_verifies_another_algorithm() {
    let ed = SigningKey::ed25519("ed");
    let ec = SigningKey::p256("ec");
    let jwks = JwksServer::start(&[&ed, &ec]).await;
    let verifier = jwks.verifier();
    assert!(verifier.verify(&ec.sign(&claims())).await.is_ok());
    assert!(verifier.verify(&ed.sign(&claims())).await.is_ok());
    // Each header names the other key's algorithm.
    let crossed = [
        ec.sign_as(Algorithm::ES256, "ed", &claims()),
        ed.sign_as(Algorithm::EdDSA, "ec", &claims()),
    ];
    for token in crossed {
        assert!(matches!(
            verifier.verify(&token).await,
            Err(Error::Algorithm(_))
        ));
    }
    let rsa_header = unsigned(&json!({"alg": "RS256", "kid": "ec"}), &claims());
    assert!(matches!(
        verifier.verify(&rsa_header).await,
        Err(Error::Algorithm(_))
    ));
}

#[tokio::test]
async fn a_bound_token_does_not_pass_verify_without_its_proof() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let mut bound = claims();
    bound["cnf"] = json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"});
    assert_eq!(
        jwks.verifier().verify(&key.sign(&bound)).await,
        Err(Error::Proof(ProofError::Missing))
    );
}

#[tokio::test]
async fn a_handoff_token_passes_verify_handoff_and_an_admission_token_does_not() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let site = "http://127.0.0.1:8089";
    let verifier = Verifier::builder(&jwks.url).audience(site).build().unwrap();
    let now = now();
    let mut handoff = claims();
    handoff["aud"] = site.into();
    handoff["exp"] = (now + 60).into();
    handoff["until"] = (now + 600).into();
    handoff["cnf"] = json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"});
    let claims = verifier.verify_handoff(&key.sign(&handoff)).await.unwrap();
    assert_eq!(claims.until, Some(now + 600));
    assert_eq!(
        claims.bound_to(),
        Some("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    );
    let mut admission = crate::support::claims();
    admission["aud"] = site.into();
    assert_eq!(
        verifier.verify_handoff(&key.sign(&admission)).await,
        Err(Error::NotHandoff)
    );
}

#[tokio::test]
async fn without_reachable_keys_a_token_is_left_unjudged() {
    let key = SigningKey::ed25519("k1");
    // A port nothing listens on: bound, then let go.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "http://{}/.well-known/jwks.json",
        listener.local_addr().unwrap()
    );
    drop(listener);
    let verifier = Verifier::builder(url).audience(AUD).build().unwrap();
    let refused = verifier.verify(&key.sign(&claims())).await.unwrap_err();
    assert!(refused.is_unavailable(), "{refused}");
    assert!(verifier.refresh().await.unwrap_err().is_unavailable());
}
