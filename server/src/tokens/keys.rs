//! Admission key material: the Ed25519 keys that sign and verify admission tokens, where they
//! come from (a folder of PEM files; a generated key on first run), and the JWKS that publishes
//! the public halves at `GET /.well-known/jwks.json`. Which key signs, and when the folder is
//! read again while running, is `rotation`'s business.
//!
//! Invariants (DESIGN.md "Tokens", 7): exactly one key signs; every key we hold verifies, so a
//! rotated-out key keeps verifying until its file is removed; the JWKS lists exactly the keys
//! that verify, and says how long it may be cached ([`JWKS_MAX_AGE`], which `rotation` waits
//! out before signing with a new key); private keys and their folder are their owner's only
//! (`devdata`: 0600 and 0700, checked at every load); a key is generated under the folder's
//! lock, so instances that start together on an empty folder share one key.

use std::{
    collections::HashMap,
    fs, io,
    path::{Path, PathBuf},
    sync::Arc,
};

use base64::{
    Engine,
    engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD},
};
use chrono::Utc;
use jsonwebtoken::{DecodingKey, EncodingKey};
use ring::signature::{Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};

use super::verified::Verified;
use crate::{
    devdata::{self, Strictness},
    ids,
};

/// DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it.
const SPKI_ED25519_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// The signing key and every verification key.
pub struct AdmissionKeys {
    /// The `kid` put in the header of every token we sign.
    pub(super) signing_kid: String,
    /// The one key that signs.
    pub(super) signing: EncodingKey,
    /// Every key that verifies, by `kid` (the signer and the rotated-out ones).
    pub(super) verifying: HashMap<String, DecodingKey>,
    /// The public keys as served, built once.
    jwks: Value,
    /// The `aud` of our tokens: a token for another audience is refused.
    pub(super) audience: String,
    /// The admission tokens verified under these keys (shared with the next set read while
    /// its keys are these same ones).
    pub(super) verified: Arc<Verified>,
}

/// How long a verifier may keep the JWKS (`Cache-Control: max-age`).
pub const JWKS_MAX_AGE: std::time::Duration = std::time::Duration::from_secs(300);

/// One Ed25519 key: with its PKCS#8 private part when we may sign with it.
#[derive(Clone)]
pub struct KeyMaterial {
    /// The key's id, the `kid` of the tokens it signs (the file name in the key folder).
    pub kid: String,
    /// The private part, when this deployment may sign with the key.
    pub pkcs8: Option<Vec<u8>>,
    /// The public part, which verifies and is published.
    pub public: [u8; 32],
}

impl KeyMaterial {
    /// A fresh key pair whose kid sorts after every earlier generated one.
    pub fn generate() -> Self {
        let rng = ring::rand::SystemRandom::new();
        let doc = Ed25519KeyPair::generate_pkcs8(&rng).expect("the system RNG works");
        let kid = format!(
            "{}-{}",
            Utc::now().format("%Y%m%d%H%M%S"),
            &ids::random_id(4)
        );
        Self::from_pkcs8(kid, doc.as_ref().to_vec()).expect("a key ring just made")
    }

    pub fn from_pkcs8(kid: String, pkcs8: Vec<u8>) -> io::Result<Self> {
        let pair = Ed25519KeyPair::from_pkcs8_maybe_unchecked(&pkcs8)
            .map_err(|e| invalid(format!("key {kid}: not an Ed25519 PKCS#8 key ({e})")))?;
        let public = pair
            .public_key()
            .as_ref()
            .try_into()
            .map_err(|_| invalid(format!("key {kid}: public key is not 32 bytes")))?;
        Ok(Self {
            kid,
            pkcs8: Some(pkcs8),
            public,
        })
    }

