use anteroom::admission::ticker::Ticker;
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, JsonBody, TestApp, event_body, expect_error, join, on_single_and_cluster, poll,
    spawn_app, spawn_on,
};

/// An event with the room on and a buyer admitted to it: (event, session, admission token,
/// the Set-Cookie of the poll).
async fn admitted_buyer(app: &TestApp) -> (String, String, String, String) {
    let event = app
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let (_, session) = app.session().await;
    join(app, &event, &session).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    let r = app
        .get(&format!("/api/events/{event}/queue"), &session)
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "admitted");
    let token = body["admission_token"].as_str().unwrap().to_owned();
    (event, session, token, cookie)
}

async fn gate(app: &TestApp, event: &str, session: &str, token: Option<&str>) -> reqwest::Response {
    let mut req = app
        .client
        .get(app.url(&format!("/api/events/{event}/admission")))
        .bearer_auth(session);
    if let Some(token) = token {
        req = req.header("admission-token", token);
    }
    req.send().await.unwrap()
}

on_single_and_cluster!(
    an_admitted_buyer_passes_the_gate_by_header_or_by_cookie,
    the_gate_refuses_everything_but_a_valid_token_of_this_event_and_buyer,
);

async fn an_admitted_buyer_passes_the_gate_by_header_or_by_cookie(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, session, token, cookie) = admitted_buyer(&app).await;
    assert!(cookie.starts_with(&format!("anteroom_admission_{event}={token}")));
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"));
    let r = gate(&app, &event, &session, Some(&token)).await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/admission")))
        .bearer_auth(&session)
        .header("cookie", cookie.split(';').next().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

async fn the_gate_refuses_everything_but_a_valid_token_of_this_event_and_buyer(backend: Backend) {
    let app = spawn_on(backend).await;
    let (event, session, token, _) = admitted_buyer(&app).await;
    let (other_event, other_session, other_token, _) = admitted_buyer(&app).await;
    let parts: Vec<&str> = token.split('.').collect();
    let mut claims: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
    claims["exp"] = json!(claims["exp"].as_i64().unwrap() + 3600);
    let tampered = format!(
        "{}.{}.{}",
        parts[0],
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&claims).unwrap()),
        parts[2]
    );
    let alg_none = format!(
        "{}.{}.",
        URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#),
        parts[1]
    );
    let hs256 = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(b"guess"),
    )
    .unwrap();

    let refused: Vec<(&str, &str, Option<&str>)> = vec![
        ("no token", session.as_str(), None),
        ("garbage", session.as_str(), Some("garbage")),
        (
            "tampered payload",
            session.as_str(),
            Some(tampered.as_str()),
        ),
        ("alg none", session.as_str(), Some(alg_none.as_str())),
        ("hs256 forgery", session.as_str(), Some(hs256.as_str())),
        (
            "another buyer's token",
            session.as_str(),
            Some(other_token.as_str()),
        ),
        (
            "my token from another buyer's session",
            other_session.as_str(),
            Some(token.as_str()),
        ),
    ];
    for (case, session, token) in refused {
        let r = gate(&app, &event, session, token).await;
        let body = expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
        assert_eq!(
            body["queue_url"],
            format!("/api/events/{event}/queue"),
            "{case}"
        );
    }
    let r = gate(&app, &other_event, &session, Some(&token)).await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/admission")))
        .header("admission-token", &token)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn with_the_room_off_any_session_passes_the_gate() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 1, json!({"enabled": false})))
        .await;
    let (_, session) = app.session().await;
    let r = gate(&app, event["id"].as_str().unwrap(), &session, None).await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn another_service_verifies_a_token_offline_with_the_jwks() {
    let app = spawn_app().await;
    let (event, _, token, _) = admitted_buyer(&app).await;
    let jwks: Value = app
        .client
        .get(app.url("/.well-known/jwks.json"))
        .json_body()
        .await;
    let header = jsonwebtoken::decode_header(&token).unwrap();
    assert_eq!(header.alg, Algorithm::EdDSA);
    let kid = header.kid.unwrap();
    let jwk = jwks["keys"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["kid"] == kid.as_str())
        .expect("the token's kid is published");
    assert_eq!(
        (jwk["kty"].as_str(), jwk["crv"].as_str()),
        (Some("OKP"), Some("Ed25519"))
    );
    assert!(jwk.get("d").is_none(), "no private part is published");
    let key = DecodingKey::from_ed_components(jwk["x"].as_str().unwrap()).unwrap();
    let mut validation = Validation::new(Algorithm::EdDSA);
    validation.set_audience(&["anteroom"]);
    let claims = jsonwebtoken::decode::<Value>(&token, &key, &validation)
        .unwrap()
        .claims;
    assert_eq!(claims["evt"], event);
    for claim in ["sub", "aud", "iat", "exp", "jti"] {
        assert!(claims.get(claim).is_some(), "{claim}");
    }
    let lifetime = claims["exp"].as_i64().unwrap() - claims["iat"].as_i64().unwrap();
    assert!(
        (595..=600).contains(&lifetime),
        "10 minutes, got {lifetime}"
    );
}

#[tokio::test]
async fn a_poll_after_admission_keeps_answering_admitted() {
    let app = spawn_app().await;
    let (event, session, _, _) = admitted_buyer(&app).await;
    let (status, body) = join(&app, &event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted"))
    );
    let (status, body) = poll(&app, &event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted"))
    );
}
