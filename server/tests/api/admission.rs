use std::time::{Duration, Instant};

use anteroom::admission::ticker::{Tick, Ticker};
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, JsonBody, TestApp, eventually, expect_error, join, on_single_and_cluster, plenty,
    poll, put_room, spawn_with, test_config, test_config_on, three_instances,
    two_instances_and_an_event,
};

/// `n` buyers who joined in order; returns their tokens, first in line first.
async fn line_of(app: &TestApp, event: &str, n: usize) -> Vec<String> {
    let mut tokens = Vec::new();
    for _ in 0..n {
        let (_, token) = app.session().await;
        let (_, body) = join(app, event, &token).await;
        assert_eq!(body["position"], tokens.len() + 1);
        tokens.push(token);
    }
    tokens
}

/// Which of `tokens` are admitted now, as line positions (1-based).
async fn admitted_positions(app: &TestApp, event: &str, tokens: &[String]) -> Vec<usize> {
    let polls = join_all(tokens.iter().map(|t| poll(app, event, t))).await;
    polls
        .iter()
        .enumerate()
        .filter(|(_, (_, body))| body["status"] == "admitted")
        .map(|(i, _)| i + 1)
        .collect()
}

async fn admitted_count(app: &TestApp, event: &str) -> u64 {
    redis::cmd("ZCARD")
        .arg(app.state.keys.admitted(event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap()
}

on_single_and_cluster!(
    three_tickers_at_once_admit_exactly_n_per_tick_in_line_order,
    a_leader_whose_lease_expired_is_fenced_and_the_next_continues_without_gap,
);

async fn three_tickers_at_once_admit_exactly_n_per_tick_in_line_order(backend: Backend) {
    let apps = three_instances(backend).await;
    let event = apps[0]
        .create_event(plenty(
            json!({"admit_rate_per_second": 250, "tick_ms": 100}),
        ))
        .await;
    let event = event["id"].as_str().unwrap();
    let tokens = line_of(&apps[0], event, 300).await;
    let room = apps[0]
        .state
        .rooms
        .get(&apps[0].state.db, event)
        .await
        .unwrap();
    let tickers: Vec<Ticker> = apps
        .iter()
        .map(|a| Ticker::new(a.state.line.clone()))
        .collect();

    let mut leaders = 0;
    for round in 0..10 {
        let ticks = join_all(tickers.iter().map(|t| t.tick(event, &room, round))).await;
        let admitted: Vec<u64> = ticks
            .into_iter()
            .filter_map(|t| match t.unwrap() {
                Tick::Admitted { count, .. } => Some(count),
                Tick::NotLeader | Tick::BeforeOpening => None,
            })
            .collect();
        assert_eq!(admitted, vec![25], "one leader admits N x tick = 25");
        leaders += 1;
    }
    assert_eq!(leaders, 10);
    assert_eq!(
        admitted_count(&apps[0], event).await,
        250,
        "nobody admitted twice"
    );
    let admitted = admitted_positions(&apps[1], event, &tokens).await;
    assert_eq!(
        admitted,
        (1..=250).collect::<Vec<_>>(),
        "exactly the first 250, in order"
    );
    let (_, next) = poll(&apps[2], event, &tokens[250]).await;
    assert_eq!(next["position"], 1, "the first of the rest is next");
}

#[tokio::test]
async fn fractions_carry_so_seven_a_second_in_100_ms_ticks_admits_seven_a_second() {
    let apps = three_instances(Backend::Single).await;
    let app = &apps[0];
    let event = app
        .create_event(plenty(json!({"admit_rate_per_second": 7, "tick_ms": 100})))
        .await;
    let event = event["id"].as_str().unwrap();
    line_of(app, event, 40).await;
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let mut per_second = Vec::new();
    for second in 0..3 {
        let mut n = 0;
        for _ in 0..10 {
            if let Tick::Admitted { count, .. } = ticker.tick(event, &room, second).await.unwrap() {
                n += count;
            }
        }
        per_second.push(n);
    }
    assert_eq!(per_second, vec![7, 7, 7]);
}

async fn a_leader_whose_lease_expired_is_fenced_and_the_next_continues_without_gap(
    backend: Backend,
) {
    let mut config = test_config_on(backend);
    config.ticker_lease_ms = 200;
    let (a, b, event) = two_instances_and_an_event(config).await;
    let event = event.as_str();
    let tokens = line_of(&a, event, 30).await;
    let room = a.state.rooms.get(&a.state.db, event).await.unwrap();
    let old = Ticker::new(a.state.line.clone());
    let new = Ticker::new(b.state.line.clone());

    assert!(old.acquire(event).await.unwrap());
    assert_eq!(
        old.admit(event, &room, 0).await.unwrap(),
        Tick::Admitted {
            count: 10,
            queue_length: 20
        }
    );
    assert!(!new.acquire(event).await.unwrap(), "the lease still holds");
    // The old leader stalls past its lease; the new one takes over.
    let lock = a.state.keys.ticker(event);
    eventually(
        "the old leader's lease ends",
        Duration::from_secs(10),
        async || {
            let held: bool = redis::cmd("EXISTS")
                .arg(&lock)
                .query_async(&mut a.state.redis.clone())
                .await
                .unwrap();
            !held
        },
    )
    .await;
    assert!(new.acquire(event).await.unwrap());
    assert_eq!(
        old.admit(event, &room, 1).await.unwrap(),
        Tick::NotLeader,
        "fenced"
    );
    assert_eq!(
        new.admit(event, &room, 1).await.unwrap(),
        Tick::Admitted {
            count: 10,
            queue_length: 10
        }
    );
    assert_eq!(admitted_count(&a, event).await, 20);
    assert_eq!(
        admitted_positions(&b, event, &tokens).await,
        (1..=20).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn releasing_the_lock_lets_the_next_instance_admit_at_once() {
    let apps = three_instances(Backend::Single).await;
    let event = apps[0].create_event(plenty(json!({}))).await;
    let event = event["id"].as_str().unwrap();
    let first = Ticker::new(apps[0].state.line.clone());
    let second = Ticker::new(apps[1].state.line.clone());
    assert!(first.acquire(event).await.unwrap());
    assert!(!second.acquire(event).await.unwrap());
    first.release(event).await.unwrap();
    assert!(second.acquire(event).await.unwrap());
}

#[tokio::test]
async fn a_change_of_n_or_a_pause_reaches_every_instance_within_a_second() {
    let config = test_config();
    let a = spawn_with(config.clone()).await;
    let b = spawn_with(config).await;
    let event = a
        .create_event(plenty(json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap();
    let tokens = line_of(&b, event, 100).await;
    let last = tokens.last().unwrap();
    assert_eq!(poll(&b, event, last).await.1["estimated_wait_seconds"], 10);

    let r = put_room(&a, event, json!({"admit_rate_per_second": 50})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let changed = Instant::now();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["admit_rate_per_second"], 50);
    until_within_a_second(changed, async || {
        poll(&b, event, last).await.1["estimated_wait_seconds"] == 2
    })
    .await;

    let r = put_room(&a, event, json!({"paused": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let changed = Instant::now();
    until_within_a_second(changed, async || {
        let body = poll(&b, event, last).await.1;
        body["paused"] == true && body["estimated_wait_seconds"].is_null()
    })
    .await;
    assert!(
        b.state
            .rooms
            .ticking()
            .iter()
            .any(|(id, room)| id == event && room.paused),
        "the paused event is ticked as paused (its seats counted, nobody admitted)"
    );
}

/// Checks `done` until it holds; fails if that takes more than a second from `since`.
async fn until_within_a_second(since: Instant, done: impl AsyncFnMut() -> bool) {
    let left = Duration::from_secs(1).saturating_sub(since.elapsed());
    eventually("applied within a second", left, done).await
}

#[tokio::test]
async fn room_changes_are_validated_and_need_the_admin_token() {
    let apps = three_instances(Backend::Single).await;
    let app = &apps[0];
    let event = app.create_event(plenty(json!({}))).await;
    let event = event["id"].as_str().unwrap();
    for body in [
        json!({"admit_rate_per_second": 0}),
        json!({"admit_rate_per_second": 100_001}),
        json!({"admit_rate_per_second": "fast"}),
        json!({"admit_rate_per_second": 1.5}),
        json!({"speed": 3}),
        json!({"tick_ms": 50}),
    ] {
        let r = put_room(app, event, body.clone()).await;
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    let r = put_room(app, "nosuchevent", json!({"paused": true})).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let (_, buyer) = app.session().await;
    let r = app
        .client
        .put(app.url(&format!("/api/admin/events/{event}/room")))
        .bearer_auth(buyer)
        .json(&json!({"paused": true}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let unchanged: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}")))
        .json_body()
        .await;
    assert_eq!(unchanged["room"]["paused"], false);
    assert_eq!(unchanged["room"]["admit_rate_per_second"], 50);
    let r = put_room(
        app,
        event,
        json!({"admit_rate_per_second": 100_000, "tick_ms": 100}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn the_running_ticker_admits_and_the_stats_count_every_admission() {
    let mut config = test_config();
    config.ticker = true;
    config.room_refresh_ms = 100;
    let app = spawn_with(config).await;
    let event = app
        .create_event(plenty(
            json!({"admit_rate_per_second": 20, "tick_ms": 100, "paused": true}),
        ))
        .await;
    let event = event["id"].as_str().unwrap();
    let tokens = line_of(&app, event, 30).await;
    assert_eq!(
        admitted_count(&app, event).await,
        0,
        "a paused room admits nobody"
    );
    let r = put_room(&app, event, json!({"paused": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    eventually(
        "the ticker admits everyone",
        Duration::from_secs(10),
        async || admitted_count(&app, event).await >= 30,
    )
    .await;
    assert_eq!(admitted_positions(&app, event, &tokens).await.len(), 30);
    let stats: Value = app
        .get(&format!("/api/admin/events/{event}/stats"), &app.admin_key)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(stats["queue_length"], 0);
    assert_eq!(stats["admitted_total"], 30);
    assert_eq!(
        stats["seats"],
        json!({"available": 2000, "held": 0, "sold": 0})
    );
    let series = stats["series"].as_array().unwrap();
    assert_eq!(series.len(), 600);
    let summed: u64 = series
        .iter()
        .map(|p| p["admissions"].as_u64().unwrap())
        .sum();
    assert_eq!(summed, 30);
    let r = app
        .client
        .get(app.url(&format!("/api/admin/events/{event}/stats")))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}
