//! Verify, in a ticketer's own services, the tokens Anteroom (a virtual waiting room for
//! ticket sales) gives the buyers it admits.
//!
//! Anteroom signs two kinds of JWT with its admission keys, which it publishes at
//! `GET {anteroom}/.well-known/jwks.json` (Ed25519, `alg: EdDSA`, each with a `kid`):
//! - **admission tokens**: `sub` (the buyer), `evt` (the event), `aud` (the deployment's
//!   audience, `anteroom` unless configured), `iat`, `exp`, `jti`, `epc` (the room's epoch),
//!   and in a room that binds tokens to the device, `cnf.jkt`;
//! - **hand-over tokens**, which send an admitted buyer to the ticketer's site as
//!   `?anteroom_token=<JWT>`: the same claims with `aud` = the site's origin, a life of 60 s,
//!   and `until`, when the buyer's admission ends.
//!
//! This crate gives:
//! - [`Verifier`]: fetches and caches the keys (refetching on an unknown `kid`, at most once
//!   per interval however many tokens ask, and when `Cache-Control: max-age` runs out), pins
//!   each key to its algorithm, checks the signature, audience, expiry and event, and returns
//!   typed [`Claims`]; for a bound token, the request's DPoP proof ([`dpop`]).
//! - [`VerifyLayer`]: a tower layer for axum and hyper that lets through only requests with
//!   an accepted token and hands the [`Claims`] to the handler as a request extension.
//!
//! # Example
//!
//! A token signed with a key served from a JWKS on this machine, as Anteroom serves its own:
//!
//! ```
//! use anteroom_verify::{Error, Verifier};
//! use axum::{Json, Router, routing::get};
//! use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
//! use jsonwebtoken::{Algorithm, EncodingKey, Header};
//! use ring::signature::{Ed25519KeyPair, KeyPair};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The key Anteroom would sign with, and its JWKS on a local port.
//! let pkcs8 = Ed25519KeyPair::generate_pkcs8(&ring::rand::SystemRandom::new())?;
//! let public = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref())?.public_key().as_ref().to_vec();
//! let jwks = json!({"keys": [{
//!     "kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig",
//!     "kid": "2026-key", "x": URL_SAFE_NO_PAD.encode(&public),
//! }]});
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let jwks_url = format!("http://{}/.well-known/jwks.json", listener.local_addr()?);
//! let app = Router::new().route("/.well-known/jwks.json", get(move || async move { Json(jwks) }));
//! tokio::spawn(async move { axum::serve(listener, app).await });
//!
//! // An admission token, as Anteroom signs one.
//! let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?.as_secs();
//! let mut header = Header::new(Algorithm::EdDSA);
//! header.kid = Some("2026-key".into());
//! let claims = json!({
//!     "sub": "buyer-1", "evt": "e-2026", "aud": "anteroom",
//!     "iat": now, "exp": now + 600, "jti": "t-1", "epc": 1,
//! });
//! let token = jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ed_der(pkcs8.as_ref()))?;
//!
//! let verifier = Verifier::builder(jwks_url)
//!     .audience("anteroom")
//!     .event("e-2026")
//!     .build()?;
//! let admitted = verifier.verify(&token).await?;
//! assert_eq!((admitted.sub.as_str(), admitted.epc), ("buyer-1", Some(1)));
//!
//! // One character changed in the claims, and the signature no longer holds.
//! let mut tampered = token.clone().into_bytes();
//! let middle = token.find('.').unwrap() + 5;
//! tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
//! let tampered = String::from_utf8(tampered)?;
//! assert_eq!(verifier.verify(&tampered).await, Err(Error::Signature));
//! # Ok(())
//! # }
//! ```
//!

pub mod claims;
pub mod dpop;
pub mod error;
mod jwks;
pub mod layer;
pub mod verifier;

pub use claims::{Claims, Confirmation};
pub use error::{BuildError, Error};
pub use layer::{VerifyLayer, VerifyService};
pub use verifier::{Verifier, VerifierBuilder};
