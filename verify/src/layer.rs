//! [`VerifyLayer`]: a tower layer that lets through only requests that carry a token the
//! [`Verifier`] accepts, and hands the token's [`Claims`] to what it wraps (axum: an
//! `Extension<Claims>` argument).
//!
//! The token is read from, in this order: `Authorization: Bearer <token>` (or `DPoP <token>`,
//! RFC 9449's scheme for bound tokens), the `Admission-Token` header (what Anteroom's own API
//! reads), and the configured cookies. A bound token also needs its `DPoP` proof, made for the
//! URL the client used: the configured public URL and the request's path (behind a proxy the
//! `Host` seen here may not be the client's), else the request's own scheme (or
//! `X-Forwarded-Proto`) and host.
//!
//! A request without a token, or with one that does not verify, is answered `401` with
//! `{"error": "not_admitted", "message", "queue_url"?}` (API.md "Errors"), or `303` to the
//! queue for a browser when so configured; a token that could not be judged because the keys
//! are unavailable is answered `503 {"error": "unavailable"}` with `Retry-After`. The wrapped
//! service never sees such a request.

use std::{
    future::Future,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
};

use http::{HeaderMap, HeaderValue, Request, Response, StatusCode, header};
use serde_json::json;
use tower_layer::Layer;
use tower_service::Service;

use crate::{Claims, Error, Verifier, dpop::ProofRequest};

/// The header Anteroom's API reads an admission token from.
pub const ADMISSION_TOKEN_HEADER: &str = "Admission-Token";

/// Wraps a service so that it only sees admitted requests. See the module documentation.
///
/// With axum, put it on the routes to protect with `route_layer` (or `layer` on a router that
/// is merged, not nested: in a nested router the path seen is the nested one, and a bound
/// token's proof names the full path):
///
/// ```no_run
/// use anteroom_verify::{Claims, Verifier, VerifyLayer};
/// use axum::{Extension, Json, Router, routing::get};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let verifier = Verifier::builder("https://anteroom.example/.well-known/jwks.json")
///     .audience("anteroom")
///     .build()?;
/// let app: Router = Router::new()
///     .route("/api/whoami", get(|Extension(claims): Extension<Claims>| async { Json(claims) }))
///     .route_layer(
///         VerifyLayer::new(verifier)
///             .public_url("https://shop.example")
///             .cookie("anteroom_admission_e-2026")
///             .queue_url("https://anteroom.example/events/e-2026"),
///     );
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8089").await?;
/// axum::serve(listener, app).await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct VerifyLayer {
    verifier: Verifier,
    /// Behind an `Arc`: the layer is cloned into every service it makes, often one per
    /// connection.
    settings: Arc<Settings>,
}

#[derive(Clone, Debug, Default)]
struct Settings {
    /// Names of the cookies a token may come in, tried in order.
    cookies: Vec<String>,
    /// Scheme and authority the clients use (no trailing slash), for a proof's `htu`.
    public_url: Option<String>,
    /// Where a refused buyer should go: put in the refusal, and the target of the redirect.
    queue_url: Option<String>,
    /// Whether a browser (`Accept: text/html`) is sent to `queue_url` rather than answered 401.
    redirect_browsers: bool,
}

impl VerifyLayer {
    /// A layer that verifies with `verifier`, reading tokens from the `Authorization` and
    /// `Admission-Token` headers only, with no queue URL.
    pub fn new(verifier: Verifier) -> Self {
        Self {
            verifier,
            settings: Arc::default(),
        }
    }

    fn with(mut self, change: impl FnOnce(&mut Settings)) -> Self {
        change(Arc::make_mut(&mut self.settings));
        self
    }

    /// Also reads the token from the cookie `name` (Anteroom names its admission cookie
    /// `anteroom_admission_<event id>`, on its own host). Call it once per cookie.
    pub fn cookie(self, name: impl Into<String>) -> Self {
        let name = name.into();
        self.with(|s| s.cookies.push(name))
    }

