//! The browser's sign-in at the OpenID provider (API.md "Accounts"): `GET /auth/sign-in`
//! sends the browser to the provider, `GET /auth/callback` ties the session to the account and
//! sends it back where it came from. Redirects only, so it works without JavaScript.
//! Invariants: the return address is a path on this site (never another site: no open
//! redirect); the callback accepts only the state it signed into the sign-in cookie, within
//! [`SIGN_IN_TTL_SECS`]; a refusal or a provider that is down answers a page that says so and
//! offers to try again, and changes no session.

use app::{
    lang::Words,
    wire::{BuyerId, EventId},
    words::escape_html as escape,
};
use axum::{
    Router,
    extract::{RawQuery, State},
    http::{HeaderMap, HeaderValue, StatusCode, Uri, header},
    response::{Html, IntoResponse, Response},
    routing::get,
};
use serde::{Deserialize, Serialize};

use crate::{
    client::Client,
    config::Config,
    error::Error,
    extract::is_event_id,
    ratelimit,
    responses::{SignInCallback, SignInStart},
    tokens::{
        Sessions,
        cookies::{self, Cookie, SIGN_IN_COOKIE, SIGN_IN_TTL_SECS},
        state::Tokens,
    },
};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/auth/sign-in", get(sign_in))
        .route("/auth/callback", get(callback))
}

/// What the sign-in cookie carries from the start to the callback.
/// (The operators' sign-in, `operators::oidc`, carries the same under a purpose of its own.)
#[derive(Serialize, Deserialize)]
pub struct Pending {
    /// The `state` sent to the provider.
    pub csrf: String,
    pub nonce: String,
    pub verifier: String,
    /// Where the browser goes back to.
    pub back: String,
    /// The callback address the provider was given.
    pub redirect: String,
    /// When the sign-in expires (unix seconds).
    pub exp: i64,
}

impl Pending {
    /// A sign-in `started` that comes back to `redirect`, then goes on to `back`.
    pub fn new(started: super::oidc::Started, redirect: String, back: String) -> Self {
        Pending {
            csrf: started.csrf,
            nonce: started.nonce,
            verifier: started.verifier,
            back,
            redirect,
            exp: chrono::Utc::now().timestamp() + SIGN_IN_TTL_SECS as i64,
        }
    }

    /// The browser sent to the provider's `url`, with this pending sign-in signed under
    /// `purpose` in the sign-in cookie `cookie` makes (the buyer's or the operator's).
    pub fn send(
        &self,
        url: &str,
        sessions: &Sessions,
        config: &Config,
        purpose: &str,
        cookie: fn(&str) -> Cookie<'_>,
    ) -> Response {
        let signed = sign(sessions, purpose, self);
        let mut response = see_other(url);
        cookie(&signed).set(config, response.headers_mut());
        response
    }

    /// The pending sign-in signed as `value` under `purpose`, if the callback's query `raw`
    /// names its state and it has not expired.
    pub fn matching(
        sessions: &Sessions,
        purpose: &str,
        value: Option<&str>,
        raw: &Option<String>,
    ) -> Option<Self> {
        value
            .and_then(|v| unsign(sessions, purpose, v))
            .filter(|p| p.exp > chrono::Utc::now().timestamp())
            .filter(|p| query(raw, "state").as_deref() == Some(p.csrf.as_str()))
    }
}

/// The purpose the sign-in cookie is signed for.
const PURPOSE: &str = "anteroom-sign-in";

/// The longest return path kept.
const MAX_RETURN: usize = 512;

/// `path` if it is a path on this site: `/` and then not another `/` or `\` (a browser reads
/// `//host` and `/\host` as another site), no control characters, not too long.
pub fn local_path(path: &str) -> Option<&str> {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && path.len() <= MAX_RETURN
        && !path.chars().any(|c| c.is_control() || c == '\\');
    ok.then_some(path)
}

