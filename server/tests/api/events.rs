use std::time::Duration;

use app::wire::{DEFAULT_CURRENCY, DEFAULT_ROOM, Eligible, Identity, Room, RoomUpdate};
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    JsonBody, TestApp, event_body, eventually, expect_error, hold_body, open_event, put_room,
    spawn_app, spawn_with, test_config,
};

#[tokio::test]
async fn the_admin_creates_an_event_with_all_its_seats_and_buyers_can_read_it() {
    let app = spawn_app().await;
    let created = app
        .create_event(event_body(10, 20, json!({"admit_rate_per_second": 300})))
        .await;
    let id = created["id"].as_str().unwrap();
    assert_eq!(created["room"]["enabled"], true);
    assert_eq!(created["room"]["paused"], false);
    assert_eq!(created["room"]["admit_rate_per_second"], 300);
    assert_eq!(
        app.count(&format!(
            "select count(*) from seat where event_id = '{id}' and status = 'available'"
        ))
        .await,
        400
    );

    let one: Value = app
        .client
        .get(app.url(&format!("/api/events/{id}")))
        .json_body()
        .await;
    assert_eq!(one, created);
    let all: Vec<Value> = app.client.get(app.url("/api/events")).json_body().await;
    assert_eq!(all, vec![created]);
}

