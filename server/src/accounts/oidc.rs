//! Sign-in at the ticketer's OpenID provider (API.md "Accounts"): Anteroom is a relying party
//! (authorization code with PKCE, discovery, the ID token checked against the provider's keys:
//! issuer, audience, signature, expiry, nonce), through the `openidconnect` crate.
//! Invariants: the provider is called only while a buyer signs in, never by the line (a
//! buyer already in line is untouched when it is down); discovery is fetched on the first
//! sign-in and again when an ID token names a key we do not know, at most once per
//! [`REDISCOVER_AFTER`], so a rotation of the provider's keys is picked up without a restart;
//! the state, the nonce, the PKCE verifier and the return path travel in one signed,
//! short-lived cookie, and the callback refuses a state that is not the one it signed. A
//! provider made [`Provider::fresh`] (the operators' company sign-in) asks for a fresh
//! authentication every time (`prompt=login`, `max_age=0`) and refuses an ID token whose
//! `auth_time` is missing or older than [`FRESH_SECS`]: a sign-in there is a step-up, and a
//! session the provider kept from hours ago must not pass as one.

use std::{
    borrow::Cow,
    time::{Duration, Instant},
};

use openidconnect::{
    AuthorizationCode, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IssuerUrl, Nonce, PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope,
    TokenResponse,
    core::{
        CoreAuthPrompt, CoreAuthenticationFlow, CoreClient, CoreIdTokenVerifier,
        CoreProviderMetadata,
    },
};
use tokio::sync::RwLock;

use crate::{
    accounts::claims,
    error::{Error, Result},
    tokens::session::Account,
};

/// The least time between two discoveries.
pub const REDISCOVER_AFTER: Duration = Duration::from_secs(10);
/// How old a fresh provider's `auth_time` may be: the time to come back from its login page.
pub const FRESH_SECS: i64 = 120;
/// The longest one call to the provider may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

type Client = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The buyers' OpenID provider, as configured, and what discovery found of it.
pub struct Provider {
    issuer: String,
    client_id: String,
    client_secret: Option<String>,
    scopes: Vec<String>,
    claim_names: Vec<String>,
    /// Every sign-in authenticates afresh ([`Provider::fresh`]).
    fresh: bool,
    http: reqwest::Client,
    discovered: RwLock<Option<(Client, Instant)>>,
}

/// A sign-in started: where to send the browser, and what the callback must find again.
pub struct Started {
    pub url: String,
    pub csrf: String,
    pub nonce: String,
    pub verifier: String,
}

/// The provider could not be reached, or answered what is not OpenID Connect.
fn unavailable(why: impl std::fmt::Display) -> Error {
    tracing::warn!(%why, "the OpenID provider failed");
    Error::Unavailable {
        message: "the sign-in provider cannot be reached right now; try again in a moment".into(),
        retry_after_secs: 5,
    }
}

impl Provider {
    pub fn new(
        issuer: String,
        client_id: String,
        client_secret: Option<String>,
        scopes: &str,
        claim_names: Vec<String>,
    ) -> Self {
        Self {
            issuer,
            client_id,
            client_secret,
            scopes: scopes
                .split_whitespace()
                .filter(|s| *s != "openid")
                .map(str::to_owned)
                .collect(),
            claim_names,
            fresh: false,
            http: reqwest::Client::builder()
                // The provider's answers are read as they are: following a redirect of its
                // would let it point us anywhere.
                .redirect(reqwest::redirect::Policy::none())
                // A call per sign-in, seconds apart: a kept connection the provider (or a load
                // balancer before it) has closed meanwhile would fail the next call.
                .pool_max_idle_per_host(0)
                .timeout(CALL_TIMEOUT)
                .build()
                .expect("a client without TLS settings of its own builds"),
            discovered: RwLock::new(None),
        }
    }

    /// This provider, asking for a fresh authentication at every sign-in and checking that
    /// it got one.
    pub fn fresh(self) -> Self {
        Self {
            fresh: true,
            ..self
        }
    }

    /// The provider's issuer, as configured.
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The client from discovery: the one known, or a new discovery when there is none or
    /// (`again`) the known one is older than [`REDISCOVER_AFTER`].
    async fn client(&self, again: bool) -> Result<Client> {
        if let Some((client, at)) = &*self.discovered.read().await
            && (!again || at.elapsed() < REDISCOVER_AFTER)
        {
            return Ok(client.clone());
        }
        let issuer = IssuerUrl::new(self.issuer.clone()).map_err(unavailable)?;
        let metadata = CoreProviderMetadata::discover_async(issuer, &self.http)
            .await
            .map_err(unavailable)?;
        let client = CoreClient::from_provider_metadata(
            metadata,
            ClientId::new(self.client_id.clone()),
            self.client_secret.clone().map(ClientSecret::new),
        );
        *self.discovered.write().await = Some((client.clone(), Instant::now()));
        Ok(client)
    }

