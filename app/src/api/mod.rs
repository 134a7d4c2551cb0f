//! How pages reach the data: the JSON API of API.md from the browser, the [`Backend`] trait
//! while rendering on the server. Every page goes through [`Api`], so a page has one code path
//! and the server has no second API for it.
//!
//! The calls by resource, as `wire/` has the types: `event` (the events and the event page's
//! start), `queue` (join, poll, moving a place), `holds` (the seat map, holds, checkout)
//! and `operator` (the admin API); `binding` says which calls carry a proof of the device.
//! The transport (one request code path in the WASM, `send`) is here.
//!
//! [`Backend`]: crate::backend::Backend

mod binding;
mod event;
mod holds;
mod operator;
mod passkey;
mod queue;

pub use binding::binds;

use serde::{Serialize, de::DeserializeOwned};

use crate::wire::ErrorBody;

#[cfg(feature = "ssr")]
use crate::backend::{PageBuyer, SessionRefused, SharedBackend};

/// A handle for one page's data calls. Take it with [`Api::current`] while the component runs
/// (synchronously), then move it into async blocks.
#[derive(Clone)]
pub struct Api {
    #[cfg(feature = "ssr")]
    backend: Option<SharedBackend>,
    /// The buyer of the request being rendered.
    #[cfg(feature = "ssr")]
    buyer: Option<String>,
    /// Why there is none, when the session limit refused one.
    #[cfg(feature = "ssr")]
    refused: Option<SessionRefused>,
    /// Where server rendering adds response headers (the admission cookie).
    #[cfg(feature = "ssr")]
    response: Option<leptos_axum::ResponseOptions>,
}

impl Api {
    pub fn current() -> Self {
        #[cfg(feature = "ssr")]
        {
            use leptos::prelude::use_context;
            let parts = use_context::<http::request::Parts>();
            let buyer = parts
                .as_ref()
                .and_then(|p| p.extensions.get::<PageBuyer>().map(|b| b.0.clone()));
            let refused = parts.and_then(|p| p.extensions.get::<SessionRefused>().copied());
            Self {
                backend: use_context::<SharedBackend>(),
                buyer,
                refused,
                response: use_context::<leptos_axum::ResponseOptions>(),
            }
        }
        #[cfg(not(feature = "ssr"))]
        Self {}
    }

    /// Why the page has no buyer: the session limit (then the answer is 429 with Retry-After,
    /// and the page says when to come back), or a store that did not answer (503).
    #[cfg(feature = "ssr")]
    fn no_buyer(&self) -> ErrorBody {
        let (status, retry_after_secs, body) = match self.refused {
            Some(SessionRefused::Limit { retry_after_secs }) => (
                http::StatusCode::TOO_MANY_REQUESTS,
                retry_after_secs,
                ErrorBody::new(
                    "rate_limited",
                    format!(
                        "Many visitors from your network arrived in the last minute, more than \
                         we take from one address, so we could not give you a place in line \
                         yet. Please come back in {retry_after_secs} seconds and reload this \
                         page."
                    ),
                ),
            ),
            // The middleware names a buyer or a refusal for every page; without either, what
            // failed was ours.
            Some(SessionRefused::Unavailable) | None => (
                http::StatusCode::SERVICE_UNAVAILABLE,
                RETRY_UNAVAILABLE_SECS,
                ErrorBody::new(
                    "unavailable",
                    format!(
                        "Part of Anteroom is not answering just now, so we could not give you \
                         a place in line. Please try again in {RETRY_UNAVAILABLE_SECS} seconds."
                    ),
                ),
            ),
        };
        if let Some(response) = &self.response {
            response.set_status(status);
            response.insert_header(http::header::RETRY_AFTER, retry_after_secs.into());
        }
        body
    }

    #[cfg(feature = "ssr")]
    fn backend(&self) -> Result<&SharedBackend, ErrorBody> {
        self.backend
            .as_ref()
            .ok_or_else(|| ErrorBody::new("internal", "no backend in the rendering context"))
    }
}

/// When a page that could not start a session (a store did not answer) tries again.
#[cfg(feature = "ssr")]
const RETRY_UNAVAILABLE_SECS: u64 = 5;

/// A call of the JSON API from the browser (the session and admission cookies go along), with
/// the extra `headers`; an error answer becomes its [`ErrorBody`], whose message is written
/// for people. Only the JSON is per type: the request itself is [`send`], once in the WASM
/// (each type's copy of it weighed in the buyer's download).
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn call<B: Serialize, T: DeserializeOwned>(
    method: &str,
    path: &str,
    body: Option<&B>,
    headers: &[(&str, String)],
) -> Result<T, ErrorBody> {
    let body = body
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| ErrorBody::new("internal", format!("A request we could not write: {e}")))?;
    let text = send(method, path, body, headers).await?;
    serde_json::from_str(if text.is_empty() { "null" } else { &text })
        .map_err(|e| ErrorBody::new("internal", format!("An answer we did not understand: {e}")))
}

/// The page's messages, from where the page says they are (`crate::lang`).
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
pub(crate) async fn words(path: &str) -> Result<crate::lang::Messages, ErrorBody> {
    call::<(), _>("GET", path, None, &[]).await
}

/// One request of the JSON API with its JSON `body`: the answer's text when it succeeded, else
/// its [`ErrorBody`].
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn send(
    method: &str,
    path: &str,
    body: Option<String>,
    headers: &[(&str, String)],
) -> Result<String, ErrorBody> {
    use gloo_net::http::{Method, RequestBuilder};
    let network = |e: gloo_net::Error| {
        ErrorBody::new(
            "network",
            format!(
                "We could not reach Anteroom ({e}). Check your connection; we will keep trying."
            ),
        )
    };
    let method = match method {
        "POST" => Method::POST,
        "DELETE" => Method::DELETE,
        "PUT" => Method::PUT,
        _ => Method::GET,
    };
    let mut builder = RequestBuilder::new(path).method(method);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = match body {
        Some(body) => builder
            .header("Content-Type", "application/json")
            .body(body)
            .map_err(network)?,
        None => builder.build().map_err(network)?,
    };
    // Browser futures are not `Send`; the page runs on one thread, which SendWrapper checks.
    send_wrapper::SendWrapper::new(async move {
        let resp = request.send().await.map_err(network)?;
        let text = resp.text().await.map_err(network)?;
        if resp.ok() {
            Ok(text)
        } else {
            Err(serde_json::from_str(&text).unwrap_or_else(|_| {
                ErrorBody::new("internal", format!("Anteroom answered {}", resp.status()))
            }))
        }
    })
    .await
}

/// While rendering on the server, the page reads through the backend; calls made by buttons
/// and timers happen only in the browser.
#[cfg(any(feature = "ssr", not(feature = "hydrate")))]
async fn call<B: Serialize, T: DeserializeOwned>(
    _method: &str,
    path: &str,
    _body: Option<&B>,
    _headers: &[(&str, String)],
) -> Result<T, ErrorBody> {
    Err(ErrorBody::new(
        "internal",
        format!("{path} is called from the browser only"),
    ))
}