fn query(raw: &Option<String>, name: &str) -> Option<String> {
    form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// This Anteroom's callback address: the configured public URL's, else (development) the one
/// the browser reached us at.
fn callback_url(state: &Tokens, headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    format!("{}/auth/callback", state.config.public_base(host))
}

/// `GET /auth/sign-in?event=<id>&return=<path>`.
#[utoipa::path(
    get,
    path = "/auth/sign-in",
    tag = "session",
    summary = "Start a buyer's OpenID Connect sign-in (a redirect)",
    params(("event" = Option<String>, Query, description = "The event to go back to"), ("return" = Option<String>, Query, description = "A path on this site to go back to")),
    responses(
        (status = 303, description = "To the provider"),
        (status = 400, description = "A bad return path", content_type = "text/html"),
        SignInStart,
    )
)]
async fn sign_in(
    State(state): State<Tokens>,
    client: Client,
    uri: Uri,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let words = Words::of(state.page_language(&uri, &headers).0);
    let event = query(&raw, "event").filter(|e| is_event_id(e));
    let back = query(&raw, "return")
        .and_then(|r| local_path(&r).map(str::to_owned))
        .or_else(|| event.as_ref().map(|e| format!("/events/{e}")))
        .unwrap_or_else(|| "/".into());
    let Some(provider) = &state.accounts.provider else {
        return page(
            &words,
            StatusCode::NOT_FOUND,
            (
                &words.t("signin-not-set-up-title"),
                &words.t("signin-not-set-up"),
            ),
            &back,
            None,
        );
    };
    if let Err(e) = ratelimit::check(
        &state,
        "sign-in",
        &client.address(),
        state.config.sessions_per_minute,
        std::time::Duration::from_secs(60),
    )
    .await
    {
        return e.into_response();
    }
    let redirect = callback_url(&state, &headers);
    let started = match provider.start(&redirect).await {
        Ok(started) => started,
        Err(e) => return refused(&words, &e, &back, raw.as_deref()),
    };
    let url = started.url.clone();
    Pending::new(started, redirect, back).send(
        &url,
        &state.sessions,
        &state.config,
        PURPOSE,
        |state| Cookie::SignIn { state },
    )
}

/// `GET /auth/callback?code=..&state=..` (or `?error=..` when the buyer cancelled).
#[utoipa::path(
    get,
    path = "/auth/callback",
    tag = "session",
    summary = "End a buyer's OpenID Connect sign-in: ties the session to the account (a redirect)",
    responses(
        (status = 303, description = "Back to the page"),
        SignInCallback,
    )
)]
async fn callback(
    State(state): State<Tokens>,
    client: Client,
    uri: Uri,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let words = Words::of(state.page_language(&uri, &headers).0);
    let pending = Pending::matching(
        &state.sessions,
        PURPOSE,
        cookies::read(&state.config, &headers, SIGN_IN_COOKIE),
        &raw,
    );
    let Some(pending) = pending else {
        return page(
            &words,
            StatusCode::BAD_REQUEST,
            (
                &words.t("signin-not-matched-title"),
                &words.t("signin-not-matched"),
            ),
            "/",
            None,
        );
    };
    let mut response = match query(&raw, "code") {
        // The buyer cancelled at the provider, or it refused: back where they were.
        None => see_other(&pending.back),
        Some(code) => match finish(&state, &client, &pending, &code).await {
            Ok(response) => response,
            Err(e) => refused(&words, &e, &pending.back, None),
        },
    };
    Cookie::SignedIn.set(&state.config, response.headers_mut());
    response
}

async fn finish(
    state: &Tokens,
    client: &Client,
    pending: &Pending,
    code: &str,
) -> Result<Response, Error> {
    let provider = state
        .accounts
        .provider
        .as_ref()
        .ok_or_else(|| Error::NotFound("no sign-in provider is configured".into()))?;
    ratelimit::check(
        state,
        "session",
        &client.address(),
        state.config.sessions_per_minute,
        std::time::Duration::from_secs(60),
    )
    .await?;
    let account = provider
        .finish(code, &pending.redirect, &pending.nonce, &pending.verifier)
        .await?;
    let created = state.sessions.issue_account(&account);
    let mut response = see_other(&pending.back);
    Cookie::Session {
        token: &created.token,
    }
    .set(&state.config, response.headers_mut());
    Ok(response)
}

