//! Response headers that keep tokens where they belong, and the site's files where they are
//! cheap.
//!
//! Invariants: an answer that carries a token (a session, an admission token, a place receipt,
//! the admin cookie; in its body, its cookies, or a page's hydration data) says
//! `Cache-Control: no-store`, so no browser or shared cache keeps it or hands it to the next
//! person. A built file under `/pkg/` whose name carries its content hash is cached for a year
//! (`immutable`: a new build has new names); one without a hash is revalidated each time. The
//! same holds for the operator's WASM chunks that `--split` writes beside the main one.

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
    let built_file = req.uri().path().strip_prefix("/pkg/").map(content_hashed);
    let mut response = next.run(req).await;
    if let Some(hashed) = built_file
        && response.status().is_success()
    {
        let policy = if hashed {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        response
            .headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(policy));
        return response;
    }
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

/// Whether a built file's name carries a content hash, as cargo-leptos writes it:
/// `anteroom.<hash>.wasm`, and for the split WASM `split_<route>.<hash>.wasm`,
/// `chunk_<n>.<hash>.wasm` and the loader `__wasm_split.<hash>.js`: the hash being at least 16
/// letters, digits, `-` or `_`. The loader's name before hashing holds 22 underscores in the
/// hash's place (`__wasm_split.______________________.js`); that is no hash.
fn content_hashed(name: &str) -> bool {
    let parts: Vec<&str> = name.split('.').collect();
    parts.len() >= 3
        && !name.contains('/')
        && parts[1..parts.len() - 1].iter().any(|p| {
            p.len() >= 16
                && p.bytes().any(|b| b != b'_')
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

#[cfg(test)]
mod tests {
    use super::content_hashed;

    #[test]
    fn only_names_with_a_content_hash_are_immutable() {
        assert!(content_hashed("anteroom.Xy3_kq9ZbT0aL1m2N4p5.wasm"));
        assert!(content_hashed("anteroom.Xy3_kq9ZbT0aL1m2N4p5.js"));
        assert!(!content_hashed("anteroom.wasm"));
        assert!(!content_hashed("anteroom_bg.wasm"));
        assert!(!content_hashed("anteroom.short.css"));
        assert!(!content_hashed("a/anteroom.Xy3_kq9ZbT0aL1m2N4p5.js"));
    }

    #[test]
    fn the_split_wasm_and_its_loader_are_immutable_once_hashed() {
        assert!(content_hashed(
            "split_operator_pages_view_12345678901234567.Xy3_kq9ZbT0aL1m2N4p5.wasm"
        ));
        assert!(content_hashed("chunk_2.Xy3_kq9ZbT0aL1m2N4p5.wasm"));
        assert!(content_hashed("__wasm_split.Xy3_kq9ZbT0aL1m2N4p5.js"));
        assert!(!content_hashed("__wasm_split.______________________.js"));
        assert!(!content_hashed(
            "split_operator_pages_view_12345678901234567.wasm"
        ));
    }
}
