//! The opening of a sale (issue 17): the windows of the pre-queue, the draw that anyone
//! recomputes from its published values (here with this test's own SHA-256, not the server's),
//! entrants ahead of the buyers who join after the opening, postponing, the beacon, and the
//! draw made exactly once across three processes whose leader is killed in the middle of it.

use std::{
    collections::{HashMap, HashSet},
    time::{Duration, Instant},
};

use anteroom::{
    admission::ticker::{Tick, Ticker},
    opening::{self, proof},
    redis::{Lock, scripts},
};
use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use testkit::procs::Instance;

use crate::helpers::{
    Backend, JsonBody, TestApp, event_body, eventually_every, expect_error, join,
    on_single_and_cluster, poll, put_room, spawn_on, spawn_with, test_config,
};

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// An event of 2 x 5 seats whose sale opens in `opens_in` with a pre-queue of
/// `prequeue_seconds`, admitting `rate` a second in ticks of a second: its id and `opens_at`.
async fn opening_event(
    app: &TestApp,
    opens_in: Duration,
    prequeue_seconds: u32,
    rate: u32,
) -> (String, DateTime<Utc>) {
    // Milliseconds, as the API writes times.
    let opens_at = (Utc::now() + opens_in).trunc_subsecs(3);
    let event = app
        .create_event(event_body(
            1,
            5,
            json!({
                "opens_at": rfc3339(opens_at),
                "prequeue_seconds": prequeue_seconds,
                "admit_rate_per_second": rate,
                "tick_ms": 1000,
            }),
        ))
        .await;
    (event["id"].as_str().unwrap().to_owned(), opens_at)
}

/// `n` new buyers who join the pre-queue of `event`: their sessions and tickets.
async fn enter_prequeue(app: &TestApp, event: &str, n: usize) -> Vec<(String, String)> {
    let mut entrants = Vec::new();
    for _ in 0..n {
        let (_, token) = app.session().await;
        let (status, body) = join(app, event, &token).await;
        assert_eq!(
            (status, &body["status"]),
            (StatusCode::ACCEPTED, &json!("pre_queue")),
            "{body}"
        );
        entrants.push((token, body["ticket"].as_str().unwrap().to_owned()));
    }
    entrants
}

/// One admission tick of `event` by a new ticker (it makes the draw when one is due).
async fn tick_once(app: &TestApp, event: &str) {
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(event, &room, 0)
        .await
        .unwrap();
}

