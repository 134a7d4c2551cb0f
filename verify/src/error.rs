//! Why a token was refused, and why a verifier could not be built. Messages name the check
//! that failed and never echo more than a few characters of what the client sent.

use crate::dpop::ProofError;

/// Why a token did not verify.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Not a compact JWS with a JSON header and the claims Anteroom's tokens carry.
    #[error("the token is not a well-formed admission token: {0}")]
    Malformed(&'static str),
    /// The header's `alg` is not one a published key verifies (`none` and HMAC never are),
    /// or not the algorithm of the key its `kid` names.
    #[error("the token's algorithm {0:?} is not accepted")]
    Algorithm(String),
    /// No published key has the header's `kid`, even after fetching the keys again (or a
    /// fetch was not due yet: see [`VerifierBuilder::min_refetch_interval`](crate::VerifierBuilder::min_refetch_interval)).
    #[error("the token was signed with a key that is not published")]
    UnknownKey,
    #[error("the token's signature does not verify")]
    Signature,
    /// The token is for another audience than the ones accepted.
    #[error("the token is for another audience")]
    Audience,
    /// The token is for another event than the ones accepted.
    #[error("the token is for another event")]
    Event,
    #[error("the token has expired")]
    Expired,
    /// Its `nbf` is still ahead (beyond the leeway).
    #[error("the token is not valid yet")]
    NotYetValid,
    /// [`Verifier::verify_handoff`](crate::Verifier::verify_handoff) was given a token without
    /// `until`: an admission token, not a hand-over.
    #[error("the token is not a hand-over token")]
    NotHandoff,
    /// The token is bound to a device key and the request's DPoP proof does not pass.
    #[error(transparent)]
    Proof(#[from] ProofError),
    /// The keys could not be fetched, and none were fetched before: the token was not judged.
    /// This is the verifier's failure, not the client's (the tower layer answers 503).
    #[error("the verification keys could not be fetched: {0}")]
    KeysUnavailable(String),
}

impl Error {
    /// Whether the token could not be judged because the keys are unavailable (retry later),
    /// as opposed to a token that was judged and refused.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::KeysUnavailable(_))
    }
}

/// Why a [`VerifierBuilder`](crate::VerifierBuilder) could not build.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No audience was given: a verifier that accepts any audience would accept tokens made
    /// for other sites.
    #[error("a verifier needs at least one accepted audience")]
    NoAudience,
    /// The JWKS URL is not an absolute `http` or `https` URL.
    #[error("the JWKS URL {0:?} is not an absolute http(s) URL")]
    JwksUrl(String),
    /// The HTTP client could not be made (its TLS setup failed).
    #[error("the HTTP client could not be built: {0}")]
    Http(String),
}

/// At most the first 16 characters of `text`, for messages that name what a client sent.
pub(crate) fn excerpt(text: &str) -> String {
    text.chars().take(16).collect()
}
