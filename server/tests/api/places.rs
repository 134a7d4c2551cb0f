//! Issue 16, finding 3: a place in line must cost something. One network may join only so
//! often a minute and take only so many places in an event's line, and a room may ask a
//! proof of work for each new place (API.md "Proof of work at join").

use std::time::Duration;

use anteroom::{admission::ticker::Ticker, config::Config};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, event_body, eventually, expect_error, join, line_length, page, poll, put_room,
    spawn_with, test_config,
};

/// An app behind a balancer on 127.0.0.1 (the test's own address), so that each test buyer
/// comes from the address its `X-Forwarded-For` names, with `limits` applied to its config.
async fn app_behind_balancer(limits: impl FnOnce(&mut Config)) -> TestApp {
    let mut config = test_config();
    config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    limits(&mut config);
    spawn_with(config).await
}

async fn room_event(app: &TestApp, room: Value) -> String {
    let event = app.create_event(event_body(1, 2, room)).await;
    event["id"].as_str().unwrap().to_owned()
}

/// A new session of a buyer at `address`.
async fn buyer_at(app: &TestApp, address: &str) -> String {
    let r = app
        .client
        .post(app.url("/api/session"))
        .header("x-forwarded-for", address)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let body: Value = r.json().await.unwrap();
    body["token"].as_str().unwrap().to_owned()
}

/// `POST queue` by `token` from `address`, with the `Join-Proof` header `proof` if given.
async fn join_from(
    app: &TestApp,
    event: &str,
    (token, address): (&str, &str),
    proof: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue")))
        .bearer_auth(token)
        .header("x-forwarded-for", address);
    if let Some(proof) = proof {
        req = req.header("join-proof", proof);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn one_network_joining_past_its_limit_a_minute_is_refused_while_another_joins() {
    let app = app_behind_balancer(|c| c.joins_per_network_per_minute = 4).await;
    let event = room_event(&app, json!({"admit_rate_per_second": 1})).await;
    // Four buyers of one /24 (one of them joins twice: every join counts).
    let mut first = None;
    for address in ["203.0.113.1", "203.0.113.2", "203.0.113.3"] {
        let token = buyer_at(&app, address).await;
        let r = join_from(&app, &event, (&token, address), None).await;
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        first.get_or_insert(token);
    }
    let first = first.unwrap();
    let r = join_from(&app, &event, (&first, "203.0.113.1"), None).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let late = buyer_at(&app, "203.0.113.200").await;
    let r = join_from(&app, &event, (&late, "203.0.113.200"), None).await;
    assert!(r.headers().contains_key("retry-after"));
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
    // Another network joins.
    let elsewhere = buyer_at(&app, "198.51.100.7").await;
    let r = join_from(&app, &event, (&elsewhere, "198.51.100.7"), None).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(line_length(&app, &event).await, 4);
}

#[tokio::test]
async fn a_network_takes_at_most_its_share_of_places_and_keeping_one_costs_none() {
    let app = app_behind_balancer(|c| c.places_per_network = 3).await;
    let event = room_event(&app, json!({"admit_rate_per_second": 1})).await;
    let mut placed = Vec::new();
    for host in 1..=3 {
        let address = format!("2001:db8:1:2::{host}");
        let token = buyer_at(&app, &address).await;
        let r = join_from(&app, &event, (&token, &address), None).await;
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        placed.push(token);
    }
    let stockpiled = buyer_at(&app, "2001:db8:1:2:ffff::1").await;
    let r = join_from(&app, &event, (&stockpiled, "2001:db8:1:2:ffff::1"), None).await;
    let body = expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    assert!(
        body["message"].as_str().unwrap().contains("3 places"),
        "{body}"
    );
    assert_eq!(
        line_length(&app, &event).await,
        3,
        "the refused join stored nothing"
    );
    // A buyer of the network joining again keeps their place.
    let r = join_from(&app, &event, (&placed[1], "2001:db8:1:2::2"), None).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.json::<Value>().await.unwrap()["position"], 2);
    let elsewhere = buyer_at(&app, "2001:db8:1:3::1").await;
    let r = join_from(&app, &event, (&elsewhere, "2001:db8:1:3::1"), None).await;
    assert_eq!(
        r.status(),
        StatusCode::ACCEPTED,
        "the next /64 is another network"
    );
}

/// Review finding 8: an IPv6 /48 counted as 65,536 networks of a place share each. Now a /64
/// gets the share, its /56 four times it and its /48 sixteen times it.
#[tokio::test]
async fn an_ipv6_allocation_takes_at_most_four_shares_per_56_and_sixteen_per_48() {
    let app = app_behind_balancer(|c| c.places_per_network = 1).await;
    let event = room_event(&app, json!({"admit_rate_per_second": 1})).await;
    let join_at = |address: String| {
        let app = &app;
        let event = &event;
        async move {
            let token = buyer_at(app, &address).await;
            join_from(app, event, (&token, &address), None).await
        }
    };
    // Four /64s of one /56 take its four shares; a fifth /64 of it is refused.
    for net in 0..4 {
        let r = join_at(format!("2001:db8:1:1{net:02x}::1")).await;
        assert_eq!(r.status(), StatusCode::ACCEPTED);
    }
    let r = join_at("2001:db8:1:1ff::1".into()).await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    // Three more /56s of the /48 take their four each: sixteen in the /48, then no more.
    for net in 2..=4 {
        for host in 0..4 {
            let r = join_at(format!("2001:db8:1:{net}{host:02x}::1")).await;
            assert_eq!(r.status(), StatusCode::ACCEPTED, "/56 {net}, /64 {host}");
        }
    }
    let r = join_at("2001:db8:1:500::1".into()).await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    assert_eq!(
        line_length(&app, &event).await,
        16,
        "the refused joins stored nothing"
    );
    let r = join_at("2001:db8:2::1".into()).await;
    assert_eq!(
        r.status(),
        StatusCode::ACCEPTED,
        "another /48 is another network"
    );
}

/// Whether `nonce` proves `bits` of work for `challenge`, by this test's own SHA-256 (ring's),
/// not the server's code.
fn meets(challenge: &str, nonce: &str, bits: u32) -> bool {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("{challenge}:{nonce}").as_bytes(),
    );
    let first = u128::from_be_bytes(digest.as_ref()[..16].try_into().unwrap());
    first.leading_zeros() >= bits
}