#[tokio::test]
async fn an_unknown_event_is_404_json() {
    let app = spawn_app().await;
    for path in [
        "/api/events/nope",
        "/api/events/%F0%9F%8E%AB",
        "/api/events/UPPER",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
}

#[tokio::test]
async fn creating_an_event_needs_the_admin_token_not_a_buyer_session() {
    let app = spawn_app().await;
    let (_, buyer_token) = app.session().await;
    for auth in [None, Some("wrong"), Some(buyer_token.as_str())] {
        let mut req = app
            .client
            .post(app.url("/api/admin/events"))
            .json(&event_body(1, 1, json!({})));
        if let Some(token) = auth {
            req = req.bearer_auth(token);
        }
        expect_error(
            req.send().await.unwrap(),
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
    assert_eq!(app.count("select count(*) from event").await, 0);
}

#[tokio::test]
async fn invalid_events_are_refused_and_nothing_is_written() {
    let app = spawn_app().await;
    let cases: Vec<(Value, StatusCode)> = vec![
        (
            json!({"name": "", "starts_at": "2026-12-01T19:00:00Z", "sections": [{"name": "A", "rows": 1, "seats_per_row": 1, "price_cents": 1}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"name": "X", "starts_at": "2026-12-01T19:00:00Z", "sections": []}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            event_body(0, 20, json!({})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            event_body(100, 201, json!({})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (huge_layout(), StatusCode::UNPROCESSABLE_ENTITY),
        (
            event_body(1, 1, json!({"admit_rate_per_second": 0})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            event_body(1, 1, json!({"admit_rate_per_second": 100001})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            event_body(1, 1, json!({"bogus": true})),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            {
                let mut b = event_body(1, 1, json!({}));
                b["time_zone"] = json!("Mars/Olympus_Mons");
                b
            },
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            {
                let mut b = event_body(1, 1, json!({}));
                b["currency"] = json!("eur");
                b
            },
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            {
                let mut b = event_body(1, 1, json!({}));
                b["currency"] = json!("EURO");
                b
            },
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"name": "X", "starts_at": "tomorrow", "sections": []}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"name": "X", "starts_at": "2026-12-01T19:00:00Z", "sections": [{"name": "A", "rows": -1, "seats_per_row": 1, "price_cents": 1}]}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ];
    for (body, status) in cases {
        let r = app
            .admin(app.client.post(app.url("/api/admin/events")))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), status, "{body}");
        expect_error(r, status, "unprocessable").await;
    }
    let r = app
        .admin(app.client.post(app.url("/api/admin/events")))
        .header("content-type", "application/json")
        .body("{\"name\": ")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    assert_eq!(app.count("select count(*) from event").await, 0);
    assert_eq!(app.count("select count(*) from seat").await, 0);
}

#[tokio::test]
async fn a_body_over_one_mebibyte_is_413_and_changes_nothing() {
    let app = spawn_app().await;
    let mut body = event_body(1, 1, json!({}));
    body["name"] = json!("x".repeat(2 << 20));
    let r = app
        .admin(app.client.post(app.url("/api/admin/events")))
        .json(&body)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;
    assert_eq!(app.count("select count(*) from event").await, 0);
}

/// A newcomer's machine (issue 62): no secret configured, a data folder that does not exist
/// yet, no `--dev`. `anteroom demo` keeps the secrets there, so the commands `make run` calls
/// after it (`operators add`, `keys add`, outside `--dev`) find the same session secret.
#[tokio::test]
async fn the_demo_keeps_the_secrets_the_commands_after_it_read() {
    let app = spawn_app().await;
    let mut config = app.state.config.clone();
    config.session_secret = None;
    config.dev = false;
    // Inside the test's own data folder, which the test's scratch removes.
    config.data_dir = config.data_dir.join("newcomer");
    let before = anteroom::startup::cli_context(&config).await;
    let refused = before.err().expect("no secret yet: refused").to_string();
    assert!(refused.contains("no session_secret"), "{refused}");
    let demo = anteroom::startup::demo(&config).await.unwrap();
    assert!(
        demo.secrets
            .iter()
            .any(|l| l.starts_with("session_secret: written")),
        "{:?}",
        demo.secrets
    );
    let secret = std::fs::read_to_string(config.data_dir.join("session_secret")).unwrap();
    assert!(secret.trim().len() >= 32);
    anteroom::startup::cli_context(&config)
        .await
        .expect("the operators' and keys' commands find the demo's secret");
    // A second demo keeps what is there.
    let again = anteroom::startup::demo(&config).await.unwrap();
    assert!(
        again.secrets.iter().any(|l| l.contains("kept in")),
        "{:?}",
        again.secrets
    );
    let kept = std::fs::read_to_string(config.data_dir.join("session_secret")).unwrap();
    assert_eq!(kept, secret);
}

#[tokio::test]
async fn the_demo_command_creates_the_demo_event_once() {
    let app = spawn_app().await;
    let config = app.state.config.clone();
    let created = anteroom::startup::demo(&config).await.unwrap().created;
    let ids: Vec<&str> = created.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["demo", "demo-opening"]);
    let again = anteroom::startup::demo(&config).await.unwrap();
    assert!(again.created.is_empty());
    // The opening's sale is minutes away, its pre-queue before it: a newcomer sees both.
    let opening = &created[1].room;
    let opens_in = opening.opens_at.unwrap() - chrono::Utc::now();
    assert!(opens_in > chrono::Duration::minutes(4), "{opening:?}");
    assert!(opening.prequeue_opens_at.unwrap() > chrono::Utc::now());
    assert_eq!(
        app.count("select count(*) from seat where event_id = 'demo'")
            .await,
        600
    );
    let demo: Value = app
        .client
        .get(app.url("/api/events/demo"))
        .json_body()
        .await;
    assert_eq!(demo["room"]["enabled"], true);
    assert_eq!(demo["room"]["admit_rate_per_second"], 50);
}

/// Six sections of 100 x 200: 120,000 seats, above the 100,000 an event may have.
fn huge_layout() -> Value {
    let sections: Vec<Value> = (0..6)
        .map(|i| json!({"name": format!("S{i}"), "rows": 100, "seats_per_row": 200, "price_cents": 1}))
        .collect();
    json!({"name": "Huge", "starts_at": "2026-12-01T19:00:00Z", "sections": sections})
}

/// Review finding 12: every instance re-read every event ever created twice a second. Now the
/// refresh reads the current ones (a room on, a recent or coming show, a new event); an old
/// one is still answered, read when asked for.
#[tokio::test]
async fn the_room_refresh_reads_current_events_only_and_an_old_one_is_read_when_asked() {
    let app = crate::helpers::spawn_app().await;
    let (old, _) = crate::helpers::open_event(&app, 1, 1).await;
    let (current, _) = crate::helpers::open_event(&app, 1, 1).await;
    sqlx::query(
        "update event set starts_at = now() - interval '60 days', \
             created_at = now() - interval '70 days' where id = $1",
    )
    .bind(&old)
    .execute(&app.state.db)
    .await
    .unwrap();
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    let listed: Vec<String> = app.state.rooms.events().into_iter().map(|e| e.id).collect();
    assert!(listed.contains(&current), "{listed:?}");
    assert!(
        !listed.contains(&old),
        "an old event is re-read each refresh: {listed:?}"
    );
    let r = app
        .client
        .get(app.url(&format!("/api/events/{old}")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        reqwest::StatusCode::OK,
        "an old event is still answered"
    );
}

/// Every room setting set away from its default, field by field (no `..`): a setting added to
/// `RoomUpdate` must be added here, and then one that the INSERT, the UPDATE or the row's
/// conversion (server/src/events/room.rs) misses comes back wrong below.
fn every_setting(step: u32) -> RoomUpdate {
    let opens_at = "2030-01-01T18:00:00Z".parse::<DateTime<Utc>>().unwrap()
        + chrono::Duration::days(i64::from(step));
    RoomUpdate {
        enabled: Some(!step.is_multiple_of(2)),
        paused: Some(step.is_multiple_of(2)),
        admit_rate_per_second: Some(70 + step),
        tick_ms: Some(1500 + step),
        hold_ttl_seconds: Some(300 + step),
        seats_per_buyer: Some(2 + step),
        hold_sweep_seconds: Some(12 + step),
        join_pow_bits: Some(4 + step),
        opens_at: Some(Some(opens_at)),
        prequeue_seconds: Some(600 + step),
        auto_rate: Some(step.is_multiple_of(2)),
        min_admit_rate_per_second: Some(5 + step),
        max_admit_rate_per_second: Some(400 + step),
        target_hold_p99_ms: Some(80 + step),
        expected_seats_per_hold: Some(2 + step),
        expected_holding_percent: Some(60 + step),
        bind_tokens: Some(step.is_multiple_of(2)),
        identity: Some(if step.is_multiple_of(2) {
            Identity::Account
        } else {
            Identity::Anonymous
        }),
        eligible: Some(Some(Eligible::Claim {
            claim: "groups".into(),
            value: format!("presale-{step}"),
            issuer: None,
        })),
        target_url: Some(Some(format!("https://shop{step}.example/buy"))),
        protect: Some(vec![format!("/shop{step}"), "/api/cart/".into()]),
        origin_probe_url: Some(Some(format!("https://shop{step}.example/health"))),
    }
}

#[tokio::test]
async fn every_room_setting_makes_the_round_trip_through_the_database() {
    let config = test_config();
    let app = spawn_with(config.clone()).await;
    let created = every_setting(0);
    let expected = created.new_room();
    assert_ne!(expected, DEFAULT_ROOM);
    assert_eq!(expected.epoch, 0);
    let event = app
        .create_event(event_body(1, 2, serde_json::to_value(&created).unwrap()))
        .await;
    let id = event["id"].as_str().unwrap();
    let room: Room = serde_json::from_value(event["room"].clone()).unwrap();
    assert_eq!(room, expected, "as created");

    // Every setting changes again (the room turned on: a new epoch).
    let changed = every_setting(1);
    let expected = changed.apply_to(&expected);
    assert_eq!(expected.epoch, 1);
    let r = put_room(&app, id, serde_json::to_value(&changed).unwrap()).await;
    assert_eq!(r.status(), StatusCode::OK);
    let answered: Room = r.json().await.unwrap();
    assert_eq!(answered, expected, "as changed");
    // Read again from Postgres by a second instance, not from the first one's memory.
    let other = spawn_with(config).await;
    let read: Value = other
        .client
        .get(other.url(&format!("/api/events/{id}")))
        .json_body()
        .await;
    let read: Room = serde_json::from_value(read["room"].clone()).unwrap();
    assert_eq!(read, expected, "as read back");
}

#[tokio::test]
async fn an_event_created_without_settings_has_the_default_room() {
    let app = spawn_app().await;
    let event = app.create_event(event_body(1, 2, json!({}))).await;
    let room: Room = serde_json::from_value(event["room"].clone()).unwrap();
    assert_eq!(room, DEFAULT_ROOM);
    assert_eq!(event["zone"]["name"], "UTC");
    assert_eq!(event["currency"], DEFAULT_CURRENCY);
}

/// A Postgres connection of the test's own to `app`'s database: what watches the app's pool
/// must not take a connection of it.
async fn watcher(app: &TestApp) -> sqlx::PgConnection {
    use sqlx::Connection;
    let url = app.state.config.database_url.expose();
    sqlx::PgConnection::connect(url).await.unwrap()
}

/// The number of Postgres sessions of `db`'s database waiting for a lock.
async fn waiting_on_a_lock(db: &mut sqlx::PgConnection) -> i64 {
    sqlx::query_scalar(
        "select count(*) from pg_stat_activity \
         where datname = current_database() and wait_event_type = 'Lock'",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

/// Whether a hold transaction waits for a lock (at its insert of the hold) in `db`'s database.
async fn hold_waits_on_the_lock(db: &mut sqlx::PgConnection) -> bool {
    sqlx::query_scalar(
        "select exists (select 1 from pg_stat_activity \
         where datname = current_database() and wait_event_type = 'Lock' \
           and query like 'insert into hold %')",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_flood_of_reads_of_unknown_events_leaves_the_hold_path_its_connections() {
    let mut config = test_config();
    config.db_pool_size = 4;
    config.db_public_connections = 1;
    config.db_acquire_timeout_ms = 1_500;
    let app = spawn_with(config).await;
    let (event, seats) = open_event(&app, 1, 2).await;
    let (_, session) = app.session().await;
    let mut watch = watcher(&app).await;
    // Postgres is slow to answer anything about events: every read of the table waits.
    let mut blocker = app.state.db.begin().await.unwrap();
    sqlx::query("lock table event in access exclusive mode")
        .execute(&mut *blocker)
        .await
        .unwrap();
    let flood: Vec<_> = (0..40)
        .map(|i| {
            let req = app
                .client
                .get(app.url(&format!("/api/events/no-such-event-{i}")));
            tokio::spawn(async move { req.send().await.map(|r| r.status()) })
        })
        .collect();
    eventually(
        "the flood waits on the lock",
        Duration::from_secs(30),
        async || waiting_on_a_lock(&mut watch).await > 0,
    )
    .await;
    // Time for the rest of the flood to queue for the public connection, which nothing shows.
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Known events are answered from memory meanwhile.
    for path in [
        "/api/events".to_owned(),
        format!("/api/events/{event}"),
        "/".to_owned(),
    ] {
        let r = app
            .client
            .get(app.url(&path))
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path} waited on Postgres: {e}"));
        assert_eq!(r.status(), StatusCode::OK, "{path}");
    }
    // A hold asks for a connection while the flood waits: it gets one (and its own wait for
    // the lock ends when the lock goes).
    let holding = {
        let req = app
            .client
            .post(app.url(&format!("/api/events/{event}/holds")))
            .bearer_auth(&session)
            .header("idempotency-key", "k")
            .json(&hold_body(&seats[..1]));
        tokio::spawn(async move { req.send().await.unwrap().status() })
    };
    // It has a connection once its insert (its foreign key to the event) waits on the lock;
    // starved of one, it ends with 503 within the acquire timeout.
    eventually(
        "the hold has a connection",
        Duration::from_secs(30),
        async || holding.is_finished() || hold_waits_on_the_lock(&mut watch).await,
    )
    .await;
    blocker.rollback().await.unwrap();
    assert_eq!(holding.await.unwrap(), StatusCode::CREATED);
    for read in flood {
        let status = read.await.unwrap().unwrap();
        assert!(
            [StatusCode::NOT_FOUND, StatusCode::SERVICE_UNAVAILABLE].contains(&status),
            "{status}"
        );
    }
}

#[tokio::test]
async fn an_unknown_event_asked_again_at_once_is_answered_without_postgres() {
    let app = spawn_app().await;
    let rooms = &app.state.rooms;
    let missing = rooms
        .event(&app.state.db, "no-such-event")
        .await
        .unwrap_err();
    assert_eq!(missing.status_code(), StatusCode::NOT_FOUND);
    // Postgres out of reach: the same question is answered from memory.
    let unreachable = sqlx::postgres::PgPoolOptions::new()
        .acquire_timeout(Duration::from_millis(200))
        .connect_lazy("postgres://postgres@127.0.0.1:1/none")
        .unwrap();
    let again = rooms
        .event(&unreachable, "no-such-event")
        .await
        .unwrap_err();
    assert_eq!(again.status_code(), StatusCode::NOT_FOUND, "{again}");
    let other = rooms.event(&unreachable, "another-one").await.unwrap_err();
    assert_eq!(
        other.status_code(),
        StatusCode::SERVICE_UNAVAILABLE,
        "{other}"
    );
}
