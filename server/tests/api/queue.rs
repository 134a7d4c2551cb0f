use std::time::Duration;

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    Backend, event_body, eventually, expect_error, join, on_single_and_cluster, poll, spawn_app,
    spawn_with, test_config, three_instances,
};

on_single_and_cluster!(two_hundred_concurrent_joins_across_instances_get_places_1_to_200_once_each);

async fn two_hundred_concurrent_joins_across_instances_get_places_1_to_200_once_each(
    backend: Backend,
) {
    let apps = three_instances(backend).await;
    let event = apps[0]
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 30})))
        .await;
    let event = event["id"].as_str().unwrap();
    let sessions = join_all((0..200).map(|_| apps[0].session())).await;

    let joins = join_all(
        sessions
            .iter()
            .enumerate()
            .map(|(i, (_, token))| join(&apps[i % 3], event, token)),
    )
    .await;
    let mut positions: Vec<u64> = joins
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, StatusCode::ACCEPTED, "{body}");
            assert_eq!(body["status"], "waiting");
            let p = body["position"].as_u64().unwrap();
            assert_eq!(body["estimated_wait_seconds"], p.div_ceil(30));
            p
        })
        .collect();
    // Arrival numbers grow with the place.
    let mut by_place: Vec<(u64, u64)> = joins
        .iter()
        .map(|(_, b)| {
            (
                b["position"].as_u64().unwrap(),
                b["arrival"].as_u64().unwrap(),
            )
        })
        .collect();
    by_place.sort_unstable();
    assert!(
        by_place.windows(2).all(|w| w[0].1 < w[1].1),
        "arrivals in place order"
    );
    positions.sort_unstable();
    assert_eq!(positions, (1..=200).collect::<Vec<_>>());

    // Again, from another instance and concurrently: nobody moves.
    let again = join_all(
        sessions
            .iter()
            .enumerate()
            .map(|(i, (_, token))| join(&apps[(i + 1) % 3], event, token)),
    )
    .await;
    for ((_, first), (status, second)) in joins.iter().zip(&again) {
        assert_eq!(*status, StatusCode::ACCEPTED);
        assert_eq!(first["position"], second["position"]);
        assert_eq!(first["arrival"], second["arrival"]);
    }
    let (status, polled) = poll(&apps[2], event, &sessions[0].1).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(polled["position"], joins[0].1["position"]);
}

#[tokio::test]
async fn a_poll_before_joining_is_404_not_in_queue_and_other_mistakes_are_json_errors() {
    let app = spawn_app().await;
    let event = app.create_event(event_body(1, 1, json!({}))).await;
    let event = event["id"].as_str().unwrap();
    let (_, token) = app.session().await;
    let r = app.get(&format!("/api/events/{event}/queue"), &token).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let r = app
        .client
        .post(app.url("/api/events/nosuchevent/queue"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue")))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let queue_len: u64 = redis::cmd("ZCARD")
        .arg(app.state.keys.queue(event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(queue_len, 0, "refused requests changed nothing");
}

#[tokio::test]
async fn with_the_room_off_join_and_poll_admit_at_once() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 1, json!({"enabled": false})))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, token) = app.session().await;
    for (status, body) in [
        join(&app, event, &token).await,
        poll(&app, event, &token).await,
    ] {
        assert_eq!(status, StatusCode::OK);
        assert_eq!(body["status"], "admitted");
        assert_eq!(body["admitted"], true);
        assert!(body["admission_token"].as_str().unwrap().len() > 20);
        assert!(body["expires_at"].as_str().is_some());
    }
}

#[tokio::test]
async fn a_paused_room_says_so_instead_of_inventing_an_estimate() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 1, json!({"paused": true})))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, token) = app.session().await;
    let (status, body) = join(&app, event, &token).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(
        body,
        json!({"status": "waiting", "position": 1, "estimated_wait_seconds": null, "estimate_range_seconds": null, "paused": true, "arrival": body["arrival"]})
    );
    assert!(body["arrival"].is_u64(), "{body}");
}

#[tokio::test]
async fn an_expired_admission_leaves_the_line_and_joining_again_goes_to_the_back() {
    let mut config = test_config();
    config.admission_ttl_seconds = 1;
    let app = spawn_with(config).await;
    let event = app
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 1})))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, first) = app.session().await;
    let (_, second) = app.session().await;
    join(&app, event, &first).await;
    join(&app, event, &second).await;
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let ticker = anteroom::admission::ticker::Ticker::new(app.state.line.clone());
    ticker.tick(event, &room, 0).await.unwrap();
    let (status, body) = poll(&app, event, &first).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted"))
    );

    // Admitted until the admission's second is over; then out of the line.
    let queue = format!("/api/events/{event}/queue");
    let r = eventually(
        "the admission expires",
        Duration::from_secs(10),
        async || {
            let r = app.get(&queue, &first).await;
            (r.status() != StatusCode::OK).then_some(r)
        },
    )
    .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let (status, body) = join(&app, event, &first).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["position"], 2, "behind the buyer who was waiting");
}

#[tokio::test]
async fn joins_and_polls_use_distinct_places_per_event() {
    let app = spawn_app().await;
    // Paused, so that the running ticker admits nobody while the test looks at places.
    let a = app
        .create_event(event_body(1, 1, json!({"paused": true})))
        .await;
    let b = app
        .create_event(event_body(1, 1, json!({"paused": true})))
        .await;
    let (_, t1) = app.session().await;
    let (_, t2) = app.session().await;
    join(&app, a["id"].as_str().unwrap(), &t1).await;
    let (_, in_b) = join(&app, b["id"].as_str().unwrap(), &t2).await;
    let (_, in_a) = join(&app, a["id"].as_str().unwrap(), &t2).await;
    assert_eq!(in_b["position"], 1);
    assert_eq!(in_a["position"], 2);
}
