//! What the tests sign with and serve: Anteroom's side in miniature. Keys (Ed25519 as
//! Anteroom's, P-256 as another issuer's), a JWKS on a port of its own that counts its
//! fetches and can change its keys, its `Cache-Control` or its health, admission claims, and
//! a buyer's device key that makes DPoP proofs.

use std::sync::{
    Arc, Mutex,
    atomic::{AtomicUsize, Ordering},
};

use anteroom_verify::Verifier;
use axum::{
    Router,
    extract::State,
    http::{StatusCode, header},
    response::IntoResponse,
    routing::get,
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::{
    rand::{SecureRandom, SystemRandom},
    signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair},
};
use serde_json::{Value, json};

/// The audience the tests' tokens are for, as Anteroom's default.
pub const AUD: &str = "anteroom";
/// The event the tests' tokens admit to.
pub const EVENT: &str = "e-2026";

/// Seconds since the Unix epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A random id: 12 bytes, base64url.
pub fn random_id() -> String {
    let mut bytes = [0u8; 12];
    SystemRandom::new().fill(&mut bytes).unwrap();
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The claims of an admission token to [`EVENT`] for [`AUD`], ten minutes long.
pub fn claims() -> Value {
    let now = now();
    json!({
        "sub": "buyer-1", "evt": EVENT, "aud": AUD, "iat": now, "exp": now + 600,
        "jti": random_id(), "epc": 1,
    })
}

/// A key that signs tokens, with the JWK that publishes it.
pub struct SigningKey {
    pub kid: String,
    alg: Algorithm,
    encoding: EncodingKey,
    pub jwk: Value,
}

impl SigningKey {
    /// An Ed25519 key, as Anteroom signs with.
    pub fn ed25519(kid: &str) -> Self {
        let pkcs8 = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new()).unwrap();
        let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        Self {
            kid: kid.to_owned(),
            alg: Algorithm::EdDSA,
            encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
            jwk: json!({
                "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": kid,
                "x": URL_SAFE_NO_PAD.encode(pair.public_key()),
            }),
        }
    }

    /// A P-256 key, for ES256.
    pub fn p256(kid: &str) -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let (x, y) = coordinates(pair.public_key().as_ref());
        Self {
            kid: kid.to_owned(),
            alg: Algorithm::ES256,
            encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
            jwk: json!({"kty": "EC", "crv": "P-256", "kid": kid, "x": x, "y": y}),
        }
    }

    /// `claims` signed with this key, its algorithm and kid in the header.
    pub fn sign(&self, claims: &Value) -> String {
        self.sign_as(self.alg, &self.kid, claims)
    }

    /// `claims` signed with this key under the header's `alg` and `kid` given.
    pub fn sign_as(&self, alg: Algorithm, kid: &str, claims: &Value) -> String {
        let mut header = Header::new(alg);
        header.kid = Some(kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }
}

/// The base64url x and y of an uncompressed P-256 point (0x04 || x || y).
fn coordinates(point: &[u8]) -> (String, String) {
    assert_eq!((point.len(), point[0]), (65, 4));
    (
        URL_SAFE_NO_PAD.encode(&point[1..33]),
        URL_SAFE_NO_PAD.encode(&point[33..]),
    )
}

/// A compact JWS with this header and these claims, and a signature of garbage.
pub fn unsigned(header: &Value, claims: &Value) -> String {
    format!(
        "{}.{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string()),
        URL_SAFE_NO_PAD.encode([7u8; 64]),
    )
}

/// What the JWKS server serves, changed by the tests as they go.
struct Served {
    keys: Vec<Value>,
    cache_control: String,
    healthy: bool,
}

/// A JWKS on 127.0.0.1, counting the fetches made of it.
pub struct JwksServer {
    pub url: String,
    served: Arc<Mutex<Served>>,
    fetches: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl JwksServer {
    /// Serves `keys` with `Cache-Control: public, max-age=300`, as Anteroom does.
    pub async fn start(keys: &[&SigningKey]) -> Self {
        let served = Arc::new(Mutex::new(Served {
            keys: keys.iter().map(|k| k.jwk.clone()).collect(),
            cache_control: "public, max-age=300".into(),
            healthy: true,
        }));
        let fetches = Arc::new(AtomicUsize::new(0));
        let app = Router::new()
            .route("/.well-known/jwks.json", get(serve))
            .with_state((served.clone(), fetches.clone()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!(
            "http://{}/.well-known/jwks.json",
            listener.local_addr().unwrap()
        );
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Self {
            url,
            served,
            fetches,
            task,
        }
    }

    /// Serves `keys` from now on (a rotation).
    pub fn publish(&self, keys: &[&SigningKey]) {
        self.served.lock().unwrap().keys = keys.iter().map(|k| k.jwk.clone()).collect();
    }

    /// Serves raw JWKs from now on.
    pub fn publish_json(&self, keys: Vec<Value>) {
        self.served.lock().unwrap().keys = keys;
    }

    pub fn cache_control(&self, value: &str) {
        self.served.lock().unwrap().cache_control = value.to_owned();
    }

    /// Whether it answers the JWKS (else 500).
    pub fn healthy(&self, healthy: bool) {
        self.served.lock().unwrap().healthy = healthy;
    }

    /// How many fetches were made of it.
    pub fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }

    /// A verifier of its keys for [`AUD`], with the default settings.
    pub fn verifier(&self) -> Verifier {
        Verifier::builder(&self.url).audience(AUD).build().unwrap()
    }
}

impl Drop for JwksServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Shared = (Arc<Mutex<Served>>, Arc<AtomicUsize>);

async fn serve(State((served, fetches)): State<Shared>) -> impl IntoResponse {
    fetches.fetch_add(1, Ordering::SeqCst);
    let served = served.lock().unwrap();
    if !served.healthy {
        return (StatusCode::INTERNAL_SERVER_ERROR, String::new()).into_response();
    }
    (
        [
            (header::CACHE_CONTROL, served.cache_control.clone()),
            (header::CONTENT_TYPE, "application/json".into()),
        ],
        json!({ "keys": served.keys }).to_string(),
    )
        .into_response()
}

/// A buyer's device key, as a browser keeps one in a room that binds tokens.
pub struct Device {
    pair: EcdsaKeyPair,
    x: String,
    y: String,
}

impl Device {
    pub fn new() -> Self {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .unwrap();
        let (x, y) = coordinates(pair.public_key().as_ref());
        Self { pair, x, y }
    }

    /// The key's thumbprint: what a token bound to it carries as `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        anteroom_verify::dpop::thumbprint(&self.x, &self.y)
    }

    /// The public JWK a proof's header carries.
    pub fn jwk(&self) -> Value {
        json!({"kty": "EC", "crv": "P-256", "x": self.x, "y": self.y})
    }

    /// A fresh proof for `method` `url`, bound to `token`, made now.
    pub fn proof(&self, method: &str, url: &str, token: &str) -> String {
        self.proof_with(
            &json!({"typ": "dpop+jwt", "alg": "ES256", "jwk": self.jwk()}),
            &json!({
                "htm": method, "htu": url, "iat": now(), "jti": random_id(),
                "ath": anteroom_verify::dpop::ath(token),
            }),
        )
    }

    /// A proof of exactly this header and these claims, signed with this key.
    pub fn proof_with(&self, header: &Value, claims: &Value) -> String {
        let input = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let signature = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .unwrap();
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature.as_ref()))
    }
}
