//! Structured logs through `tracing`: text for people, JSON lines with `--log-json`.
//! `RUST_LOG` filters (default: info, with sqlx's statement logs at warn). Every request
//! carries an `x-request-id` (the client's, or one of [`RequestIds`]) in its log span and its
//! answer.
//!
//! Traces: with `OTEL_EXPORTER_OTLP_ENDPOINT` set (and the SDK's other `OTEL_*` variables:
//! `OTEL_EXPORTER_OTLP_PROTOCOL` `http/protobuf` or `http/json`, `OTEL_BSP_SCHEDULE_DELAY`...),
//! the request's span and its children (a span for each Redis command and pipeline, the hold's
//! and the sale's Postgres transactions, the payment provider's calls) go to that OTLP/HTTP
//! endpoint from a batch on a thread of their own; without it, nothing is built and the
//! children's spans (level debug, target `anteroom::trace`) are never enabled, so they cost a
//! disabled callsite's check. Invariant: a request whose id is one of [`RequestIds`] (32 hex
//! characters) is traced under that id as its trace id, so the `x-request-id` of an answer
//! and the `request_id` of its log lines name its trace; a request that brings a W3C
//! `traceparent` joins the caller's trace instead.

use std::sync::{
    Arc,
    atomic::{AtomicU64, Ordering},
};

use axum::http::{HeaderValue, Request};
use opentelemetry::trace::SpanKind;
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider,
};
use opentelemetry_otlp::{Protocol, SpanExporter, WithExportConfig};
use opentelemetry_sdk::{
    Resource,
    propagation::TraceContextPropagator,
    trace::{Sampler, SamplingDecision, SdkTracerProvider, ShouldSample},
};
use tower_http::request_id::{MakeRequestId, RequestId};
use tracing::Level;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::{
    EnvFilter, Layer, filter::Targets, fmt, layer::SubscriberExt, util::SubscriberInitExt,
};

pub mod health;
pub mod metrics;

/// Request ids unique across instances and restarts, and valid trace ids: 64 random bits
/// drawn when the instance starts, then a 64-bit counter scrambled by a bijection (so still
/// unique), as 32 lowercase hex characters. Scrambled, because samplers read a trace id's
/// right-hand half as its randomness (W3C Trace Context): a bare counter there would trace
/// every request at any ratio. One atomic add a request, where a UUID v4 cost a `getrandom`
/// system call each (a tenth of the system calls of a join).
#[derive(Clone)]
pub struct RequestIds {
    prefix: u64,
    next: Arc<AtomicU64>,
}

impl RequestIds {
    pub fn new() -> Self {
        Self {
            // Never 0: an all-zero trace id is invalid.
            prefix: rand::random::<u64>() | 1 << 63,
            next: Arc::new(AtomicU64::new(1)),
        }
    }
}

impl Default for RequestIds {
    fn default() -> Self {
        Self::new()
    }
}

impl MakeRequestId for RequestIds {
    fn make_request_id<B>(&mut self, _: &Request<B>) -> Option<RequestId> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        HeaderValue::from_str(&format!("{:016x}{:016x}", self.prefix, scramble(n)))
            .ok()
            .map(RequestId::new)
    }
}

/// splitmix64's finalizer: a bijection of u64 whose outputs look uniformly random.
fn scramble(mut n: u64) -> u64 {
    n = (n ^ (n >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    n = (n ^ (n >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    n ^ (n >> 31)
}

/// The target of the spans that exist for traces only (Redis commands, transactions, the
/// provider's calls): enabled only while traces are exported.
pub const TRACE_TARGET: &str = "anteroom::trace";

/// What [`init`] set up: the trace exporter, if any, to flush when the process ends.
#[must_use = "dropping it flushes and stops the trace exporter"]
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Some(provider) = self.traces.take() {
            let _ = provider.shutdown();
        }
    }
}

/// Where traces go: an OTLP/HTTP collector's base URL (`/v1/traces` is added), in protobuf or
/// JSON, and the share of requests traced (0 to 1, by trace id: the same requests on every
/// instance and in every collector's eyes).
#[derive(Clone, Debug)]
pub struct Otlp {
    pub endpoint: String,
    pub json: bool,
    pub ratio: f64,
}

impl Otlp {
    /// As `OTEL_EXPORTER_OTLP_ENDPOINT` and `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the
    /// default, or `http/json`) say; `None` when the endpoint is not set.
    pub fn from_env() -> Option<Self> {
        let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok()?;
        let json = std::env::var("OTEL_EXPORTER_OTLP_PROTOCOL").as_deref() == Ok("http/json");
        let ratio = std::env::var("OTEL_TRACES_SAMPLER_ARG")
            .ok()
            .and_then(|r| r.parse::<f64>().ok())
            .unwrap_or(1.0);
        Some(Self {
            endpoint,
            json,
            ratio,
        })
    }
}

/// Logs as `RUST_LOG` says (default: info), JSON lines with `json`; traces as the `OTEL_*`
/// variables say.
pub fn init(json: bool) -> Telemetry {
    init_with(json, "info,sqlx=warn,tower_http=info", Otlp::from_env())
}

/// [`init`] with the logs' filter when `RUST_LOG` is not set, and where traces go (none: off).
pub fn init_with(json: bool, default_filter: &str, otlp: Option<Otlp>) -> Telemetry {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new(default_filter))
        // The trace-only spans are never logged, whatever RUST_LOG says.
        .add_directive(format!("{TRACE_TARGET}=off").parse().expect("a directive"));
    let logs = if json {
        fmt::layer().json().boxed()
    } else {
        fmt::layer().boxed()
    }
    .with_filter(filter);
    let traces = otlp.and_then(|otlp| {
        exporter(&otlp)
            .inspect_err(|e| eprintln!("anteroom: traces are off: {e}"))
            .ok()
    });
    let layer = traces.as_ref().map(|provider| {
        tracing_opentelemetry::layer()
            .with_tracer(provider.tracer("anteroom"))
            .with_filter(
                Targets::new()
                    .with_target("anteroom", Level::INFO)
                    .with_target(TRACE_TARGET, Level::DEBUG)
                    .with_target("sqlx::query", Level::DEBUG),
            )
    });
    tracing_subscriber::registry().with(logs).with(layer).init();
    if traces.is_some() {
        opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    }
    Telemetry { traces }
}

/// The OTLP/HTTP exporter to `otlp`, behind a batch on its own thread (the SDK's `OTEL_BSP_*`
/// variables tune it).
fn exporter(otlp: &Otlp) -> Result<SdkTracerProvider, opentelemetry_otlp::ExporterBuildError> {
    let exporter = SpanExporter::builder()
        .with_http()
        .with_protocol(if otlp.json {
            Protocol::HttpJson
        } else {
            Protocol::HttpBinary
        })
        .with_endpoint(format!("{}/v1/traces", otlp.endpoint.trim_end_matches('/')))
        .build()?;
    let service = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| "anteroom".into());
    let ratio = otlp.ratio.clamp(0.0, 1.0);
    let _ = RATIO.set(ratio);
    Ok(SdkTracerProvider::builder()
        .with_sampler(Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(
            ratio,
        ))))
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(service).build())
        .build())
}

