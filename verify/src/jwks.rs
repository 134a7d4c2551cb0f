//! The published keys: fetched from Anteroom's `/.well-known/jwks.json`, kept for the
//! `Cache-Control: max-age` it answers with, and fetched again early when a token names a key
//! the cache does not hold (a rotation the cache has not seen).
//!
//! Guarantees:
//! - At most one fetch at a time (single flight), and at most one per `min_interval`, however
//!   many tokens name unknown keys: a flood of made-up `kid`s costs the JWKS one request.
//! - Each key is pinned to the one algorithm its type allows: EdDSA for an OKP Ed25519 key,
//!   ES256 for an EC P-256 key. Other keys (RSA, symmetric `oct`, other curves, a `use` other
//!   than `sig`, an `alg` that disagrees with the key) are left out, so no token can name them.
//! - A fetch that fails keeps the keys fetched before (stale keys still verify until a fetch
//!   succeeds); only before the first success is a token left unjudged.
//!
//! The decision of what to do for a `kid` at a moment is [`Cached::plan`], a plain function of
//! the cache and the time, so that tests drive it with explicit instants.

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

use crate::error::Error;

/// The most bytes of a JWKS read: Anteroom's holds a few keys of about 150 bytes each.
const MAX_JWKS_BYTES: usize = 256 * 1024;
/// The longest a JWKS is kept whatever its `max-age` says.
const MAX_MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// One published key and the algorithm it is pinned to.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) alg: Algorithm,
    pub(crate) decoding: DecodingKey,
}

/// The usable keys of one JWKS, by `kid`.
#[derive(Default)]
pub(crate) struct KeySet {
    keys: HashMap<String, Key>,
}

/// The members of a JWK that are read; anything else is ignored.
#[derive(Deserialize)]
struct Jwk {
    kty: String,
    kid: Option<String>,
    crv: Option<String>,
    x: Option<String>,
    y: Option<String>,
    alg: Option<String>,
    #[serde(rename = "use")]
    use_: Option<String>,
}

impl KeySet {
    /// The usable keys of the JWKS `body`; an error if it is not a JWKS or has none.
    pub(crate) fn parse(body: &[u8]) -> Result<Self, String> {
        #[derive(Deserialize)]
        struct Jwks {
            keys: Vec<serde_json::Value>,
        }
        let jwks: Jwks = serde_json::from_slice(body).map_err(|e| format!("not a JWKS ({e})"))?;
        let keys: HashMap<String, Key> = jwks
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(usable)
            .collect();
        if keys.is_empty() {
            return Err("the JWKS holds no Ed25519 or P-256 signing key with a kid".into());
        }
        Ok(Self { keys })
    }

    pub(crate) fn get(&self, kid: &str) -> Option<&Key> {
        self.keys.get(kid)
    }
}

/// The key `jwk` describes with its kid, if it is one a token may be verified with.
fn usable(jwk: Jwk) -> Option<(String, Key)> {
    if jwk.use_.as_deref().is_some_and(|u| u != "sig") {
        return None;
    }
    let is_32_bytes = |b64: &str| {
        URL_SAFE_NO_PAD
            .decode(b64)
            .is_ok_and(|bytes| bytes.len() == 32)
    };
    let (alg, decoding) = match (jwk.kty.as_str(), jwk.crv.as_deref()) {
        ("OKP", Some("Ed25519")) => {
            let x = jwk.x.as_deref().filter(|x| is_32_bytes(x))?;
            (Algorithm::EdDSA, DecodingKey::from_ed_components(x).ok()?)
        }
        ("EC", Some("P-256")) => {
            let x = jwk.x.as_deref().filter(|x| is_32_bytes(x))?;
            let y = jwk.y.as_deref().filter(|y| is_32_bytes(y))?;
            (
                Algorithm::ES256,
                DecodingKey::from_ec_components(x, y).ok()?,
            )
        }
        _ => return None,
    };
    let named = match alg {
        Algorithm::EdDSA => "EdDSA",
        _ => "ES256",
    };
    if jwk.alg.as_deref().is_some_and(|a| a != named) {
        return None;
    }
    Some((jwk.kid?, Key { alg, decoding }))
}