/// Sleeps until `t` (and a little more: Redis's clock must have passed it too). Time itself:
/// an opening is a moment of the clock, and the server's clock is not the test's to move.
async fn sleep_until(t: DateTime<Utc>) {
    let left = (t - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(left + Duration::from_millis(50)).await;
}

/// `GET /api/events/{event}/draw`.
async fn published_draw(app: &TestApp, event: &str) -> (StatusCode, Value) {
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/draw")))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}

/// `PUT /api/admin/events/{event}/draw` with `beacon`.
async fn set_beacon(app: &TestApp, event: &str, beacon: &str) -> reqwest::Response {
    app.admin(
        app.client
            .put(app.url(&format!("/api/admin/events/{event}/draw"))),
    )
    .json(&json!({ "beacon": beacon }))
    .send()
    .await
    .unwrap()
}

/// Recomputes a drawn draw from its published values as API.md tells a third party to, and
/// asserts it holds; returns the tickets in draw order.
fn recompute(draw: &Value) -> Vec<String> {
    assert_eq!(draw["state"], "drawn", "{draw}");
    let secret = draw["secret"].as_str().unwrap();
    assert_eq!(secret.len(), 64);
    assert_eq!(sha256_hex(secret), draw["commitment"]);
    let seed = sha256_hex(&format!("{secret}:{}", draw["beacon"].as_str().unwrap()));
    assert_eq!(draw["seed"], seed);
    let published: Vec<String> = serde_json::from_value(draw["tickets"].clone()).unwrap();
    let mut ordered = published.clone();
    ordered.sort_by_cached_key(|t| sha256_hex(&format!("{seed}:{t}")));
    assert_eq!(
        ordered, published,
        "the published order is the seed's order"
    );
    assert_eq!(draw["entrants"], published.len());
    published
}

async fn pre_queue_joins_answer_by_the_window(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(3600), 600, 5).await;
    let e: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}")))
        .json_body()
        .await;
    let prequeue_opens_at: DateTime<Utc> =
        serde_json::from_value(e["room"]["prequeue_opens_at"].clone()).unwrap();
    assert_eq!(prequeue_opens_at, opens_at - chrono::Duration::seconds(600));

    // Before the pre-queue: 409 not_open with both times, and nothing stored.
    let (_, buyer) = app.session().await;
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue")))
        .bearer_auth(&buyer)
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::CONFLICT, "not_open").await;
    let said: DateTime<Utc> = serde_json::from_value(body["opens_at"].clone()).unwrap();
    assert_eq!(said, opens_at);
    assert_eq!(body["prequeue_opens_at"], e["room"]["prequeue_opens_at"]);
    let (status, body) = poll(&app, &event, &buyer).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_in_queue"))
    );
    let keys = &app.state.keys;
    let stored: u64 = redis::cmd("EXISTS")
        .arg(keys.entrants(&event))
        .arg(keys.queue(&event))
        .arg(keys.seq(&event))
        .arg(keys.admitted(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(stored, 0, "a refused join stores nothing");

    // The commitment is public from the moment the opening is set; nothing else is.
    let (status, draw) = published_draw(&app, &event).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(draw["state"], "pending");
    assert_eq!(draw["entrants"], 0);
    assert_eq!(draw["commitment"].as_str().unwrap().len(), 64);
    assert!(draw["secret"].is_null() && draw["seed"].is_null() && draw["tickets"].is_null());

    // Now the pre-queue is open (the sale opens in 5 minutes, the pre-queue lasts 10).
    let opens_at = Utc::now() + chrono::Duration::seconds(300);
    let r = put_room(&app, &event, json!({"opens_at": rfc3339(opens_at)})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (status, first) = join(&app, &event, &buyer).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    assert_eq!(first["status"], "pre_queue");
    let ticket = first["ticket"].as_str().unwrap();
    assert!(
        ticket.len() == 32
            && ticket
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{ticket}"
    );
    assert!(first["position"].is_null() && first["estimated_wait_seconds"].is_null());
    let said: DateTime<Utc> = serde_json::from_value(first["opens_at"].clone()).unwrap();
    assert_eq!(said.timestamp_millis(), opens_at.timestamp_millis());
    // Joining again, or polling, from anywhere: the same ticket.
    let (status, again) = join(&app, &event, &buyer).await;
    assert_eq!((status, &again), (StatusCode::ACCEPTED, &first));
    let (status, polled) = poll(&app, &event, &buyer).await;
    assert_eq!((status, &polled), (StatusCode::OK, &first));
    // Another buyer, another ticket; a buyer who never joined is in no line.
    let (_, other) = app.session().await;
    let (_, theirs) = join(&app, &event, &other).await;
    assert_ne!(theirs["ticket"], first["ticket"]);
    let (_, stranger) = app.session().await;
    assert_eq!(poll(&app, &event, &stranger).await.0, StatusCode::NOT_FOUND);
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(draw["entrants"], 2);
    assert!(draw["tickets"].is_null());
}

on_single_and_cluster!(pre_queue_joins_answer_by_the_window);

#[tokio::test]
async fn the_draw_puts_entrants_in_the_order_anyone_recomputes_ahead_of_later_joiners() {
    let app = crate::helpers::spawn_app().await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(3), 60, 5).await;
    let entrants = enter_prequeue(&app, &event, 12).await;
    let beacon = "lottery of 2026-12-01: 4 8 15 16 23 42";
    let r = set_beacon(&app, &event, beacon).await;
    assert_eq!(r.status(), StatusCode::OK);
    let draw: Value = r.json().await.unwrap();
    assert_eq!(
        (draw["beacon"].as_str(), &draw["state"]),
        (Some(beacon), &json!("pending"))
    );
    let commitment = draw["commitment"].clone();

    sleep_until(opens_at).await;
    // The sale opened; the draw is not made yet. Later joiners stand behind all 12 entrants,
    // who wait for the draw; the beacon can no longer change.
    let mut later = Vec::new();
    for i in 0..3 {
        let (_, token) = app.session().await;
        let (status, body) = join(&app, &event, &token).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        assert_eq!(body["status"], "waiting");
        assert_eq!(body["position"], 13 + i);
        later.push(token);
    }
    assert_eq!(
        poll(&app, &event, &entrants[0].0).await.1["status"],
        "pre_queue"
    );
    expect_error(
        set_beacon(&app, &event, "too late").await,
        StatusCode::CONFLICT,
        "conflict",
    )
    .await;

    // The leader's tick makes the draw, then admits the first 5 of it.
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    assert_eq!(
        ticker.tick(&event, &room, 0).await.unwrap(),
        Tick::Admitted {
            count: 5,
            queue_length: 10
        }
    );
    let (status, draw) = published_draw(&app, &event).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        draw["commitment"], commitment,
        "the commitment never changes"
    );
    assert_eq!(draw["beacon"], beacon);
    let order = recompute(&draw);
    let mine: HashSet<&String> = entrants.iter().map(|(_, t)| t).collect();
    assert_eq!(
        order.iter().collect::<HashSet<_>>(),
        mine,
        "every entrant, once"
    );

    // Each entrant stands at their place in the draw, ticket in hand; the first 5 are in.
    for (token, ticket) in &entrants {
        let place = order.iter().position(|t| t == ticket).unwrap() + 1;
        let (status, body) = poll(&app, &event, token).await;
        assert_eq!(status, StatusCode::OK);
        if place <= 5 {
            assert_eq!(body["status"], "admitted", "place {place}: {body}");
        } else {
            assert_eq!(body["position"], place - 5, "{body}");
            assert_eq!(body["ticket"], *ticket);
        }
    }
    // The later joiners follow, in their arrival order, with no ticket.
    for (i, token) in later.iter().enumerate() {
        let (_, body) = poll(&app, &event, token).await;
        assert_eq!(body["position"], 8 + i, "{body}");
        assert!(body.get("ticket").is_none());
    }
    // One draw: the next tick admits on, it draws nothing again.
    ticker.tick(&event, &room, 1).await.unwrap();
    assert_eq!(published_draw(&app, &event).await.1, draw);

    // `anteroom verify-draw` says so from the endpoint alone, with a ticket's place.
    let (verified, out) = verify_draw(&app.base, &event, &order[6]).await;
    assert!(verified, "{out}");
    assert!(out.contains("draw verified: 12 entrants"), "{out}");
    assert!(
        out.contains(&format!("ticket {}: place 7 of 12", order[6])),
        "{out}"
    );
    // A draw published with two places swapped does not verify, and says where.
    let mut forged = draw.clone();
    forged["tickets"].as_array_mut().unwrap().swap(2, 3);
    let (verified, out) = verify_draw(&serve_json(forged).await, &event, &order[0]).await;
    assert!(!verified, "{out}");
    assert!(out.contains("place 3"), "{out}");
}

