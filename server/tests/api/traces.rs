//! Traces over OTLP (`telemetry`): the real binary with `OTEL_EXPORTER_OTLP_ENDPOINT` set sends
//! a hold's and a checkout's traces, with their child spans (Redis commands, the Postgres
//! transactions, the payment provider's call), to an OTLP/HTTP receiver of the test's own; the
//! answer's `x-request-id` is the trace's id. Without the variable nothing is sent.

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use anteroom::checkout::fake;
use axum::{Json, Router, extract::State, routing::post};
use reqwest::StatusCode;
use serde_json::{Value, json};
use testkit::procs::Instance;

use crate::helpers::{eventually, hold_body, open_event, spawn_with, test_config};

/// A span as the receiver got it (ids in hex, as OTLP/JSON writes them).
#[derive(Clone, Debug)]
struct Span {
    trace: String,
    id: String,
    parent: String,
    name: String,
}

/// An OTLP/HTTP receiver (JSON encoding): every span it was sent.
#[derive(Clone, Default)]
struct Receiver(Arc<Mutex<Vec<Span>>>);

impl Receiver {
    async fn start(&self) -> String {
        let app = Router::new()
            .route("/v1/traces", post(receive))
            .with_state(self.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    fn spans(&self) -> Vec<Span> {
        self.0.lock().unwrap().clone()
    }
}

async fn receive(State(receiver): State<Receiver>, Json(body): Json<Value>) -> Json<Value> {
    let mut spans = receiver.0.lock().unwrap();
    for resource in body["resourceSpans"].as_array().into_iter().flatten() {
        for scope in resource["scopeSpans"].as_array().into_iter().flatten() {
            for span in scope["spans"].as_array().into_iter().flatten() {
                let text = |k: &str| span[k].as_str().unwrap_or("").to_owned();
                spans.push(Span {
                    trace: text("traceId"),
                    id: text("spanId"),
                    parent: text("parentSpanId"),
                    name: text("name"),
                });
            }
        }
    }
    Json(json!({}))
}

#[tokio::test]
async fn a_hold_and_its_checkout_arrive_as_traces_with_their_redis_postgres_and_provider_spans() {
    let receiver = Receiver::default();
    let endpoint = receiver.start().await;
    let payments = fake::spawn(Default::default(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut config = test_config();
    config.payments_url = Some(payments);
    // The test's own server (for the event), and the traced process on the same deployment.
    let app = spawn_with(config.clone()).await;
    let (event, seats) = open_event(&app, 1, 4).await;
    let traced = Instance::serve_with(
        env!("CARGO_BIN_EXE_anteroom"),
        &config,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ],
    )
    .await;
    let client = reqwest::Client::new();
    let session: Value = client
        .post(traced.url("/api/session"))
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let token = session["token"].as_str().unwrap();
    let r = client
        .post(traced.url(&format!("/api/events/{event}/holds")))
        .bearer_auth(token)
        .header("idempotency-key", "traced")
        .json(&hold_body(&seats[..2]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold_trace = r.headers()["x-request-id"].to_str().unwrap().to_owned();
    assert_eq!(
        hold_trace.len(),
        32,
        "a request id is a trace id: {hold_trace}"
    );
    let hold: Value = r.json().await.unwrap();
    let r = client
        .post(traced.url(&format!(
            "/api/holds/{}/checkout",
            hold["hold_id"].as_str().unwrap()
        )))
        .bearer_auth(token)
        .header("idempotency-key", "traced")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let checkout_trace = r.headers()["x-request-id"].to_str().unwrap().to_owned();

    // Each trace: its root (the request, named by method and path) and its children.
    let expect = [
        (
            &hold_trace,
            "POST /api/events/",
            ["redis ", "postgres hold"],
        ),
        (
            &checkout_trace,
            "/checkout",
            ["provider pay", "postgres payment settle"],
        ),
    ];
    eventually(
        "both traces arrive with their child spans",
        Duration::from_secs(15),
        async || {
            let spans = receiver.spans();
            expect.iter().all(|(trace, root, children)| {
                let of_trace: Vec<_> = spans.iter().filter(|s| &s.trace == *trace).collect();
                let Some(root) = of_trace
                    .iter()
                    .find(|s| s.name.contains(root) && s.name.starts_with("POST"))
                else {
                    return false;
                };
                children.iter().all(|child| {
                    of_trace
                        .iter()
                        .any(|s| s.name.starts_with(child) && s.id != root.id)
                })
            })
        },
    )
    .await;
    // The children hang from the request's span, not from nowhere.
    let spans = receiver.spans();
    let root = spans
        .iter()
        .find(|s| s.trace == hold_trace && s.name.starts_with("POST"))
        .unwrap();
    let hold_tx = spans
        .iter()
        .find(|s| s.trace == hold_trace && s.name == "postgres hold")
        .unwrap();
    let mut parent = hold_tx.parent.clone();
    while parent != root.id {
        parent = spans
            .iter()
            .find(|s| s.id == parent)
            .unwrap_or_else(|| panic!("a span of the hold's trace has no parent: {spans:?}"))
            .parent
            .clone();
    }
}

#[tokio::test]
async fn without_the_endpoint_nothing_is_traced_and_request_ids_stay_unique() {
    let config = test_config();
    let process = Instance::serve(env!("CARGO_BIN_EXE_anteroom"), &config).await;
    let client = reqwest::Client::new();
    let mut ids = std::collections::HashSet::new();
    for _ in 0..5 {
        let r = client.get(process.url("/healthz")).send().await.unwrap();
        let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert!(
            id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
            "{id}"
        );
        assert!(ids.insert(id));
    }
    // A client's own id (and with it its trace and sampling) is not taken (issue 63)...
    let r = client
        .get(process.url("/healthz"))
        .header("x-request-id", "0af7651916cd43dd8448eb211c80319c")
        .header(
            "traceparent",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        )
        .send()
        .await
        .unwrap();
    let id = r.headers()["x-request-id"].to_str().unwrap();
    assert!(
        id != "0af7651916cd43dd8448eb211c80319c" && id.len() == 32,
        "{id}"
    );
    // ...but a trusted proxy's is.
    let mut trusting = test_config();
    trusting.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    let app = spawn_with(trusting).await;
    let r = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "mine-1")
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["x-request-id"], "mine-1");
}