/// The `max-age` of a `Cache-Control` value: zero for `no-cache` and `no-store`, `None` when
/// it says nothing of it.
pub(crate) fn max_age(cache_control: &str) -> Option<Duration> {
    let mut age = None;
    for directive in cache_control.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-cache" || lower == "no-store" {
            return Some(Duration::ZERO);
        }
        if let Some(seconds) = lower.strip_prefix("max-age=") {
            age = seconds
                .trim_matches('"')
                .parse()
                .ok()
                .map(Duration::from_secs);
        }
    }
    age
}

/// What the cache holds at a moment.
#[derive(Clone, Default)]
pub(crate) struct Cached {
    /// The keys of the last fetch that succeeded (none before the first).
    pub(crate) set: Arc<KeySet>,
    /// Until when they are fresh; `None` until a fetch has succeeded.
    pub(crate) fresh_until: Option<Instant>,
    /// When the last fetch, successful or not, was made.
    pub(crate) last_fetch: Option<Instant>,
    /// Why the last fetch failed, if it did.
    pub(crate) last_error: Option<String>,
}

/// What to do for a token's `kid`.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// Verify with the key the cache holds.
    Use,
    /// Fetch the keys, then look again.
    Fetch,
    /// The cache does not hold it, and may not fetch yet.
    Unknown,
}

impl Cached {
    /// What to do for a token signed by `kid` at `now`, fetching at most once per
    /// `min_interval`: a fresh known key is used; a stale or unknown one is fetched if the
    /// last fetch is old enough; else a stale key is used, and an unknown one is unknown.
    pub(crate) fn plan(&self, kid: &str, now: Instant, min_interval: Duration) -> Plan {
        let known = self.set.get(kid).is_some();
        let fresh = self.fresh_until.is_some_and(|until| now < until);
        if known && fresh {
            return Plan::Use;
        }
        let may_fetch = self
            .last_fetch
            .is_none_or(|at| now.saturating_duration_since(at) >= min_interval);
        match (may_fetch, known) {
            (true, _) => Plan::Fetch,
            (false, true) => Plan::Use,
            (false, false) => Plan::Unknown,
        }
    }
}

/// The keys of one JWKS URL, fetched as [`Cached::plan`] says.
pub(crate) struct KeyCache {
    url: String,
    http: reqwest::Client,
    /// The least time between two fetches.
    min_interval: Duration,
    /// How long keys stay fresh when the JWKS answers without a `max-age`.
    default_max_age: Duration,
    /// A std lock, held only to clone or replace the snapshot, never across an await.
    cached: RwLock<Cached>,
    /// Held for the whole of a fetch: the single flight. A tokio lock, as it is held across
    /// the request.
    fetching: tokio::sync::Mutex<()>,
}

