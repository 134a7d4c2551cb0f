//! [`Verifier`]: whether a token was signed by Anteroom for us, now.
//!
//! A token verifies only if all of these hold:
//! - it is a compact JWS of at most [`MAX_TOKEN_LEN`] bytes whose header has a `kid` and no
//!   `crit`;
//! - its `kid` names a published key (see [`VerifierBuilder::min_refetch_interval`] for when
//!   the keys are fetched again) and its `alg` is that key's one algorithm (EdDSA or ES256):
//!   `none`, HMAC, RSA and an algorithm the key does not have are refused before any
//!   signature is computed;
//! - the signature holds; `aud` is one of the accepted audiences; `exp` has not passed and
//!   `nbf` (if any) has, both give or take the leeway; `sub` is present;
//! - `evt` is one of the accepted events, when events were configured;
//! - a token bound to a device key (`cnf.jkt`) comes with a DPoP proof from that key for this
//!   request ([`crate::dpop`]), except through [`Verifier::verify_handoff`], whose tokens
//!   arrive on a browser's navigation, where no proof can be sent.

use std::{sync::Arc, time::Duration};

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, Validation, errors::ErrorKind};
use serde::Deserialize;

use crate::{
    Claims,
    dpop::{self, ProofRequest, ReplayCache},
    error::{BuildError, Error, excerpt},
    jwks::KeyCache,
};

/// The most bytes of a token that are read (Anteroom's are about 400).
pub const MAX_TOKEN_LEN: usize = 8 * 1024;

/// Verifies Anteroom's tokens against the keys it publishes. Cheap to clone: clones share
/// the key cache and the replay cache.
///
/// Built with [`Verifier::builder`]; see the crate's documentation for an example.
#[derive(Clone)]
pub struct Verifier {
    inner: Arc<Inner>,
}

struct Inner {
    /// The published keys, shared by every clone so that a fetch serves them all.
    keys: KeyCache,
    /// At least one: a token for any other `aud` was made for someone else.
    audiences: Vec<String>,
    /// Empty: any event.
    events: Vec<String>,
    leeway: Duration,
    /// The DPoP proofs seen, so that each passes once.
    replays: ReplayCache,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier")
            .field("jwks_url", &self.inner.keys.url())
            .field("audiences", &self.inner.audiences)
            .field("events", &self.inner.events)
            .field("leeway", &self.inner.leeway)
            .finish_non_exhaustive()
    }
}

/// The settings of a [`Verifier`].
#[derive(Clone, Debug)]
#[must_use]
pub struct VerifierBuilder {
    jwks_url: String,
    audiences: Vec<String>,
    events: Vec<String>,
    leeway: Duration,
    timeout: Duration,
    min_refetch_interval: Duration,
    default_max_age: Duration,
    replay_capacity: usize,
}

impl Verifier {
    /// A verifier of the keys published at `jwks_url`, typically
    /// `https://anteroom.example/.well-known/jwks.json`.
    pub fn builder(jwks_url: impl Into<String>) -> VerifierBuilder {
        VerifierBuilder {
            jwks_url: jwks_url.into(),
            audiences: Vec::new(),
            events: Vec::new(),
            leeway: Duration::from_secs(5),
            timeout: Duration::from_secs(5),
            min_refetch_interval: Duration::from_secs(10),
            default_max_age: Duration::from_secs(300),
            replay_capacity: 100_000,
        }
    }

    /// Fetches the keys now. Not needed (the first token fetches them), but a service that
    /// calls it at start learns of a wrong URL or an unreachable Anteroom before a buyer does.
    pub async fn refresh(&self) -> Result<(), Error> {
        self.inner.keys.refresh().await
    }

    /// The claims of `token` if it verifies and is not bound to a device key.
    ///
    /// A bound token (one with `cnf`) is refused with [`crate::dpop::ProofError::Missing`]:
    /// without the proof its binding asks for, a copied token would pass. Use
    /// [`Verifier::verify_request`] where requests may carry DPoP proofs.
    pub async fn verify(&self, token: &str) -> Result<Claims, Error> {
        let claims = self.claims(token).await?;
        if claims.cnf.is_some() {
            return Err(dpop::ProofError::Missing.into());
        }
        Ok(claims)
    }

