//! The draw's secret and its commitment: the secret is made from a key of the deployment and
//! a nonce kept with the draw, so that Postgres holds the commitment and never the secret
//! before the draw publishes it.

use sqlx::PgConnection;

use super::proof;
use crate::{
    error::{Error, Result},
    ids,
};

/// Makes the event's secret and its commitment unless it has them already: called in the
/// transaction that sets an opening, so the commitment is public as soon as the opening is.
pub async fn commit(tx: &mut PgConnection, event_id: &str, key: &SecretKey) -> Result<()> {
    let nonce = ids::random_hex(32);
    let secret = key.secret(event_id, &nonce);
    sqlx::query(
        "insert into draw (event_id, secret_nonce, commitment) values ($1, $2, $3) \
         on conflict (event_id) do nothing",
    )
    .bind(event_id)
    .bind(&nonce)
    .bind(proof::commitment(&secret))
    .execute(tx)
    .await?;
    Ok(())
}

/// The key that makes each draw's secret: HMAC-SHA256 of the event and a random nonce kept
/// with the draw, under a key derived (HKDF) from the deployment's session secret. The
/// database holds the nonce and the commitment, never the secret, until the draw publishes it:
/// whoever reads Postgres cannot compute the order ahead. (Changing the session secret while a
/// draw is pending makes that draw's secret unrecoverable: its draw then fails loudly.)
#[derive(Clone)]
pub struct SecretKey(ring::hmac::Key);

impl SecretKey {
    pub fn derive(session_secret: &[u8]) -> Self {
        let mut key = [0u8; 32];
        ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, b"anteroom")
            .extract(session_secret)
            .expand(&[b"draw-secret"], ring::hkdf::HKDF_SHA256)
            .and_then(|okm| okm.fill(&mut key))
            .expect("32 bytes is SHA-256's length, which HKDF always expands to");
        Self(ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key))
    }

    /// The secret of `event_id`'s draw made with `nonce`: 64 lowercase hex characters.
    pub(super) fn secret(&self, event_id: &str, nonce: &str) -> String {
        let tag = ring::hmac::sign(&self.0, format!("{event_id}:{nonce}").as_bytes());
        tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The secret of a draw row: the stored one (a draw made, or committed before secrets were
    /// sealed), else the one its nonce makes, if it still hashes to `commitment`.
    pub(super) fn open(
        &self,
        event_id: &str,
        stored: Option<String>,
        nonce: Option<&str>,
        commitment: &str,
    ) -> Result<String> {
        if let Some(secret) = stored {
            return Ok(secret);
        }
        let secret = self.secret(event_id, nonce.unwrap_or_default());
        if proof::commitment(&secret) != commitment {
            return Err(Error::Internal(format!(
                "the draw of {event_id} cannot be made: its secret no longer matches its \
                 commitment (was ANTEROOM_SESSION_SECRET changed since the opening was set?)"
            )));
        }
        Ok(secret)
    }
}
