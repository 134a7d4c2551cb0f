//! Request extractors whose refusals are JSON errors of API.md (axum's own answer in plain
//! text): bodies above the limit are 413, malformed JSON 400, well-formed JSON of the wrong
//! shape (a wrong type, an unknown field) 422; a path id that cannot name anything (too long,
//! a character no id has, a NUL) is 404 before any query sees it. A body is read in full
//! before the handler runs, within a deadline ([`buffer_body`], called by the shedding gate).

use std::{collections::HashMap, time::Duration};

use axum::{
    body::{Body, Bytes},
    extract::{FromRequest, FromRequestParts, Path, Request, rejection::BytesRejection},
    http::{HeaderMap, StatusCode, header, request::Parts},
};
use serde::de::DeserializeOwned;

use crate::error::Error;

/// The largest request body read (API.md): above it, 413 and nothing further is read.
pub const BODY_LIMIT_BYTES: usize = 1 << 20;

/// `req` with its body read in full, within `deadline` (408 after it) and up to
/// [`BODY_LIMIT_BYTES`] (413 above it). tower-http's `RequestBodyTimeout` would not do: its
/// clock restarts with every frame, so a body trickled a byte at a time never ends.
pub async fn buffer_body(req: Request, deadline: Duration) -> Result<Request, Error> {
    // Most requests of the line (polls, and joins without a body) carry none: nothing to
    // read, so no timer and no buffer on the hot path.
    if axum::body::HttpBody::is_end_stream(req.body()) {
        return Ok(req);
    }
    let (parts, body) = req.into_parts();
    let read = tokio::time::timeout(deadline, axum::body::to_bytes(body, BODY_LIMIT_BYTES));
    let bytes = read
        .await
        .map_err(|_| Error::RequestTimeout)?
        .map_err(|e| {
            let inner = e.into_inner();
            let too_large =
                std::iter::successors(Some(&*inner as &(dyn std::error::Error + 'static)), |e| {
                    e.source()
                })
                .any(|e| e.is::<http_body_util::LengthLimitError>());
            if too_large {
                Error::PayloadTooLarge
            } else {
                Error::BadRequest(format!("could not read the body: {inner}"))
            }
        })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// A JSON body. An empty body reads as `{}` when `T` allows it, for clients that send none.
pub struct ApiJson<T>(pub T);

impl<T, S> FromRequest<S> for ApiJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let json_type = req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(|v| {
                v.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .eq_ignore_ascii_case("application/json")
            });
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(body_rejection)?;
        if bytes.is_empty() {
            return parse(b"{}");
        }
        if json_type == Some(false) {
            return Err(Error::BadRequest(
                "send the body as JSON with Content-Type: application/json".into(),
            ));
        }
        parse(&bytes)
    }
}

/// Whether `id` can name an event at all; anything else is answered 404 without a query.
pub fn is_event_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The `{event_id}` of the path: 1 to 64 of `[a-z0-9-]` ([`is_event_id`]), else 404.
pub struct EventId(pub String);

/// The `{hold_id}` of the path: 1 to 64 URL-safe base64 characters, else 404.
pub struct HoldId(pub app::wire::HoldId);

/// The path parameter `name` when `valid` accepts it; otherwise 404 "there is no such `what`".
async fn path_id<S: Send + Sync>(
    parts: &mut Parts,
    state: &S,
    name: &str,
    valid: fn(&str) -> bool,
    what: &str,
) -> Result<String, Error> {
    let not_found = || Error::NotFound(format!("there is no such {what}"));
    let Path(params) = Path::<HashMap<String, String>>::from_request_parts(parts, state)
        .await
        .map_err(|_| not_found())?;
    params
        .get(name)
        .filter(|id| valid(id))
        .cloned()
        .ok_or_else(not_found)
}

fn is_hold_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl<S: Send + Sync> FromRequestParts<S> for EventId {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        path_id(parts, state, "event_id", is_event_id, "event")
            .await
            .map(EventId)
    }
}

