//! The operator's credential: `Authorization: Bearer <admin token>`, compared in constant time.
//! A buyer's session token is not an admin credential.

use axum::{extract::FromRequestParts, http::request::Parts};

use crate::{error::Error, state::AppState};

/// A request made by the operator.
pub struct Admin;

impl FromRequestParts<AppState> for Admin {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let given = super::bearer(&parts.headers).unwrap_or("");
        let expected = state.admin_token.expose();
        if !expected.is_empty() && constant_time_eq(given.as_bytes(), expected.as_bytes()) {
            Ok(Admin)
        } else {
            Err(Error::Unauthorized(
                "the admin API needs Authorization: Bearer <admin token>".into(),
            ))
        }
    }
}

/// Equality whose time does not depend on where the first differing byte is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