/// `pending` signed for its cookie under `purpose`.
pub fn sign(sessions: &Sessions, purpose: &str, pending: &Pending) -> String {
    use base64::Engine;
    let json = serde_json::to_vec(pending).expect("strings serialize");
    let fields = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(json);
    sessions.sign_for(purpose, &BuyerId::from(""), &EventId::from(""), &fields)
}

fn unsign(sessions: &Sessions, purpose: &str, value: &str) -> Option<Pending> {
    use base64::Engine;
    let fields = sessions.signed_fields(purpose, &BuyerId::from(""), &EventId::from(""), value)?;
    let json = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(fields)
        .ok()?;
    serde_json::from_slice(&json).ok()
}

pub fn see_other(location: &str) -> Response {
    match HeaderValue::from_str(location) {
        Ok(location) => (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response(),
        Err(_) => Error::Internal("a redirect to an unwritable address".into()).into_response(),
    }
}

/// The page of a sign-in that did not go through: why, a way back, and a way to try again.
fn refused(words: &Words, e: &Error, back: &str, retry_query: Option<&str>) -> Response {
    let retry = match retry_query {
        Some(q) => format!("/auth/sign-in?{q}"),
        None => format!("/auth/sign-in?return={}", urlencode(back)),
    };
    // The error's own message is for the logs: the page says what the buyer can do.
    tracing::info!(error = %e, "a sign-in did not go through");
    let (title, message) = match e.status_code() {
        StatusCode::SERVICE_UNAVAILABLE => (
            words.t("signin-unavailable-title"),
            words.t("signin-unavailable"),
        ),
        StatusCode::TOO_MANY_REQUESTS => (
            words.t("signin-too-many-title"),
            words.t("error-rate-limited"),
        ),
        _ => (words.t("signin-failed-title"), words.t("signin-failed")),
    };
    page(
        words,
        e.status_code(),
        (&title, &message),
        back,
        Some(&retry),
    )
}

fn urlencode(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// A small HTML page in the buyer's language (the sign-in is a browser's navigation, not an
/// API call): its title and message, a way back, and a way to try again. The operators'
/// sign-in uses it too, in English (`operators::oidc`).
pub fn page(
    words: &Words,
    status: StatusCode,
    (title, message): (&str, &str),
    back: &str,
    retry: Option<&str>,
) -> Response {
    let retry = retry
        .map(|r| {
            format!(
                "<a href=\"{}\">{}</a> · ",
                escape(r),
                escape(&words.t("page-try-again"))
            )
        })
        .unwrap_or_default();
    let body = format!(
        "<!doctype html><html lang=\"{tag}\" dir=\"{dir}\"><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{t}</title><main><h1>{t}</h1><p>{m}</p><p>{retry}<a href=\"{b}\">{back}</a></p></main></html>",
        tag = words.lang.tag(),
        dir = words.lang.dir(),
        t = escape(title),
        m = escape(message),
        b = escape(back),
        back = escape(&words.t("signin-back")),
    );
    (status, Html(body)).into_response()
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(sign_in, callback))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_path_on_this_site_is_a_return_address() {
        for ok in ["/", "/events/ev_1", "/events/ev_1?x=1"] {
            assert_eq!(local_path(ok), Some(ok));
        }
        for bad in [
            "",
            "events",
            "//evil.example",
            "/\\evil.example",
            "/a\\b",
            "https://evil.example/",
            "/a\nb",
            &format!("/{}", "a".repeat(600)),
        ] {
            assert_eq!(local_path(bad), None, "{bad:?}");
        }
    }
}