impl<S: Send + Sync> FromRequestParts<S> for HoldId {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        path_id(parts, state, "hold_id", is_hold_id, "hold")
            .await
            .map(|id| HoldId(id.into()))
    }
}

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<ApiJson<T>, Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = deserialize(&mut de)?;
    de.end()
        .map_err(|e| Error::BadRequest(format!("the body is not valid JSON: {e}")))?;
    Ok(ApiJson(value))
}

fn deserialize<'de, T: DeserializeOwned>(
    de: &mut serde_json::Deserializer<serde_json::de::SliceRead<'de>>,
) -> Result<T, Error> {
    T::deserialize(de).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => Error::Unprocessable(format!("invalid body: {e}")),
        _ => Error::BadRequest(format!("the body is not valid JSON: {e}")),
    })
}

fn body_rejection(rejection: BytesRejection) -> Error {
    if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
        Error::PayloadTooLarge
    } else {
        Error::BadRequest(format!("could not read the body: {rejection}"))
    }
}

/// Whether a browser says this request comes from a page of another site: `Sec-Fetch-Site`
/// other than same-origin or none, or an `Origin` that is not this host. An app (neither
/// header) is not. The page's forms and the JSON claim of a place refuse such requests.
pub fn cross_site(headers: &HeaderMap) -> bool {
    let fetch_site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if fetch_site.is_some_and(|site| site != "same-origin" && site != "none") {
        return true;
    }
    // Browsers send `Origin` with every form post: it must name this host.
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok());
    match headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) {
        None => false,
        Some(origin) => {
            let named = origin
                .split_once("://")
                .map_or(origin, |(_, rest)| rest)
                .trim_end_matches('/');
            Some(named) != host
        }
    }
}

/// The `{event_id}` path parameter, as every operation of an event declares it in the API's
/// document (`crate::openapi`): here, beside the id's extractor, so that the capabilities that
/// declare it import nothing of the document that lists them.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Path)]
#[allow(dead_code)]
pub struct EventPath {
    /// The event's id: a-z, 0-9 and -, 1 to 64 characters.
    #[param(example = "demo")]
    event_id: String,
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    #[test]
    fn a_post_that_says_it_is_from_elsewhere_is_cross_site() {
        let headers = |pairs: &[(&'static str, &'static str)]| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static("tickets.example"));
            for (k, v) in pairs {
                h.insert(*k, HeaderValue::from_static(v));
            }
            h
        };
        assert!(!cross_site(&headers(&[])));
        assert!(!cross_site(&headers(&[
            ("sec-fetch-site", "same-origin"),
            ("origin", "https://tickets.example")
        ])));
        assert!(cross_site(&headers(&[("sec-fetch-site", "cross-site")])));
        assert!(cross_site(&headers(&[("sec-fetch-site", "same-site")])));
        assert!(cross_site(&headers(&[("origin", "https://evil.example")])));
        assert!(cross_site(&headers(&[("origin", "null")])));
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Shape {
        #[expect(dead_code)]
        n: u32,
    }

    #[test]
    fn syntax_errors_are_400_and_shape_errors_422() {
        assert!(matches!(
            parse::<Shape>(b"{\"n\": "),
            Err(Error::BadRequest(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": -1}"),
            Err(Error::Unprocessable(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": 1, \"x\": 2}"),
            Err(Error::Unprocessable(_))
        ));
        assert!(matches!(
            parse::<Shape>(b"{\"n\": 1} trailing"),
            Err(Error::BadRequest(_))
        ));
        assert!(parse::<Shape>(b"{\"n\": 1}").is_ok());
    }

    proptest::proptest! {
        /// Any bytes at all: a value, or a 400 / 422, never a panic or another error.
        #[test]
        fn any_body_is_a_value_or_a_400_or_422(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
            let outcome = parse::<app::wire::HoldRequest>(&bytes);
            proptest::prop_assert!(matches!(
                outcome,
                Ok(_) | Err(Error::BadRequest(_)) | Err(Error::Unprocessable(_))
            ));
        }
    }
}
