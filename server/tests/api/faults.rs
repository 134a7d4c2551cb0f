//! Faults (issue 9): Redis killed and restarted, Postgres cut off in the middle of holds, the
//! ticker's process killed with SIGKILL while it admits, SIGTERM in a burst of holds. Each
//! test starts what it breaks (its own redis-server, its own proxy, its own processes), so the
//! shared Redis and Postgres stay up for the tests running beside it.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use anteroom::{
    admission::ticker::Ticker,
    config::{Config, Secret},
};
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use testkit::procs::{Instance, OwnRedis, Proxy};

use crate::helpers::{
    TestApp, checkout, event_body, eventually, eventually_every, expect_error, hold, hold_body,
    join, open_event, plenty, poll, put_room, spawn_with, test_config,
};

/// Joins `n` new buyers one after the other; returns (buyer id, token), first in line first.
async fn fill_line(app: &TestApp, base: &str, event: &str, n: usize) -> Vec<(String, String)> {
    let mut line = Vec::new();
    for _ in 0..n {
        let (buyer, token) = app.session().await;
        let r = app
            .client
            .post(format!("{base}/api/events/{event}/queue"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["position"], line.len() + 1, "{body}");
        line.push((buyer, token));
    }
    line
}

#[tokio::test]
async fn redis_down_is_a_fast_503_and_a_restart_keeps_every_place_in_order() {
    let mut own = OwnRedis::start().await;
    let mut config = test_config();
    config.redis_url = Secret::new(own.url());
    let app = spawn_with(config).await;
    let event = app
        .create_event(plenty(json!({"admit_rate_per_second": 20})))
        .await;
    let event = event["id"].as_str().unwrap();
    let line = fill_line(&app, &app.base, event, 300).await;
    let (_, late) = app.session().await;
    // Production runs Redis with `appendfsync everysec`: a write is on disk within a second.
    on_disk(&own).await;

    own.kill();
    for (what, path, post) in [
        ("join", format!("/api/events/{event}/queue"), true),
        ("poll", format!("/api/events/{event}/queue"), false),
    ] {
        let started = Instant::now();
        let req = if post {
            app.client.post(app.url(&path))
        } else {
            app.client.get(app.url(&path))
        };
        let r = req.bearer_auth(&late).send().await.unwrap();
        let took = started.elapsed();
        assert_eq!(r.headers()["retry-after"], "1");
        expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
        println!("redis down: {what} answered 503 in {took:?}");
        // Fast means one connection attempt, not the seconds of a reconnect with backoff.
        assert!(took < Duration::from_secs(1), "{what} took {took:?}");
    }
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    assert!(
        Ticker::new(app.state.line.clone())
            .tick(event, &room, 0)
            .await
            .is_err(),
        "the ticker admits nobody while Redis is down"
    );

    own.restart().await;
    // Back without a restart of Anteroom: every buyer has the place they had, in order.
    eventually(
        "ready again without a restart",
        Duration::from_secs(10),
        async || {
            let r = app.client.get(app.url("/readyz")).send().await.unwrap();
            r.status() == StatusCode::OK
        },
    )
    .await;
    let polls = join_all(line.iter().map(|(_, t)| poll(&app, event, t))).await;
    let places: Vec<u64> = polls
        .iter()
        .map(|(status, body)| {
            assert_eq!(*status, StatusCode::OK, "{body}");
            body["position"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(places, (1..=300).collect::<Vec<_>>());
    println!(
        "redis restarted from its AOF: {} of 300 places kept in order",
        places.len()
    );
    let (status, body) = join(&app, event, &late).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert_eq!(body["position"], 301, "a new buyer goes to the back");
    let ticked = Ticker::new(app.state.line.clone())
        .tick(event, &room, 1)
        .await
        .unwrap();
    assert!(matches!(
        ticked,
        anteroom::admission::ticker::Tick::Admitted { count: 20, .. }
    ));
    let (_, first) = poll(&app, event, &line[0].1).await;
    assert_eq!(first["status"], "admitted");
    drop(app);
}

/// Makes every write `own` took so far durable in its AOF, as production's `appendfsync
/// everysec` does within a second: under `appendfsync always` a write is answered only once
/// the file (and so every write before it) is fsynced.
async fn on_disk(own: &OwnRedis) {
    let client = redis::Client::open(own.url()).unwrap();
    let mut redis = client.get_multiplexed_async_connection().await.unwrap();
    let fsync = |mode: &str| {
        redis::cmd("CONFIG")
            .arg("SET")
            .arg("appendfsync")
            .arg(mode)
            .clone()
    };
    let () = fsync("always").query_async(&mut redis).await.unwrap();
    let _: i64 = redis::cmd("INCR")
        .arg("fsync-probe")
        .query_async(&mut redis)
        .await
        .unwrap();
    let () = fsync("everysec").query_async(&mut redis).await.unwrap();
}

/// Every hold is whole: it has seats, each of its seats names it back, and no seat names a
/// hold that does not list it. Returns the number of holds.
async fn holds_are_whole(db: &sqlx::PgPool, event: &str) -> i64 {
    let broken: i64 = sqlx::query_scalar(
        "select count(*) from hold h where h.event_id = $1 and h.status = 'active' and (
            not exists (select 1 from hold_seat hs where hs.hold_id = h.id)
            or exists (select 1 from hold_seat hs join seat s on s.id = hs.seat_id
                       where hs.hold_id = h.id and s.hold_id is distinct from h.id))",
    )
    .bind(event)
    .fetch_one(db)
    .await
    .unwrap();
    assert_eq!(broken, 0, "a hold without all its seats");
    let orphans: i64 = sqlx::query_scalar(
        "select count(*) from seat s where s.event_id = $1 and s.hold_id is not null
           and not exists (select 1 from hold_seat hs where hs.hold_id = s.hold_id
                           and hs.seat_id = s.id)",
    )
    .bind(event)
    .fetch_one(db)
    .await
    .unwrap();
    assert_eq!(orphans, 0, "a seat held by a hold that does not list it");
    sqlx::query_scalar("select count(*) from hold where event_id = $1")
        .bind(event)
        .fetch_one(db)
        .await
        .unwrap()
}

#[tokio::test]
async fn postgres_cut_off_mid_burst_is_503_never_a_partial_hold_and_recovers() {
    let proxy = Proxy::start(5432);
    let mut config = test_config();
    let direct = config.database_url.expose().to_owned();
    config.database_url = Secret::new(direct.replace(":5432/", &format!(":{}/", proxy.port)));
    config.db_acquire_timeout_ms = 500;
    let app = spawn_with(config).await;
    let db = sqlx::PgPool::connect(&direct).await.unwrap();
    let (event, seats) = open_event(&app, 4, 50).await;
    let buyers = join_all((0..150).map(|_| app.session())).await;
    let (_, first) = &buyers[0];
    let r = hold(&app, &event, first, "k0", hold_body(&[seats[0]])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let held: Value = r.json().await.unwrap();

    // A burst of holds, and Postgres cut off while it runs.
    let (app_ref, event_ref) = (&app, &event);
    let burst = join_all(buyers[1..].iter().enumerate().map(|(i, (_, token))| {
        let body = hold_body(&[seats[i + 1]]);
        async move {
            hold(app_ref, event_ref, token, &format!("k{i}"), body)
                .await
                .status()
        }
    }));
    // Cut once some holds of the burst have committed, so it falls in the middle of it.
    let cut = async {
        let committed = async || {
            let n: i64 = sqlx::query_scalar("select count(*) from hold where event_id = $1")
                .bind(&event)
                .fetch_one(&db)
                .await
                .unwrap();
            n >= 20
        };
        let every = Duration::from_millis(2);
        eventually_every("20 holds commit", Duration::from_secs(60), every, committed).await;
        proxy.cut();
    };
    let (statuses, ()) = tokio::join!(burst, cut);
    let mut by_status: HashMap<u16, usize> = HashMap::new();
    for s in &statuses {
        *by_status.entry(s.as_u16()).or_default() += 1;
    }
    println!("postgres cut mid-burst: {by_status:?}");
    assert!(
        statuses
            .iter()
            .all(|s| *s == StatusCode::CREATED || *s == StatusCode::SERVICE_UNAVAILABLE),
        "only whole holds or 503: {by_status:?}"
    );

    // While it is down: holds, checkout and readiness say 503.
    let (_, token) = &buyers[149];
    let r = hold(&app, &event, token, "down", hold_body(&[seats[199]])).await;
    assert_eq!(r.headers()["retry-after"], "1");
    expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    let r = checkout(&app, first, held["hold_id"].as_str().unwrap(), "pay").await;
    expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);

    // What Postgres has is whole: every 201 is a complete hold, every 503 left nothing.
    let holds = holds_are_whole(&db, &event).await;
    let created = 1 + by_status.get(&201).copied().unwrap_or(0) as i64;
    assert!(holds >= created, "a 201 whose hold is missing");

    // Back without a restart.
    proxy.restore();
    let status = eventually(
        "Postgres answers again",
        Duration::from_secs(10),
        async || {
            let status = hold(&app, &event, token, "up", hold_body(&[seats[199]]))
                .await
                .status();
            (status != StatusCode::SERVICE_UNAVAILABLE).then_some(status)
        },
    )
    .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "holds work again after Postgres is back"
    );
    holds_are_whole(&db, &event).await;
    db.close().await;
}

/// The `anteroom` binary cargo built for these tests.
const ANTEROOM: &str = env!("CARGO_BIN_EXE_anteroom");

/// The scratch deployment's config for processes: the ticker on, a short lease.
fn process_config(lease_ms: u32) -> Config {
    let mut config = test_config();
    config.ticker = true;
    config.ticker_lease_ms = lease_ms;
    config
}

/// The pid in the owner token (`host/pid/random`) of the event's ticker lock, if held.
async fn lock_holder_pid(app: &TestApp, event: &str) -> Option<u32> {
    let owner: Option<String> = redis::cmd("GET")
        .arg(app.state.keys.ticker(event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    owner?.split('/').nth(1)?.parse().ok()
}

async fn admitted_total(app: &TestApp, event: &str) -> u64 {
    let total: Option<u64> = redis::cmd("GET")
        .arg(app.state.keys.admitted_total(event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    total.unwrap_or(0)
}

#[tokio::test]
async fn the_ticker_fails_over_across_processes_after_sigkill_losing_and_doubling_nobody() {
    const LEASE_MS: u32 = 1000;
    const TICK_MS: u64 = 100;
    let config = process_config(LEASE_MS);
    // The test's own instance (ticker off) creates the event and reads Redis.
    let mut observer_config = config.clone();
    observer_config.ticker = false;
    let app = spawn_with(observer_config).await;
    let event = app
        .create_event(plenty(
            json!({"admit_rate_per_second": 40, "tick_ms": TICK_MS, "paused": true}),
        ))
        .await;
    let event = event["id"].as_str().unwrap();
    let line = fill_line(&app, &app.base, event, 400).await;
    let mut instances = vec![Instance::serve(ANTEROOM, &config).await];
    instances.push(Instance::serve(ANTEROOM, &config).await);

    let r = put_room(&app, event, json!({"paused": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // Let it admit for a while, then kill the holder in the middle of admitting.
    eventually_every(
        "60 admitted",
        Duration::from_secs(30),
        Duration::from_millis(10),
        async || admitted_total(&app, event).await >= 60,
    )
    .await;
    let holder = lock_holder_pid(&app, event).await.expect("a holder");
    let victim = instances
        .iter()
        .position(|i| i.pid() == holder)
        .expect("one of the two processes holds the lock");
    instances[victim].signal("KILL");
    let killed_at = Instant::now();
    let before = admitted_total(&app, event).await;
    let resumed = eventually_every(
        "the other process takes over",
        Duration::from_secs(10),
        Duration::from_millis(5),
        async || (admitted_total(&app, event).await > before).then(|| killed_at.elapsed()),
    )
    .await;
    println!(
        "ticker failover after SIGKILL: admissions resumed {resumed:?} after the kill \
         (lease {LEASE_MS} ms + tick {TICK_MS} ms), {before} admitted before"
    );
    assert!(
        resumed <= Duration::from_millis(u64::from(LEASE_MS) + TICK_MS + 500),
        "took over in {resumed:?}"
    );
    let survivor = &instances[1 - victim];
    assert_eq!(lock_holder_pid(&app, event).await, Some(survivor.pid()));

    // Let it run on (twenty admissions more, half a second at 40 a second), pause, and check
    // the admitted set: exactly the first k of the line.
    let taken_over = admitted_total(&app, event).await;
    eventually(
        "the survivor admits on",
        Duration::from_secs(10),
        async || admitted_total(&app, event).await >= taken_over + 20,
    )
    .await;
    let r = put_room(&app, event, json!({"paused": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // Time: nothing but the time shows that the survivor's ticker has read the pause (room
    // refresh 500 ms) and ended its last tick.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let total = admitted_total(&app, event).await;
    let admitted: Vec<String> = redis::cmd("ZRANGE")
        .arg(app.state.keys.admitted(event))
        .arg(0)
        .arg(-1)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(
        admitted.len() as u64,
        total,
        "admitted once each: the counter matches the set"
    );
    let first_k: std::collections::HashSet<&String> =
        line[..admitted.len()].iter().map(|(b, _)| b).collect();
    assert!(
        admitted.iter().all(|b| first_k.contains(b)),
        "the admitted are exactly the first {} of the line",
        admitted.len()
    );
    let polls = join_all(line.iter().map(|(_, t)| poll(&app, event, t))).await;
    for (i, (status, body)) in polls.iter().enumerate() {
        assert_eq!(*status, StatusCode::OK);
        if i < admitted.len() {
            assert_eq!(body["status"], "admitted", "place {}", i + 1);
        } else {
            assert_eq!(
                body["position"],
                i + 1 - admitted.len(),
                "nobody lost: {body}"
            );
        }
    }
    println!("after failover: {total} admitted, all of them the first {total} of 400");
}

#[tokio::test]
async fn sigterm_in_a_burst_of_holds_leaves_each_hold_whole_and_frees_the_ticker_lock() {
    let config = process_config(5000);
    let mut observer_config = config.clone();
    observer_config.ticker = false;
    let app = spawn_with(observer_config).await;
    // One event admitting (so the process holds its ticker lock), one with holds open to all.
    let room = app
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 1})))
        .await;
    let room = room["id"].as_str().unwrap();
    fill_line(&app, &app.base, room, 3).await;
    let (event, seats) = open_event(&app, 5, 50).await;
    let buyers = join_all((0..300).map(|_| app.session())).await;
    let mut process = Instance::serve(ANTEROOM, &config).await;
    eventually(
        "the process admits for the room",
        Duration::from_secs(10),
        async || lock_holder_pid(&app, room).await == Some(process.pid()),
    )
    .await;

    let client = reqwest::Client::new();
    let burst = join_all(buyers.iter().enumerate().map(|(i, (_, token))| {
        let req = client
            .post(process.url(&format!("/api/events/{event}/holds")))
            .bearer_auth(token)
            .header("idempotency-key", format!("burst-{i}"))
            .json(&hold_body(&[seats[i]]));
        async move { req.send().await.map(|r| r.status()).ok() }
    }));
    let term = async {
        // Not a wait: SIGTERM is sent 30 ms into the burst, by design.
        tokio::time::sleep(Duration::from_millis(30)).await;
        process.signal("TERM");
    };
    let (answers, ()) = tokio::join!(burst, term);
    assert!(process.exited_cleanly().await, "SIGTERM is a clean exit");
    let count = |want: Option<StatusCode>| answers.iter().filter(|a| **a == want).count();
    let (created, shed, unserved) = (
        count(Some(StatusCode::CREATED)),
        count(Some(StatusCode::SERVICE_UNAVAILABLE)),
        count(None),
    );
    println!("SIGTERM mid-burst: {created} holds 201, {shed} shed with 503, {unserved} not served");
    assert_eq!(created + shed + unserved, answers.len(), "{answers:?}");
    holds_are_whole(&app.state.db, &event).await;
    // A 201 is a committed hold of its key; a 503 left none; an unserved request left a whole
    // hold or none (holds_are_whole above).
    for (i, answer) in answers.iter().enumerate() {
        let n: i64 = sqlx::query_scalar("select count(*) from hold where idempotency_key = $1")
            .bind(format!("burst-{i}"))
            .fetch_one(&app.state.db)
            .await
            .unwrap();
        match *answer {
            Some(StatusCode::CREATED) => assert_eq!(n, 1, "request {i}"),
            Some(_) => assert_eq!(n, 0, "request {i}"),
            None => assert!(n <= 1),
        }
    }
    assert_eq!(
        lock_holder_pid(&app, room).await,
        None,
        "the lock was released on the way out"
    );
    let next = Ticker::new(app.state.line.clone());
    assert!(
        next.acquire(room).await.unwrap(),
        "the next instance admits at once"
    );
}
