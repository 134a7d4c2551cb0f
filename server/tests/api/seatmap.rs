use std::time::Duration;

use anteroom::redis::scripts::SetIfGeneration;
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, TestApp, hold, hold_body, on_single_and_cluster, open_event, spawn_on,
};

on_single_and_cluster!(
    the_seat_map_is_shaped_as_the_api_says,
    a_hold_and_a_release_show_in_the_next_read,
    fifty_concurrent_reads_on_a_cold_cache_run_one_rebuild,
    a_rebuild_that_raced_a_change_is_not_stored,
    the_runs_tell_the_same_map_before_and_after_a_change,
);

async fn seat_map(app: &TestApp, event: &str, session: &str) -> Value {
    let r = app
        .get(&format!("/api/events/{event}/seats"), session)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.unwrap()
}

fn status_of(map: &Value, seat: i64) -> String {
    map["sections"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["rows"].as_array().unwrap())
        .flat_map(|r| r["seats"].as_array().unwrap())
        .find(|s| s["id"].as_str() == Some(seat.to_string().as_str()))
        .map(|s| s["status"].as_str().unwrap().to_owned())
        .unwrap()
}

async fn the_seat_map_is_shaped_as_the_api_says(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, ids) = open_event(&app, 2, 3).await;
    let (_, session) = app.session().await;
    let map = seat_map(&app, &event, &session).await;
    assert_eq!(map["event_id"], event.as_str());
    let sections = map["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 2);
    assert_eq!(sections[0]["name"], "A");
    assert_eq!(sections[0]["rows"][1]["label"], "2");
    assert_eq!(
        sections[0]["rows"][0]["seats"][0],
        json!({"id": ids[0].to_string(), "number": 1, "price_cents": 5000, "status": "available"})
    );
    assert_eq!(sections[1]["rows"][0]["seats"][2]["price_cents"], 3000);
}

async fn a_hold_and_a_release_show_in_the_next_read(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, ids) = open_event(&app, 1, 5).await;
    let (_, session) = app.session().await;
    assert_eq!(
        status_of(&seat_map(&app, &event, &session).await, ids[2]),
        "available"
    );
    let h: Value = hold(&app, &event, &session, "k", hold_body(&[ids[2]]))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        status_of(&seat_map(&app, &event, &session).await, ids[2]),
        "held"
    );
    let r = app
        .client
        .delete(app.url(&format!("/api/holds/{}", h["hold_id"].as_str().unwrap())))
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        status_of(&seat_map(&app, &event, &session).await, ids[2]),
        "available"
    );
}

async fn fifty_concurrent_reads_on_a_cold_cache_run_one_rebuild(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, _) = open_event(&app, 10, 20).await;
    let (_, session) = app.session().await;
    let before = app.state.metrics.seatmap_builds.get();
    let maps = join_all((0..50).map(|_| seat_map(&app, &event, &session))).await;
    assert_eq!(app.state.metrics.seatmap_builds.get() - before, 1);
    assert!(maps.iter().all(|m| m == &maps[0]));
    // Warm: no query at all.
    seat_map(&app, &event, &session).await;
    assert_eq!(app.state.metrics.seatmap_builds.get() - before, 1);
}

async fn a_rebuild_that_raced_a_change_is_not_stored(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, ids) = open_event(&app, 1, 5).await;
    let (_, session) = app.session().await;
    // A rebuild reads the generation, then a hold commits and invalidates, then the rebuild
    // tries to store: the stored copy must not be the stale one.
    let generation_before: Option<String> = redis::cmd("GET")
        .arg(app.state.keys.seatmap_generation(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    hold(&app, &event, &session, "k", hold_body(&[ids[0]])).await;
    let stored: i64 = SetIfGeneration {
        event_id: &event,
        generation: generation_before.as_deref(),
        full: "0\n{}",
        ttl: Duration::from_secs(60),
        runs: "0\n{}",
    }
    .invocation(&app.state.scripts, &app.state.keys)
    .invoke_async(&mut app.state.redis.clone())
    .await
    .unwrap();
    assert_eq!(stored, 0);
    assert_eq!(
        status_of(&seat_map(&app, &event, &session).await, ids[0]),
        "held"
    );
    assert_eq!(
        status_of(&runs(&app, &event, &session).await, ids[0]),
        "held"
    );
}

/// The map in runs (`?form=runs`, what the buyer's page reads), as API.md's map.
async fn runs(app: &TestApp, event: &str, session: &str) -> Value {
    let r = app
        .get(&format!("/api/events/{event}/seats?form=runs"), session)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let runs: app::wire::SeatRuns = r.json().await.unwrap();
    serde_json::to_value(runs.map()).unwrap()
}

async fn the_runs_tell_the_same_map_before_and_after_a_change(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, ids) = open_event(&app, 3, 4).await;
    let (_, session) = app.session().await;
    // Cold, then warm (each form from its own copy), then after a hold.
    let before = app.state.metrics.seatmap_builds.get();
    for _ in 0..2 {
        assert_eq!(
            runs(&app, &event, &session).await,
            seat_map(&app, &event, &session).await
        );
    }
    assert_eq!(
        app.state.metrics.seatmap_builds.get() - before,
        1,
        "one build stores both forms"
    );
    let r = app
        .get(&format!("/api/events/{event}/seats?form=runs"), &session)
        .await;
    let text = r.text().await.unwrap();
    assert!(
        text.contains(&format!("[{},1,5000,\"aaaa\"]", ids[0])),
        "a row is one run: {text}"
    );
    hold(&app, &event, &session, "k", hold_body(&[ids[1]])).await;
    let after = runs(&app, &event, &session).await;
    assert_eq!(status_of(&after, ids[1]), "held");
    assert_eq!(after, seat_map(&app, &event, &session).await);
    // Any other form, or another parameter, is refused and changes nothing.
    for query in ["form=compact", "form=", "section=1", "form=runs&x=1"] {
        let r = app
            .get(&format!("/api/events/{event}/seats?{query}"), &session)
            .await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{query}");
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["error"], "unprocessable", "{query}");
    }
}

/// Rows come in their real order: row 10 after row 9, not between rows 1 and 2.
#[tokio::test]
async fn rows_are_listed_in_their_real_order() {
    let app = spawn_on(Backend::Single).await;
    let (event, _) = open_event(&app, 12, 2).await;
    let (_, session) = app.session().await;
    let map = seat_map(&app, &event, &session).await;
    let labels: Vec<&str> = map["sections"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = (1..=12).map(|n| n.to_string()).collect();
    assert_eq!(labels, expected);
}