    /// The scheme and authority clients send requests to, e.g. `https://shop.example`: a
    /// bound token's proof must name it and the request's path. Without it, the request's
    /// own scheme (or `X-Forwarded-Proto`) and `Host` are used.
    pub fn public_url(self, url: impl Into<String>) -> Self {
        let url = url.into().trim_end_matches('/').to_owned();
        self.with(|s| s.public_url = Some(url))
    }

    /// Where a refused buyer can queue, e.g. the event's page at Anteroom: put in every
    /// refusal as `queue_url`.
    pub fn queue_url(self, url: impl Into<String>) -> Self {
        let url = url.into();
        self.with(|s| s.queue_url = Some(url))
    }

    /// Whether a refused browser request (one whose `Accept` names `text/html`) is answered
    /// `303 See Other` to the queue URL instead of `401`. Off by default; needs a queue URL.
    pub fn redirect_browsers(self, redirect: bool) -> Self {
        self.with(|s| s.redirect_browsers = redirect)
    }
}

impl<S> Layer<S> for VerifyLayer {
    type Service = VerifyService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        VerifyService {
            inner,
            layer: self.clone(),
        }
    }
}

/// The service [`VerifyLayer`] makes.
#[derive(Clone, Debug)]
pub struct VerifyService<S> {
    inner: S,
    layer: VerifyLayer,
}

/// What is read of a request before it is judged (owned, so that the request itself need not
/// be shared across the await).
struct Presented {
    token: Option<String>,
    method: String,
    url: Option<String>,
    proof: Option<String>,
    browser: bool,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for VerifyService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    ReqBody: Send + 'static,
    ResBody: From<String>,
{
    type Response = Response<ResBody>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<ReqBody>) -> Self::Future {
        // The clone that was made ready is the one that serves this request (tower's rule);
        // the copy stays for the next call.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let layer = self.layer.clone();
        let presented = layer.read(&request);
        Box::pin(async move {
            match layer.judge(&presented).await {
                Ok(claims) => {
                    request.extensions_mut().insert(claims);
                    inner.call(request).await
                }
                Err(refusal) => Ok(layer.refuse(&presented, &refusal)),
            }
        })
    }
}

impl VerifyLayer {
    fn read<B>(&self, request: &Request<B>) -> Presented {
        let headers = request.headers();
        Presented {
            token: token(headers, &self.settings.cookies),
            method: request.method().as_str().to_owned(),
            url: self.request_url(request),
            proof: text(headers, crate::dpop::HEADER).map(str::to_owned),
            browser: text(headers, header::ACCEPT.as_str())
                .is_some_and(|accept| accept.contains("text/html")),
        }
    }

    /// The URL the client sent `request` to, for a proof's `htu`.
    fn request_url<B>(&self, request: &Request<B>) -> Option<String> {
        let path = request.uri().path();
        if let Some(public) = &self.settings.public_url {
            return Some(format!("{public}{path}"));
        }
        let headers = request.headers();
        let scheme = request
            .uri()
            .scheme_str()
            .or_else(|| text(headers, "x-forwarded-proto"))
            .unwrap_or("http");
        let host = request
            .uri()
            .authority()
            .map(|a| a.as_str())
            .or_else(|| text(headers, header::HOST.as_str()))?;
        Some(format!("{scheme}://{host}{path}"))
    }

    async fn judge(&self, presented: &Presented) -> Result<Claims, Refusal> {
        let token = presented.token.as_deref().ok_or(Refusal::NoToken)?;
        let request = ProofRequest {
            method: &presented.method,
            url: presented.url.as_deref().unwrap_or_default(),
            proof: presented.proof.as_deref(),
        };
        self.verifier
            .verify_request(token, &request)
            .await
            .map_err(Refusal::Refused)
    }

