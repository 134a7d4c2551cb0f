//! The automatic admission rate and the buyers who went away (issue 18, part A), against the
//! real Redis and Postgres: the rate falls when the hold path slows and rises again after;
//! admissions that lapse unused are replaced; an absent buyer is skipped at their turn and
//! admitted on return, ahead of the line, and nobody present is reordered; the settings are
//! validated and audited; the operator's series read true while paused and with the room off.

use std::time::{Duration, Instant};

use anteroom::admission::ticker::{Tick, Ticker};
use app::wire::Room;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    JsonBody, TestApp, event_body, eventually, expect_error, hold_admitted, hold_body, join, poll,
    present_until, put_room, redis_clock_past, seat_ids, spawn_app, spawn_with, steer, test_config,
};

async fn room(app: &TestApp, event: &str) -> Room {
    app.state.rooms.get(&app.state.db, event).await.unwrap()
}

async fn tick(ticker: &Ticker, event: &str, room: &Room) -> u64 {
    match ticker
        .tick(event, room, chrono::Utc::now().timestamp())
        .await
        .unwrap()
    {
        Tick::Admitted { count, .. } => count,
        other => panic!("not admitted: {other:?}"),
    }
}

/// A buyer who joined `event`: their session token.
async fn joiner(app: &TestApp, event: &str) -> String {
    let (_, token) = app.session().await;
    let (status, body) = join(app, event, &token).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    token
}

