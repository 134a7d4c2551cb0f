//! The browser's half of a passkey ceremony: the server's options go to
//! `navigator.credentials.create` (enrol) or `.get` (sign in) through
//! `PublicKeyCredential.parse*OptionsFromJSON`, and the credential comes back as its
//! `toJSON()`. The browser checks the site (the relying party) and asks the person (user
//! verification); nothing here touches a key.

use crate::wire::ErrorBody;

/// Runs one ceremony: `create` (enrol) or not (sign in), with `options` as the server's
/// start answered them; the credential as JSON for the server's finish.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub async fn ceremony(
    create: bool,
    options: &serde_json::Value,
) -> Result<serde_json::Value, ErrorBody> {
    use js_sys::{Function, JSON, Object, Promise, Reflect};
    use wasm_bindgen::{JsCast, JsValue};

    let failed = |what: &str| ErrorBody::new("passkey", what.to_owned());
    let get = |target: &JsValue, name: &str| {
        Reflect::get(target, &JsValue::from_str(name))
            .ok()
            .filter(|v| !v.is_undefined())
    };
    let function = |target: &JsValue, name: &str| {
        get(target, name).and_then(|f| f.dyn_into::<Function>().ok())
    };
    let window: JsValue = web_sys::window()
        .ok_or_else(|| failed("This page has no window."))?
        .into();
    let no_passkeys = || failed("This browser cannot use passkeys. Try a current browser.");
    let credential_type = get(&window, "PublicKeyCredential").ok_or_else(no_passkeys)?;
    let parse = function(
        &credential_type,
        if create {
            "parseCreationOptionsFromJSON"
        } else {
            "parseRequestOptionsFromJSON"
        },
    )
    .ok_or_else(no_passkeys)?;
    let public_key = JSON::parse(&options["publicKey"].to_string())
        .map_err(|_| failed("The sign-in options did not read."))?;
    let public_key = parse
        .call1(&credential_type, &public_key)
        .map_err(|_| failed("The sign-in options did not read."))?;
    let request = Object::new();
    Reflect::set(&request, &JsValue::from_str("publicKey"), &public_key)
        .map_err(|_| failed("The sign-in options did not read."))?;
    let credentials = get(&window, "navigator")
        .and_then(|n| get(&n, "credentials"))
        .ok_or_else(no_passkeys)?;
    let ask =
        function(&credentials, if create { "create" } else { "get" }).ok_or_else(no_passkeys)?;
    let promise: Promise = ask
        .call1(&credentials, &request)
        .ok()
        .and_then(|p| p.dyn_into().ok())
        .ok_or_else(no_passkeys)?;
    let credential = wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|_| failed("The passkey was not used (cancelled, or none for this site)."))?;
    let json = function(&credential, "toJSON")
        .and_then(|to_json| to_json.call0(&credential).ok())
        .and_then(|json| JSON::stringify(&json).ok())
        .and_then(|text| text.as_string())
        .ok_or_else(no_passkeys)?;
    serde_json::from_str(&json).map_err(|_| failed("The passkey's answer did not read."))
}

/// On the server there is no authenticator.
#[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
pub async fn ceremony(
    _create: bool,
    _options: &serde_json::Value,
) -> Result<serde_json::Value, ErrorBody> {
    Err(ErrorBody::new(
        "passkey",
        "Passkeys are used in the browser only.",
    ))
}