/// The share of requests traced, as [`init_with`] was told.
static RATIO: std::sync::OnceLock<f64> = std::sync::OnceLock::new();

/// Whether the trace `trace_id` is traced at `ratio`: the SDK's own rule by trace id, so a
/// request id's trace and the SDK's decisions for traces without one agree.
fn sampled(trace_id: TraceId, ratio: f64) -> bool {
    Sampler::TraceIdRatioBased(ratio)
        .should_sample(None, trace_id, "", &SpanKind::Server, &[], &[])
        .decision
        == SamplingDecision::RecordAndSample
}

/// Whether traces are exported (a layer of [`init`] is on).
pub fn tracing_on() -> bool {
    tracing::enabled!(target: TRACE_TARGET, Level::DEBUG)
}

/// Puts `span` (a request's) in its trace: the caller's when the request brings a W3C
/// `traceparent`, else the one its request id names (32 hex characters, see [`RequestIds`]).
/// Does nothing while traces are off.
pub fn join_trace<B>(span: &tracing::Span, req: &Request<B>, request_id: &str) {
    if !tracing_on() {
        return;
    }
    span.record(
        "otel.name",
        tracing::field::display(format_args!("{} {}", req.method(), req.uri().path())),
    );
    span.record("otel.kind", "server");
    let headers = opentelemetry_http::HeaderExtractor(req.headers());
    let caller = opentelemetry::global::get_text_map_propagator(|p| p.extract(&headers));
    let context = if caller.span().span_context().is_valid() {
        caller
    } else {
        let Ok(trace_id) = TraceId::from_hex(request_id) else {
            return;
        };
        let parent = SpanContext::new(
            trace_id,
            SpanId::from(rand::random::<u64>() | 1),
            if sampled(trace_id, *RATIO.get().unwrap_or(&1.0)) {
                TraceFlags::SAMPLED
            } else {
                TraceFlags::default()
            },
            true,
            TraceState::default(),
        );
        opentelemetry::Context::new().with_remote_span_context(parent)
    };
    let _ = span.set_parent(context);
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::TraceId;

    use super::{RequestIds, sampled};

    fn ids(n: usize) -> Vec<TraceId> {
        let mut make = RequestIds::new();
        (0..n)
            .map(|_| {
                let id = tower_http::request_id::MakeRequestId::make_request_id(
                    &mut make,
                    &axum::http::Request::new(()),
                )
                .unwrap();
                TraceId::from_hex(id.header_value().to_str().unwrap()).unwrap()
            })
            .collect()
    }

    /// Request ids are trace ids, and the share traced follows the ratio: none at 0, all at 1,
    /// about the ratio between (by the id's random part and its counter alike).
    #[test]
    fn request_ids_are_trace_ids_sampled_at_the_ratio() {
        let ids = ids(20_000);
        assert!(ids.iter().all(|id| *id != TraceId::INVALID));
        let distinct: std::collections::HashSet<_> = ids.iter().collect();
        assert_eq!(distinct.len(), ids.len());
        let share = |ratio| ids.iter().filter(|id| sampled(**id, ratio)).count();
        assert_eq!(share(0.0), 0);
        assert_eq!(share(1.0), ids.len());
        let tenth = share(0.1);
        assert!((1_500..2_500).contains(&tenth), "{tenth} of 20,000 at 0.1");
    }
}