    /// The same key without its private part: verification only.
    pub fn public_only(&self) -> Self {
        Self {
            kid: self.kid.clone(),
            pkcs8: None,
            public: self.public,
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

impl AdmissionKeys {
    /// Keys from `keys`; `signing_kid` names the signer (default: the greatest kid that has a
    /// private part, i.e. the newest generated one).
    pub fn new(
        keys: &[KeyMaterial],
        signing_kid: Option<&str>,
        audience: &str,
    ) -> io::Result<Self> {
        let signer = match signing_kid {
            Some(kid) => keys.iter().find(|k| k.kid == kid && k.pkcs8.is_some()),
            None => keys
                .iter()
                .filter(|k| k.pkcs8.is_some())
                .max_by(|a, b| a.kid.cmp(&b.kid)),
        }
        .ok_or_else(|| invalid("no admission signing key (with a private part) found".into()))?;
        let signing = EncodingKey::from_ed_der(signer.pkcs8.as_deref().expect("filtered above"));
        let verifying = keys
            .iter()
            .map(|k| (k.kid.clone(), DecodingKey::from_ed_der(&k.public)))
            .collect();
        let jwks = json!({
            "keys": keys.iter().map(|k| json!({
                "kty": "OKP",
                "crv": "Ed25519",
                "alg": "EdDSA",
                "use": "sig",
                "kid": k.kid,
                "x": URL_SAFE_NO_PAD.encode(k.public),
            })).collect::<Vec<_>>()
        });
        Ok(Self {
            signing_kid: signer.kid.clone(),
            signing,
            verifying,
            jwks,
            audience: audience.to_owned(),
            verified: Arc::default(),
        })
    }

    /// Keeps `previous`'s verified tokens when it has exactly these keys and audience (the
    /// folder read again, unchanged); another set of keys starts with none.
    pub fn keep_verified(&mut self, previous: &AdmissionKeys) {
        if self.jwks == previous.jwks && self.audience == previous.audience {
            self.verified = previous.verified.clone();
        }
    }

    pub fn jwks(&self) -> &Value {
        &self.jwks
    }

    /// The kid of the key that signs.
    pub fn signing_kid(&self) -> &str {
        &self.signing_kid
    }
}

/// Keys from a folder: `<kid>.key` (PKCS#8 PEM, signs and verifies), `<kid>.pub` (SPKI PEM,
/// verifies only). An empty or missing folder gets a newly generated key.
pub fn load_or_generate(dir: &Path, strictness: Strictness) -> io::Result<Vec<KeyMaterial>> {
    let keys = read_dir(dir, strictness)?;
    if signs(&keys) {
        return Ok(keys);
    }
    devdata::private_dir(dir, strictness)?;
    devdata::locked(dir, || {
        // Another instance may have generated one while this one waited.
        let mut keys = read_dir(dir, strictness)?;
        if !signs(&keys) {
            let key = KeyMaterial::generate();
            let pem = pem(
                "PRIVATE KEY",
                key.pkcs8.as_deref().expect("generated with one"),
            );
            devdata::create_private(&dir.join(format!("{}.key", key.kid)), pem.as_bytes())?;
            tracing::info!(kid = %key.kid, dir = %dir.display(), "generated an admission signing key");
            keys.push(key);
        }
        Ok(keys)
    })
}

/// Whether any of `keys` may sign.
pub fn signs(keys: &[KeyMaterial]) -> bool {
    keys.iter().any(|k| k.pkcs8.is_some())
}

/// The keys in folder `dir` (none when it does not exist).
pub fn read_dir(dir: &Path, strictness: Strictness) -> io::Result<Vec<KeyMaterial>> {
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut keys = Vec::new();
    for entry in entries {
        let path: PathBuf = entry?.path();
        let (Some(kid), Some(ext)) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        let der = || -> io::Result<Vec<u8>> { unpem(&fs::read_to_string(&path)?, &path) };
        match ext {
            "key" => {
                devdata::check_private(&path, strictness)?;
                keys.push(KeyMaterial::from_pkcs8(kid.to_owned(), der()?)?);
            }
            "pub" => {
                let der = der()?;
                let public = der
                    .strip_prefix(&SPKI_ED25519_PREFIX[..])
                    .and_then(|k| <[u8; 32]>::try_from(k).ok())
                    .ok_or_else(|| {
                        invalid(format!("{}: not an Ed25519 public key", path.display()))
                    })?;
                keys.push(KeyMaterial {
                    kid: kid.to_owned(),
                    pkcs8: None,
                    public,
                });
            }
            _ => {}
        }
    }
    // A kid with both files is one key.
    keys.sort_by(|a, b| {
        a.kid
            .cmp(&b.kid)
            .then(b.pkcs8.is_some().cmp(&a.pkcs8.is_some()))
    });
    keys.dedup_by(|a, b| a.kid == b.kid);
    Ok(keys)
}

fn pem(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> = body
        .as_bytes()
        .chunks(64)
        .map(|c| std::str::from_utf8(c).expect("base64 is ASCII"))
        .collect();
    format!(
        "-----BEGIN {label}-----\n{}\n-----END {label}-----\n",
        lines.join("\n")
    )
}

fn unpem(text: &str, path: &Path) -> io::Result<Vec<u8>> {
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect();
    STANDARD
        .decode(body)
        .map_err(|e| invalid(format!("{}: not PEM ({e})", path.display())))
}
