//! Operators' secrets: a session's cookie, an enrolment link's token, an API key. Each is 24
//! random bytes and their tag (HMAC-SHA256 under the operator key derived from the server
//! secret, `Sessions::operator_tag`), written base64url after a prefix that says what it is
//! (`op_`, `en_`, `ak_`).
//!
//! Invariants: a value whose tag does not verify is refused from the request alone, before
//! any database call, so a flood of made-up cookies or keys costs an HMAC each and never a
//! query; the database keeps only the SHA-256 of a value ([`Minted::hash`]), never the value;
//! the tag is compared in constant time.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

use crate::tokens::Sessions;

/// The random bytes of a secret.
const RANDOM_BYTES: usize = 24;
/// HMAC-SHA256's tag.
const TAG_BYTES: usize = 32;

/// What a secret is for; its prefix says so to whoever finds one in a log or a script.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An operator's session cookie.
    Session,
    /// A one-time enrolment link.
    Enrolment,
    /// An API key.
    ApiKey,
}

impl Kind {
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Session => "op_",
            Kind::Enrolment => "en_",
            Kind::ApiKey => "ak_",
        }
    }
}

/// A new secret: the value to hand over once, and the hash to keep.
pub struct Minted {
    pub value: String,
    pub hash: Vec<u8>,
}

/// A new secret of `kind`.
pub fn mint(sessions: &Sessions, kind: Kind) -> Minted {
    let mut bytes = [0u8; RANDOM_BYTES + TAG_BYTES];
    SystemRandom::new()
        .fill(&mut bytes[..RANDOM_BYTES])
        .expect("the system's random source works");
    let tag = sessions.operator_tag(&tagged(kind, &bytes[..RANDOM_BYTES]));
    bytes[RANDOM_BYTES..].copy_from_slice(tag.as_ref());
    let value = format!("{}{}", kind.prefix(), URL_SAFE_NO_PAD.encode(bytes));
    Minted {
        hash: hash(&value),
        value,
    }
}

/// The hash to look `value` up by, if it is a secret of `kind` this deployment made; `None`
/// (without any I/O) for anything else.
pub fn check(sessions: &Sessions, kind: Kind, value: &str) -> Option<Vec<u8>> {
    let encoded = value.strip_prefix(kind.prefix())?;
    if encoded.len() != (RANDOM_BYTES + TAG_BYTES).div_ceil(3) * 4 - 1 {
        return None;
    }
    let bytes = URL_SAFE_NO_PAD.decode(encoded).ok()?;
    let (random, tag) = bytes.split_at(RANDOM_BYTES);
    sessions
        .operator_tag_verifies(&tagged(kind, random), tag)
        .then(|| hash(value))
}

/// What the tag covers: the kind and the random bytes, so that no secret passes as another
/// kind.
fn tagged(kind: Kind, random: &[u8]) -> Vec<u8> {
    [kind.prefix().as_bytes(), random].concat()
}

/// The SHA-256 of a secret, as the database keeps it.
pub fn hash(value: &str) -> Vec<u8> {
    Sha256::digest(value.as_bytes()).to_vec()
}

/// The public name of a kept hash (a session's id as an admin sees it): base64url.
pub fn public_id(hash: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(hash)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn sessions(secret: &[u8]) -> Sessions {
        Sessions::new(secret, Duration::from_secs(60))
    }

    #[test]
    fn a_minted_secret_checks_and_nothing_else_does() {
        let s = sessions(b"the server secret");
        let minted = mint(&s, Kind::ApiKey);
        assert!(minted.value.starts_with("ak_"));
        assert_eq!(
            check(&s, Kind::ApiKey, &minted.value),
            Some(minted.hash.clone())
        );
        assert_eq!(minted.hash, hash(&minted.value));
        // Another kind, another deployment, a changed character, a cut value: refused.
        assert_eq!(check(&s, Kind::Session, &minted.value), None);
        let relabelled = minted.value.replacen("ak_", "op_", 1);
        assert_eq!(check(&s, Kind::Session, &relabelled), None);
        assert_eq!(
            check(&sessions(b"another secret"), Kind::ApiKey, &minted.value),
            None
        );
        let mut changed = minted.value.clone().into_bytes();
        changed[10] = if changed[10] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            check(&s, Kind::ApiKey, &String::from_utf8(changed).unwrap()),
            None
        );
        assert_eq!(check(&s, Kind::ApiKey, &minted.value[..40]), None);
        assert_eq!(check(&s, Kind::ApiKey, ""), None);
        assert_ne!(mint(&s, Kind::ApiKey).value, minted.value);
    }
}