impl KeyCache {
    pub(crate) fn new(
        url: String,
        http: reqwest::Client,
        min_interval: Duration,
        default_max_age: Duration,
    ) -> Self {
        Self {
            url,
            http,
            min_interval,
            default_max_age,
            cached: RwLock::default(),
            fetching: tokio::sync::Mutex::new(()),
        }
    }

    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    fn snapshot(&self) -> Cached {
        self.cached
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The keys to look `kid` up in: the cached ones, fetched again first if the plan says so.
    pub(crate) async fn keys_for(&self, kid: &str) -> Result<Arc<KeySet>, Error> {
        let cached = self.snapshot();
        match cached.plan(kid, Instant::now(), self.min_interval) {
            Plan::Use => return Ok(cached.set),
            Plan::Unknown => return known_or_unavailable(cached),
            Plan::Fetch => {}
        }
        let _flight = if cached.set.get(kid).is_some() {
            // A stale key verifies while another request fetches: no need to wait for it.
            match self.fetching.try_lock() {
                Ok(flight) => flight,
                Err(_) => return Ok(cached.set),
            }
        } else {
            self.fetching.lock().await
        };
        // Another request may have fetched while this one waited for the flight.
        let cached = self.snapshot();
        match cached.plan(kid, Instant::now(), self.min_interval) {
            Plan::Use => Ok(cached.set),
            Plan::Unknown => known_or_unavailable(cached),
            Plan::Fetch => known_or_unavailable(self.fetch_and_store().await),
        }
    }

    /// Fetches the keys now, whatever the plan (a service may call it at start, to learn of a
    /// wrong URL before the first buyer does).
    pub(crate) async fn refresh(&self) -> Result<(), Error> {
        let _flight = self.fetching.lock().await;
        let cached = self.fetch_and_store().await;
        match cached.last_error {
            Some(error) => Err(Error::KeysUnavailable(error)),
            None => Ok(()),
        }
    }

    /// One fetch, its outcome stored; the cache as it is after it.
    async fn fetch_and_store(&self) -> Cached {
        let started = Instant::now();
        let fetched = self.fetch().await;
        let mut cached = self.cached.write().unwrap_or_else(|e| e.into_inner());
        cached.last_fetch = Some(started);
        match fetched {
            Ok((set, max_age)) => {
                cached.set = Arc::new(set);
                cached.fresh_until = Some(started + max_age.min(MAX_MAX_AGE));
                cached.last_error = None;
            }
            Err(error) => {
                tracing::warn!(url = %self.url, %error, "could not fetch the admission keys");
                cached.last_error = Some(error);
            }
        }
        cached.clone()
    }

    /// The keys at the URL and how long they may be kept.
    async fn fetch(&self) -> Result<(KeySet, Duration), String> {
        let mut response = self
            .http
            .get(&self.url)
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("{}: {e}", self.url))?;
        if !response.status().is_success() {
            return Err(format!("{} answered {}", self.url, response.status()));
        }
        let max_age = response
            .headers()
            .get(http::header::CACHE_CONTROL)
            .and_then(|v| v.to_str().ok())
            .and_then(max_age)
            .unwrap_or(self.default_max_age);
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("{}: {e}", self.url))?
        {
            if body.len() + chunk.len() > MAX_JWKS_BYTES {
                return Err(format!("{}: the JWKS is larger than 256 KiB", self.url));
            }
            body.extend_from_slice(&chunk);
        }
        Ok((KeySet::parse(&body)?, max_age))
    }
}

