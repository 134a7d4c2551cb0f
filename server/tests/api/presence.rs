//! Presence far from the front (`app::presence`, DESIGN.md "A line of millions"): a waiting
//! answer keeps its buyer present for a window that grows with their distance from the front,
//! computed by the script exactly as the page's schedule computes it; at the turn, a buyer whose
//! window ended is skipped and one whose window runs is admitted, however long ago they asked;
//! the answer tells the page when to ask again and how often to refresh.

use anteroom::admission::ticker::{Tick, Ticker};
use app::{presence::Schedule, wire::Room};
use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    event_body, join, poll, present_until, redis_clock_past, redis_ms, spawn_with, test_config,
};

#[tokio::test]
async fn presence_grows_with_the_distance_from_the_front_and_only_the_windows_ended_are_skipped() {
    let mut config = test_config();
    config.away_after_seconds = 1;
    let app = spawn_with(config).await;
    let created = app
        .create_event(event_body(
            1,
            40,
            json!({"admit_rate_per_second": 1, "tick_ms": 1000}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    let schedule = Schedule {
        rate: 1,
        floor_ms: 1_000,
    };
    // Twenty buyers join, one after the other: buyer k (1-based) is at position k, present
    // for max(1 s, (k - 1) / 2 s) from their join, as the schedule says to the millisecond.
    let mut line = Vec::new();
    for k in 1..=20u64 {
        let (buyer, session) = app.session().await;
        let before = redis_ms(&app).await;
        let (status, body) = join(&app, event, &session).await;
        let after = redis_ms(&app).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        assert_eq!(body["position"], k);
        let until = present_until(&app, event, &buyer).await.unwrap();
        let window = schedule.window_ms(k) as i64;
        assert!(
            (before + window..=after + window).contains(&until),
            "buyer {k}: present until {until}, joined in [{before}, {after}], window {window}"
        );
        // The answer tells the page when to ask again (within half the window, every 3 s near
        // the front) and how often to refresh.
        assert_eq!(body["poll_within_seconds"], schedule.next_poll_ms(k) / 1000);
        assert_eq!(body["refresh_seconds"], schedule.refresh_ms(k) / 1000);
        line.push((buyer, session, until));
    }
    // Nobody asks again. Once the windows of the first six have ended (at most 2.5 s) those
    // of the last fourteen still run (at least 3 s).
    let first_six = line[..6].iter().map(|(_, _, until)| *until).max().unwrap();
    redis_clock_past(&app, "the first six windows end", first_six).await;
    let room: Room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    // One tick at a rate that admits all twenty at once.
    let quick = Room {
        admit_rate_per_second: 20,
        ..room
    };
    let ticker = Ticker::new(app.state.line.clone());
    let before = redis_ms(&app).await;
    let admitted = match ticker.tick(event, &quick, 0).await.unwrap() {
        Tick::Admitted { count, .. } => count,
        other => panic!("the test's ticker leads: {other:?}"),
    };
    let after = redis_ms(&app).await;
    let away: Vec<String> = redis::cmd("ZRANGE")
        .arg(app.state.keys.away(event))
        .arg(0)
        .arg(-1)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    for (k, (buyer, _, until)) in line.iter().enumerate() {
        if *until < before {
            assert!(
                away.contains(buyer),
                "buyer {}: window ended, skipped",
                k + 1
            );
        } else if *until > after {
            assert!(
                !away.contains(buyer),
                "buyer {}: window runs, admitted",
                k + 1
            );
        }
    }
    let ended = line.iter().filter(|(_, _, until)| *until < before).count();
    let running = line.iter().filter(|(_, _, until)| *until > after).count();
    assert!(
        ended >= 6 && running >= 13,
        "{ended} ended, {running} running"
    );
    assert_eq!(admitted as usize, 20 - away.len());
    // A skipped buyer who asks again is back at the front, present again.
    let (status, back) = poll(&app, event, &line[0].1).await;
    assert_eq!(
        (status, &back["position"]),
        (StatusCode::OK, &json!(1)),
        "{back}"
    );
}

/// Issue 63 (11): a buyer skipped while away is back at their own place only within the
/// presence floor of being skipped; later, the place is gone (their poll: 404 `not_in_queue`)
/// and a join makes a new one at the back, behind those who joined meanwhile. And a window is
/// never longer than 15 minutes, however far back the buyer is.
#[tokio::test]
async fn an_away_place_waits_at_the_front_only_within_the_floor_and_windows_are_capped() {
    let mut config = test_config();
    config.away_after_seconds = 1;
    let app = spawn_with(config).await;
    let created = app
        .create_event(event_body(
            1,
            40,
            json!({"admit_rate_per_second": 1, "tick_ms": 1000}),
        ))
        .await;
    let event = created["id"].as_str().unwrap();
    let (soon_buyer, soon) = app.session().await;
    let (late_buyer, late) = app.session().await;
    let mut windows = Vec::new();
    for (buyer, session) in [(&soon_buyer, &soon), (&late_buyer, &late)] {
        assert_eq!(join(&app, event, session).await.0, StatusCode::ACCEPTED);
        windows.push(present_until(&app, event, buyer).await.unwrap());
    }
    // Both windows (the floor, 1 s) end; a tick at their turn skips them both.
    let both = windows.into_iter().max().unwrap();
    redis_clock_past(&app, "both windows end", both).await;
    let room: Room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let quick = Room {
        admit_rate_per_second: 20,
        ..room
    };
    let ticker = Ticker::new(app.state.line.clone());
    match ticker.tick(event, &quick, 0).await.unwrap() {
        Tick::Admitted { count, .. } => assert_eq!(count, 0, "both away"),
        other => panic!("the test's ticker leads: {other:?}"),
    }
    // One is back at once: their own place, at the front.
    let (status, back) = poll(&app, event, &soon).await;
    assert_eq!(
        (status, &back["position"]),
        (StatusCode::OK, &json!(1)),
        "{back}"
    );
    // Someone joins meanwhile; the other comes back after the floor: their place is gone.
    let (_, newcomer) = app.session().await;
    let (_, body) = join(&app, event, &newcomer).await;
    assert_eq!(body["position"], 2, "{body}");
    let skipped_at = present_until(&app, event, &late_buyer).await.unwrap();
    let floor_ms = i64::from(app.state.config.away_after_seconds) * 1000;
    redis_clock_past(&app, "the floor since the skip ends", skipped_at + floor_ms).await;
    let (status, body) = poll(&app, event, &late).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    let (status, body) = join(&app, event, &late).await;
    assert_eq!(
        (status, &body["position"]),
        (StatusCode::ACCEPTED, &json!(3)),
        "at the back, behind the newcomer: {body}"
    );

    // The cap: a buyer behind 2,000 places at 1 a second would be present for 1,000 s by the
    // half-the-wait rule; the script keeps them for 15 minutes.
    let queue = app.state.keys.queue(event);
    let mut fill = redis::pipe();
    for i in 0..2_000u64 {
        fill.cmd("ZADD")
            .arg(&queue)
            .arg(10 + i)
            .arg(format!("b_filler{i}"))
            .ignore();
    }
    let _: () = fill
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    let (far_buyer, far) = app.session().await;
    let before = redis_ms(&app).await;
    let (_, body) = join(&app, event, &far).await;
    let after = redis_ms(&app).await;
    let position = body["position"].as_u64().unwrap();
    assert!(position > 2_000, "{body}");
    let until = present_until(&app, event, &far_buyer).await.unwrap();
    let cap = app::presence::WINDOW_MAX_MS as i64;
    assert!(
        (before + cap..=after + cap).contains(&until),
        "present until {until}, joined in [{before}, {after}]"
    );
}