/// Runs `anteroom verify-draw` against `base`: whether it exited with success, and what it
/// printed.
async fn verify_draw(base: &str, event: &str, ticket: &str) -> (bool, String) {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_anteroom"))
        .args([
            "verify-draw",
            "--url",
            base,
            "--event",
            event,
            "--ticket",
            ticket,
        ])
        .env("RUST_LOG", "off")
        .output()
        .await
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// A server on port 0 that answers every draw request with `draw`: its base URL.
async fn serve_json(draw: Value) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().route(
        "/api/events/{event_id}/draw",
        axum::routing::get(move || async move { axum::Json(draw) }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

#[tokio::test]
async fn postponing_keeps_the_commitment_and_moves_the_draw_and_bringing_it_forward_is_refused() {
    let app = crate::helpers::spawn_app().await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(2), 600, 5).await;
    let (_, first) = app.session().await;
    let ticket = join(&app, &event, &first).await.1["ticket"].clone();
    let commitment = published_draw(&app, &event).await.1["commitment"].clone();

    let postponed = opens_at + chrono::Duration::seconds(3);
    let r = put_room(&app, &event, json!({"opens_at": rfc3339(postponed)})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let room: Value = r.json().await.unwrap();
    assert_eq!(
        room["prequeue_seconds"], 600,
        "the pre-queue still opened in the past"
    );
    for forward in [json!(rfc3339(opens_at)), Value::Null] {
        let r = put_room(&app, &event, json!({ "opens_at": forward })).await;
        expect_error(r, StatusCode::CONFLICT, "conflict").await;
    }
    assert_eq!(
        published_draw(&app, &event).await.1["commitment"],
        commitment
    );

    // The first opening passes: no draw, nobody admitted, and the pre-queue still takes
    // entrants; the first one keeps their ticket.
    sleep_until(opens_at).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    assert_eq!(
        ticker.tick(&event, &room, 0).await.unwrap(),
        Tick::BeforeOpening
    );
    assert_eq!(published_draw(&app, &event).await.1["state"], "pending");
    let (_, second) = app.session().await;
    assert_eq!(join(&app, &event, &second).await.1["status"], "pre_queue");
    assert_eq!(join(&app, &event, &first).await.1["ticket"], ticket);

    sleep_until(postponed).await;
    assert!(matches!(
        ticker.tick(&event, &room, 1).await.unwrap(),
        Tick::Admitted { count: 2, .. }
    ));
    let draw = published_draw(&app, &event).await.1;
    assert_eq!(draw["commitment"], commitment);
    assert_eq!(recompute(&draw).len(), 2);
    // The sale has opened: its opening no longer moves.
    let later = postponed + chrono::Duration::seconds(60);
    let r = put_room(&app, &event, json!({"opens_at": rfc3339(later)})).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
}

#[tokio::test]
async fn a_postponement_that_would_close_the_open_pre_queue_lengthens_it() {
    let app = crate::helpers::spawn_app().await;
    // The pre-queue opened 2 s ago; the sale opens in 10 s.
    let (event, _) = opening_event(&app, Duration::from_secs(10), 12, 5).await;
    let before = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let postponed = Utc::now() + chrono::Duration::seconds(3600);
    let r = put_room(&app, &event, json!({"opens_at": rfc3339(postponed)})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let room: Value = r.json().await.unwrap();
    let opened: DateTime<Utc> = serde_json::from_value(room["prequeue_opens_at"].clone()).unwrap();
    let was = before.prequeue_opens_at.unwrap();
    assert!(
        opened <= was && was - opened < chrono::Duration::seconds(1),
        "the pre-queue still opened at {was}: {room}"
    );
    // A length that would close it, or a pre-queue over a day long: refused.
    let r = put_room(&app, &event, json!({"prequeue_seconds": 60})).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let next_week = Utc::now() + chrono::Duration::days(7);
    let r = put_room(&app, &event, json!({"opens_at": rfc3339(next_week)})).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
}

#[tokio::test]
async fn opening_settings_are_checked_audited_and_the_commitment_made_once() {
    let app = crate::helpers::spawn_app().await;
    let event = app.room_event(5).await;
    let (status, _) = published_draw(&app, &event).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no opening, no draw");
    for bad in [
        json!({"prequeue_seconds": 86_401}),
        json!({"prequeue_seconds": -1}),
        json!({"opens_at": "at seven"}),
    ] {
        expect_error(
            put_room(&app, &event, bad).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "unprocessable",
        )
        .await;
    }
    let opens_at = rfc3339(Utc::now() + chrono::Duration::days(2));
    let r = put_room(
        &app,
        &event,
        json!({"opens_at": opens_at, "prequeue_seconds": 86_400}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let room: Value = r.json().await.unwrap();
    assert_eq!(room["prequeue_seconds"], 86_400);
    let (status, draw) = published_draw(&app, &event).await;
    assert_eq!(status, StatusCode::OK);
    let commitment = draw["commitment"].clone();
    // Moved before its pre-queue opened, even cleared and set again: the same commitment.
    for change in [json!({"opens_at": null}), json!({"opens_at": opens_at})] {
        assert_eq!(
            put_room(&app, &event, change).await.status(),
            StatusCode::OK
        );
    }
    assert_eq!(
        published_draw(&app, &event).await.1["commitment"],
        commitment
    );
    let audit: Vec<Value> = app.audit(&format!("/api/admin/events/{event}/audit")).await;
    assert_eq!(audit.len(), 3, "{audit:?}");
    assert_eq!(audit[2]["change"]["prequeue_seconds"], 86_400);
    assert!(audit[1]["after"]["opens_at"].is_null());
    // The beacon: printable and bounded, audited, answered with the draw.
    for bad in ["line\nbreak".to_owned(), "x".repeat(257)] {
        expect_error(
            set_beacon(&app, &event, &bad).await,
            StatusCode::UNPROCESSABLE_ENTITY,
            "unprocessable",
        )
        .await;
    }
    assert_eq!(
        set_beacon(&app, &event, "round 7").await.status(),
        StatusCode::OK
    );
    let audit: Vec<Value> = app
        .audit(&format!("/api/admin/audit?event_id={event}"))
        .await;
    assert_eq!(audit[0]["action"], "set_beacon");
    assert_eq!(
        (&audit[0]["before"]["beacon"], &audit[0]["after"]["beacon"]),
        (&json!(""), &json!("round 7"))
    );
    // A beacon for a sale without an opening: there is no draw.
    let plain = app.room_event(5).await;
    expect_error(
        set_beacon(&app, &plain, "round 7").await,
        StatusCode::CONFLICT,
        "conflict",
    )
    .await;
    expect_error(
        set_beacon(&app, "no-such-event", "round 7").await,
        StatusCode::NOT_FOUND,
        "not_found",
    )
    .await;
}

/// Entrants written straight into the pre-queue, as joins would (buyer -> random ticket): a
/// crowd that would take minutes to join through a debug build.
async fn seed_entrants(app: &TestApp, event: &str, n: usize) {
    let key = app.state.keys.entrants(event);
    let mut redis = app.state.redis.clone();
    for chunk in (0..n).collect::<Vec<_>>().chunks(10_000) {
        let fields: Vec<(String, String)> = chunk
            .iter()
            .map(|i| {
                (
                    format!("seeded-{i}"),
                    format!("{:032x}", rand::random::<u128>()),
                )
            })
            .collect();
        let _: () = redis::cmd("HSET")
            .arg(&key)
            .arg(&fields)
            .query_async(&mut redis)
            .await
            .unwrap();
    }
}

async fn redis_get<T: redis::FromRedisValue>(app: &TestApp, cmd: &mut redis::Cmd) -> T {
    cmd.query_async(&mut app.state.redis.clone()).await.unwrap()
}

#[tokio::test]
async fn the_draw_is_made_once_across_three_processes_when_its_leader_is_killed_mid_draw() {
    const SEEDED: usize = 100_000;
    let mut config = test_config();
    config.ticker = true;
    config.ticker_lease_ms = 1000;
    let mut observer = config.clone();
    observer.ticker = false;
    let app = spawn_with(observer).await;
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(Instance::serve(env!("CARGO_BIN_EXE_anteroom"), &config).await);
    }
    let (event, opens_at) = opening_event(&app, Duration::from_secs(4), 60, 50).await;
    let joined = enter_prequeue(&app, &event, 5).await;
    seed_entrants(&app, &event, SEEDED).await;
    let entrants = SEEDED + joined.len();
    let keys = &app.state.keys;
    sleep_until(opens_at).await;
    let mut later = Vec::new();
    for _ in 0..3 {
        let (_, token) = app.session().await;
        assert_eq!(join(&app, &event, &token).await.0, StatusCode::ACCEPTED);
        later.push(token);
    }

    // The leader makes the draw (the head of its order in line at once) and puts the rest
    // in line behind it; it is killed as soon as its record shows part of the order placed.
    let started = Instant::now();
    let record = async || {
        let record: HashMap<String, String> =
            redis_get(&app, redis::cmd("HGETALL").arg(keys.draw(&event))).await;
        let placed: usize = record.get("placed")?.parse().ok()?;
        (placed < entrants).then(|| (record["drawn_by"].clone(), placed))
    };
    let (every, within) = (Duration::from_millis(2), Duration::from_secs(30));
    let (owner, placed) = eventually_every("a leader makes the draw", within, every, record).await;
    let pid: u32 = owner.split('/').nth(1).unwrap().parse().unwrap();
    let victim = instances
        .iter()
        .position(|i| i.pid() == pid)
        .expect("a process of ours leads");
    instances[victim].signal("KILL");
    let left: usize = redis_get(
        &app,
        redis::cmd("HGET").arg(keys.draw(&event)).arg("placed"),
    )
    .await;
    assert!(
        left < entrants,
        "killed mid-draw: {left} of {entrants} placed"
    );

    // Until another process has put the whole order in line: the places given so far only
    // grow, and the line (waiting or let out of it) is exactly the entrants placed so far and
    // the later joiners, so nobody was admitted past the last place given.
    let mut seen = Vec::new();
    let all_placed = async || {
        let (waiting, admitted, placed): (usize, usize, usize) = redis::pipe()
            .atomic()
            .zcard(keys.queue(&event))
            .zcard(keys.admitted(&event))
            .hget(keys.draw(&event), "placed")
            .query_async(&mut app.state.redis.clone())
            .await
            .unwrap();
        seen.push((placed, waiting + admitted));
        (placed == entrants).then_some(())
    };
    let (every, within) = (Duration::from_millis(5), Duration::from_secs(60));
    eventually_every("another process places the rest", within, every, all_placed).await;
    let placed_at = started.elapsed();
    assert!(
        seen.windows(2).all(|w| w[0].0 <= w[1].0),
        "the places given only grow: {seen:?}"
    );
    assert!(
        seen.iter().all(|(p, n)| *n == p + later.len()),
        "the line is the placed entrants and the later joiners: {seen:?}"
    );
    let finisher: Option<String> =
        redis_get(&app, redis::cmd("GET").arg(keys.ticker(&event))).await;
    assert_ne!(
        finisher.as_deref(),
        Some(owner.as_str()),
        "finished by a survivor"
    );
    println!(
        "draw of {entrants} entrants across 3 processes: leader killed with {placed} placed \
         ({left} when it died), the rest placed by {finisher:?} {placed_at:?} after the draw"
    );

    // Exactly once: the line holds every entrant once, at its place in the published draw,
    // which this test recomputes; then the later joiners.
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/draw")))
        .send()
        .await
        .unwrap();
    let draw: Value = r.json().await.unwrap();
    let order = recompute(&draw);
    assert_eq!(order.len(), entrants);
    let tickets: HashMap<String, String> =
        redis_get(&app, redis::cmd("HGETALL").arg(keys.entrants(&event))).await;
    let buyer_of: HashMap<&String, &String> = tickets.iter().map(|(b, t)| (t, b)).collect();
    let (line, admitted): (Vec<(String, f64)>, Vec<String>) = redis::pipe()
        .atomic()
        .zrange_withscores(keys.queue(&event), 0, -1)
        .zrange(keys.admitted(&event), 0, -1)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    // Admission may have begun: the admitted are the first of the draw, the rest wait in order.
    let k = admitted.len();
    let first_k: HashSet<&String> = order[..k].iter().map(|t| buyer_of[t]).collect();
    assert!(
        admitted.iter().all(|b| first_k.contains(b)),
        "the first {k} of the draw are in"
    );
    assert_eq!(line.len(), entrants - k + later.len());
    for (i, (buyer, score)) in line.iter().take(entrants - k).enumerate() {
        let place = k + i + 1;
        assert_eq!(buyer, buyer_of[&order[place - 1]], "place {place}");
        assert_eq!(*score, place as f64, "an entrant's arrival is their place");
    }
    for (token, ticket) in &joined {
        let place = order.iter().position(|t| t == ticket).unwrap() + 1;
        let (_, body) = poll(&app, &event, token).await;
        if body["status"] == "waiting" {
            assert_eq!(body["ticket"], *ticket);
            assert!(body["position"].as_u64().unwrap() <= place as u64);
        }
    }
    for (i, (buyer, score)) in line[entrants - k..].iter().enumerate() {
        assert!(
            *score > entrants as f64,
            "later joiner {i} ({buyer}) behind every entrant"
        );
    }
    for token in &later {
        let (_, body) = poll(&app, &event, token).await;
        assert_eq!(body["status"], "waiting");
        assert!(body.get("ticket").is_none());
    }
}

/// Issue 35: a draw of a million cannot put every entrant in line within a tick, so the draw
/// puts the head of its order in line and the rest follows a chunk at a time. Meanwhile the
/// entrants not yet placed are told the draw is being made (a join makes them no place at the
/// back), the later joiners count them ahead, and admission stops at the last place given.
#[tokio::test]
async fn admission_starts_from_the_head_of_the_draw_and_never_passes_its_last_place() {
    let app = crate::helpers::spawn_app().await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(2), 60, 50).await;
    let entrants = enter_prequeue(&app, &event, 3).await;
    sleep_until(opens_at).await;
    let mut later = Vec::new();
    for i in 0..2 {
        let (_, token) = app.session().await;
        let (status, body) = join(&app, &event, &token).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        assert_eq!(body["position"], 4 + i, "the entrants come first: {body}");
        later.push(token);
    }
    // The draw as the ticker's leader makes it, with only its head placed.
    let keys = &app.state.keys;
    let ticker = Ticker::new(app.state.line.clone());
    assert!(ticker.acquire(&event).await.unwrap());
    let lock = Lock::with_owner(keys.ticker(&event), ticker.owner().to_owned());
    let tickets: HashMap<String, String> =
        redis_get(&app, redis::cmd("HGETALL").arg(keys.entrants(&event))).await;
    let order = proof::order("a seed", tickets.into_iter().collect(), |(_, t)| t.as_str());
    let made: i64 = scripts::Draw {
        event_id: &event,
        lock: &lock,
        entrants: order.len(),
        opens_at,
        seed: "a seed",
        beacon: "",
        head: &order[..1],
    }
    .invocation(&app.state.scripts, keys)
    .invoke_async(&mut app.state.redis.clone())
    .await
    .unwrap();
    assert_eq!(made, 1);
    let token_of: HashMap<&String, &String> = entrants.iter().map(|(k, t)| (t, k)).collect();
    let token = |i: usize| token_of[&order[i].1].as_str();
    let (_, first) = poll(&app, &event, token(0)).await;
    assert_eq!(
        (&first["status"], &first["position"]),
        (&json!("waiting"), &json!(1))
    );
    assert_eq!(first["ticket"], order[0].1.as_str());
    for (_, ticket) in &order[1..] {
        let (status, body) = join(&app, &event, token_of[ticket]).await;
        assert_eq!(
            (status, &body["status"], &body["ticket"]),
            (StatusCode::ACCEPTED, &json!("pre_queue"), &json!(ticket)),
            "not placed yet: {body}"
        );
    }
    for (i, token) in later.iter().enumerate() {
        assert_eq!(poll(&app, &event, token).await.1["position"], 4 + i);
    }
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(
        (&draw["state"], &draw["entrants"], &draw["tickets"]),
        (&json!("pending"), &json!(3), &Value::Null),
        "published once the order is all in line: {draw}"
    );

    // A tick at 50 a second admits the one placed entrant, nobody past it; the leader takes
    // up the placing of the rest.
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let tick = ticker.tick(&event, &room, 0).await.unwrap();
    assert!(matches!(tick, Tick::Admitted { count: 1, .. }), "{tick:?}");
    let placed = async || {
        let placed: usize = redis_get(
            &app,
            redis::cmd("HGET").arg(keys.draw(&event)).arg("placed"),
        )
        .await;
        (placed == 3).then_some(())
    };
    let (every, within) = (Duration::from_millis(10), Duration::from_secs(10));
    eventually_every("the rest of the order placed", within, every, placed).await;
    ticker.tick(&event, &room, 1).await.unwrap();
    let log: Vec<String> = redis_get(
        &app,
        redis::cmd("LRANGE")
            .arg(keys.admission_log(&event))
            .arg(0)
            .arg(-1),
    )
    .await;
    let arrivals: Vec<&str> = log.iter().map(|e| e.split(':').nth(1).unwrap()).collect();
    assert_eq!(
        &arrivals[..3],
        ["1", "2", "3"],
        "the draw's order first: {log:?}"
    );
    assert_eq!(arrivals.len(), 5, "then the later joiners: {log:?}");
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(draw["state"], "drawn");
    let published: Vec<&str> = draw["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    let expected: Vec<&str> = order.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(published, expected);
}

/// Issue 35: the draw reads the entrants ahead, from the pre-queue's entries as they come (a
/// join pushes its ticket and buyer, a claim the ticket's new buyer, or none for a ticket given
/// up), so that at the opening only the last ones are read. A place moved by a claim in the
/// pre-queue is drawn for the device that claimed it, and the claimer's own ticket is gone.
#[tokio::test]
async fn entrants_read_ahead_of_the_draw_follow_a_place_moved_in_the_pre_queue() {
    let app = crate::helpers::spawn_app().await;
    // One admission a tick: the draw's tick admits place 1 only.
    let (event, opens_at) = opening_event(&app, Duration::from_secs(3), 60, 1).await;
    let entrants = enter_prequeue(&app, &event, 4).await;
    opening::prefetch(&app.state.opening(), &event)
        .await
        .unwrap();
    // The fourth entrant claims the second's place: their own ticket is given up.
    let code = crate::moving::move_code(&app, &event, &entrants[1].0).await;
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue/claim")))
        .bearer_auth(&entrants[3].0)
        .json(&json!({ "code": code["code"] }))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.text().await.unwrap());
    let keys = &app.state.keys;
    let entries: Vec<String> = redis_get(
        &app,
        redis::cmd("LRANGE")
            .arg(keys.entered(&event))
            .arg(0)
            .arg(-1),
    )
    .await;
    assert_eq!(
        entries.len(),
        6,
        "4 entries, a ticket given up, a ticket moved: {entries:?}"
    );
    assert_eq!(entries[4], format!("{} ", entrants[3].1));
    assert!(entries[5].starts_with(&format!("{} ", entrants[1].1)));
    assert!(!entries[5].ends_with(' '));

    sleep_until(opens_at).await;
    tick_once(&app, &event).await;
    let (_, draw) = published_draw(&app, &event).await;
    let order = recompute(&draw);
    let mut drawn: Vec<&String> = order.iter().collect();
    drawn.sort();
    let mut expected: Vec<&String> = entrants[..3].iter().map(|(_, t)| t).collect();
    expected.sort();
    assert_eq!(drawn, expected, "the claimer's own ticket was given up");
    let place = order.iter().position(|t| *t == entrants[1].1).unwrap() + 1;
    let (_, body) = poll(&app, &event, &entrants[3].0).await;
    if place > 1 {
        assert_eq!(body["status"], "waiting", "{body}");
        assert_eq!(body["ticket"], entrants[1].1.as_str(), "{body}");
    } else {
        assert_eq!(body["status"], "admitted", "{body}");
    }
    assert_eq!(
        poll(&app, &event, &entrants[1].0).await.0,
        StatusCode::NOT_FOUND,
        "the place moved away from the second entrant"
    );
    let left: bool = redis_get(&app, redis::cmd("EXISTS").arg(keys.entered(&event))).await;
    assert!(!left, "the entries go once the draw is kept in Postgres");
}

/// Review finding 5: between the draw's read of the entrants and its swap into the line, a
/// claim renamed an entrant and the place was lost. Now no entrant's place moves from the
/// opening until the draw is made (409, and the code stays good); after the draw it moves with
/// its place in the draw.
#[tokio::test]
async fn a_pre_queue_place_does_not_move_while_the_draw_is_made_and_moves_after_it() {
    let app = crate::helpers::spawn_app().await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(2), 60, 1).await;
    let entrants = enter_prequeue(&app, &event, 3).await;
    let code = crate::moving::move_code(&app, &event, &entrants[1].0).await;
    let code = code["code"].as_str().unwrap().to_owned();
    let (_, claimer) = app.session().await;
    let claim = || {
        app.client
            .post(app.url(&format!("/api/events/{event}/queue/claim")))
            .bearer_auth(&claimer)
            .json(&json!({ "code": code }))
            .send()
    };
    sleep_until(opens_at).await;
    let r = claim().await.unwrap();
    let body = expect_error(r, StatusCode::CONFLICT, "conflict").await;
    assert!(body["message"].as_str().unwrap().contains("draw"), "{body}");
    assert_eq!(
        poll(&app, &event, &entrants[1].0).await.1["status"],
        "pre_queue",
        "the place stayed"
    );
    tick_once(&app, &event).await;
    let (_, draw) = published_draw(&app, &event).await;
    let order = recompute(&draw);
    let place = order.iter().position(|t| *t == entrants[1].1).unwrap() + 1;
    let r = claim().await.unwrap();
    let status = r.status();
    let moved: Value = r.json().await.unwrap();
    if place == 1 {
        assert_eq!(moved["status"], "admitted", "{moved}");
    } else {
        assert_eq!(status, StatusCode::ACCEPTED, "{moved}");
        assert_eq!(moved["position"], place - 1, "{moved}");
        assert_eq!(moved["ticket"], entrants[1].1.as_str());
    }
    assert_eq!(
        poll(&app, &event, &entrants[1].0).await.0,
        StatusCode::NOT_FOUND
    );
}

/// Review finding 12: the draw's order lived only in Redis (a lost Redis made a published draw
/// unverifiable) and its keys, the device bindings and the refusals never expired. Now the
/// made draw is kept in Postgres and published from there, and a retired line's keys all get
/// a time to live.
#[tokio::test]
async fn a_made_draw_is_kept_in_postgres_and_its_keys_expire_with_the_line() {
    let app = crate::helpers::spawn_app().await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(2), 60, 5).await;
    let entrants = enter_prequeue(&app, &event, 3).await;
    sleep_until(opens_at).await;
    tick_once(&app, &event).await;
    let archived: Option<Vec<String>> =
        sqlx::query_scalar("select tickets from draw where event_id = $1")
            .bind(&event)
            .fetch_one(&app.state.db)
            .await
            .unwrap();
    let archived = archived.expect("the made draw is archived");
    assert_eq!(archived.len(), 3);
    // Redis loses the draw: it is still published, from Postgres, and still verifies.
    let keys = &app.state.keys;
    let _: () = redis::cmd("DEL")
        .arg(keys.draw(&event))
        .arg(keys.drawn_tickets(&event))
        .arg(keys.entrants(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    let (status, draw) = published_draw(&app, &event).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(draw["state"], "drawn");
    assert_eq!(
        recompute(&draw),
        archived,
        "the archive is the order anyone recomputes"
    );
    let mine: HashSet<&String> = entrants.iter().map(|(_, t)| t).collect();
    assert_eq!(archived.iter().collect::<HashSet<_>>(), mine);
    // No draw again from the tickers of a line that lost its keys.
    let ticker = Ticker::new(app.state.line.clone());
    assert!(ticker.draw(&event).await.unwrap());
    let made: bool = redis::cmd("EXISTS")
        .arg(keys.draw(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert!(!made, "a kept draw is not made again");
    // The night ends: every key of the line, the draw's, the bindings and refusals included,
    // gets a time to live.
    let _: () = redis::pipe()
        .hset(keys.bound(&event), "someone", "jkt")
        .ignore()
        .hset(keys.refusals(&event), "no_key", 1)
        .ignore()
        .hset(keys.entrants(&event), "someone", "ticket")
        .ignore()
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    anteroom::admission::retire::retire(&app.state, &event)
        .await
        .unwrap();
    for key in [
        keys.bound(&event),
        keys.refusals(&event),
        keys.entrants(&event),
    ] {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut app.state.redis.clone())
            .await
            .unwrap();
        assert!(ttl > 0, "{key} never expires ({ttl})");
    }
}

/// The League of Entropy's quicknet as a draw's beacon source, at `round`.
fn quicknet(round: u64) -> Value {
    json!({
        "kind": "drand",
        "chain_hash": "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
        "public_key": "83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a",
        "round": round,
    })
}

/// A quicknet round a day from now.
fn a_day_ahead() -> u64 {
    ((Utc::now().timestamp() - 1_692_803_367) / 3 + 28_800) as u64
}

/// Quicknet's round 657413 (a public fact): its signature and randomness.
const ROUND: u64 = 657413;
const SIGNATURE: &str = "b713718a38ae728dfd477991af2822e08d2f305e47718cef9f7848ce4050e7be41076862b98fad56e91a6b85b89cd97b";
const RANDOMNESS: &str = "fc1873a13f3545aeade8401532ef5519920652eee6b0d2b19ca12643b87b3587";
/// Quicknet's round 123: another round's signature.
const OTHER_SIGNATURE: &str = "b75c69d0b72a5d906e854e808ba7e2accb1542ac355ae486d591aa9d43765482e26cd02df835d3546d23c4b13e0dfc92";

/// `PUT /api/admin/events/{event}/draw` with `body`.
async fn put_draw(app: &TestApp, event: &str, body: Value) -> reqwest::Response {
    app.admin(
        app.client
            .put(app.url(&format!("/api/admin/events/{event}/draw"))),
    )
    .json(&body)
    .send()
    .await
    .unwrap()
}

/// A drand relay on port 0 that answers quicknet's recorded round (and nothing else): its URL.
async fn drand_relay() -> String {
    let app = axum::Router::new().route(
        "/{chain}/public/{round}",
        axum::routing::get(
            |axum::extract::Path((_, round)): axum::extract::Path<(String, u64)>| async move {
                if round == ROUND {
                    Ok(axum::Json(
                        json!({"round": ROUND, "signature": SIGNATURE, "randomness": RANDOMNESS}),
                    ))
                } else {
                    Err(axum::http::StatusCode::NOT_FOUND)
                }
            },
        ),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

/// A sale opening in 4 s whose pre-queue opens in 2 s, on an app whose drand relays are
/// `relays`, its draw committed to quicknet's recorded round (set in Postgres: through the API
/// only a round after the opening is taken, and such a round's signature does not exist yet),
/// and 3 entrants. Returns the app, the event and the opening.
async fn drand_sale(relays: Vec<String>) -> (TestApp, String, DateTime<Utc>) {
    let mut config = test_config();
    config.drand_urls = relays;
    let app = spawn_with(config).await;
    let (event, opens_at) = opening_event(&app, Duration::from_secs(4), 2, 5).await;
    // Through the API: a round before the opening is refused, one after it is taken.
    let r = put_draw(&app, &event, json!({"beacon_source": quicknet(123)})).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let mut wrong_key = quicknet(a_day_ahead());
    wrong_key["public_key"] = json!("93cf".to_owned() + &"0".repeat(188));
    let r = put_draw(&app, &event, json!({"beacon_source": wrong_key})).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = put_draw(
        &app,
        &event,
        json!({"beacon_source": quicknet(a_day_ahead())}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK, "{}", r.text().await.unwrap());
    let r = put_draw(&app, &event, json!({"beacon": "my own"})).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    sqlx::query(
        "update draw set beacon_source = jsonb_set(beacon_source, '{round}', to_jsonb($2::bigint)) \
         where event_id = $1",
    )
    .bind(&event)
    .bind(ROUND as i64)
    .execute(&app.state.db)
    .await
    .unwrap();
    sleep_until(opens_at - chrono::Duration::seconds(2)).await;
    // The pre-queue is open: the source is fixed.
    let r = put_draw(
        &app,
        &event,
        json!({"beacon_source": quicknet(a_day_ahead())}),
    )
    .await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    enter_prequeue(&app, &event, 3).await;
    (app, event, opens_at)
}

/// `verify-draw` on a draw of [`drand_sale`]: everything checks (the secret, the round's
/// signature under quicknet's own key, the seed, the order) but the one thing the test forged,
/// a recorded round put in place of one after the opening, which it names (issue 63, 13).
fn verify_draw_sees_the_recorded_round(draw: Value) {
    let published: app::wire::Draw = serde_json::from_value(draw).unwrap();
    let wrong = anteroom::opening::verify::check(&published, None).unwrap_err();
    assert_eq!(wrong.len(), 1, "{wrong:?}");
    assert!(wrong[0].contains("not after the opening"), "{wrong:?}");
}

/// Review finding 4: the operator could steer the draw (a free-text beacon until the opening,
/// entrants until the opening, the secret readable). A draw committed to a drand round waits
/// for that round, takes its randomness as the beacon only from a signature that verifies, and
/// publishes the round and signature, so anyone checks that nobody chose the beacon.
#[tokio::test]
async fn a_draw_committed_to_a_drand_round_waits_for_its_verified_signature() {
    let (app, event, opens_at) = drand_sale(Vec::new()).await;
    // Nobody reads the secret from the database before the draw: only its nonce is there.
    let sealed: bool = sqlx::query_scalar(
        "select secret is null and secret_nonce is not null from draw where event_id = $1",
    )
    .bind(&event)
    .fetch_one(&app.state.db)
    .await
    .unwrap();
    assert!(sealed, "the draw's secret is stored before the draw");
    sleep_until(opens_at).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    ticker.tick(&event, &room, 0).await.unwrap();
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(
        draw["state"], "pending",
        "no draw before the round is in: {draw}"
    );
    let r = put_draw(&app, &event, json!({"round_signature": OTHER_SIGNATURE})).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = put_draw(&app, &event, json!({"round_signature": SIGNATURE})).await;
    assert_eq!(r.status(), StatusCode::OK);
    ticker.tick(&event, &room, 1).await.unwrap();
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(draw["beacon"], RANDOMNESS);
    assert_eq!(draw["beacon_signature"], SIGNATURE);
    assert_eq!(draw["beacon_source"]["round"], ROUND);
    assert_eq!(recompute(&draw).len(), 3);
    let kept: Option<String> = sqlx::query_scalar("select secret from draw where event_id = $1")
        .bind(&event)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(
        kept.as_deref(),
        draw["secret"].as_str(),
        "published, then kept"
    );
    verify_draw_sees_the_recorded_round(draw);
}

/// The same draw with a drand relay reachable: the round is fetched and checked by the server,
/// and the opening cannot be postponed to after the round.
#[tokio::test]
async fn a_draw_committed_to_a_drand_round_fetches_the_round_from_a_relay() {
    let relay = drand_relay().await;
    let (app, event, opens_at) = drand_sale(vec![relay]).await;
    let later = rfc3339(opens_at + chrono::Duration::seconds(60));
    let r = put_room(&app, &event, json!({"opens_at": later})).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    sleep_until(opens_at).await;
    tick_once(&app, &event).await;
    let (_, draw) = published_draw(&app, &event).await;
    assert_eq!(draw["state"], "drawn", "{draw}");
    assert_eq!(draw["beacon"], RANDOMNESS);
    assert_eq!(draw["beacon_signature"], SIGNATURE);
    verify_draw_sees_the_recorded_round(draw);
}
