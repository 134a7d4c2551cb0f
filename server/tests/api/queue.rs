use std::time::Duration;

use anteroom::admission::{
    retire::{self, Retired},
    ticker::Ticker,
};
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    Backend, TestApp, event_body, eventually, expect_error, hold, hold_body, join, join_response,
    on_single_and_cluster, poll, put_room, spawn_app, spawn_with, test_config, three_instances,
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
        json!({"status": "waiting", "position": 1, "estimated_wait_seconds": null, "estimate_range_seconds": null, "paused": true, "arrival": body["arrival"], "poll_within_seconds": 3, "refresh_seconds": 3})
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

/// The line's script is sent by its hash (`redis::scripts::Call`): a Redis that forgot its
/// scripts (restarted, a promoted replica, `SCRIPT FLUSH`) is sent the script again, and the
/// buyers see nothing of it.
#[tokio::test]
async fn a_redis_that_forgot_the_line_script_is_sent_it_again() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 1, json!({"paused": true})))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, first) = app.session().await;
    let (_, second) = app.session().await;
    assert_eq!(join(&app, event, &first).await.1["position"], 1);
    let () = redis::cmd("SCRIPT")
        .arg("FLUSH")
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    let (status, body) = join(&app, event, &second).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(body["position"], 2);
    let (status, body) = poll(&app, event, &first).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["position"], 1);
}

/// Every Redis key of `event` on `app`'s deployment, with its time to live in ms (-1: none).
async fn event_keys(app: &TestApp, event: &str) -> Vec<(String, i64)> {
    let mut redis = app.state.redis.clone();
    let pattern = app.state.keys.event(event, "*");
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(&pattern)
        .query_async(&mut redis)
        .await
        .unwrap();
    let mut ttls = Vec::new();
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut redis)
            .await
            .unwrap();
        ttls.push((key, ttl));
    }
    ttls
}

async fn admitted_total(app: &TestApp, event: &str) -> serde_json::Value {
    let stats: serde_json::Value = app
        .get(&format!("/api/admin/events/{event}/stats"), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    stats["admitted_total"].clone()
}

/// Joins `event` as the buyer of `session`: the place receipt the waiting answer hands out.
async fn place_receipt(app: &TestApp, event: &str, session: &str) -> String {
    let r = join_response(app, event, session).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let cookie = r.headers()["set-cookie"].to_str().unwrap();
    let (name, value) = cookie.split(';').next().unwrap().split_once('=').unwrap();
    assert_eq!(name, format!("anteroom_place_{event}"));
    value.to_owned()
}

/// `GET path` as the buyer of `session`, with one more `header`.
async fn get_with(
    app: &TestApp,
    path: &str,
    session: &str,
    (name, value): (&str, &str),
) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .bearer_auth(session)
        .header(name, value)
        .send()
        .await
        .unwrap()
}

/// `GET /api/events/{event}/queue` as the buyer of `session`, with their place receipt.
async fn poll_with_receipt(
    app: &TestApp,
    event: &str,
    session: &str,
    receipt: &str,
) -> reqwest::Response {
    let path = format!("/api/events/{event}/queue");
    get_with(app, &path, session, ("place-token", receipt)).await
}

