use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{JsonBody, expect_error, spawn_app, spawn_with, test_config};

#[tokio::test]
async fn a_session_is_issued_as_a_token_and_an_httponly_cookie() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/session"))
        .json(&json!({"name": "Ada"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("anteroom_session="));
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"));
    let body: Value = r.json().await.unwrap();
    let token = body["token"].as_str().unwrap();
    let buyer = body["buyer_id"].as_str().unwrap();

    let by_bearer: Value = app.get("/api/session", token).await.json().await.unwrap();
    assert_eq!(by_bearer["buyer_id"], buyer);
    let cookie_pair = cookie.split(';').next().unwrap();
    let by_cookie: Value = app
        .client
        .get(app.url("/api/session"))
        .header("cookie", cookie_pair)
        .json_body()
        .await;
    assert_eq!(by_cookie["buyer_id"], buyer);
}

#[tokio::test]
async fn a_request_without_a_valid_session_is_401_json() {
    let app = spawn_app().await;
    let r = app
        .client
        .get(app.url("/api/session"))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (_, token) = app.session().await;
    let tampered = format!("{}x", token);
    let r = app.get("/api/session", &tampered).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app
        .client
        .get(app.url("/api/session"))
        .header("cookie", "anteroom_session=garbage")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn an_empty_body_is_accepted_and_bad_bodies_are_refused() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let bad = |body: &'static str| {
        app.client
            .post(app.url("/api/session"))
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    expect_error(
        bad("{").await.unwrap(),
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    expect_error(
        bad("{\"nme\": 1}").await.unwrap(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "unprocessable",
    )
    .await;
    let long = format!("{{\"name\": \"{}\"}}", "x".repeat(101));
    let r = app
        .client
        .post(app.url("/api/session"))
        .header("content-type", "application/json")
        .body(long)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
}

#[tokio::test]
async fn session_creation_is_rate_limited_per_address_across_instances() {
    let mut config = test_config();
    config.sessions_per_minute = 3;
    let first = spawn_with(config.clone()).await;
    // A second instance on the same Redis prefix and database shares the limit.
    let second = spawn_with(config).await;
    for app in [&first, &second, &first] {
        let r = app
            .client
            .post(app.url("/api/session"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
    }
    let r = second
        .client
        .post(second.url("/api/session"))
        .send()
        .await
        .unwrap();
    let retry: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "retry-after {retry}");
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}
