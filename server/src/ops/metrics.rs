//! The middleware that counts and times every request (the counters themselves live in
//! [`crate::telemetry::metrics`], below every capability that counts).

use std::time::Instant;

use axum::{
    extract::{MatchedPath, Request, State},
    http::Method,
    middleware::Next,
    response::Response,
};

use crate::base::Base;

/// Middleware: counts and times every request by its route template.
pub async fn track(State(state): State<Base>, req: Request, next: Next) -> Response {
    // A reference-counted route and a static label: no allocation per request.
    let route = req.extensions().get::<MatchedPath>().cloned();
    let method = method_label(req.method());
    let started = Instant::now();
    let response = next.run(req).await;
    let route = route.as_ref().map_or("unmatched", |p| p.as_str());
    state
        .metrics
        .http_duration
        .with_label_values(&[method, route])
        .observe(started.elapsed().as_secs_f64());
    state
        .metrics
        .http_requests
        .with_label_values(&[method, route, response.status().as_str()])
        .inc();
    response
}

/// The label of `method`: the methods the API and pages answer, and `other` for the rest.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        Method::PATCH => "PATCH",
        _ => "other",
    }
}
