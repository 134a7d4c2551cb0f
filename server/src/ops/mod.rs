//! Operations: liveness, readiness, metrics, and the guarantee that every error of the API is
//! JSON. Invariants: `/healthz` answers while the process runs; `/readyz` is 200 only when both
//! Redis and Postgres answer within a second (and `/metrics` says the same of each as
//! `anteroom_dependency_up`, asked when scraped); `/metrics` is served only on the metrics address
//! (`ANTEROOM_METRICS_ADDR`), never the public one; no 4xx/5xx under `/api` leaves without the
//! `{"error", "message"}` body of API.md.

pub mod headers;
pub mod metrics;
pub mod shed;

use std::time::Duration;

use app::wire::ErrorBody;
use axum::{
    Json, Router,
    body::Body,
    extract::{Request, State},
    http::{HeaderValue, StatusCode, header},
    middleware::Next,
    response::{IntoResponse, Response},
    routing::get,
};

use crate::{
    checkout,
    error::{Error, code_for_status},
    state::AppState,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/api/{*rest}", axum::routing::any(api_not_found))
}

#[utoipa::path(
    get,
    path = "/healthz",
    tag = "ops",
    summary = "Whether the process runs",
    responses(
        (status = 200, description = "ok", content_type = "text/plain"),
    )
)]
async fn healthz() -> &'static str {
    "ok"
}

#[utoipa::path(
    get,
    path = "/readyz",
    tag = "ops",
    summary = "Whether Redis and Postgres answer",
    responses(
        (status = 200, description = "Both answer", body = Object),
        (status = 503, description = "One does not (Retry-After)", body = Object),
    )
)]
async fn readyz(State(state): State<AppState>) -> Response {
    let (redis_ok, db_ok) = dependencies(&state).await;
    let body = serde_json::json!({"redis": redis_ok, "postgres": db_ok});
    if redis_ok && db_ok {
        (StatusCode::OK, Json(body)).into_response()
    } else {
        let mut r = (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        r
    }
}

/// Whether Redis and Postgres each answer within a second: `(redis, postgres)`.
async fn dependencies(state: &AppState) -> (bool, bool) {
    let timeout = Duration::from_secs(1);
    let redis = tokio::time::timeout(timeout, async {
        redis::cmd("PING")
            .query_async::<String>(&mut state.redis.clone())
            .await
    });
    let db = tokio::time::timeout(timeout, sqlx::query("select 1").execute(&state.db));
    let (redis, db) = tokio::join!(redis, db);
    (matches!(redis, Ok(Ok(_))), matches!(db, Ok(Ok(_))))
}

/// The router of the metrics address: `/metrics` only, never on the public address.
pub fn metrics_router(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(metrics))
        .with_state(state)
}

async fn metrics(State(state): State<AppState>) -> impl IntoResponse {
    state.metrics.db_connections.set(i64::from(state.db.size()));
    state.metrics.db_idle.set(state.db.num_idle() as i64);
    let (redis_up, db_up) = dependencies(&state).await;
    for (name, up) in [("redis", redis_up), ("postgres", db_up)] {
        (state.metrics.dependency_up)
            .with_label_values(&[name])
            .set(i64::from(up));
    }
    let now_ms = chrono::Utc::now().timestamp_millis();
    if let Some(age) = state.keyring.signing_key_age(now_ms) {
        (state.metrics.admission_key_age).set(age.as_secs() as i64);
    }
    // Within a second, or the last figures stand: a scrape never waits out a Postgres outage.
    if let Ok(Ok(counts)) = tokio::time::timeout(
        Duration::from_secs(1),
        checkout::payments::counts(&state.db),
    )
    .await
    {
        for s in checkout::payments::STATES {
            let n = counts.iter().find(|(k, _)| k == s).map_or(0, |(_, n)| *n);
            state.metrics.payments.with_label_values(&[s]).set(n);
        }
    }
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
}

async fn api_not_found() -> Error {
    Error::NotFound("there is no such API endpoint".into())
}

/// Middleware: an error answer under `/api` that is not JSON (axum's own 405, a panic caught
/// as 500) becomes the JSON error of API.md with the same status.
pub async fn json_errors(req: Request, next: Next) -> Response {
    let is_api = req.uri().path().starts_with("/api/");
    let response = next.run(req).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !is_api || is_json || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => "this endpoint does not take that method".to_owned(),
        s => s.canonical_reason().unwrap_or("error").to_lowercase(),
    };
    let (mut parts, _) = response.into_parts();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    let body = serde_json::to_vec(&ErrorBody::new(code_for_status(status), message))
        .expect("serializing a plain struct");
    Response::from_parts(parts, Body::from(body))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(healthz, readyz))]
pub struct Api;
