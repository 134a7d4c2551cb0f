//! What a token that verified says: the claims of Anteroom's admission tokens and of its
//! hand-over tokens, in one type (a hand-over token is an admission token with an `until` and
//! the target site as its audience).

use serde::{Deserialize, Serialize};

/// The claims of a token that passed [`Verifier`](crate::Verifier)'s checks.
///
/// ```
/// use anteroom_verify::Claims;
///
/// let claims: Claims = serde_json::from_str(
///     r#"{"sub":"b-1","evt":"e-1","aud":"https://shop.example","iat":100,"exp":160,
///         "jti":"j-1","epc":3,"until":700,"cnf":{"jkt":"0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}"#,
/// )?;
/// assert!(claims.is_handoff());
/// assert_eq!(claims.bound_to(), Some("0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"));
/// assert_eq!(claims.epc, Some(3));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// The buyer's id (Anteroom's `buyer_id`): the same buyer through every token.
    pub sub: String,
    /// The event the buyer was admitted to.
    pub evt: String,
    /// Who the token is for: the deployment's audience for an admission token, the target
    /// site's origin (`https://shop.example`) for a hand-over token.
    pub aud: String,
    /// When it was signed, in seconds since the Unix epoch.
    pub iat: i64,
    /// When it stops verifying (give or take the verifier's leeway), in seconds since the
    /// Unix epoch.
    pub exp: i64,
    /// The token's unique id: what `POST /api/handoff/redeem` and
    /// `POST /api/events/{event_id}/admissions/done` name it by.
    pub jti: String,
    /// The room's epoch when the token was signed: an operator who restarts a sale makes the
    /// tokens of earlier epochs worthless at Anteroom's gate. Absent in older tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub epc: Option<u64>,
    /// Hand-over tokens only: when the buyer's admission ends, in seconds since the Unix
    /// epoch (the token itself lives a minute; a site that takes the buyer in keeps them until
    /// this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<i64>,
    /// In a room that binds tokens to the device: the key the token is bound to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<Confirmation>,
}

/// The `cnf` claim of a bound token (RFC 9449 section 6.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Confirmation {
    /// The RFC 7638 SHA-256 thumbprint, base64url, of the buyer's P-256 device key: every
    /// request that presents the token must carry a DPoP proof made with that key.
    pub jkt: String,
}

impl Claims {
    /// The thumbprint of the device key the token is bound to, if it is bound.
    pub fn bound_to(&self) -> Option<&str> {
        self.cnf.as_ref().map(|c| c.jkt.as_str())
    }

    /// Whether this is a hand-over token (it says until when the buyer is admitted).
    pub fn is_handoff(&self) -> bool {
        self.until.is_some()
    }
}
