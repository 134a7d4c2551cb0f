use std::collections::{HashMap, HashSet};

use futures::future::join_all;
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    JsonBody, TestApp, event_body, expect_error, hold, hold_body, join, open_event, poll,
    spawn_app, spawn_with, test_config,
};

/// `DELETE` of the hold at `url` by its owner: 204.
async fn release(app: &TestApp, url: &str, owner: &str) {
    let r = app
        .client
        .delete(url)
        .bearer_auth(owner)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
}

async fn seat_status(app: &TestApp, seat: i64) -> (String, Option<String>) {
    sqlx::query_as("select status, hold_id from seat where id = $1")
        .bind(seat)
        .fetch_one(&app.state.db)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_night_in_small_never_holds_a_seat_twice() {
    let app = spawn_app().await;
    let (event, seat_ids) = open_event(&app, 10, 100).await;
    assert_eq!(seat_ids.len(), 2000);
    let sessions = app.sessions(2000).await;

    let tasks = (0..200).map(|task| {
        let app = &app;
        let event = &event;
        let seat_ids = &seat_ids;
        let sessions = &sessions[task * 10..task * 10 + 10];
        async move {
            let mut rng = StdRng::seed_from_u64(task as u64);
            let mut created = Vec::new();
            let mut statuses = Vec::new();
            let mut unexpected = Vec::new();
            for attempt in 0..100 {
                let (_, session) = &sessions[attempt % 10];
                let quantity = rng.gen_range(1..=3);
                let body = if rng.gen_bool(0.5) {
                    let start = rng.gen_range(0..seat_ids.len() - quantity);
                    hold_body(&seat_ids[start..start + quantity])
                } else {
                    json!({"section": if rng.gen_bool(0.5) { "A" } else { "B" }, "quantity": quantity})
                };
                let r = hold(app, event, session, &format!("k{task}-{attempt}"), body).await;
                let status = r.status();
                statuses.push(status);
                if status == StatusCode::CREATED {
                    created.push(r.json::<Value>().await.unwrap());
                } else if ![409, 422, 429].contains(&status.as_u16()) {
                    unexpected.push(format!("{status}: {}", r.text().await.unwrap()));
                }
            }
            (created, statuses, unexpected)
        }
    });
    let results = join_all(tasks).await;

    let mut by_status: HashMap<u16, usize> = HashMap::new();
    let mut held_by_answers: HashMap<String, String> = HashMap::new();
    let unexpected: Vec<_> = results.iter().flat_map(|r| &r.2).take(3).collect();
    for (created, statuses, _) in &results {
        for s in statuses {
            *by_status.entry(s.as_u16()).or_default() += 1;
        }
        for hold in created {
            for seat in hold["seat_ids"].as_array().unwrap() {
                let previous = held_by_answers.insert(
                    seat.as_str().unwrap().to_owned(),
                    hold["hold_id"].as_str().unwrap().to_owned(),
                );
                assert!(previous.is_none(), "seat {seat} was answered held twice");
            }
        }
    }
    assert_eq!(by_status.values().sum::<usize>(), 20_000);
    for status in by_status.keys() {
        assert!(
            [201, 409, 422, 429].contains(status),
            "unexpected status {status}: {by_status:?}, first: {unexpected:?}"
        );
    }
    // Every 201 matches the database: each seat it named is held by exactly that hold.
    let owners: Vec<(i64, Option<String>, String)> =
        sqlx::query_as("select id, hold_id, status from seat where event_id = $1")
            .bind(&event)
            .fetch_all(&app.state.db)
            .await
            .unwrap();
    let held: Vec<_> = owners.iter().filter(|(_, _, s)| s == "held").collect();
    let available = owners.iter().filter(|(_, _, s)| s == "available").count();
    assert_eq!(held.len() + available, 2000);
    assert_eq!(held.len(), held_by_answers.len(), "{by_status:?}");
    for (id, hold_id, _) in held {
        assert_eq!(held_by_answers.get(&id.to_string()), hold_id.as_ref());
    }
    let per_buyer_max: Option<i64> = sqlx::query_scalar(
        "select max(n) from (select count(*) as n from seat s join hold h on h.id = s.hold_id \
         where s.status = 'held' group by h.buyer_id) t",
    )
    .fetch_one(&app.state.db)
    .await
    .unwrap();
    assert!(per_buyer_max.unwrap_or(0) <= 6);
    println!(
        "night in small: {by_status:?}, {} seats held",
        held_by_answers.len()
    );
}

#[tokio::test]
async fn the_same_key_returns_the_same_hold_and_holds_nothing_new() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, session) = app.session().await;
    let first = hold(&app, &event, &session, "key-1", hold_body(&ids[0..2])).await;
    assert_eq!(first.status(), StatusCode::CREATED);
    let first: Value = first.json().await.unwrap();
    assert_eq!(first["status"], "active");
    assert_eq!(first["total_cents"], 10_000);
    let again = hold(&app, &event, &session, "key-1", hold_body(&ids[0..2])).await;
    assert_eq!(again.status(), StatusCode::CREATED);
    assert_eq!(again.json::<Value>().await.unwrap(), first);
    assert_eq!(app.count("select count(*) from hold").await, 1);
    // Another buyer's same key is their own.
    let (_, other) = app.session().await;
    let r = hold(&app, &event, &other, "key-1", hold_body(&ids[2..3])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(app.count("select count(*) from hold").await, 2);
}

