//! Response headers that keep tokens where they belong.
//!
//! Invariant: an answer that carries a token (a session, an admission token, a place receipt,
//! the admin cookie; in its body, its cookies, or a page's hydration data) says
//! `Cache-Control: no-store`, so no browser or shared cache keeps it or hands it to the next
//! person.

use axum::{
    extract::{MatchedPath, Request},
    http::{HeaderValue, header},
    middleware::Next,
    response::Response,
};

/// The routes whose answers carry a token in their body.
const TOKEN_ROUTES: [&str; 4] = [
    "/api/session",
    "/api/admin/session",
    "/api/events/{event_id}/queue",
    "/api/events/{event_id}/admission",
];

/// Middleware: `Cache-Control: no-store` on every answer that sets a cookie, every page (pages
/// are rendered for one buyer and may carry their admission token), and every answer of a
/// route that hands out tokens.
pub async fn no_store(req: Request, next: Next) -> Response {
    let token_route = req
        .extensions()
        .get::<MatchedPath>()
        .is_some_and(|p| TOKEN_ROUTES.contains(&p.as_str()));
    let mut response = next.run(req).await;
    let headers = response.headers();
    let page = headers
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/html"));
    if token_route || page || headers.contains_key(header::SET_COOKIE) {
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}