    /// The claims of `token`, presented with `request`, if it verifies and, when it is bound
    /// to a device key, the request's DPoP proof passes (made with that key, for this method,
    /// URL and token, within a minute, and not seen before).
    pub async fn verify_request(
        &self,
        token: &str,
        request: &ProofRequest<'_>,
    ) -> Result<Claims, Error> {
        let claims = self.claims(token).await?;
        if let Some(cnf) = &claims.cnf {
            let now = unix_now();
            let proof = dpop::check(request, token, &cnf.jkt, now)?;
            self.inner.replays.first_use(&proof, now)?;
        }
        Ok(claims)
    }

    /// The claims of the hand-over token `token` (what a target site receives as
    /// `?anteroom_token=`), if it verifies and is a hand-over token (it has `until`).
    ///
    /// The token arrives on a navigation, which cannot carry a DPoP proof, so its binding is
    /// not checked here: its `cnf` is in the claims for the site to keep. What protects it is
    /// its minute of life and its audience (the site's origin); to make it single-use, redeem
    /// it once with Anteroom (`POST /api/handoff/redeem {"token"}`: 200 the first time, 409
    /// after) before taking the buyer in.
    pub async fn verify_handoff(&self, token: &str) -> Result<Claims, Error> {
        let claims = self.claims(token).await?;
        if claims.until.is_none() {
            return Err(Error::NotHandoff);
        }
        Ok(claims)
    }

    /// The claims of `token` after every check but its binding.
    async fn claims(&self, token: &str) -> Result<Claims, Error> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(Error::Malformed("it is too long"));
        }
        let header = header(token)?;
        let alg = match header.alg.as_str() {
            "EdDSA" => Algorithm::EdDSA,
            "ES256" => Algorithm::ES256,
            other => return Err(Error::Algorithm(excerpt(other))),
        };
        let keys = self.inner.keys.keys_for(&header.kid).await?;
        let key = keys.get(&header.kid).ok_or(Error::UnknownKey)?;
        if key.alg != alg {
            return Err(Error::Algorithm(header.alg));
        }
        let mut validation = Validation::new(alg);
        validation.set_audience(&self.inner.audiences);
        validation.set_required_spec_claims(&["exp", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = self.inner.leeway.as_secs();
        let claims = jsonwebtoken::decode::<Claims>(token, &key.decoding, &validation)
            .map_err(|e| refusal(e.kind()))?
            .claims;
        if !self.inner.events.is_empty() && !self.inner.events.contains(&claims.evt) {
            return Err(Error::Event);
        }
        Ok(claims)
    }
}

/// A token's header, as far as it is read before a key is chosen.
#[derive(Deserialize)]
struct Header {
    alg: String,
    kid: String,
    /// Extensions the token says must be understood: none is, so any refuses the token.
    crit: Option<serde_json::Value>,
}

fn header(token: &str) -> Result<Header, Error> {
    let (encoded, _) = token
        .split_once('.')
        .ok_or(Error::Malformed("it is not a compact JWS"))?;
    let bytes = URL_SAFE_NO_PAD
        .decode(encoded)
        .map_err(|_| Error::Malformed("its header is not base64url"))?;
    let header: Header = serde_json::from_slice(&bytes)
        .map_err(|_| Error::Malformed("its header is not JSON with alg and kid"))?;
    if header.crit.is_some() {
        return Err(Error::Malformed("its header has critical extensions"));
    }
    Ok(header)
}

/// The refusal for what jsonwebtoken found wrong.
fn refusal(kind: &ErrorKind) -> Error {
    match kind {
        ErrorKind::InvalidSignature => Error::Signature,
        ErrorKind::ExpiredSignature => Error::Expired,
        ErrorKind::ImmatureSignature => Error::NotYetValid,
        ErrorKind::InvalidAudience => Error::Audience,
        ErrorKind::MissingRequiredClaim(_) => Error::Malformed("a required claim is missing"),
        ErrorKind::Json(_) | ErrorKind::Base64(_) | ErrorKind::Utf8(_) => {
            Error::Malformed("its claims are not those of an Anteroom token")
        }
        _ => Error::Malformed("it does not decode"),
    }
}

