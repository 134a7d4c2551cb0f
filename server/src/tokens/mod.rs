//! Tokens: buyer sessions (who is asking) and, with the line, admission tokens (who may pass).
//! Invariant: a request is a buyer's only if it carries a session token this deployment
//! signed and that has not expired; there is no other way to be a buyer.

pub mod admin;
pub mod admission;
pub mod session;

pub use admin::Admin;
pub use session::{Buyer, Sessions};

use axum::http::HeaderMap;

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
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
    fn cookies_and_bearer_tokens_are_found() {
        let mut h = HeaderMap::new();
        h.append("cookie", "a=1; anteroom_session=xyz".parse().unwrap());
        h.append("authorization", "Bearer tok".parse().unwrap());
        assert_eq!(cookie(&h, "anteroom_session"), Some("xyz"));
        assert_eq!(cookie(&h, "missing"), None);
        assert_eq!(bearer(&h), Some("tok"));
    }
}
