//! The browser's device key, for rooms that bind admission tokens to the device (API.md
//! "Tokens bound to the device"): a P-256 key made with WebCrypto that signs the DPoP proofs
//! (RFC 9449) of this browser's joins, polls, claims, seat maps and holds, in the shapes of
//! [`crate::dpop`].
//!
//! Invariants:
//! - The private key never leaves WebCrypto: it is made non-extractable, and what IndexedDB
//!   keeps (database `anteroom`, store `keys`, key `device`) is the `CryptoKeyPair` itself, a
//!   structured clone, never its bytes. Page script can sign with it; nobody can copy it.
//! - One key per browser profile and site, the same across reloads and tabs: it is read from
//!   IndexedDB once per page, made only when none is kept, and cached for the page. Two first
//!   uses that race in one page (or two tabs) settle on the key kept first: it is added, never
//!   overwritten, and read back when adding fails.
//! - Where IndexedDB fails but WebCrypto works (some private windows), the key lives in memory
//!   for the page's life only: a reload makes a new key, which the place bound to the old one
//!   refuses (403); the page says so.
//! - Without WebCrypto, or when it fails, every proof is the error `no_device_key`, which the
//!   page puts in the buyer's words by its code (`words::error_in_words`, message
//!   `needs-device`): the one sentence such a browser gets.
//! - A proof's `iat` is on the server's clock as the page last saw it ([`set_server_now`]), so
//!   a browser whose clock is minutes off still proves within the server's 60 s.

use std::{
    cell::{Cell, RefCell},
    rc::Rc,
};

use js_sys::{Array, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue, closure::Closure};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    CryptoKey, EcKeyGenParams, EcdsaParams, IdbDatabase, IdbRequest, IdbTransactionMode,
    SubtleCrypto, Window,
};

use crate::{
    dpop::{self, ProofClaims, ProofHeader, PublicJwk},
    wire::ErrorBody,
};

const DATABASE: &str = "anteroom";
const STORE: &str = "keys";
const ENTRY: &str = "device";

/// The error's `message`, API-style and English: the page shows the buyer its own sentence,
/// by the code.
const NO_DEVICE_KEY: &str = "This browser cannot make a device key (WebCrypto), which this \
                             sale needs to tie a place in line to the device that took it.";

/// The key of this page, ready to sign.
struct Device {
    /// Non-extractable: signs, never leaves the browser.
    private: CryptoKey,
    /// Every proof's header: the public JWK does not change.
    header: ProofHeader,
}

thread_local! {
    /// The key once loaded (the page runs on one thread).
    static DEVICE: RefCell<Option<Rc<Device>>> = const { RefCell::new(None) };
    /// Seconds the server's clock is ahead of this browser's.
    static SKEW: Cell<i64> = const { Cell::new(0) };
}

/// The server's clock as a page it rendered says (`server_now`, Unix seconds): proofs made from
/// now on date themselves by it.
pub fn set_server_now(server_now: i64) {
    SKEW.set(server_now - browser_now());
}

/// A fresh proof for a `method` request of `path` (this site's origin), bound to the admission
/// `token` if given: `no_device_key` when this browser cannot make one.
pub async fn proof(method: &str, path: &str, token: Option<&str>) -> Result<String, ErrorBody> {
    sign_proof(method, path, token)
        .await
        .map_err(|_| ErrorBody::new("no_device_key", NO_DEVICE_KEY))
}

async fn sign_proof(method: &str, path: &str, token: Option<&str>) -> Result<String, JsValue> {
    let window = web_sys::window().ok_or("no window")?;
    let crypto = window.crypto()?;
    let subtle = crypto.subtle();
    let device = device(&window, &subtle).await?;
    let mut jti = [0u8; 16];
    crypto.get_random_values_with_u8_array(&mut jti)?;
    let claims = ProofClaims {
        htm: method.to_owned(),
        htu: dpop::htu(&window.location().origin()?, path),
        iat: browser_now() + SKEW.get(),
        jti: dpop::b64(jti),
        ath: token.map(dpop::ath),
    };
    let input = dpop::signing_input(&device.header, &claims);
    let ecdsa = EcdsaParams::new_with_str("ECDSA", "SHA-256");
    let signed = subtle.sign_with_object_and_u8_array(&ecdsa, &device.private, input.as_bytes())?;
    // WebCrypto's ECDSA signature is the 64 bytes r || s that ES256 wants.
    let signature = Uint8Array::new(&JsFuture::from(signed).await?).to_vec();
    Ok(dpop::compact(&input, &signature))
}

