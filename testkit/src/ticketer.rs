//! A ticketer's site as accounts see it (API.md "Accounts"): Ed25519 signing keys, their JWKS
//! served over real HTTP on a free loopback port (which keys it publishes can change, and how
//! often it was fetched is counted), and hand-over assertions signed with them. Used by the
//! accounts' tests and by `onsale --accounts`.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicUsize, Ordering},
};

use base64::Engine;
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

/// The issuer of the test ticketer's assertions.
pub const ISSUER: &str = "https://tickets.example";
/// The audience Anteroom is configured with in the tests.
pub const AUDIENCE: &str = "anteroom-test";

/// A signing key of the ticketer: its PKCS#8 and its JWK.
pub struct Key {
    pub kid: String,
    pkcs8: Vec<u8>,
    pub jwk: Value,
}

impl Key {
    pub fn new(kid: &str) -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&ring::rand::SystemRandom::new())
            .expect("the system's randomness")
            .as_ref()
            .to_vec();
        let pair = Ed25519KeyPair::from_pkcs8(&pkcs8).expect("a key just made");
        let x = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(pair.public_key());
        Self {
            kid: kid.into(),
            jwk: json!({"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": kid, "x": x}),
            pkcs8,
        }
    }

    /// An assertion with `claims` over the defaults (iss, aud, sub `ada`, exp in 60 s, a new
    /// jti); a claim given as null is left out.
    pub fn sign(&self, claims: Value) -> String {
        let now = chrono::Utc::now().timestamp();
        let mut all = json!({
            "iss": ISSUER, "aud": AUDIENCE, "sub": "ada", "iat": now, "exp": now + 60,
            "jti": uuid::Uuid::new_v4().to_string(),
        });
        let all_map = all.as_object_mut().expect("an object");
        for (k, v) in claims.as_object().expect("claims are an object") {
            if v.is_null() {
                all_map.remove(k);
            } else {
                all_map.insert(k.clone(), v.clone());
            }
        }
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(
            &header,
            &all,
            &jsonwebtoken::EncodingKey::from_ed_der(&self.pkcs8),
        )
        .expect("Ed25519 signs")
    }
}

/// The ticketer's JWKS, served from a real port.
#[derive(Clone)]
pub struct Ticketer {
    /// The keys it publishes (a test may change them: a rotation).
    pub keys: Arc<Mutex<Vec<Value>>>,
    /// How many times the JWKS was fetched.
    pub fetches: Arc<AtomicUsize>,
    pub jwks_url: String,
}

impl Ticketer {
    /// Serves the JWKS of `keys` on a free loopback port, until the process ends.
    pub async fn start(keys: &[&Key]) -> Self {
        let published: Arc<Mutex<Vec<Value>>> =
            Arc::new(Mutex::new(keys.iter().map(|k| k.jwk.clone()).collect()));
        let fetches = Arc::new(AtomicUsize::new(0));
        let (p, f) = (published.clone(), fetches.clone());
        let router = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let (p, f) = (p.clone(), f.clone());
                async move {
                    f.fetch_add(1, Ordering::SeqCst);
                    let keys = p.lock().expect("not poisoned").clone();
                    axum::Json(json!({ "keys": keys }))
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free port");
        let jwks_url = format!(
            "http://{}/jwks",
            listener.local_addr().expect("a bound port")
        );
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self {
            keys: published,
            fetches,
            jwks_url,
        }
    }

    /// The setting that makes Anteroom trust this ticketer (`ANTEROOM_TICKETERS`).
    pub fn setting(&self) -> String {
        format!("{ISSUER}={}", self.jwks_url)
    }

    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}
