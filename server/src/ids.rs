//! Unguessable identifiers: the ids of buyers, holds and orders, the `jti` of admission tokens,
//! the owner tokens of leases, the secrets generated for development, the pre-queue's tickets
//! and the draw's secrets all come from here.
//!
//! Invariant: every id is drawn from the operating system's randomness (never a seeded or
//! thread-local generator), so knowing any number of ids tells nothing about the next one.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use rand::RngCore;

/// `bytes` random bytes as base64url (no padding): 12 bytes make 16 characters.
pub fn random_id(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut buf);
    URL_SAFE_NO_PAD.encode(buf)
}

/// `bytes` random bytes as lowercase hex: 16 bytes make a pre-queue ticket, 32 a draw's secret.
pub fn random_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    rand::rngs::OsRng.fill_bytes(&mut buf);
    hex::encode(buf)
}
