//! Tokens: buyer sessions (who is asking) and, with the line, admission tokens (who may pass).
//! Invariant: a request is a buyer's only if it carries a session token this deployment
//! signed and that has not expired; there is no other way to be a buyer. One home per concern:
//! `session` (signing buyers' sessions and receipts), `buyer` (the buyer of a request and the
//! session routes), `keys` (admission key material),
//! `rotation` (which key signs, the folder read again while running), `jwt` (minting and
//! verifying admission tokens), `gate` (the one admission check, and the JWKS), `cookies` (every cookie set
//! or read).

pub mod buyer;
pub mod cookies;
pub mod dpop;
pub mod gate;
pub mod jwt;
pub mod keys;
pub mod rotation;
pub mod session;
pub mod state;
pub mod verified;

pub use buyer::Buyer;
pub use session::Sessions;

use axum::{Router, http::HeaderMap};

use crate::tokens::state::Tokens;

/// The buyer-facing routes of tokens: sessions, the JWKS and the gate's own question.
pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new().merge(buyer::router()).merge(gate::router())
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_tokens_are_found() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.append("authorization", "Bearer tok".parse().unwrap());
        assert_eq!(bearer(&h), Some("tok"));
    }
}
