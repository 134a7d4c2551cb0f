//! Against a real Anteroom: a scratch deployment of testkit (its own database on the local
//! Postgres, 127.0.0.1:5432, and its own key prefix on the local Redis, 127.0.0.1:6379),
//! started in this process, removed at the end. What a ticketer's service sees: real tokens,
//! the real JWKS, a real key rotation, a real room that binds tokens.

use std::{
    io::Write,
    os::unix::fs::OpenOptionsExt,
    path::PathBuf,
    time::{Duration, Instant},
};

use anteroom_verify::{Error, Verifier, dpop::ProofError, dpop::ProofRequest};
use base64::{Engine, engine::general_purpose::STANDARD};
use reqwest::{Client, StatusCode};
use ring::{rand::SystemRandom, signature::Ed25519KeyPair};
use serde_json::{Value, json};
use testkit::{deployment::Deployment, device::DeviceKey};

/// The audience of the deployment's tokens: its default `admission_audience`.
const AUD: &str = "anteroom";

/// A deployment of one instance and a client.
struct Anteroom {
    deployment: Deployment,
    http: Client,
}

impl Anteroom {
    /// One instance; a key rotated in signs as soon as the instance reads it (no wait for
    /// verifiers' caches, which these tests are about).
    async fn start() -> Self {
        let deployment = Deployment::start("verify", 1, |config| {
            config.admission_key_publish_seconds = 0;
        })
        .await;
        Self {
            deployment,
            http: Client::new(),
        }
    }

    fn url(&self, path: &str) -> String {
        self.deployment.servers[0].url(path)
    }

    fn jwks_url(&self) -> String {
        self.url("/.well-known/jwks.json")
    }

    /// A new event with `room`; its id.
    async fn event(&self, room: Value) -> String {
        let r = self
            .http
            .post(self.url("/api/admin/events"))
            .bearer_auth(self.deployment.admin_key())
            .json(&json!({
                "name": "Verify night",
                "starts_at": "2026-12-01T19:00:00Z",
                "sections": [{"name": "A", "rows": 2, "seats_per_row": 5, "price_cents": 5000}],
                "room": room,
            }))
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    /// A new buyer: (buyer id, session token).
    async fn buyer(&self) -> (String, String) {
        let r = self
            .http
            .post(self.url("/api/session"))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let body: Value = r.json().await.unwrap();
        (
            body["buyer_id"].as_str().unwrap().to_owned(),
            body["token"].as_str().unwrap().to_owned(),
        )
    }

    /// A new buyer joins `event`, whose room is off, and is admitted at once: (buyer id,
    /// admission token).
    async fn admitted(&self, event: &str) -> (String, String) {
        let (buyer, session) = self.buyer().await;
        let r = self
            .http
            .post(self.url(&format!("/api/events/{event}/queue")))
            .bearer_auth(&session)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, StatusCode::OK, "{body}");
        (buyer, body["admission_token"].as_str().unwrap().to_owned())
    }

    /// Puts a new Ed25519 key named `kid` in the instance's key folder, as an operator
    /// installs one, and has the instance read the folder again (as it does every 10 s).
    async fn rotate_to(&self, kid: &str) {
        let state = self.deployment.state();
        let dir: PathBuf = state
            .config
            .admission_key_dir
            .clone()
            .unwrap_or_else(|| state.config.data_dir.join("admission-keys"));
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        let body = STANDARD.encode(pkcs8.as_ref());
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(dir.join(format!("{kid}.key")))
            .unwrap();
        write!(
            file,
            "-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n"
        )
        .unwrap();
        state
            .keyring
            .refresh(&state.redis, &state.keys)
            .await
            .unwrap();
    }
}

/// The `kid` in a token's header.
fn kid_of(token: &str) -> String {
    jsonwebtoken::decode_header(token).unwrap().kid.unwrap()
}

#[tokio::test]
async fn a_real_token_verifies_and_so_does_one_of_a_key_rotated_in_after_the_keys_were_cached() {
    let anteroom = Anteroom::start().await;
    let event = anteroom.event(json!({"enabled": false})).await;
    let verifier = Verifier::builder(anteroom.jwks_url())
        .audience(AUD)
        .event(&event)
        .min_refetch_interval(Duration::ZERO)
        .build()
        .unwrap();
    let (buyer, token) = anteroom.admitted(&event).await;
    let claims = verifier.verify(&token).await.unwrap();
    assert_eq!(
        (
            claims.sub.as_str(),
            claims.evt.as_str(),
            claims.aud.as_str()
        ),
        (buyer.as_str(), event.as_str(), AUD)
    );
    assert!(claims.exp > claims.iat && claims.epc.is_some() && claims.cnf.is_none());

    // The JWKS says it may be kept five minutes: only the unknown kid makes the verifier
    // fetch it again.
    let served = anteroom.http.get(anteroom.jwks_url()).send().await.unwrap();
    assert_eq!(served.headers()["cache-control"], "public, max-age=300");
    let old_kid = kid_of(&token);
    anteroom.rotate_to("zzzz-rotated").await;
    let (buyer, token) = anteroom.admitted(&event).await;
    assert_eq!(
        kid_of(&token),
        "zzzz-rotated",
        "the new key signs (was {old_kid})"
    );
    let claims = verifier.verify(&token).await.unwrap();
    assert_eq!(claims.sub, buyer);

    // A token for another event of the same deployment is refused by this verifier.
    let other = anteroom.event(json!({"enabled": false})).await;
    let (_, token) = anteroom.admitted(&other).await;
    assert_eq!(verifier.verify(&token).await, Err(Error::Event));
    anteroom.deployment.stop().await;
}

#[tokio::test]
async fn a_real_token_bound_to_a_device_passes_only_with_that_devices_proof() {
    let anteroom = Anteroom::start().await;
    let event = anteroom
        .event(json!({"admit_rate_per_second": 50, "bind_tokens": true}))
        .await;
    let (_, session) = anteroom.buyer().await;
    let device = DeviceKey::new();
    let queue = anteroom.url(&format!("/api/events/{event}/queue"));
    let r = anteroom
        .http
        .post(&queue)
        .bearer_auth(&session)
        .header("DPoP", device.proof("POST", &queue, None))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    // The instance's ticker admits the buyer within a few of its ticks.
    let deadline = Instant::now() + Duration::from_secs(30);
    let token = loop {
        let body: Value = anteroom
            .http
            .get(&queue)
            .bearer_auth(&session)
            .header("DPoP", device.proof("GET", &queue, None))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if let Some(token) = body["admission_token"].as_str() {
            break token.to_owned();
        }
        assert!(Instant::now() < deadline, "not admitted in 30 s: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };

    let verifier = Verifier::builder(anteroom.jwks_url())
        .audience(AUD)
        .build()
        .unwrap();
    let url = "https://shop.example/api/seats";
    fn request(proof: Option<&str>) -> ProofRequest<'_> {
        ProofRequest {
            method: "GET",
            url: "https://shop.example/api/seats",
            proof,
        }
    }
    let proof = device.proof("GET", url, Some(&token));
    let claims = verifier
        .verify_request(&token, &request(Some(&proof)))
        .await
        .unwrap();
    assert_eq!(claims.bound_to(), Some(device.thumbprint().as_str()));
    assert_eq!(
        verifier.verify(&token).await,
        Err(Error::Proof(ProofError::Missing))
    );
    let thief = DeviceKey::new().proof("GET", url, Some(&token));
    assert_eq!(
        verifier
            .verify_request(&token, &request(Some(&thief)))
            .await,
        Err(Error::Proof(ProofError::WrongKey))
    );
    anteroom.deployment.stop().await;
}
