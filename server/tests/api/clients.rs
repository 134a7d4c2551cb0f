//! Issue 16, finding 2: behind the load balancer every buyer arrives from its address. The
//! per-address limits must count the buyer, read through trusted hops only, with an IPv6
//! client counted by its /64; and a buyer the limit turns away must read the truth.

use anteroom::config::Config;
use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{TestApp, event_body, expect_error, spawn_with, test_config};

/// An app that allows `per_minute` new sessions per client address, behind a balancer on
/// 127.0.0.1 (the test's own address) when `behind_balancer`.
async fn app_with_session_limit(per_minute: u32, behind_balancer: bool) -> TestApp {
    let mut config: Config = test_config();
    config.sessions_per_minute = per_minute;
    if behind_balancer {
        config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    }
    spawn_with(config).await
}

/// `POST /api/session` with `X-Forwarded-For: forwarded_for`: the status.
async fn new_session(app: &TestApp, forwarded_for: &str) -> StatusCode {
    app.client
        .post(app.url("/api/session"))
        .header("x-forwarded-for", forwarded_for)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn behind_a_trusted_balancer_one_buyer_using_up_the_session_limit_leaves_the_others_theirs() {
    let app = app_with_session_limit(3, true).await;
    for _ in 0..3 {
        assert_eq!(new_session(&app, "203.0.113.7").await, StatusCode::CREATED);
    }
    assert_eq!(
        new_session(&app, "203.0.113.7").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the greedy client is limited"
    );
    assert_eq!(
        new_session(&app, "198.51.100.9").await,
        StatusCode::CREATED,
        "another buyer behind the same balancer is not"
    );
}

#[tokio::test]
async fn a_client_cannot_escape_the_limit_by_writing_the_forwarding_header_itself() {
    // Not from a trusted proxy: the header is not read at all.
    let direct = app_with_session_limit(3, false).await;
    for i in 0..3 {
        let forged = format!("192.0.2.{i}");
        assert_eq!(new_session(&direct, &forged).await, StatusCode::CREATED);
    }
    assert_eq!(
        new_session(&direct, "192.0.2.99").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    // Through the balancer: what the client wrote lies left of the address it appended.
    let behind = app_with_session_limit(3, true).await;
    for i in 0..3 {
        let forged = format!("192.0.2.{i}, 203.0.113.7");
        assert_eq!(new_session(&behind, &forged).await, StatusCode::CREATED);
    }
    assert_eq!(
        new_session(&behind, "192.0.2.99, 203.0.113.7").await,
        StatusCode::TOO_MANY_REQUESTS
    );
}

#[tokio::test]
async fn an_ipv6_client_counts_as_its_64_whatever_address_it_picks_in_it() {
    let app = app_with_session_limit(3, true).await;
    for address in [
        "2001:db8:1:2::1",
        "2001:db8:1:2::2",
        "2001:db8:1:2:ffff:ffff:ffff:fffe",
    ] {
        assert_eq!(new_session(&app, address).await, StatusCode::CREATED);
    }
    assert_eq!(
        new_session(&app, "2001:db8:1:2:aaaa::9").await,
        StatusCode::TOO_MANY_REQUESTS,
        "a fourth address of the same /64"
    );
    assert_eq!(
        new_session(&app, "2001:db8:1:3::1").await,
        StatusCode::CREATED,
        "the next /64 is another client"
    );
}

#[tokio::test]
async fn a_buyer_turned_away_by_the_session_limit_reads_why_and_when_to_come_back() {
    let app = app_with_session_limit(1, false).await;
    let event = app
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 1})))
        .await;
    let path = app.url(&format!("/events/{}", event["id"].as_str().unwrap()));
    let first = app.client.get(&path).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let turned_away = app.client.get(&path).send().await.unwrap();
    assert_eq!(turned_away.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = turned_away.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "retry-after {retry}");
    let html = turned_away.text().await.unwrap();
    assert!(!html.contains("refused our session cookie"), "{html}");
    assert!(html.contains("Many visitors from your network"), "{html}");
    assert!(
        html.contains(&format!("come back in {retry} seconds")),
        "{html}"
    );
    // The API says the same in its own words.
    let r = app
        .client
        .post(app.url("/api/session"))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}