/// The keys of `cached`, or why there are none to judge a token by (no fetch succeeded yet).
fn known_or_unavailable(cached: Cached) -> Result<Arc<KeySet>, Error> {
    match (cached.fresh_until, cached.last_error) {
        (None, Some(error)) => Err(Error::KeysUnavailable(error)),
        (None, None) => Err(Error::KeysUnavailable("no fetch made yet".into())),
        (Some(_), _) => Ok(cached.set),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const X: &str = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo";
    const Y: &str = "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA";

    fn set(keys: serde_json::Value) -> Result<KeySet, String> {
        KeySet::parse(json!({ "keys": keys }).to_string().as_bytes())
    }

    #[test]
    fn ed25519_and_p256_keys_are_pinned_to_their_one_algorithm() {
        let keys = set(json!([
            {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": "ed", "x": X},
            {"kty": "EC", "crv": "P-256", "kid": "ec", "x": X, "y": Y},
        ]))
        .unwrap();
        assert_eq!(keys.get("ed").unwrap().alg, Algorithm::EdDSA);
        assert_eq!(keys.get("ec").unwrap().alg, Algorithm::ES256);
    }

    #[test]
    fn keys_no_token_may_name_are_left_out() {
        let keys = set(json!([
            {"kty": "OKP", "crv": "Ed25519", "kid": "good", "x": X},
            {"kty": "oct", "kid": "hmac", "k": X},
            {"kty": "RSA", "kid": "rsa", "n": X, "e": "AQAB"},
            {"kty": "EC", "crv": "P-384", "kid": "p384", "x": X, "y": Y},
            {"kty": "OKP", "crv": "Ed25519", "kid": "enc", "use": "enc", "x": X},
            {"kty": "OKP", "crv": "Ed25519", "kid": "hs", "alg": "HS256", "x": X},
            {"kty": "OKP", "crv": "Ed25519", "kid": "short", "x": "AAAA"},
            {"kty": "OKP", "crv": "Ed25519", "x": X},
            "not a key",
        ]))
        .unwrap();
        assert_eq!(keys.keys.len(), 1);
        assert!(keys.get("good").is_some());
        assert!(set(json!([{"kty": "oct", "kid": "hmac", "k": X}])).is_err());
        assert!(KeySet::parse(b"<html>").is_err());
    }

    #[test]
    fn max_age_is_read_from_cache_control() {
        assert_eq!(
            max_age("public, max-age=300"),
            Some(Duration::from_secs(300))
        );
        assert_eq!(max_age("Max-Age=5"), Some(Duration::from_secs(5)));
        assert_eq!(max_age("no-store"), Some(Duration::ZERO));
        assert_eq!(max_age("max-age=60, no-cache"), Some(Duration::ZERO));
        assert_eq!(max_age("public"), None);
        assert_eq!(max_age("max-age=soon"), None);
    }

    fn cached_at(start: Instant, max_age: Duration) -> Cached {
        Cached {
            set: Arc::new(
                set(json!([{"kty": "OKP", "crv": "Ed25519", "kid": "k1", "x": X}])).unwrap(),
            ),
            fresh_until: Some(start + max_age),
            last_fetch: Some(start),
            last_error: None,
        }
    }

    #[test]
    fn an_empty_cache_fetches() {
        let start = Instant::now();
        let min = Duration::from_secs(10);
        assert_eq!(Cached::default().plan("k1", start, min), Plan::Fetch);
    }

    #[test]
    fn an_unknown_kid_fetches_at_most_once_per_interval() {
        let start = Instant::now();
        let min = Duration::from_secs(10);
        let cached = cached_at(start, Duration::from_secs(300));
        assert_eq!(cached.plan("k1", start, min), Plan::Use);
        assert_eq!(
            cached.plan("k2", start + Duration::from_secs(9), min),
            Plan::Unknown
        );
        assert_eq!(
            cached.plan("k2", start + Duration::from_secs(10), min),
            Plan::Fetch
        );
    }

    #[test]
    fn keys_are_fetched_again_when_their_max_age_has_passed_and_used_stale_meanwhile() {
        let start = Instant::now();
        let min = Duration::from_secs(10);
        let cached = cached_at(start, Duration::from_secs(300));
        assert_eq!(
            cached.plan("k1", start + Duration::from_secs(299), min),
            Plan::Use
        );
        assert_eq!(
            cached.plan("k1", start + Duration::from_secs(300), min),
            Plan::Fetch
        );
        // A fetch at 300 s that failed: the stale key verifies until the next may be made.
        let failed = Cached {
            last_fetch: Some(start + Duration::from_secs(300)),
            last_error: Some("down".into()),
            ..cached
        };
        assert_eq!(
            failed.plan("k1", start + Duration::from_secs(305), min),
            Plan::Use
        );
        assert_eq!(
            failed.plan("k1", start + Duration::from_secs(310), min),
            Plan::Fetch
        );
    }

    #[test]
    fn a_max_age_of_zero_still_fetches_at_most_once_per_interval() {
        let start = Instant::now();
        let min = Duration::from_secs(10);
        let cached = cached_at(start, Duration::ZERO);
        assert_eq!(
            cached.plan("k1", start + Duration::from_secs(1), min),
            Plan::Use
        );
        assert_eq!(
            cached.plan("k1", start + Duration::from_secs(10), min),
            Plan::Fetch
        );
    }

    #[test]
    fn before_any_fetch_succeeded_a_token_is_left_unjudged() {
        let failed = Cached {
            last_fetch: Some(Instant::now()),
            last_error: Some("refused".into()),
            ..Cached::default()
        };
        assert_eq!(
            known_or_unavailable(failed).err(),
            Some(Error::KeysUnavailable("refused".into()))
        );
    }
}
