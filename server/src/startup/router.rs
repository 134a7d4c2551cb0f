//! Every route of Anteroom in one router ([`router`]), with the layers that apply to all of
//! them: shedding, JSON errors, compression, metrics, body limit, panics caught, request ids
//! and the request's span. A client's own trace headers count only from a trusted proxy, and a
//! request's span names its path, never its query.

use axum::{
    Router,
    extract::{ConnectInfo, DefaultBodyLimit},
    middleware,
};
use tower_http::{
    catch_panic::CatchPanicLayer,
    compression::{
        CompressionLayer, CompressionLevel, Predicate,
        predicate::{NotForContentType, SizeAbove},
    },
    request_id::{PropagateRequestIdLayer, SetRequestIdLayer},
    trace::TraceLayer,
};

use crate::{
    accounts, admin, checkout, events, extract::BODY_LIMIT_BYTES, forms, holds, openapi, opening,
    operators, ops, origin, pages, queue, report, seatmap, state::AppState, telemetry::RequestIds,
    tokens,
};

/// Every route of Anteroom, with the layers that apply to all of them.
pub fn router(state: AppState) -> Router {
    Router::new()
        .merge(tokens::router())
        .merge(accounts::routes::router())
        .merge(events::router())
        .merge(queue::router())
        .merge(queue::progress::router())
        .merge(queue::device::router())
        .merge(queue::moving::router())
        .merge(opening::router())
        .merge(origin::router())
        .merge(report::router())
        .merge(admin::router(&state))
        .merge(operators::routes::router())
        .merge(seatmap::router())
        .merge(holds::router())
        .merge(checkout::router())
        .merge(forms::router())
        .merge(ops::router())
        .merge(openapi::router())
        .merge(pages::router(&state))
        .merge(pages::words_router())
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            ops::shed::gate,
        ))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(
            app::shell,
        ))
        .layer(middleware::from_fn(ops::json_errors))
        .layer(middleware::from_fn(ops::headers::no_store))
        .layer(compression())
        .layer(middleware::from_fn_with_state(
            state.clone(),
            ops::metrics::track,
        ))
        .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES))
        .layer(CatchPanicLayer::new())
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(request_span))
        .layer(SetRequestIdLayer::x_request_id(RequestIds::new()))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            untrusted_trace_headers,
        ))
        .with_state(state)
}

/// The headers that choose a request's trace: its id (a trace id when it is 32 hex
/// characters, and with it the sampling decision) and a W3C parent.
const TRACE_HEADERS: [&str; 3] = ["x-request-id", "traceparent", "tracestate"];

/// A client cannot force tracing: its own `x-request-id`, `traceparent` and `tracestate` are
/// honoured only from a trusted proxy (`ANTEROOM_TRUSTED_PROXIES`); from anyone else they
/// are dropped, and the instance's own id and sampling decide.
async fn untrusted_trace_headers(
    axum::extract::State(state): axum::extract::State<AppState>,
    mut req: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    let peer = req
        .extensions()
        .get::<ConnectInfo<std::net::SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let trusted =
        peer.is_some_and(|ip| state.config.trusted_proxies.iter().any(|c| c.contains(ip)));
    if !trusted {
        for name in TRACE_HEADERS {
            req.headers_mut().remove(name);
        }
    }
    next.run(req).await
}

/// The span every log line of a request carries: its method, its path and its request id.
/// The path only, never the query: a query may carry a secret (a move code in `?claim=`), and
/// every warning inside the request would copy it into the logs. With traces on, it is the
/// request's root span, in the trace its request id names (`telemetry::join_trace`).
fn request_span<B>(req: &http::Request<B>) -> tracing::Span {
    let id = req
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let span = tracing::info_span!(
        "request",
        method = %req.method(),
        path = %req.uri().path(),
        request_id = %id,
        otel.name = tracing::field::Empty,
        otel.kind = tracing::field::Empty,
    );
    crate::telemetry::join_trace(&span, req, id);
    span
}

/// Compression of pages and JSON when the client accepts it: brotli or gzip at a middle
/// level, only above a kilobyte (a poll's answer is a hundred bytes: compressing it would cost
/// more than it saves). Built files come precompressed from the release build and pass as
/// they are (they carry their `Content-Encoding` already).
fn compression() -> CompressionLayer<impl Predicate> {
    CompressionLayer::new()
        .quality(CompressionLevel::Precise(5))
        .compress_when(
            SizeAbove::new(1024)
                .and(NotForContentType::GRPC)
                .and(NotForContentType::IMAGES)
                .and(NotForContentType::SSE),
        )
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::request_span;

    /// A writer the test's subscriber logs into.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Review finding 13: a warning inside a request to `/events/{id}?claim=CODE` carried the
    /// code in its span.
    #[test]
    fn a_log_line_inside_a_request_names_its_path_but_never_its_query() {
        let captured = Captured::default();
        let writer = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .with_ansi(false)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            let req = http::Request::get("/events/ev_1?claim=K7QM3XWD9T&x=1")
                .header("x-request-id", "r-1")
                .body(())
                .unwrap();
            let span = request_span(&req);
            let _inside = span.enter();
            tracing::warn!("something went wrong");
        });
        let logged = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(logged.contains("/events/ev_1"), "{logged}");
        assert!(logged.contains("r-1"), "{logged}");
        assert!(
            !logged.contains("K7QM3XWD9T"),
            "the move code reached the log: {logged}"
        );
        assert!(!logged.contains("claim"), "{logged}");
    }
}