/// The admission token of `session`, whose poll must answer admitted.
async fn admission(app: &TestApp, event: &str, session: &str) -> String {
    let (_, body) = poll(app, event, session).await;
    assert_eq!(body["status"], "admitted", "{body}");
    body["admission_token"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn auto_rate_settings_out_of_range_are_refused_change_nothing_and_valid_ones_are_audited() {
    let app = spawn_app().await;
    let event = app.room_event(50).await;
    for refused in [
        json!({"min_admit_rate_per_second": 0}),
        json!({"max_admit_rate_per_second": 100_001}),
        json!({"min_admit_rate_per_second": 20, "max_admit_rate_per_second": 10}),
        // Against the room's maximum (1000 by default).
        json!({"min_admit_rate_per_second": 1001}),
        json!({"target_hold_p99_ms": 0}),
    ] {
        let r = put_room(&app, &event, refused.clone()).await;
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    let r = put_room(&app, &event, json!({"auto_rate": true, "auto_speed": 3})).await;
    assert!(r.status().is_client_error(), "an unknown field is refused");
    let untouched = room(&app, &event).await;
    assert!(!untouched.auto_rate);
    assert_eq!(
        (
            untouched.min_admit_rate_per_second,
            untouched.max_admit_rate_per_second,
            untouched.target_hold_p99_ms
        ),
        (1, 1000, 50)
    );

    let change = json!({"auto_rate": true, "min_admit_rate_per_second": 5,
        "max_admit_rate_per_second": 200, "target_hold_p99_ms": 80});
    let r = put_room(&app, &event, change.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["auto_rate"], true);
    assert_eq!(body["max_admit_rate_per_second"], 200);
    let audit: Vec<Value> = app
        .admin(
            app.client
                .get(app.url(&format!("/api/admin/events/{event}/audit"))),
        )
        .json_body()
        .await;
    assert_eq!(audit.len(), 1, "only the accepted change is recorded");
    assert_eq!(audit[0]["change"], change);
    assert_eq!(audit[0]["before"]["auto_rate"], false);
    assert_eq!(audit[0]["after"]["target_hold_p99_ms"], 80);
}

#[tokio::test]
async fn the_rate_falls_when_holds_slow_down_and_rises_again_after() {
    let mut config = test_config();
    // The machine running the tests is busy: the event loop's lag is not what this measures.
    config.loop_lag_limit_ms = 60_000;
    let app = spawn_with(config).await;
    // 200 seats: the 36 places this test estimates are all served by free seats, so that the
    // rate in force alone bounds their wait (`app::estimate`).
    let created = app
        .create_event(event_body(
            10,
            10,
            json!({"admit_rate_per_second": 50, "auto_rate": true,
                "min_admit_rate_per_second": 5, "max_admit_rate_per_second": 100,
                "target_hold_p99_ms": 50}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    let room = room(&app, event).await;
    let ticker = Ticker::new(app.state.line.clone());
    let buyer = joiner(&app, event).await;
    assert_eq!(tick(&ticker, event, &room).await, 1);
    let admission = admission(&app, event, &buyer).await;
    let seats = seat_ids(&app, event).await;

    slow_hold(&app, event, (&buyer, &admission), seats[0]).await;

    let slowed = steer(&app, &ticker, event, &room).await;
    assert_eq!(slowed.rate, 35, "cut by the rule's factor: {slowed:?}");
    assert!(slowed.reason.contains("hold p99"), "{}", slowed.reason);
    assert_eq!(
        app.state.rates.in_force(event, &room),
        35,
        "the rate in force is the steered one"
    );
    let numbers = app.stats(event).await;
    assert_eq!(numbers["admit_rate_per_second"], 35);
    let series = numbers["series"].as_array().unwrap();
    assert!(
        series.iter().any(|p| p["admit_rate_per_second"] == 35),
        "the per-second series carries the rate in force"
    );
    assert_eq!(numbers["rate"]["min_admit_rate_per_second"], 5);
    assert!(numbers["rate"]["hold_p99_ms"].as_f64().unwrap() >= 300.0);
    let waiting: Vec<String> = {
        let mut w = Vec::new();
        for _ in 0..36 {
            w.push(joiner(&app, event).await);
        }
        w
    };
    let (_, last) = poll(&app, event, &waiting[35]).await;
    assert_eq!(
        last["estimated_wait_seconds"], 2,
        "36th in line at 35 a second: {last}"
    );
    assert!(
        metric(&app, "anteroom_hold_transaction_seconds_count").await >= 1.0,
        "the hold transaction is timed on its own"
    );

    // The slow samples age out of the window; with quick holds the rate climbs again.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut rate = slowed.rate;
    while rate <= slowed.rate {
        assert!(Instant::now() < deadline, "the rate did not recover");
        // The steps are the controller under test: taken at the loop's pace, not faster.
        tokio::time::sleep(Duration::from_millis(500)).await;
        rate = steer(&app, &ticker, event, &room).await.rate;
    }
    assert!(rate <= 100, "within the bounds");
}

/// A hold of `seat` through `app` that waits 400 ms on the seat rows' locks, which another
/// transaction holds meanwhile.
async fn slow_hold(app: &TestApp, event: &str, buyer: (&str, &str), seat: i64) {
    let mut blocker = app.state.db.begin().await.unwrap();
    sqlx::query("select id from seat where event_id = $1 for update")
        .bind(event)
        .execute(&mut *blocker)
        .await
        .unwrap();
    let held = hold_admitted(app, event, buyer, "slow", hold_body(&[seat]));
    let release = async {
        // The slowness this test makes, not a wait.
        tokio::time::sleep(Duration::from_millis(400)).await;
        blocker.commit().await.unwrap();
    };
    let (held, ()) = tokio::join!(held, release);
    assert_eq!(held.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn holds_slowing_on_another_instance_slow_the_leader_and_every_instance_estimates_with_it() {
    let mut config = test_config();
    config.loop_lag_limit_ms = 60_000;
    let leader = spawn_with(config.clone()).await;
    let other = spawn_with(config).await;
    // 200 seats: free seats serve every place estimated here; the rate bounds the wait.
    let created = leader
        .create_event(event_body(
            10,
            10,
            json!({"admit_rate_per_second": 20, "auto_rate": true,
                "min_admit_rate_per_second": 2, "max_admit_rate_per_second": 40}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    other.state.rooms.refresh(&other.state.db).await.unwrap();
    let room = room(&leader, event).await;
    let (leading, following) = (
        Ticker::new(leader.state.line.clone()),
        Ticker::new(other.state.line.clone()),
    );
    let buyer = joiner(&other, event).await;
    assert_eq!(tick(&leading, event, &room).await, 1);
    let admission = admission(&other, event, &buyer).await;
    let seats = seat_ids(&other, event).await;
    slow_hold(&other, event, (&buyer, &admission), seats[0]).await;

    // The other instance publishes what it measured; the leader, which served no hold, cuts.
    let published = steer(&other, &following, event, &room).await;
    assert_eq!(published.rate, 20, "not the leader: it changes nothing");
    let cut = steer(&leader, &leading, event, &room).await;
    assert_eq!(cut.rate, 14, "{cut:?}");
    // The next step of the other instance reads the rate in force, and its estimates use it.
    assert_eq!(steer(&other, &following, event, &room).await.rate, 14);
    for _ in 0..14 {
        joiner(&other, event).await;
    }
    let last = joiner(&other, event).await;
    let (_, body) = poll(&other, event, &last).await;
    assert_eq!(body["position"], 15);
    assert_eq!(body["estimated_wait_seconds"], 2, "ceil(15 / 14)");
}

async fn metric(app: &TestApp, name: &str) -> f64 {
    let text = app.metrics_text().await;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {name} in\n{text}"))
}

#[tokio::test]
async fn admissions_that_lapse_unused_stop_counting_and_are_replaced() {
    let mut config = test_config();
    config.loop_lag_limit_ms = 60_000;
    config.seatmap_deadline_seconds = 2;
    config.admission_ttl_seconds = 6;
    let app = spawn_with(config).await;
    // The slots: 2 a second for a 6 s admission, 12 shopping.
    let created = app
        .create_event(event_body(
            2,
            10,
            json!({"admit_rate_per_second": 2, "auto_rate": true,
                "min_admit_rate_per_second": 1, "max_admit_rate_per_second": 41}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    let room = room(&app, event).await;
    let ticker = Ticker::new(app.state.line.clone());
    let mut line = Vec::new();
    for _ in 0..16 {
        line.push(joiner(&app, event).await);
    }
    for _ in 0..7 {
        assert_eq!(tick(&ticker, event, &room).await, 2);
    }
    // One of the fourteen admitted opens the seat map: they shop until their admission ends.
    let token = admission(&app, event, &line[0]).await;
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(&line[0])
        .header("admission-token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    let crowded = steer(&app, &ticker, event, &room).await;
    assert_eq!(
        crowded.rate, 1,
        "fourteen shopping of twelve: eased: {crowded:?}"
    );
    assert_eq!(app.stats(event).await["rate"]["shopping"], 14);

    // Thirteen reach the seat-map deadline (2 s) without opening it: no longer shopping.
    let marks = app.state.keys.shopping(event);
    eventually(
        "thirteen admissions lapse",
        Duration::from_secs(20),
        async || {
            let now_ms = chrono::Utc::now().timestamp_millis();
            let shopping: u64 = redis::cmd("ZCOUNT")
                .arg(&marks)
                .arg(format!("({now_ms}"))
                .arg("+inf")
                .query_async(&mut app.state.redis.clone())
                .await
                .unwrap();
            shopping == 1
        },
    )
    .await;
    let replaced = steer(&app, &ticker, event, &room).await;
    assert_eq!(
        replaced.rate, 3,
        "thirteen lapsed before their admission ended, one shops: one step up: {replaced:?}"
    );
    assert_eq!(app.stats(event).await["rate"]["shopping"], 1);
}

#[tokio::test]
async fn an_absent_buyer_is_skipped_then_admitted_on_return_ahead_of_the_line_and_nobody_present_moves()
 {
    let mut config = test_config();
    config.away_after_seconds = 1;
    let app = spawn_with(config).await;
    let created = app
        .create_event(event_body(
            1,
            10,
            json!({"admit_rate_per_second": 1, "tick_ms": 1000}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    let room = room(&app, event).await;
    let ticker = Ticker::new(app.state.line.clone());
    let (gone_buyer, gone) = app.session().await;
    assert_eq!(join(&app, event, &gone).await.0, StatusCode::ACCEPTED);
    let mut line = vec![gone];
    for _ in 1..5 {
        line.push(joiner(&app, event).await);
    }
    let (gone, present) = (&line[0], &line[1..]);
    // The first buyer is away (unseen) once their window (`away_after_seconds`) has ended.
    let window = present_until(&app, event, &gone_buyer).await.unwrap();
    redis_clock_past(&app, "the first buyer's window ends", window).await;
    for buyer in present {
        assert_eq!(poll(&app, event, buyer).await.0, StatusCode::OK);
    }

    let mut order = Vec::new();
    let admitted_now = |order: &Vec<usize>| {
        let order = order.clone();
        let app = &app;
        let line = &line;
        async move {
            let mut newly = Vec::new();
            for (i, buyer) in line.iter().enumerate() {
                if order.contains(&i) {
                    continue;
                }
                let (_, body) = poll(app, event, buyer).await;
                if body["status"] == "admitted" {
                    newly.push(i);
                }
            }
            newly
        }
    };
    // The first tick passes over the absent buyer and admits the next: one admission used.
    assert_eq!(tick(&ticker, event, &room).await, 1);
    let first = {
        let mut newly = Vec::new();
        for (i, buyer) in present.iter().enumerate() {
            if poll(&app, event, buyer).await.1["status"] == "admitted" {
                newly.push(i + 1);
            }
        }
        newly
    };
    assert_eq!(first, vec![1], "the second in line, not the absent first");
    order.extend(first);
    // Back: first in line again, keeping their arrival.
    let (status, back) = poll(&app, event, gone).await;
    assert_eq!((status, &back["position"]), (StatusCode::OK, &json!(1)));
    for _ in 0..4 {
        assert_eq!(tick(&ticker, event, &room).await, 1);
        let newly = admitted_now(&order).await;
        assert_eq!(newly.len(), 1, "{newly:?}");
        order.extend(newly);
    }
    assert_eq!(
        order,
        vec![1, 0, 2, 3, 4],
        "the returning buyer at the next tick, everyone present in line order"
    );
    let present_order: Vec<usize> = order.iter().copied().filter(|&i| i != 0).collect();
    let inversions = present_order
        .iter()
        .enumerate()
        .flat_map(|(a, x)| present_order[a + 1..].iter().map(move |y| (x, y)))
        .filter(|(x, y)| x > y)
        .count();
    assert_eq!(inversions, 0);

    // The night's report says the same: the returning buyer's admission is marked in the
    // published log and counted apart, not as an inversion.
    ticker.flush().await.unwrap();
    let log: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}/report/admissions")))
        .json_body()
        .await;
    let marked: Vec<bool> = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.get("back_from_away") == Some(&json!(true)))
        .collect();
    assert_eq!(marked, vec![false, true, false, false, false], "{log}");
    let report: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}/report")))
        .json_body()
        .await;
    assert_eq!(
        (
            &report["admitted"],
            &report["fifo_inversions"],
            &report["back_from_away"]
        ),
        (&json!(5), &json!(0), &json!(1)),
        "{report}"
    );
}

#[tokio::test]
async fn the_series_reads_the_line_while_paused_and_counts_admissions_with_the_room_off() {
    let app = spawn_app().await;
    let event = app.room_event(5).await;
    for _ in 0..3 {
        joiner(&app, &event).await;
    }
    assert_eq!(
        put_room(&app, &event, json!({"paused": true}))
            .await
            .status(),
        StatusCode::OK
    );
    let paused = room(&app, &event).await;
    let ticker = Ticker::new(app.state.line.clone());
    assert_eq!(tick(&ticker, &event, &paused).await, 0);
    let numbers = app.stats(&event).await;
    let series = numbers["series"].as_array().unwrap();
    let last = series.iter().rev().find(|p| p["queue_length"] != 0);
    assert_eq!(
        last.map(|p| &p["queue_length"]),
        Some(&json!(3)),
        "the paused line's length"
    );
    assert_eq!(numbers["rate_reason"], "set by the operator");

    assert_eq!(
        put_room(&app, &event, json!({"enabled": false, "paused": false}))
            .await
            .status(),
        StatusCode::OK
    );
    for _ in 0..2 {
        let (_, token) = app.session().await;
        for _ in 0..2 {
            let (status, body) = join(&app, &event, &token).await;
            assert_eq!(
                (status, &body["status"]),
                (StatusCode::OK, &json!("admitted"))
            );
        }
    }
    let admissions: u64 = app.stats(&event).await["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["admissions"].as_u64().unwrap())
        .sum();
    assert_eq!(
        admissions, 2,
        "two buyers admitted with the room off, once each"
    );
}