/// What a Redis failover to a replica that had none of the line leaves of it (or the line's
/// keys once they expired): nothing.
async fn lose_the_line(app: &TestApp, event: &str) {
    for (key, _) in event_keys(app, event).await {
        let () = redis::cmd("DEL")
            .arg(&key)
            .query_async(&mut app.state.redis.clone())
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn the_line_of_a_room_turned_off_expires_once_empty_and_its_count_stays() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let mut receipts = Vec::new();
    for _ in 0..3 {
        let (_, session) = app.session().await;
        receipts.push((session.clone(), place_receipt(&app, &event, &session).await));
    }
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    // A seat changes too (its generation is a key of the event).
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (_, session) = app.session().await;
    let seats: Vec<i64> = sqlx::query_scalar("select id from seat where event_id = $1 limit 1")
        .bind(&event)
        .fetch_all(&app.state.db)
        .await
        .unwrap();
    let r = hold(&app, &event, &session, "k", hold_body(&seats)).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let forever = |keys: &[(String, i64)]| -> Vec<String> {
        keys.iter()
            .filter(|(_, ttl)| *ttl == -1)
            .map(|(k, _)| k.clone())
            .collect()
    };
    assert!(!forever(&event_keys(&app, &event).await).is_empty());

    let retired = retire::retire(&app.state, &event).await.unwrap();
    assert!(
        matches!(retired, Retired::Expiring { admissions: 3, .. }),
        "{retired:?}"
    );
    let keys = event_keys(&app, &event).await;
    assert!(
        forever(&keys).is_empty(),
        "keys without a time to live: {keys:?}"
    );
    let admission_ttl = i64::from(app.state.config.admission_ttl_seconds) * 1000;
    assert!(keys.iter().all(|(_, ttl)| *ttl <= 24 * 3600 * 1000));
    assert!(
        keys.iter()
            .any(|(k, ttl)| k.ends_with(":admitted") && *ttl <= admission_ttl),
        "{keys:?}"
    );
    // The night's count is in the archive, once, however often the line is retired.
    assert_eq!(admitted_total(&app, &event).await, 3);
    retire::retire(&app.state, &event).await.unwrap();
    assert_eq!(admitted_total(&app, &event).await, 3);
    let through: i64 =
        sqlx::query_scalar("select admitted_through from event_line where event_id = $1")
            .bind(&event)
            .fetch_one(&app.state.db)
            .await
            .unwrap();
    assert!(
        through > 0,
        "the greatest arrival admitted is kept in Postgres"
    );

    // The keys gone (their time to live over) and the room on again for another night: a
    // receipt of the old line names a place already used, and puts nobody back in line.
    lose_the_line(&app, &event).await;
    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    let (session, receipt) = &receipts[2];
    let r = poll_with_receipt(&app, &event, session, receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
}

#[tokio::test]
async fn a_room_turned_off_with_buyers_in_line_keeps_its_line() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, session) = app.session().await;
    assert_eq!(join(&app, &event, &session).await.0, StatusCode::ACCEPTED);
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        retire::retire(&app.state, &event).await.unwrap(),
        Retired::Busy
    );
    let keys = event_keys(&app, &event).await;
    assert!(
        keys.iter()
            .any(|(k, ttl)| k.ends_with(":queue") && *ttl == -1),
        "{keys:?}"
    );
    // Turned on again, the buyer is where they were.
    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (status, body) = poll(&app, &event, &session).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["position"], 1);
}

#[tokio::test]
async fn an_admission_handed_out_while_the_room_was_off_is_no_admission_once_it_is_on() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, session) = app.session().await;
    let receipt = place_receipt(&app, &event, &session).await;
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // With the room off, a poll admits at once, briefly.
    let (status, body) = poll(&app, &event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted"))
    );
    let token = body["admission_token"].as_str().unwrap().to_owned();
    let expires_at: chrono::DateTime<chrono::Utc> =
        body["expires_at"].as_str().unwrap().parse().unwrap();
    assert!(
        expires_at <= chrono::Utc::now() + chrono::Duration::seconds(60),
        "{body}"
    );

    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // The token does not pass the gate of the room on.
    let seats = format!("/api/events/{event}/seats");
    let r = get_with(&app, &seats, &session, ("admission-token", &token)).await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    // Nor does it bring the admission back, the place it used up is not in line any more,
    // and its receipt puts nobody back.
    let queue = format!("/api/events/{event}/queue");
    let r = get_with(&app, &queue, &session, ("admission-token", &token)).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let r = poll_with_receipt(&app, &event, &session, &receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let tick = Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    assert_eq!(
        tick,
        anteroom::admission::ticker::Tick::Admitted {
            count: 0,
            queue_length: 0
        },
        "nobody left in line to admit a second time"
    );
}

#[tokio::test]
async fn a_receipt_of_a_place_already_admitted_puts_nobody_back_after_redis_lost_the_line() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let (_, first) = app.session().await;
    let first_receipt = place_receipt(&app, &event, &first).await;
    let (_, second) = app.session().await;
    let second_receipt = place_receipt(&app, &event, &second).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    ticker.tick(&event, &room, 0).await.unwrap();
    // The first buyer was admitted; the ticker keeps the head in Postgres too.
    ticker.flush().await.unwrap();
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    lose_the_line(&app, &event).await;
    // The used place stays used ...
    let r = poll_with_receipt(&app, &event, &first, &first_receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    // ... while a place still waiting is put back where it was.
    let r = poll_with_receipt(&app, &event, &second, &second_receipt).await;
    assert_eq!(r.status(), StatusCode::OK);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (body["position"].as_u64(), body["recovered"].as_bool()),
        (Some(1), Some(true)),
        "{body}"
    );
}

#[tokio::test]
async fn a_receipt_lives_one_night_and_only_in_the_room_it_was_given_in() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let (_, session) = app.session().await;
    let receipt = place_receipt(&app, &event, &session).await;
    // arrival.position.epoch.exp.mac
    let exp: i64 = receipt.split('.').nth(3).unwrap().parse().unwrap();
    let night = chrono::Utc::now().timestamp() + 12 * 3600;
    assert!(exp <= night, "a receipt outlives the night: {receipt}");
    for enabled in [false, true] {
        let r = put_room(&app, &event, json!({"enabled": enabled})).await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    lose_the_line(&app, &event).await;
    let r = poll_with_receipt(&app, &event, &session, &receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
}