    /// Starts a sign-in that comes back to `redirect` (this Anteroom's `/auth/callback`).
    pub async fn start(&self, redirect: &str) -> Result<Started> {
        let client = self.client(false).await?;
        let redirect = RedirectUrl::new(redirect.to_owned())
            .map_err(|e| Error::Internal(format!("the callback address: {e}")))?;
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let mut request = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                CsrfToken::new_random,
                Nonce::new_random,
            )
            .add_scopes(self.scopes.iter().cloned().map(Scope::new))
            .set_pkce_challenge(challenge)
            .set_redirect_uri(Cow::Owned(redirect));
        if self.fresh {
            request = request
                .add_prompt(CoreAuthPrompt::Login)
                .set_max_age(Duration::ZERO);
        }
        let (url, csrf, nonce) = request.url();
        Ok(Started {
            url: url.to_string(),
            csrf: csrf.secret().clone(),
            nonce: nonce.secret().clone(),
            verifier: verifier.secret().clone(),
        })
    }

    /// Ends a sign-in: the code exchanged (with the PKCE verifier) for an ID token, whose
    /// claims are checked against the nonce the sign-in started with. 401 when the provider
    /// refuses the code or the token does not check; 503 when the provider is down.
    pub async fn finish(
        &self,
        code: &str,
        redirect: &str,
        nonce: &str,
        verifier: &str,
    ) -> Result<Account> {
        let client = self.client(false).await?;
        let redirect = RedirectUrl::new(redirect.to_owned())
            .map_err(|e| Error::Internal(format!("the callback address: {e}")))?;
        let token = client
            .exchange_code(AuthorizationCode::new(code.to_owned()))
            .map_err(unavailable)?
            .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_owned()))
            .set_redirect_uri(Cow::Owned(redirect))
            .request_async(&self.http)
            .await
            .map_err(|e| match e {
                openidconnect::RequestTokenError::ServerResponse(r) => Error::Unauthorized(
                    format!("the sign-in provider refused the sign-in: {}", r.error()),
                ),
                // The answer's raw body (a `Parse` error carries it) may hold tokens: only
                // the error's kind is logged.
                openidconnect::RequestTokenError::Parse(e, _body) => {
                    unavailable(format!("the token endpoint's answer did not read: {e}"))
                }
                openidconnect::RequestTokenError::Request(e) => {
                    unavailable(format!("the token endpoint could not be asked: {e}"))
                }
                openidconnect::RequestTokenError::Other(why) => unavailable(why),
            })?;
        let id_token = token
            .id_token()
            .ok_or_else(|| unavailable("the provider's answer carried no ID token"))?;
        let nonce = Nonce::new(nonce.to_owned());
        let fresh = self.fresh;
        fn checker(client: &Client, fresh: bool) -> CoreIdTokenVerifier<'_> {
            client
                .id_token_verifier()
                .set_auth_time_verifier_fn(move |at| match at {
                    _ if !fresh => Ok(()),
                    Some(at) if (chrono::Utc::now() - at).num_seconds() <= FRESH_SECS => Ok(()),
                    Some(at) => Err(format!("the sign-in was not fresh (auth_time {at})")),
                    None => Err("the sign-in carried no auth_time".to_owned()),
                })
        }
        let checked = match id_token.claims(&checker(&client, fresh), &nonce) {
            Ok(claims) => Ok(claims.clone()),
            // A key we do not know yet: the provider may have rotated its keys.
            Err(openidconnect::ClaimsVerificationError::SignatureVerification(_)) => {
                let rediscovered = self.client(true).await?;
                id_token
                    .claims(&checker(&rediscovered, fresh), &nonce)
                    .cloned()
            }
            Err(e) => Err(e),
        }
        .map_err(|e| Error::Unauthorized(format!("the sign-in's ID token was refused: {e}")))?;
        Ok(Account {
            issuer: checked.issuer().to_string(),
            subject: checked.subject().to_string(),
            claims: claims::keep(&payload(&id_token.to_string()), &self.claim_names),
        })
    }
}

/// The claims of a JWT whose signature was checked already, as JSON (to read the claims the
/// crate's types do not name, such as `groups`).
fn payload(jwt: &str) -> serde_json::Map<String, serde_json::Value> {
    use base64::Engine;
    jwt.split('.')
        .nth(1)
        .and_then(|p| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(p)
                .ok()
        })
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}
