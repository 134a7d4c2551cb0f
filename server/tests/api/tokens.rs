use std::time::Duration;

use anteroom::{
    admission::ticker::Ticker,
    config::Config,
    devdata::{self, Strictness},
    tokens::keys,
};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    Backend, JsonBody, TestApp, event_body, eventually, expect_error, join, key_file,
    on_single_and_cluster, poll, spawn_app, spawn_on, spawn_with, test_config,
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

/// A fresh signing key: its `.key` file's contents.
fn new_key() -> Vec<u8> {
    let scratch =
        std::env::temp_dir().join(format!("anteroom-key-{}", anteroom::ids::random_id(6)));
    keys::load_or_generate(&scratch, Strictness::Refuse).unwrap();
    let pem = std::fs::read(key_file(&scratch)).unwrap();
    std::fs::remove_dir_all(scratch).unwrap();
    pem
}

/// Puts `key` as `<kid>.key` in each of `dirs` (made private if new), as an operator copies
/// one key to every host.
fn install_key(key: &[u8], kid: &str, dirs: &[&std::path::Path]) {
    for dir in dirs {
        devdata::private_dir(dir, Strictness::Refuse).unwrap();
        devdata::create_private(&dir.join(format!("{kid}.key")), key).unwrap();
    }
}

/// The kid in the header of a JWT.
fn kid_of(token: &str) -> String {
    jsonwebtoken::decode_header(token).unwrap().kid.unwrap()
}

/// An admission token for a new buyer of `event` (room on), minted by `app`.
async fn admitted_on(app: &TestApp, event: &str) -> (String, String) {
    let (_, session, body) = crate::helpers::admitted_answer(app, event).await;
    (
        session,
        body["admission_token"].as_str().unwrap().to_owned(),
    )
}

/// The kids of the JWKS at `base`.
async fn jwks_kids(base: &str) -> Vec<String> {
    served_kids(base).await.expect("the JWKS answers")
}

/// The kids of the JWKS at `base`, or `None` when nothing answers there.
async fn served_kids(base: &str) -> Option<Vec<String>> {
    let r = reqwest::get(format!("{base}/.well-known/jwks.json"))
        .await
        .ok()?;
    let jwks: serde_json::Value = r.json().await.ok()?;
    Some(
        jwks["keys"]
            .as_array()?
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_owned())
            .collect(),
    )
}

#[tokio::test]
async fn an_instance_restarted_with_a_new_key_signs_with_the_old_one_until_every_instance_has_it() {
    let mut config = test_config();
    config.admission_key_publish_seconds = 0;
    let (dir_a, dir_b) = (
        config.data_dir.join("keys-a"),
        config.data_dir.join("keys-b"),
    );
    let (old, new) = (new_key(), new_key());
    install_key(&old, "k1-old", &[&dir_a, &dir_b]);
    // B was restarted with the new key; A runs on with the old one only.
    install_key(&new, "k2-new", &[&dir_b]);
    let a = spawn_with(Config {
        admission_key_dir: Some(dir_a.clone()),
        ..config.clone()
    })
    .await;
    let b = spawn_with(Config {
        admission_key_dir: Some(dir_b.clone()),
        ..config
    })
    .await;
    let event = a.room_event(10).await;
    let (session, token) = admitted_on(&b, &event).await;
    assert_eq!(kid_of(&token), "k1-old", "A does not hold k2-new yet");
    assert_eq!(
        gate(&a, &event, &session, Some(&token)).await.status(),
        StatusCode::OK
    );

    // A gets the new key too and reads its folder again (every 10 s, or on SIGHUP).
    install_key(&new, "k2-new", &[&dir_a]);
    a.state
        .keyring
        .refresh(&a.state.redis, &a.state.keys)
        .await
        .unwrap();
    assert_eq!(jwks_kids(&a.base).await, ["k1-old", "k2-new"]);
    b.state
        .keyring
        .refresh(&b.state.redis, &b.state.keys)
        .await
        .unwrap();
    let (session, token) = admitted_on(&b, &event).await;
    assert_eq!(kid_of(&token), "k2-new", "every instance holds it now");
    assert_eq!(
        gate(&a, &event, &session, Some(&token)).await.status(),
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_new_key_is_published_at_once_but_signs_only_after_the_jwks_could_be_cached() {
    let mut config = test_config();
    config.admission_key_publish_seconds = 3600;
    let dir = config.data_dir.join("keys");
    install_key(&new_key(), "k1-old", &[&dir]);
    config.admission_key_dir = Some(dir.clone());
    let app = spawn_with(config).await;
    install_key(&new_key(), "k2-new", &[&dir]);
    app.state
        .keyring
        .refresh(&app.state.redis, &app.state.keys)
        .await
        .unwrap();
    let r = reqwest::get(app.url("/.well-known/jwks.json"))
        .await
        .unwrap();
    assert_eq!(r.headers()["cache-control"], "public, max-age=300");
    assert_eq!(jwks_kids(&app.base).await, ["k1-old", "k2-new"]);
    let event = app.room_event(10).await;
    let (_, token) = admitted_on(&app, &event).await;
    assert_eq!(kid_of(&token), "k1-old", "k2-new is not an hour old");
}

#[tokio::test]
async fn sighup_makes_a_running_server_read_its_key_folder_again() {
    let app = spawn_app().await;
    let config = app.state.config.clone();
    let process = testkit::procs::Instance::serve(env!("CARGO_BIN_EXE_anteroom"), &config).await;
    let before = jwks_kids(&process.base).await;
    assert_eq!(before.len(), 1);
    // Made as docs/production.md's rotation says.
    let made = config.data_dir.join("zz-added.key");
    let openssl = std::process::Command::new("openssl")
        .args(["genpkey", "-algorithm", "ed25519", "-out"])
        .arg(&made)
        .status()
        .unwrap();
    assert!(openssl.success());
    let key = std::fs::read(&made).unwrap();
    install_key(&key, "zz-added", &[&config.data_dir.join("admission-keys")]);
    process.signal("HUP");
    // Before it reads the folder again (or if SIGHUP killed it), the key is not served.
    let kids = eventually("a second key served", Duration::from_secs(10), async || {
        served_kids(&process.base).await.filter(|k| k.len() == 2)
    })
    .await;
    assert!(kids.contains(&"zz-added".to_owned()), "{kids:?}");
}