/// Seconds since the Unix epoch, on this machine's clock.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

impl VerifierBuilder {
    /// Accepts tokens whose `aud` is `audience`. Call it once per audience; at least once.
    ///
    /// Anteroom's admission tokens carry the deployment's audience (its setting
    /// `admission_audience`, `anteroom` unless configured); hand-over tokens carry the target
    /// site's origin, e.g. `https://shop.example`.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// Accepts only tokens for the event `event_id`. Call it once per event; never to accept
    /// any event.
    pub fn event(mut self, event_id: impl Into<String>) -> Self {
        self.events.push(event_id.into());
        self
    }

    /// How far past `exp` (and before `nbf`) a token still verifies, for clocks that differ
    /// a little. Whole seconds; default 5 s.
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long a JWKS fetch may take, connection included. Default 5 s.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The least time between two JWKS fetches, however many tokens name keys the cache does
    /// not hold. Default 10 s: after a rotation the cache has not seen, tokens of the new key
    /// pass from the first fetch on; a flood of made-up `kid`s costs one fetch per interval.
    pub fn min_refetch_interval(mut self, interval: Duration) -> Self {
        self.min_refetch_interval = interval;
        self
    }

    /// How long keys are kept when the JWKS answers without `Cache-Control: max-age`
    /// (Anteroom sends one). Default 300 s.
    pub fn default_max_age(mut self, max_age: Duration) -> Self {
        self.default_max_age = max_age;
        self
    }

    /// The most DPoP proofs remembered at once, each for the two minutes it could pass in.
    /// Default 100,000; when that many are young, new proofs are refused until some age out.
    pub fn replay_capacity(mut self, capacity: usize) -> Self {
        self.replay_capacity = capacity;
        self
    }

    /// The verifier; no request is made until the first token (or [`Verifier::refresh`]).
    pub fn build(self) -> Result<Verifier, BuildError> {
        if self.audiences.is_empty() {
            return Err(BuildError::NoAudience);
        }
        if dpop::normalised_url(&self.jwks_url).is_none() {
            return Err(BuildError::JwksUrl(self.jwks_url));
        }
        let http = reqwest::Client::builder()
            .timeout(self.timeout)
            .connect_timeout(self.timeout)
            .user_agent(concat!("anteroom-verify/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| BuildError::Http(e.to_string()))?;
        Ok(Verifier {
            inner: Arc::new(Inner {
                keys: KeyCache::new(
                    self.jwks_url,
                    http,
                    self.min_refetch_interval,
                    self.default_max_age,
                ),
                audiences: self.audiences,
                events: self.events,
                leeway: self.leeway,
                replays: ReplayCache::new(self.replay_capacity),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verifier_needs_an_audience_and_an_http_jwks_url() {
        let url = "http://127.0.0.1:1/.well-known/jwks.json";
        assert_eq!(
            Verifier::builder(url).build().err(),
            Some(BuildError::NoAudience)
        );
        assert!(matches!(
            Verifier::builder("/.well-known/jwks.json")
                .audience("anteroom")
                .build(),
            Err(BuildError::JwksUrl(_))
        ));
        assert!(Verifier::builder(url).audience("anteroom").build().is_ok());
    }

    #[test]
    fn headers_without_a_kid_or_with_critical_extensions_are_malformed() {
        let encode = |json: &str| format!("{}.e30.", URL_SAFE_NO_PAD.encode(json));
        for header_json in [
            r#"{"alg":"EdDSA"}"#,
            r#"{"alg":"EdDSA","kid":"k","crit":["exp"]}"#,
            "not json",
        ] {
            assert!(
                matches!(header(&encode(header_json)), Err(Error::Malformed(_))),
                "{header_json}"
            );
        }
        assert!(header(&encode(r#"{"alg":"EdDSA","kid":"k"}"#)).is_ok());
        assert!(matches!(header("no dots"), Err(Error::Malformed(_))));
    }
}
