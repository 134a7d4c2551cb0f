use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{
    event_body, eventually, expect_error, metric, spawn_app, spawn_with, test_config,
};

#[tokio::test]
async fn health_and_readiness_answer_when_redis_and_postgres_do() {
    let app = spawn_app().await;
    let r = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body, json!({"redis": true, "postgres": true}));
}

#[tokio::test]
async fn readiness_is_503_when_postgres_does_not_answer() {
    let app = spawn_app().await;
    app.state.db.close().await;
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(r.headers()["retry-after"], "1");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body, json!({"redis": true, "postgres": false}));
    // Liveness does not depend on it.
    let r = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

// Readiness while Redis is down and back: faults.rs, with a Redis of the test's own.

/// The figures the on-call alerts read (ops/prometheus/alerts.yml): each dependency up or
/// down, the signing key's age, and how late the running ticker's ticks start.
#[tokio::test]
async fn the_metrics_say_what_the_alerts_need_and_a_dependency_that_goes_away() {
    let mut config = test_config();
    config.ticker = true;
    config.room_refresh_ms = 100;
    let app = spawn_with(config).await;
    app.create_event(event_body(
        2,
        2,
        json!({"admit_rate_per_second": 20, "tick_ms": 100}),
    ))
    .await;
    let text = eventually(
        "the running ticker's ticks are timed",
        Duration::from_secs(10),
        async || {
            let text = app.metrics_text().await;
            (metric(&text, "anteroom_ticker_lateness_seconds_count").unwrap_or(0.0) > 0.0)
                .then_some(text)
        },
    )
    .await;
    assert_eq!(
        metric(&text, r#"anteroom_dependency_up{dependency="redis"}"#),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        metric(&text, r#"anteroom_dependency_up{dependency="postgres"}"#),
        Some(1.0)
    );
    let age = metric(&text, "anteroom_admission_signing_key_age_seconds").expect("the key's age");
    assert!(
        (0.0..3600.0).contains(&age),
        "a key published at start: {age}"
    );

    app.state.db.close().await;
    let text = app.metrics_text().await;
    assert_eq!(
        metric(&text, r#"anteroom_dependency_up{dependency="postgres"}"#),
        Some(0.0),
        "{text}"
    );
    assert_eq!(
        metric(&text, r#"anteroom_dependency_up{dependency="redis"}"#),
        Some(1.0)
    );
}

#[tokio::test]
async fn metrics_count_and_time_requests_per_route_template() {
    let app = spawn_app().await;
    for path in ["/api/events", "/api/events/abc", "/api/events/def"] {
        app.client.get(app.url(path)).send().await.unwrap();
    }
    let text = app.metrics_text().await;
    assert!(text.contains(
        r#"anteroom_http_requests_total{method="GET",route="/api/events/{event_id}",status="404"} 2"#
    ), "{text}");
    assert!(text.contains(
        r#"anteroom_http_request_duration_seconds_count{method="GET",route="/api/events"} 1"#
    ));
}

#[tokio::test]
async fn unknown_api_routes_and_methods_get_json_errors() {
    let app = spawn_app().await;
    let r = app
        .client
        .get(app.url("/api/nothing/here"))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .client
        .delete(app.url("/api/events"))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::METHOD_NOT_ALLOWED, "method_not_allowed").await;
}

#[tokio::test]
async fn shutdown_lets_an_in_flight_request_finish() {
    let mut app = spawn_app().await;
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<Vec<u8>, std::io::Error>>(1);
    let body = serde_json::to_vec(&event_body(2, 2, json!({}))).unwrap();
    let (head, tail) = body.split_at(10);
    let (head, tail) = (head.to_vec(), tail.to_vec());
    let request = app
        .client
        .post(app.url("/api/admin/events"))
        .bearer_auth(&app.admin_key)
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(
            tokio_stream::wrappers::ReceiverStream::new(rx),
        ))
        .send();
    let in_flight = tokio::spawn(request);
    tx.send(Ok(head)).await.unwrap();
    // Time, not a condition: nothing shows that the server is reading the body.
    tokio::time::sleep(Duration::from_millis(200)).await;

    app.shutdown.cancel();
    // Time: this proves the server does not stop while the request is in flight.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let server = app.task.take().unwrap();
    assert!(
        !server.is_finished(),
        "the server waits for the request in flight"
    );
    tx.send(Ok(tail)).await.unwrap();
    drop(tx);
    let response = in_flight.await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::CREATED);
    tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the server stops once drained")
        .unwrap();
    assert_eq!(app.count("select count(*) from seat").await, 8);
}

#[tokio::test]
async fn requests_with_made_up_methods_add_no_series_to_the_metrics() {
    let app = spawn_app().await;
    let before = app.metrics_text().await.lines().count();
    for i in 0..50 {
        let method = Method::from_bytes(format!("X{i:04}{}", "Q".repeat(200)).as_bytes()).unwrap();
        app.client
            .request(method, app.url("/api/events"))
            .send()
            .await
            .unwrap();
    }
    let text = app.metrics_text().await;
    assert!(!text.contains("QQQQ"), "a raw method reached a label");
    assert!(
        text.contains(
            r#"anteroom_http_requests_total{method="other",route="/api/events",status="405"} 50"#
        ),
        "{text}"
    );
    // One new counter series and one histogram (its buckets, sum and count) at most, whatever
    // the number of methods, plus the scrape's own GET.
    let added = text.lines().count() - before;
    assert!(added < 40, "{added} lines added by 50 made-up methods");
}

#[tokio::test]
async fn the_metrics_are_not_served_on_the_public_address() {
    let app = spawn_app().await;
    let r = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(!r.text().await.unwrap().contains("# TYPE"));
    let r = app
        .client
        .get(format!("{}/metrics", app.metrics_base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("anteroom_http_requests_total")
    );
}