/// The first nonce that proves `bits` of work for `challenge`.
fn solve(challenge: &str, bits: u32) -> String {
    (0u64..)
        .map(|n| n.to_string())
        .find(|nonce| meets(challenge, nonce, bits))
        .unwrap()
}

/// The challenge of a 428 `proof_required` answer, checked as API.md describes it.
async fn challenge_of(r: reqwest::Response, bits: u32) -> String {
    let body = expect_error(r, StatusCode::PRECONDITION_REQUIRED, "proof_required").await;
    assert_eq!(body["bits"], bits);
    let expires: chrono::DateTime<chrono::Utc> =
        body["expires_at"].as_str().unwrap().parse().unwrap();
    let lasts = expires - chrono::Utc::now();
    assert!(
        lasts <= chrono::Duration::seconds(120) && lasts > chrono::Duration::seconds(100),
        "{lasts}"
    );
    body["challenge"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_new_place_costs_the_proof_of_work_the_room_asks_and_a_proof_buys_one_place_once() {
    let mut config = test_config();
    // Short admissions, so that a buyer's place can end and the test can try a used proof.
    config.admission_ttl_seconds = 1;
    let app = spawn_with(config).await;
    let event = room_event(
        &app,
        json!({"admit_rate_per_second": 1, "join_pow_bits": 10}),
    )
    .await;
    let (_, first) = app.session().await;

    let r = join_from(&app, &event, (&first, "127.0.0.1"), None).await;
    let challenge = challenge_of(r, 10).await;
    assert_eq!(
        line_length(&app, &event).await,
        0,
        "a join without proof stores nothing"
    );
    let proof = format!("{challenge}:{}", solve(&challenge, 10));
    let r = join_from(&app, &event, (&first, "127.0.0.1"), Some(&proof)).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.json::<Value>().await.unwrap()["position"], 1);
    let (status, again) = join(&app, &event, &first).await;
    assert_eq!(
        (status, &again["position"]),
        (StatusCode::ACCEPTED, &json!(1)),
        "joining again keeps the place without a proof"
    );

    // Another buyer can use neither that proof nor a wrong one, nor theirs in another event.
    let (_, second) = app.session().await;
    let r = join_from(&app, &event, (&second, "127.0.0.1"), Some(&proof)).await;
    let theirs = challenge_of(r, 10).await;
    assert_ne!(theirs, challenge, "a fresh challenge each time");
    let wrong = (0u64..)
        .map(|n| n.to_string())
        .find(|n| !meets(&theirs, n, 10))
        .unwrap();
    let r = join_from(
        &app,
        &event,
        (&second, "127.0.0.1"),
        Some(&format!("{theirs}:{wrong}")),
    )
    .await;
    challenge_of(r, 10).await;
    let other = room_event(&app, json!({"join_pow_bits": 10})).await;
    let proof_of_second = format!("{theirs}:{}", solve(&theirs, 10));
    let r = join_from(&app, &other, (&second, "127.0.0.1"), Some(&proof_of_second)).await;
    challenge_of(r, 10).await;
    assert_eq!(line_length(&app, &event).await, 1);

    // A proof buys one place, once: the first buyer's admission ends unused, and the proof
    // that bought their place does not buy another.
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    assert_eq!(poll(&app, &event, &first).await.1["status"], "admitted");
    let status = eventually(
        "the admission expires",
        Duration::from_secs(10),
        async || {
            let (status, _) = poll(&app, &event, &first).await;
            (status != StatusCode::OK).then_some(status)
        },
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let r = join_from(&app, &event, (&first, "127.0.0.1"), Some(&proof)).await;
    challenge_of(r, 10).await;
    assert_eq!(line_length(&app, &event).await, 0);
}

#[tokio::test]
async fn the_operator_sets_the_proof_of_work_from_0_to_32_bits() {
    let app = spawn_with(test_config()).await;
    let event = room_event(&app, json!({})).await;
    for bits in [33, -1] {
        let r = put_room(&app, &event, json!({"join_pow_bits": bits})).await;
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    let r = put_room(&app, &event, json!({"join_pow_bits": 20})).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.json::<Value>().await.unwrap()["join_pow_bits"], 20);
    let (_, buyer) = app.session().await;
    let (status, _) = join(&app, &event, &buyer).await;
    assert_eq!(
        status,
        StatusCode::PRECONDITION_REQUIRED,
        "in force at once"
    );
}

#[tokio::test]
async fn the_page_of_a_room_asking_a_proof_says_it_is_getting_the_buyers_place() {
    let app = spawn_with(test_config()).await;
    let event = room_event(&app, json!({"join_pow_bits": 12})).await;
    let (html, _) = page(&app, &format!("/events/{event}"), None).await;
    assert!(html.contains("Getting your place…"), "{html}");
    assert!(
        !html.contains("You are <strong>"),
        "no position before the proof: {html}"
    );
    assert_eq!(line_length(&app, &event).await, 0);
}
