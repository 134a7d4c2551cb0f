use anteroom::checkout::fake;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    JsonBody, event_body, expect_error, quick, spawn_app, spawn_with, test_config,
};

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

#[tokio::test]
async fn answers_that_carry_a_token_say_no_store() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 2, json!({"enabled": false})))
        .await;
    let event = event["id"].as_str().unwrap();
    let r = app.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let token = r.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let queue = format!("/api/events/{event}/queue");
    let r = app
        .client
        .post(app.url(&queue))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "the room is off: admitted at once"
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    let r = app.get(&queue, &token).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-store");
    // The event page of an admitted buyer carries the admission token in its hydration data.
    let r = app
        .client
        .get(app.url(&format!("/events/{event}")))
        .header("cookie", format!("anteroom_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let r = app.sign_out().await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-store");
    // What carries no token stays cacheable.
    let r = app.client.get(app.url("/api/events")).send().await.unwrap();
    assert!(r.headers().get("cache-control").is_none());
}

#[tokio::test]
async fn a_production_server_sets_secure_host_cookies_and_ignores_a_planted_one() {
    let payments = fake::spawn(quick(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut config = test_config();
    config.dev = false;
    config.payments_url = Some(payments);
    anteroom::startup::write_secrets(&config).unwrap();
    let app = spawn_with(config).await;
    let r = app.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("__Host-anteroom_session="), "{cookie}");
    assert!(
        cookie.contains("; Path=/;") && cookie.ends_with("; Secure"),
        "{cookie}"
    );
    assert!(!cookie.to_lowercase().contains("domain="), "{cookie}");
    let session = |cookie: String| {
        app.client
            .get(app.url("/api/session"))
            .header("cookie", cookie)
            .send()
    };
    let pair = cookie.split(';').next().unwrap().to_owned();
    assert_eq!(
        session(pair.clone()).await.unwrap().status(),
        StatusCode::OK
    );
    // The same token under the plain name, as a sibling subdomain or a plain-HTTP page could
    // plant it (session fixation): not read.
    let planted = pair.trim_start_matches("__Host-").to_owned();
    let r = session(planted).await.unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app.sign_out().await;
    let operator = r.headers()["set-cookie"].to_str().unwrap();
    assert!(
        operator.starts_with("__Host-anteroom-op=") && operator.ends_with("; Secure"),
        "{operator}"
    );
}

#[tokio::test]
async fn the_session_secret_itself_signs_nothing() {
    let app = spawn_app().await;
    let secret = app.state.config.session_secret.clone().unwrap();
    // A session as the server once signed them: HS256 with the secret as the key.
    let now = chrono::Utc::now().timestamp();
    let claims = json!({"sub": "someone", "aud": "anteroom-session", "iat": now, "exp": now + 600});
    let forged = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(secret.expose().as_bytes()),
    )
    .unwrap();
    let r = app.get("/api/session", &forged).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (_, session) = app.session().await;
    assert_eq!(
        app.get("/api/session", &session).await.status(),
        StatusCode::OK
    );
}
