//! The key cache seen from the JWKS's side: how many fetches a rotation, a flood of made-up
//! kids, a `max-age` and a failing JWKS cost.

use std::time::Duration;

use anteroom_verify::{Error, Verifier};
use serde_json::json;

use crate::support::{AUD, JwksServer, SigningKey, claims, random_id, unsigned};

/// A verifier that may fetch as often as the plan asks (the default interval is 10 s).
fn eager(jwks: &JwksServer) -> Verifier {
    Verifier::builder(&jwks.url)
        .audience(AUD)
        .min_refetch_interval(Duration::ZERO)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_token_of_a_key_the_cache_has_not_seen_fetches_the_keys_once_and_passes() {
    let old = SigningKey::ed25519("2026-old");
    let new = SigningKey::ed25519("2026-new");
    let jwks = JwksServer::start(&[&old]).await;
    let verifier = eager(&jwks);
    verifier.verify(&old.sign(&claims())).await.unwrap();
    assert_eq!(jwks.fetches(), 1);

    jwks.publish(&[&old, &new]);
    verifier.verify(&new.sign(&claims())).await.unwrap();
    assert_eq!(jwks.fetches(), 2, "one fetch for the unknown kid");
    verifier.verify(&new.sign(&claims())).await.unwrap();
    verifier.verify(&old.sign(&claims())).await.unwrap();
    assert_eq!(jwks.fetches(), 2, "both keys are fresh in the cache now");
}

#[tokio::test]
async fn with_the_default_interval_an_unknown_kid_right_after_a_fetch_fetches_nothing() {
    let old = SigningKey::ed25519("2026-old");
    let new = SigningKey::ed25519("2026-new");
    let jwks = JwksServer::start(&[&old]).await;
    let verifier = jwks.verifier();
    verifier.verify(&old.sign(&claims())).await.unwrap();
    jwks.publish(&[&old, &new]);
    assert_eq!(
        verifier.verify(&new.sign(&claims())).await,
        Err(Error::UnknownKey)
    );
    assert_eq!(
        jwks.fetches(),
        1,
        "the next fetch is due 10 s after the first"
    );
}

#[tokio::test]
async fn a_flood_of_a_thousand_made_up_kids_costs_the_jwks_one_fetch() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let verifier = jwks.verifier();
    let forge = || {
        let header = json!({"alg": "EdDSA", "kid": random_id()});
        unsigned(&header, &claims())
    };
    // All at once, on a cold cache: one request fetches, the others wait for it.
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..1_000 {
        let (verifier, token) = (verifier.clone(), forge());
        flood.spawn(async move { verifier.verify(&token).await });
    }
    while let Some(outcome) = flood.join_next().await {
        assert_eq!(outcome.unwrap(), Err(Error::UnknownKey));
    }
    assert_eq!(jwks.fetches(), 1);
    // And on a warm cache, a thousand more in a row.
    for _ in 0..1_000 {
        assert_eq!(verifier.verify(&forge()).await, Err(Error::UnknownKey));
    }
    assert_eq!(jwks.fetches(), 1);
    verifier.verify(&key.sign(&claims())).await.unwrap();
    assert_eq!(jwks.fetches(), 1);
}

#[tokio::test]
async fn the_jwks_max_age_decides_when_keys_are_fetched_again() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let verifier = eager(&jwks);
    for _ in 0..3 {
        verifier.verify(&key.sign(&claims())).await.unwrap();
    }
    assert_eq!(jwks.fetches(), 1, "max-age=300: one fetch");

    let jwks = JwksServer::start(&[&key]).await;
    jwks.cache_control("public, max-age=0");
    let verifier = eager(&jwks);
    for _ in 0..3 {
        verifier.verify(&key.sign(&claims())).await.unwrap();
    }
    assert_eq!(jwks.fetches(), 3, "max-age=0: a fetch per token");
}

#[tokio::test]
async fn when_the_jwks_fails_the_keys_fetched_before_keep_verifying() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    jwks.cache_control("max-age=0");
    let verifier = eager(&jwks);
    verifier.verify(&key.sign(&claims())).await.unwrap();
    jwks.healthy(false);
    verifier.verify(&key.sign(&claims())).await.unwrap();
    assert_eq!(
        jwks.fetches(),
        2,
        "it tried, failed, and used the stale key"
    );
    assert!(verifier.refresh().await.unwrap_err().is_unavailable());
}

#[tokio::test]
async fn a_jwks_without_usable_keys_does_not_replace_the_keys_fetched_before() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    jwks.cache_control("max-age=0");
    let verifier = eager(&jwks);
    verifier.verify(&key.sign(&claims())).await.unwrap();
    jwks.publish_json(vec![json!({"kty": "oct", "kid": "k1", "k": "c2VjcmV0"})]);
    verifier.verify(&key.sign(&claims())).await.unwrap();
    assert_eq!(jwks.fetches(), 2);
}
