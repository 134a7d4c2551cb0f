use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{event_body, spawn_app};

#[tokio::test]
async fn the_events_page_is_rendered_on_the_server_and_issues_a_session_cookie() {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"paused": true}));
    body["name"] = json!("Server Rendered Night");
    app.create_event(body).await;

    let r = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("anteroom_session=") && cookie.contains("HttpOnly"));
    let html = r.text().await.unwrap();
    assert!(html.contains("Server Rendered Night"), "{html}");
    assert!(html.contains("Waiting room paused"));
    assert!(
        html.contains("/pkg/anteroom.js"),
        "the hydration script is linked"
    );

    // A returning visitor keeps their session: no new cookie.
    let pair = cookie.split(';').next().unwrap();
    let r = app
        .client
        .get(app.url("/"))
        .header("cookie", pair)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get("set-cookie").is_none());
}

#[tokio::test]
async fn an_unknown_page_is_404() {
    let app = spawn_app().await;
    let r = app
        .client
        .get(app.url("/no/such/page"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}
