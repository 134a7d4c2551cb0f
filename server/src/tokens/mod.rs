//! Tokens: buyer sessions (who is asking) and, with the line, admission tokens (who may pass).
//! Invariant: a request is a buyer's only if it carries a session token this deployment
//! signed and that has not expired; there is no other way to be a buyer. One home per concern:
//! `session` (buyers and their receipts), `keys` (admission key material and the JWKS),
//! `rotation` (which key signs, the folder read again while running), `jwt` (minting and
//! verifying admission tokens), `gate` (the one admission check), `cookies` (every cookie set
//! or read), `admin` (the operator's credential).

pub mod admin;
pub mod cookies;
pub mod dpop;
pub mod gate;
pub mod jwt;
pub mod keys;
pub mod rotation;
pub mod session;

pub use admin::Admin;
pub use session::{Buyer, Sessions};

use axum::{Router, http::HeaderMap};

use crate::state::AppState;

/// The buyer-facing routes of tokens: sessions, the JWKS and the gate's own question.
pub fn router() -> Router<AppState> {
    Router::new()
        .merge(session::router())
        .merge(keys::router())
        .merge(gate::router())
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
