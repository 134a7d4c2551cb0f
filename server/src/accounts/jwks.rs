//! A provider's public keys (its JWKS), fetched and cached: the ticketer's for hand-over
//! assertions. Invariants: a key is looked up in the cache first; an unknown `kid` fetches
//! the set again (so a provider's rotation is picked up without a restart), but at most once
//! per [`REFETCH_AFTER`] whatever the traffic, one fetch at a time, with a timeout and a bound
//! on the body ([`MAX_BODY`]) and the keys kept ([`MAX_KEYS`]). A key the set cannot read (an
//! unknown type, an encryption key) is skipped, never the whole set.

use std::time::{Duration, Instant};

use jsonwebtoken::{
    DecodingKey,
    jwk::{Jwk, PublicKeyUse},
};

/// A key of a set: its `kid`, and the key read once when the set was fetched.
type Keyed = (Option<String>, DecodingKey);
use tokio::sync::{Mutex, RwLock};

/// The least time between two fetches of one set, so that tokens naming keys that do not
/// exist cannot make us fetch it on every request.
pub const REFETCH_AFTER: Duration = Duration::from_secs(10);
/// The longest a fetch may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(3);
/// The largest key set read; more is not a key set.
pub const MAX_BODY: usize = 64 * 1024;
/// The most keys kept of one set.
pub const MAX_KEYS: usize = 32;

/// Why no key came.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    /// The set has no such key (after fetching it again, if it was time to).
    Unknown,
    /// The set could not be fetched or read: the provider is down or answers nonsense.
    Unreachable(String),
}

/// One provider's key set at `url`.
pub struct KeySet {
    url: String,
    http: reqwest::Client,
    cached: RwLock<Cached>,
    /// Held while fetching: concurrent misses wait for one fetch, not start one each.
    fetching: Mutex<()>,
}

#[derive(Default)]
struct Cached {
    keys: Vec<Keyed>,
    fetched: Option<Instant>,
}

impl KeySet {
    pub fn new(url: String, http: reqwest::Client) -> Self {
        Self {
            url,
            http,
            cached: RwLock::default(),
            fetching: Mutex::new(()),
        }
    }

    /// The key named `kid` (a set of one key may be used without a `kid`), fetching the set
    /// again if it is not known and the last fetch is old enough.
    pub async fn key(&self, kid: Option<&str>) -> Result<DecodingKey, Miss> {
        if let Some(found) = self.cached.read().await.find(kid) {
            return Ok(found);
        }
        let _one_fetch = self.fetching.lock().await;
        let cached = self.cached.read().await;
        if let Some(found) = cached.find(kid) {
            return Ok(found);
        }
        if cached
            .fetched
            .is_some_and(|at| at.elapsed() < REFETCH_AFTER)
        {
            return Err(Miss::Unknown);
        }
        drop(cached);
        let fetched = self.fetch().await;
        let mut cached = self.cached.write().await;
        cached.fetched = Some(Instant::now());
        cached.keys = fetched?;
        cached.find(kid).ok_or(Miss::Unknown)
    }

    async fn fetch(&self) -> Result<Vec<Keyed>, Miss> {
        let unreachable =
            |e: &dyn std::fmt::Display| Miss::Unreachable(format!("{}: {e}", self.url));
        let mut response = self
            .http
            .get(&self.url)
            .timeout(FETCH_TIMEOUT)
            .send()
            .await
            .map_err(|e| unreachable(&e))?;
        if !response.status().is_success() {
            return Err(unreachable(&response.status()));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| unreachable(&e))? {
            if body.len() + chunk.len() > MAX_BODY {
                return Err(unreachable(&"the key set is larger than 64 KiB"));
            }
            body.extend_from_slice(&chunk);
        }
        read_set(&body).map_err(|e| unreachable(&e))
    }
}

/// The signing keys of a JWKS document, each with its `kid`: at most [`MAX_KEYS`], those it
/// cannot read skipped.
pub fn read_set(body: &[u8]) -> Result<Vec<Keyed>, String> {
    #[derive(serde::Deserialize)]
    struct Set {
        keys: Vec<serde_json::Value>,
    }
    let set: Set = serde_json::from_slice(body).map_err(|e| format!("not a key set: {e}"))?;
    Ok(set
        .keys
        .into_iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k).ok())
        .filter(|k| !matches!(k.common.public_key_use, Some(PublicKeyUse::Encryption)))
        .filter_map(|k| Some((DecodingKey::from_jwk(&k).ok()?, k.common.key_id)))
        .map(|(key, kid)| (kid, key))
        .take(MAX_KEYS)
        .collect())
}

impl Cached {
    fn find(&self, kid: Option<&str>) -> Option<DecodingKey> {
        match kid {
            Some(kid) => self
                .keys
                .iter()
                .find(|(id, _)| id.as_deref() == Some(kid))
                .map(|(_, k)| k.clone()),
            // A set of one key may be used without a `kid`.
            None if self.keys.len() == 1 => Some(self.keys[0].1.clone()),
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_keeps_the_signing_keys_it_can_read_and_skips_the_rest() {
        let body = br#"{"keys": [
            {"kty": "OKP", "crv": "Ed25519", "kid": "a", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
            {"kty": "XYZ", "kid": "b"},
            {"kty": "OKP", "crv": "Ed25519", "kid": "c", "use": "enc", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}
        ]}"#;
        let keys = read_set(body).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].0.as_deref(), Some("a"));
        assert!(read_set(b"[]").is_err());
        assert!(read_set(b"{\"keys\": 1}").is_err());
    }
}
