//! Rooms at rest (`admission::rest`): a room with nobody in line stops ticking (no Redis
//! command, no Postgres count) and the next buyer in line wakes it, on this instance or, through
//! the wake channel, from an instance without a ticker.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    Backend, TestApp, eventually, join, metric, on_single_and_cluster, plenty, poll, spawn_with,
    test_config_on,
};

/// The configuration of an instance whose rooms rest after a second of quiet.
fn resting_config() -> anteroom::config::Config {
    resting_config_on(Backend::Single)
}

fn resting_config_on(backend: Backend) -> anteroom::config::Config {
    let mut config = test_config_on(backend);
    config.ticker = true;
    config.room_refresh_ms = 100;
    config.rest_after_seconds = 1;
    config.night_idle_seconds = 1;
    config
}

async fn resting(app: &TestApp) -> f64 {
    metric(&app.metrics_text().await, "anteroom_rooms_resting").unwrap_or(0.0)
}

async fn ticks(app: &TestApp) -> f64 {
    metric(
        &app.metrics_text().await,
        "anteroom_ticker_lateness_seconds_count",
    )
    .unwrap_or(0.0)
}

/// A buyer joins `event` on `via` and polls there until admitted (by whichever ticker).
async fn a_buyer_is_admitted(via: &TestApp, event: &str) {
    let (_, token) = via.session().await;
    let (status, body) = join(via, event, &token).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    eventually(
        "the buyer is admitted",
        Duration::from_secs(10),
        async || {
            let (_, body) = poll(via, event, &token).await;
            body["status"] == "admitted"
        },
    )
    .await;
}

#[tokio::test]
async fn a_room_with_nobody_in_line_rests_and_the_next_buyer_wakes_it() {
    let app = spawn_with(resting_config()).await;
    let event = app
        .create_event(plenty(json!({"admit_rate_per_second": 10, "tick_ms": 100})))
        .await;
    let event = event["id"].as_str().unwrap();
    eventually("the room rests", Duration::from_secs(15), async || {
        resting(&app).await == 1.0
    })
    .await;
    // At rest: the ticker does not tick it. Time, not a condition: this shows an absence.
    let before = ticks(&app).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(ticks(&app).await, before, "no tick while the room rests");
    // The lock is not renewed: it lapses within a lease (renewed, it would never lapse).
    let lease = Duration::from_millis(app.state.config.ticker_lease_ms.into());
    eventually(
        "a resting room's lock lapses, not renewed",
        lease,
        async || {
            let lock: Option<String> = redis::cmd("GET")
                .arg(app.state.keys.ticker(event))
                .query_async(&mut app.state.redis.clone())
                .await
                .unwrap();
            lock.is_none()
        },
    )
    .await;

    a_buyer_is_admitted(&app, event).await;
    assert_eq!(resting(&app).await, 0.0, "awake while it admits");
    // The rest (over a second) is not counted as a late tick: none started half a second late.
    let text = app.metrics_text().await;
    assert_eq!(
        metric(
            &text,
            r#"anteroom_ticker_lateness_seconds_bucket{le="0.5"}"#
        ),
        metric(&text, "anteroom_ticker_lateness_seconds_count"),
        "{text}"
    );
    // Nobody left in line: the room rests again.
    eventually(
        "the room rests again",
        Duration::from_secs(15),
        async || resting(&app).await == 1.0,
    )
    .await;
}

on_single_and_cluster!(an_instance_without_a_ticker_wakes_the_others_resting_rooms);

/// On a Redis Cluster the wake goes out through whichever node the client picks, and the
/// listener hears it on its own node: the cluster's bus carries Pub/Sub to every node.
async fn an_instance_without_a_ticker_wakes_the_others_resting_rooms(backend: Backend) {
    let config = resting_config_on(backend);
    let ticking = spawn_with(config.clone()).await;
    let mut api_only = config;
    api_only.ticker = false;
    let api_only = spawn_with(api_only).await;
    let event = ticking
        .create_event(plenty(json!({"admit_rate_per_second": 10, "tick_ms": 100})))
        .await;
    let event = event["id"].as_str().unwrap();
    eventually("the room rests", Duration::from_secs(15), async || {
        resting(&ticking).await == 1.0
    })
    .await;
    // The buyer only ever talks to the instance without a ticker.
    a_buyer_is_admitted(&api_only, event).await;
}

#[tokio::test]
async fn with_rest_off_a_quiet_room_ticks_on() {
    let mut config = resting_config();
    config.rest_after_seconds = 0;
    let app = spawn_with(config).await;
    app.create_event(plenty(json!({"admit_rate_per_second": 10, "tick_ms": 100})))
        .await;
    let first = eventually("the room ticks", Duration::from_secs(5), async || {
        let t = ticks(&app).await;
        (t > 0.0).then_some(t)
    })
    .await;
    // Well past the quiet time it still ticks: twenty more ticks of 100 ms are two seconds
    // after the first, twice the quiet time after which a room with rest on stops ticking.
    eventually("twenty more ticks", Duration::from_secs(15), async || {
        ticks(&app).await > first + 20.0
    })
    .await;
    assert_eq!(resting(&app).await, 0.0);
}