fn browser_now() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// This page's key: cached, else kept in IndexedDB, else made (and kept if it can be).
async fn device(window: &Window, subtle: &SubtleCrypto) -> Result<Rc<Device>, JsValue> {
    if let Some(device) = DEVICE.with_borrow(Clone::clone) {
        return Ok(device);
    }
    let db = open(window).await.ok();
    let kept = match &db {
        Some(db) => read(db).await.ok().flatten(),
        None => None,
    };
    let pair = match kept {
        Some(pair) => pair,
        None => {
            let made = JsFuture::from(subtle.generate_key_with_object(
                &EcKeyGenParams::new("ECDSA", "P-256"),
                false,
                &Array::of1(&"sign".into()),
            )?)
            .await?;
            match &db {
                // Another tab or call kept one first: use that one.
                Some(db) if keep(db, &made).await.is_err() => {
                    read(db).await.ok().flatten().unwrap_or(made)
                }
                _ => made,
            }
        }
    };
    let key = |name: &str| Reflect::get(&pair, &name.into())?.dyn_into::<CryptoKey>();
    let private = key("privateKey")?;
    // A key pair's public half is always extractable.
    let jwk = JsFuture::from(subtle.export_key("jwk", &key("publicKey")?)?).await?;
    let member = |name: &str| {
        Reflect::get(&jwk, &name.into())?
            .as_string()
            .ok_or_else(|| JsValue::from_str("a JWK without x or y"))
    };
    let jwk = PublicJwk {
        kty: "EC".into(),
        crv: "P-256".into(),
        x: member("x")?,
        y: member("y")?,
    };
    let device = Rc::new(Device {
        private,
        header: ProofHeader::es256(jwk),
    });
    // A call that loaded the key meanwhile wins: one page signs with one key.
    Ok(DEVICE.with_borrow_mut(|cached| cached.get_or_insert(device).clone()))
}

/// The database, with its one store made on first use.
async fn open(window: &Window) -> Result<IdbDatabase, JsValue> {
    let request = window
        .indexed_db()?
        .ok_or("no IndexedDB")?
        .open_with_u32(DATABASE, 1)?;
    let opening = request.clone();
    // The store can be made only inside the upgrade's event, so in its handler.
    let upgrade = Closure::once_into_js(move || {
        if let Ok(db) = opening.result().and_then(JsCast::dyn_into::<IdbDatabase>) {
            let _ = db.create_object_store(STORE);
        }
    });
    request.set_onupgradeneeded(Some(upgrade.unchecked_ref()));
    done(&request).await?.dyn_into()
}

/// The kept key pair, if any.
async fn read(db: &IdbDatabase) -> Result<Option<JsValue>, JsValue> {
    let store = db.transaction_with_str(STORE)?.object_store(STORE)?;
    let found = done(&store.get(&ENTRY.into())?).await?;
    Ok((!found.is_undefined()).then_some(found))
}

/// Keeps `pair` unless a key is kept already (then an error).
async fn keep(db: &IdbDatabase, pair: &JsValue) -> Result<(), JsValue> {
    let store = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)?
        .object_store(STORE)?;
    done(&store.add_with_key(pair, &ENTRY.into())?)
        .await
        .map(drop)
}

/// The result of `request` once it succeeds (an IndexedDB request as a future).
async fn done(request: &IdbRequest) -> Result<JsValue, JsValue> {
    let settled = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    JsFuture::from(settled).await?;
    request.result()
}