    fn refuse<B: From<String>>(&self, presented: &Presented, refusal: &Refusal) -> Response<B> {
        let queue_url = self.settings.queue_url.as_deref();
        let (status, body) = match refusal {
            Refusal::Refused(error) if error.is_unavailable() => {
                tracing::warn!(%error, "a token could not be judged");
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    json!({"error": "unavailable", "message": "admissions cannot be checked right now; try again shortly"}),
                )
            }
            _ => {
                tracing::debug!(reason = %refusal, "refused a request");
                let mut body = json!({"error": "not_admitted", "message": refusal.to_string()});
                if let Some(url) = queue_url {
                    body["queue_url"] = url.into();
                }
                (StatusCode::UNAUTHORIZED, body)
            }
        };
        let mut response = Response::new(B::from(body.to_string()));
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        if status == StatusCode::SERVICE_UNAVAILABLE {
            headers.insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
        } else {
            let challenge = match refusal {
                Refusal::NoToken => "Bearer",
                Refusal::Refused(_) => "Bearer error=\"invalid_token\"",
            };
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static(challenge),
            );
        }
        let redirect = queue_url
            .filter(|_| self.settings.redirect_browsers && presented.browser)
            .filter(|_| status == StatusCode::UNAUTHORIZED)
            .and_then(|url| HeaderValue::from_str(url).ok());
        *response.status_mut() = match redirect {
            Some(location) => {
                headers.insert(header::LOCATION, location);
                StatusCode::SEE_OTHER
            }
            None => status,
        };
        response
    }
}

/// Why a request was not let through.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("this request needs an admission token from the waiting room")]
    NoToken,
    #[error("{0}")]
    Refused(Error),
}

/// The value of header `name` if it is text.
fn text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The token a request presents: `Authorization: Bearer`/`DPoP`, `Admission-Token`, then the
/// first of `cookies` it carries.
fn token(headers: &HeaderMap, cookies: &[String]) -> Option<String> {
    let from_authorization = text(headers, header::AUTHORIZATION.as_str())
        .and_then(|value| value.trim().split_once(' '))
        .filter(|(scheme, _)| {
            scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop")
        })
        .map(|(_, token)| token.trim());
    let from_header = || text(headers, ADMISSION_TOKEN_HEADER).map(str::trim);
    let from_cookie = || {
        cookies.iter().find_map(|wanted| {
            headers
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|line| line.split(';'))
                .filter_map(|pair| pair.trim().split_once('='))
                .find(|(name, _)| name == wanted)
                .map(|(_, value)| value.trim_matches('"'))
        })
    };
    from_authorization
        .or_else(from_header)
        .or_else(from_cookie)
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn the_token_is_read_from_authorization_then_admission_token_then_cookies() {
        let cookies = ["a".to_owned(), "anteroom_admission_e".to_owned()];
        let read = |pairs: &[(&'static str, &str)]| token(&headers(pairs), &cookies);
        assert_eq!(
            read(&[("authorization", "Bearer t1"), ("admission-token", "t2")]),
            Some("t1".into())
        );
        assert_eq!(read(&[("authorization", "DPoP t1")]), Some("t1".into()));
        assert_eq!(
            read(&[("authorization", "Basic xyz"), ("admission-token", "t2")]),
            Some("t2".into())
        );
        assert_eq!(
            read(&[
                ("cookie", "other=1; anteroom_admission_e=t3"),
                ("cookie", "a=t4")
            ]),
            Some("t4".into()),
            "cookies are tried in the order configured"
        );
        assert_eq!(
            read(&[("cookie", "anteroom_admission_e=t3")]),
            Some("t3".into())
        );
        assert_eq!(read(&[("cookie", "b=t5")]), None);
        assert_eq!(read(&[("authorization", "Bearer ")]), None);
        assert_eq!(read(&[]), None);
    }

    #[test]
    fn the_request_url_is_the_public_one_when_configured() {
        let verifier = Verifier::builder("http://127.0.0.1:1/jwks")
            .audience("a")
            .build()
            .unwrap();
        let request = Request::builder()
            .uri("/api/seats?x=1")
            .header("host", "10.0.0.5:8089")
            .body(())
            .unwrap();
        let plain = VerifyLayer::new(verifier.clone());
        assert_eq!(
            plain.request_url(&request).as_deref(),
            Some("http://10.0.0.5:8089/api/seats")
        );
        let public = VerifyLayer::new(verifier).public_url("https://shop.example/");
        assert_eq!(
            public.request_url(&request).as_deref(),
            Some("https://shop.example/api/seats")
        );
    }
}