#[tokio::test]
async fn a_taken_seat_is_409_naming_it_and_nothing_is_held() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, first) = app.session().await;
    let (_, second) = app.session().await;
    assert_eq!(
        hold(&app, &event, &first, "a", hold_body(&ids[1..2]))
            .await
            .status(),
        StatusCode::CREATED
    );
    let r = hold(&app, &event, &second, "b", hold_body(&ids[0..3])).await;
    let body = expect_error(r, StatusCode::CONFLICT, "seat_unavailable").await;
    assert_eq!(body["seat_ids"], json!([ids[1].to_string()]));
    assert_eq!(seat_status(&app, ids[0]).await.0, "available");
    assert_eq!(seat_status(&app, ids[2]).await.0, "available");
    assert_eq!(app.count("select count(*) from hold").await, 1);
}

#[tokio::test]
async fn best_available_takes_adjacent_seats_in_one_row() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 2, 4).await;
    let (_, a) = app.session().await;
    let (_, b) = app.session().await;
    // Seats 1, 2 and 4 of row 1 of A are taken: 3 together must come from row 2.
    let r = hold(&app, &event, &a, "a", hold_body(&[ids[0], ids[1], ids[3]])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = hold(
        &app,
        &event,
        &b,
        "b",
        json!({"section": "A", "quantity": 3}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let body: Value = r.json().await.unwrap();
    let rows: HashSet<&str> = body["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["row"].as_str().unwrap())
        .collect();
    let numbers: Vec<u64> = body["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["number"].as_u64().unwrap())
        .collect();
    assert_eq!(rows, HashSet::from(["2"]));
    assert_eq!(numbers, vec![1, 2, 3]);
}

#[tokio::test]
async fn per_buyer_limits_are_422_for_seats_and_429_for_attempts() {
    let mut config = test_config();
    config.hold_attempts_per_minute = 4;
    let app = spawn_with(config).await;
    let (event, ids) = open_event(&app, 2, 10).await;
    let (_, session) = app.session().await;
    let r = hold(&app, &event, &session, "seven", hold_body(&ids[0..7])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    assert_eq!(
        hold(&app, &event, &session, "four", hold_body(&ids[0..4]))
            .await
            .status(),
        StatusCode::CREATED
    );
    let r = hold(&app, &event, &session, "three", hold_body(&ids[4..7])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    assert_eq!(
        hold(&app, &event, &session, "two", hold_body(&ids[4..6]))
            .await
            .status(),
        StatusCode::CREATED
    );
    // Attempts so far: four, three, two (the 7-seat one was refused as bad input, before the
    // limiter). One more is allowed, then 429.
    let r = hold(&app, &event, &session, "x1", hold_body(&ids[10..11])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = hold(&app, &event, &session, "x2", hold_body(&ids[10..11])).await;
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry));
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    // A replay of an earlier answer is not an attempt.
    assert_eq!(
        hold(&app, &event, &session, "four", hold_body(&ids[0..4]))
            .await
            .status(),
        StatusCode::CREATED
    );
    assert_eq!(app.count("select count(*) from hold").await, 2);
}

async fn expire_now(app: &TestApp, hold_id: &str) {
    sqlx::query("update hold set expires_at = now() - interval '1 second' where id = $1")
        .bind(hold_id)
        .execute(&app.state.db)
        .await
        .unwrap();
}

#[tokio::test]
async fn an_expired_holds_seats_are_holdable_at_once_and_the_sweep_frees_the_rest() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, first) = app.session().await;
    let (_, second) = app.session().await;
    let old: Value = hold(&app, &event, &first, "old", hold_body(&ids[0..2]))
        .await
        .json()
        .await
        .unwrap();
    let old_id = old["hold_id"].as_str().unwrap();
    expire_now(&app, old_id).await;

    let r = hold(&app, &event, &second, "new", hold_body(&ids[0..1])).await;
    assert_eq!(
        r.status(),
        StatusCode::CREATED,
        "free at once, before any sweep"
    );
    let new: Value = r.json().await.unwrap();
    let got: Value = app
        .get(&format!("/api/holds/{old_id}"), &first)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(got["status"], "expired");

    assert_eq!(anteroom::holds::expiry::sweep(&app.state).await.unwrap(), 1);
    assert_eq!(
        seat_status(&app, ids[1]).await,
        ("available".to_owned(), None)
    );
    assert_eq!(
        seat_status(&app, ids[0]).await,
        (
            "held".to_owned(),
            Some(new["hold_id"].as_str().unwrap().to_owned())
        ),
        "the sweep leaves a seat another hold took"
    );
    let stored: String = sqlx::query_scalar("select status from hold where id = $1")
        .bind(old_id)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(stored, "expired");
}

#[tokio::test]
async fn only_one_instance_sweeps_per_interval() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, session) = app.session().await;
    let h: Value = hold(&app, &event, &session, "k", hold_body(&ids[0..1]))
        .await
        .json()
        .await
        .unwrap();
    expire_now(&app, h["hold_id"].as_str().unwrap()).await;
    let sweeps = join_all((0..5).map(|_| anteroom::holds::expiry::sweep(&app.state))).await;
    let total: u64 = sweeps.into_iter().map(|r| r.unwrap()).sum();
    assert_eq!(total, 1);
    let locked: bool = redis::cmd("EXISTS")
        .arg(app.state.keys.sweep_lock())
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert!(locked, "the lock lasts the interval");
}

#[tokio::test]
async fn a_released_hold_frees_its_seats_at_once_and_only_its_owner_sees_it() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, owner) = app.session().await;
    let (_, stranger) = app.session().await;
    let h: Value = hold(&app, &event, &owner, "k", hold_body(&ids[0..2]))
        .await
        .json()
        .await
        .unwrap();
    let url = app.url(&format!("/api/holds/{}", h["hold_id"].as_str().unwrap()));
    for r in [
        app.client
            .get(&url)
            .bearer_auth(&stranger)
            .send()
            .await
            .unwrap(),
        app.client
            .delete(&url)
            .bearer_auth(&stranger)
            .send()
            .await
            .unwrap(),
    ] {
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    assert_eq!(seat_status(&app, ids[0]).await.0, "held");
    let got: Value = app.client.get(&url).bearer_auth(&owner).json_body().await;
    assert_eq!(got, h);
    release(&app, &url, &owner).await;
    assert_eq!(
        seat_status(&app, ids[0]).await,
        ("available".to_owned(), None)
    );
    let got: Value = app.client.get(&url).bearer_auth(&owner).json_body().await;
    assert_eq!(got["status"], "released");
    let r = hold(&app, &event, &stranger, "k2", hold_body(&ids[0..2])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn malformed_hold_requests_are_refused_and_write_nothing() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (_, session) = app.session().await;
    let url = app.url(&format!("/api/events/{event}/holds"));
    let r = app
        .client
        .post(&url)
        .bearer_auth(&session)
        .json(&hold_body(&ids[0..1]))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    for body in [
        json!({}),
        json!({"seat_ids": []}),
        json!({"seat_ids": ["abc"]}),
        json!({"seat_ids": ["999999999"]}),
        json!({"seat_ids": [ids[0].to_string(), ids[0].to_string()]}),
        json!({"section": "Z", "quantity": 1}),
        json!({"section": "A", "quantity": 0}),
        json!({"section": "A", "quantity": -1}),
        json!({"seat_ids": [ids[0].to_string()], "section": "A", "quantity": 1}),
        json!({"seats": [1]}),
        json!([1, 2]),
    ] {
        let r = hold(&app, &event, &session, "k", body.clone()).await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    }
    let r = app
        .client
        .post(&url)
        .bearer_auth(&session)
        .header("idempotency-key", "k")
        .header("content-type", "application/json")
        .body("{\"seat_ids\": [")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = app
        .client
        .post(&url)
        .header("idempotency-key", "k")
        .json(&hold_body(&ids[0..1]))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_eq!(app.count("select count(*) from hold").await, 0);
    assert_eq!(
        app.count("select count(*) from seat where status <> 'available'")
            .await,
        0
    );
}

#[tokio::test]
async fn with_the_room_on_holds_and_the_seat_map_need_an_admission_token() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 4, json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, session) = app.session().await;
    let r = hold(
        &app,
        event,
        &session,
        "k",
        json!({"section": "A", "quantity": 1}),
    )
    .await;
    let body = expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    assert_eq!(body["queue_url"], format!("/api/events/{event}/queue"));
    let r = app
        .get(&format!("/api/events/{event}/seats"), &session)
        .await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;

    join(&app, event, &session).await;
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    anteroom::admission::ticker::Ticker::new(app.state.line.clone())
        .tick(event, &room, 0)
        .await
        .unwrap();
    let (_, admitted) = poll(&app, event, &session).await;
    let token = admitted["admission_token"].as_str().unwrap();
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/holds")))
        .bearer_auth(&session)
        .header("admission-token", token)
        .header("idempotency-key", "k")
        .json(&json!({"section": "A", "quantity": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(&session)
        .header("admission-token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_buyer_lists_their_own_holds_of_an_event_newest_first_and_nobody_elses() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (other_event, other_ids) = open_event(&app, 1, 4).await;
    let (_, owner) = app.session().await;
    let (_, stranger) = app.session().await;
    let list = |event: String, session: String| {
        let app = &app;
        async move {
            app.client
                .get(app.url(&format!("/api/events/{event}/holds")))
                .bearer_auth(&session)
                .send()
                .await
                .unwrap()
        }
    };
    let first: Value = hold(&app, &event, &owner, "a", hold_body(&ids[0..2]))
        .await
        .json()
        .await
        .unwrap();
    let url = app.url(&format!(
        "/api/holds/{}",
        first["hold_id"].as_str().unwrap()
    ));
    release(&app, &url, &owner).await;
    let second: Value = hold(&app, &event, &owner, "b", hold_body(&ids[3..4]))
        .await
        .json()
        .await
        .unwrap();
    let r = hold(&app, &other_event, &owner, "c", hold_body(&other_ids[0..1])).await;
    assert_eq!(r.status(), StatusCode::CREATED);

    let r = list(event.clone(), owner.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    let holds: Vec<Value> = r.json().await.unwrap();
    let ids_and_status: Vec<(&Value, &Value)> = holds
        .iter()
        .map(|h| (&h["hold_id"], &h["status"]))
        .collect();
    assert_eq!(
        ids_and_status,
        [
            (&second["hold_id"], &json!("active")),
            (&first["hold_id"], &json!("released"))
        ]
    );
    assert_eq!(holds[0]["seat_ids"], second["seat_ids"]);
    assert_eq!(holds[1]["seat_ids"], first["seat_ids"]);
    // Another buyer sees none of them; without a session, 401.
    let r = list(event.clone(), stranger).await;
    assert_eq!(r.json::<Vec<Value>>().await.unwrap(), Vec::<Value>::new());
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/holds")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

/// Review finding 14: a hold's expiry was the instance's clock plus its life, then compared
/// with Postgres's `now()` by the sweep and the hold transaction. Now it is Postgres's own:
/// exactly the hold transaction's `now()` (its `created_at`) plus the life, and the answer is
/// what the row says.
#[tokio::test]
async fn a_holds_expiry_is_set_on_postgres_clock_and_answered_as_stored() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 2).await;
    let (_, session) = app.session().await;
    let r = hold(&app, &event, &session, "k", hold_body(&ids[..1])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let body: Value = r.json().await.unwrap();
    let answered: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(body["expires_at"].clone()).unwrap();
    let (stored, on_postgres_clock): (chrono::DateTime<chrono::Utc>, bool) = sqlx::query_as(
        "select h.expires_at, \
                h.expires_at = h.created_at + make_interval(secs => e.hold_ttl_seconds) \
         from hold h join event e on e.id = h.event_id where h.id = $1",
    )
    .bind(body["hold_id"].as_str().unwrap())
    .fetch_one(&app.state.db)
    .await
    .unwrap();
    assert_eq!(answered, stored);
    assert!(on_postgres_clock, "the expiry came from another clock");
}

#[tokio::test]
async fn an_idempotency_key_reused_on_another_event_makes_a_hold_of_that_event() {
    let app = spawn_app().await;
    let (first, first_seats) = open_event(&app, 1, 2).await;
    let (second, second_seats) = open_event(&app, 1, 2).await;
    let (_, session) = app.session().await;
    let one = |id: i64| json!({"seat_ids": [id.to_string()]});
    let r = hold(&app, &first, &session, "key-1", one(first_seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let first_hold: serde_json::Value = r.json().await.unwrap();
    let r = hold(&app, &second, &session, "key-1", one(second_seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let second_hold: serde_json::Value = r.json().await.unwrap();
    assert_eq!(second_hold["event_id"], second.as_str(), "{second_hold}");
    assert_ne!(second_hold["hold_id"], first_hold["hold_id"]);
    assert_eq!(
        app.count("select count(*) from hold").await,
        2,
        "one hold on each event"
    );
}

#[tokio::test]
async fn an_idempotency_key_reused_with_another_body_is_422_and_holds_nothing() {
    let app = spawn_app().await;
    let (event, seats) = open_event(&app, 1, 3).await;
    let (_, session) = app.session().await;
    let one = |id: i64| json!({"seat_ids": [id.to_string()]});
    let r = hold(&app, &event, &session, "key-1", one(seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = hold(&app, &event, &session, "key-1", one(seats[1])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = hold(
        &app,
        &event,
        &session,
        "key-1",
        json!({"section": "A", "quantity": 1}),
    )
    .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    assert_eq!(app.count("select count(*) from hold").await, 1);
    let (status, _): (String, Option<String>) =
        sqlx::query_as("select status, hold_id from seat where id = $1")
            .bind(seats[1])
            .fetch_one(&app.state.db)
            .await
            .unwrap();
    assert_eq!(status, "available");
    // The same body again is still the replay.
    let r = hold(&app, &event, &session, "key-1", one(seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
}
