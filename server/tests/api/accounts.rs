//! Accounts (API.md "Accounts"): the ticketer's signed hand-over makes a session an account's;
//! one place and one seat limit per account across its sessions; who a room takes (`identity`,
//! `eligible`); every bad assertion refused with nothing stored; the ticketer's keys rotating
//! without a restart. The ticketer here is a real HTTP server of the test's own serving its
//! JWKS (`testkit::ticketer`), and its assertions are signed with a real Ed25519 key.

use std::time::Duration;

use base64::Engine;
use reqwest::StatusCode;
use serde_json::{Value, json};
use testkit::ticketer::{AUDIENCE, ISSUER, Key, Ticketer};

use crate::helpers::{
    TestApp, checkout, event_body, eventually_every, expect_error, hold, hold_body, join,
    line_length, put_room, spawn_with, test_config,
};

async fn app_trusting(ticketer: &Ticketer) -> TestApp {
    let mut config = test_config();
    config.ticketers = vec![ticketer.setting()];
    config.account_audience = Some(AUDIENCE.into());
    spawn_with(config).await
}

/// `POST /api/session {"assertion"}`: the status and the body.
async fn hand_over(app: &TestApp, assertion: &str) -> (StatusCode, Value) {
    // A connection of its own: the test below waits longer than the server keeps an idle one.
    let r = reqwest::Client::new()
        .post(app.url("/api/session"))
        .json(&json!({ "assertion": assertion }))
        .send()
        .await
        .unwrap();
    (r.status(), r.json().await.unwrap())
}

/// An account session's token for `assertion`.
async fn account(app: &TestApp, assertion: &str) -> (String, String) {
    let (status, body) = hand_over(app, assertion).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["account"], true);
    (
        body["buyer_id"].as_str().unwrap().into(),
        body["token"].as_str().unwrap().into(),
    )
}

async fn account_event(app: &TestApp, room: Value) -> String {
    let event = app.create_event(event_body(2, 5, room)).await;
    event["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn two_sessions_of_one_account_are_one_buyer_with_one_place() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(&app, json!({"identity": "account"})).await;

    // Without an account: 401 and where to sign in, and no place.
    let (_, anonymous) = app.session().await;
    let (status, body) = join(&app, &event, &anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"], "unauthorized");
    assert_eq!(
        body["sign_in_url"],
        format!("/auth/sign-in?event={event}&return=/events/{event}")
    );
    assert_eq!(line_length(&app, &event).await, 0);

    // Another buyer first, so that the account's position is not trivially 1.
    let (_, other) = account(&app, &key.sign(json!({"sub": "grace"}))).await;
    assert_eq!(join(&app, &event, &other).await.0, StatusCode::ACCEPTED);

    let (phone_id, phone) = account(&app, &key.sign(json!({}))).await;
    let (laptop_id, laptop) = account(&app, &key.sign(json!({}))).await;
    assert_eq!(phone_id, laptop_id, "one account, one buyer");
    assert!(!phone_id.contains("ada"), "the subject is not the buyer id");
    let who: Value = app.get("/api/session", &laptop).await.json().await.unwrap();
    assert_eq!(who["account"], true);

    let (status, first) = join(&app, &event, &phone).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{first}");
    assert_eq!(first["position"], 2);
    let (_, again) = join(&app, &event, &laptop).await;
    assert_eq!(again["position"], 2, "the laptop sees the phone's place");
    assert_eq!(line_length(&app, &event).await, 2);

    // Another issuer's same subject is another account (here: not a ticketer at all).
    let (status, _) = hand_over(&app, &key.sign(json!({"iss": "https://other.example"}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn every_bad_assertion_is_refused_and_stores_nothing() {
    let key = Key::new("k1");
    let stranger = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let now = chrono::Utc::now().timestamp();
    let used = key.sign(json!({"jti": "once"}));
    assert_eq!(hand_over(&app, &used).await.0, StatusCode::CREATED);

    let hs256 = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "ada", "exp": now + 60, "jti": "h"}),
        &jsonwebtoken::EncodingKey::from_secret(key.jwk["x"].as_str().unwrap().as_bytes()),
    )
    .unwrap();
    // The payload of a good assertion under a header that says it is not signed.
    let unsigned = {
        let signed = key.sign(json!({}));
        let payload = signed.split('.').nth(1).unwrap().to_owned();
        let none = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#);
        format!("{none}.{payload}.")
    };
    let bad = [
        ("replayed", used),
        ("forged", stranger.sign(json!({}))),
        ("expired", key.sign(json!({"exp": now - 60}))),
        ("too long ahead", key.sign(json!({"exp": now + 3600}))),
        ("wrong audience", key.sign(json!({"aud": "someone-else"}))),
        (
            "wrong issuer",
            key.sign(json!({"iss": "https://evil.example"})),
        ),
        ("no jti", key.sign(json!({"jti": null}))),
        ("no sub", key.sign(json!({"sub": null}))),
        ("no exp", key.sign(json!({"exp": null}))),
        ("hmac", hs256),
        ("alg none", unsigned),
        ("garbage", "not.a.jwt".into()),
    ];
    for (what, assertion) in bad {
        let (status, body) = hand_over(&app, &assertion).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}: {body}");
        assert_eq!(body["error"], "unauthorized", "{what}");
    }
    let marks: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{}:assertion:*", app.state.keys.prefix()))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(
        marks.len(),
        1,
        "only the accepted assertion was marked used"
    );

    // A body that is not even a string: 422, nothing stored.
    let r = app
        .client
        .post(app.url("/api/session"))
        .json(&json!({"assertion": 7}))
        .send()
        .await
        .unwrap();
    assert!(r.status().is_client_error());
}

#[tokio::test]
async fn the_seat_limit_counts_an_accounts_seats_held_and_bought_across_its_devices() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    // The room off: every session may hold at once (API.md), which is where a per-session
    // limit would let one person through twice.
    let event = account_event(&app, json!({"enabled": false, "seats_per_buyer": 2})).await;
    let seats = crate::helpers::seat_ids(&app, &event).await;
    let (_, phone) = account(&app, &key.sign(json!({}))).await;
    let (_, laptop) = account(&app, &key.sign(json!({}))).await;
    // The phone holds one seat and buys it.
    let r = hold(&app, &event, &phone, "one", hold_body(&seats[..1])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let held: Value = r.json().await.unwrap();
    let r = checkout(&app, &phone, held["hold_id"].as_str().unwrap(), "pay-one").await;
    assert!(r.status().is_success(), "{}", r.status());
    // The laptop may not hold two more: the account bought one already.
    let r = hold(&app, &event, &laptop, "two", hold_body(&seats[1..3])).await;
    let body = expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    assert!(
        body["message"].as_str().unwrap().contains("bought 1"),
        "{body}"
    );
    let r = hold(&app, &event, &laptop, "three", hold_body(&seats[1..2])).await;
    assert_eq!(r.status(), StatusCode::CREATED, "the second of two");
    let r = hold(&app, &event, &phone, "four", hold_body(&seats[2..3])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
}

#[tokio::test]
async fn a_room_admits_only_the_accounts_its_claim_names() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(
        &app,
        json!({"eligible": {"claim": "groups", "value": "fanclub"}}),
    )
    .await;
    let (_, fan) = account(
        &app,
        &key.sign(json!({"sub": "fan", "groups": ["press", "fanclub"]})),
    )
    .await;
    let (_, other) = account(&app, &key.sign(json!({"sub": "other", "groups": "press"}))).await;
    let (_, anonymous) = app.session().await;

    let (status, body) = join(&app, &event, &other).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(
        (body["error"].as_str(), body["reason"].as_str()),
        (Some("forbidden"), Some("not_eligible"))
    );
    assert_eq!(
        line_length(&app, &event).await,
        0,
        "refused before any place is taken"
    );
    let (status, body) = join(&app, &event, &anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert!(body["sign_in_url"].is_string());
    let (status, body) = join(&app, &event, &fan).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    assert_eq!(line_length(&app, &event).await, 1);

    // The operator opens the sale to everyone: the other account joins.
    let r = put_room(&app, &event, json!({"eligible": null})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let room: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(room["room"]["eligible"], Value::Null);
    assert_eq!(join(&app, &event, &other).await.0, StatusCode::ACCEPTED);
    // A bad rule is refused and changes nothing.
    for bad in [
        json!({"claim": "", "value": "x"}),
        json!({"list": false}),
        json!({"what": 1}),
        json!("groups"),
    ] {
        let r = put_room(&app, &event, json!({ "eligible": bad })).await;
        assert!(r.status().is_client_error(), "{bad}");
    }
    let r = put_room(&app, &event, json!({"identity": "robot"})).await;
    assert!(r.status().is_client_error());
}

#[tokio::test]
async fn the_ticketers_new_key_is_picked_up_without_a_restart_and_unknown_keys_do_not_flood_it() {
    let (old, new) = (Key::new("2026-11"), Key::new("2026-12"));
    let ticketer = Ticketer::start(&[&old]).await;
    let app = app_trusting(&ticketer).await;
    account(&app, &old.sign(json!({}))).await;
    assert_eq!(ticketer.fetches(), 1);
    // Fifty assertions naming keys that do not exist: at most one fetch more.
    for i in 0..50 {
        let made_up = Key::new(&format!("made-up-{i}"));
        assert_eq!(
            hand_over(&app, &made_up.sign(json!({}))).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    assert!(ticketer.fetches() <= 2);
    // The ticketer rotates: its new key is read once the refetch interval (a constant, 10 s
    // from the last fetch) has passed, with one fetch however often the new key is shown
    // before.
    *ticketer.keys.lock().unwrap() = vec![old.jwk.clone(), new.jwk.clone()];
    let fetched = ticketer.fetches();
    let within = anteroom::accounts::jwks::REFETCH_AFTER + Duration::from_secs(5);
    eventually_every(
        "the new key is read",
        within,
        Duration::from_millis(250),
        async || {
            let (status, body) = hand_over(&app, &new.sign(json!({}))).await;
            match status {
                StatusCode::UNAUTHORIZED => false,
                _ => {
                    assert_eq!(status, StatusCode::CREATED, "{body}");
                    assert_eq!(body["account"], true);
                    true
                }
            }
        },
    )
    .await;
    assert_eq!(ticketer.fetches(), fetched + 1, "one fetch for the new key");
    account(&app, &old.sign(json!({}))).await;
}

#[tokio::test]
async fn a_ticketer_whose_keys_cannot_be_fetched_is_503_and_stores_nothing() {
    let key = Key::new("k1");
    let mut config = test_config();
    config.ticketers = vec![format!("{ISSUER}=http://127.0.0.1:9/jwks")];
    config.account_audience = Some(AUDIENCE.into());
    let app = spawn_with(config).await;
    let (status, body) = hand_over(&app, &key.sign(json!({}))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert_eq!(body["error"], "unavailable");
}

#[tokio::test]
async fn a_room_with_a_list_admits_the_accounts_on_it_even_when_redis_lost_its_copy() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(&app, json!({"eligible": {"list": true}})).await;
    let upload = |csv: &'static str| {
        app.admin(
            app.client
                .put(app.url(&format!("/api/admin/events/{event}/eligible"))),
        )
        .header("content-type", "text/csv")
        .body(csv)
        .send()
    };
    let r = upload("subject\nada\nhttps://tickets.example,linus\n\n")
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["accounts"], 2);
    let stored: Vec<String> =
        sqlx::query_scalar("select account from eligible_account order by account")
            .fetch_all(&app.state.db)
            .await
            .unwrap();
    assert_eq!(stored.len(), 2);
    assert!(
        stored.iter().all(|a| a != "ada" && a != "linus"),
        "hashed at rest"
    );

    let (_, ada) = account(&app, &key.sign(json!({"sub": "ada"}))).await;
    let (_, linus) = account(&app, &key.sign(json!({"sub": "linus"}))).await;
    let (_, grace) = account(&app, &key.sign(json!({"sub": "grace"}))).await;
    let (status, body) = join(&app, &event, &grace).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (StatusCode::FORBIDDEN, Some("not_eligible"))
    );
    assert_eq!(join(&app, &event, &ada).await.0, StatusCode::ACCEPTED);
    // Redis loses its copy: Postgres still knows the list.
    let _: () = redis::cmd("DEL")
        .arg(app.state.keys.eligible(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(join(&app, &event, &linus).await.0, StatusCode::ACCEPTED);
    // A list that does not read changes nothing; a new list replaces the old one whole.
    for bad in ["https://evil.example,ada\n", "a,b,c\n"] {
        let r = upload(bad).await.unwrap();
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    assert_eq!(app.count("select count(*) from eligible_account").await, 2);
    let r = upload("grace\n").await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(join(&app, &event, &grace).await.0, StatusCode::ACCEPTED);
    let r = app
        .client
        .put(app.url(&format!("/api/admin/events/{event}/eligible")))
        .body("ada\n")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "operators only");
}

#[tokio::test]
async fn in_a_room_that_binds_tokens_the_accounts_place_stays_with_the_device_that_joined() {
    use testkit::device::DeviceKey;
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(&app, json!({"identity": "account", "bind_tokens": true})).await;
    let (_, phone) = account(&app, &key.sign(json!({}))).await;
    let (_, laptop) = account(&app, &key.sign(json!({}))).await;
    let url = app.url(&format!("/api/events/{event}/queue"));
    let join_on = |session: String, device: &DeviceKey| {
        app.client
            .post(&url)
            .bearer_auth(session)
            .header("dpop", device.proof("POST", &url, None))
            .json(&json!({}))
            .send()
    };
    let (phone_key, laptop_key) = (DeviceKey::new(), DeviceKey::new());
    let r = join_on(phone.clone(), &phone_key).await.unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let r = join_on(laptop, &laptop_key).await.unwrap();
    assert_eq!(
        r.status(),
        StatusCode::FORBIDDEN,
        "the account's other device does not take the place by joining"
    );
    let r = join_on(phone, &phone_key).await.unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED, "the phone keeps it");
    assert_eq!(line_length(&app, &event).await, 1);
}

/// A room turned off keeps its rules of who may come in (issue 63): no line is not no
/// presale. An anonymous session is refused at the join, the poll, the seat map and the hold
/// of an account-only room that is off (401, nothing stored), an account the claim does not
/// name is 403, and the accounts the room takes get in at once.
#[tokio::test]
async fn a_room_turned_off_keeps_its_identity_and_eligibility_rules() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(&app, json!({"identity": "account"})).await;
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let seats = crate::helpers::seat_ids(&app, &event).await;
    let (_, anonymous) = app.session().await;
    let (status, body) = join(&app, &event, &anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "join: {body}");
    assert!(body["sign_in_url"].is_string(), "{body}");
    let (status, body) = crate::helpers::poll(&app, &event, &anonymous).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "poll: {body}");
    let r = app
        .get(&format!("/api/events/{event}/seats"), &anonymous)
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "the seat map");
    let r = hold(&app, &event, &anonymous, "anon", hold_body(&seats[..1])).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "the hold");
    assert_eq!(
        app.count(&format!(
            "select count(*) from hold where event_id = '{event}'"
        ))
        .await,
        0
    );
    // An account is let straight in, and holds.
    let (_, fan) = account(&app, &key.sign(json!({"sub": "fan", "groups": "fanclub"}))).await;
    let (status, body) = join(&app, &event, &fan).await;
    assert_eq!(
        (status, &body["status"]),
        (StatusCode::OK, &json!("admitted")),
        "{body}"
    );
    let r = hold(&app, &event, &fan, "fan", hold_body(&seats[..1])).await;
    assert_eq!(r.status(), StatusCode::CREATED);

    // A presale for a claim, off: another account is 403 at each door.
    let presale = account_event(
        &app,
        json!({"eligible": {"claim": "groups", "value": "fanclub"}, "enabled": false}),
    )
    .await;
    let presale_seats = crate::helpers::seat_ids(&app, &presale).await;
    let (_, other) = account(&app, &key.sign(json!({"sub": "other", "groups": "press"}))).await;
    let (status, body) = join(&app, &presale, &other).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["reason"], "not_eligible");
    let r = hold(
        &app,
        &presale,
        &other,
        "other",
        hold_body(&presale_seats[..1]),
    )
    .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let (status, _) = join(&app, &presale, &fan).await;
    assert_eq!(status, StatusCode::OK);
}

/// A place keeps its room's rules when it moves (issue 63): in an account-only room, an
/// anonymous session that types an account's move code is refused (401) and the code stays
/// good for an account the room takes.
#[tokio::test]
async fn a_move_code_moves_a_place_only_to_one_the_room_would_let_join() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let app = app_trusting(&ticketer).await;
    let event = account_event(&app, json!({"identity": "account", "paused": true})).await;
    let assertion = key.sign(json!({"sub": "fan"}));
    let (_, laptop) = account(&app, &assertion).await;
    let (status, _) = join(&app, &event, &laptop).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let code = crate::moving::move_code(&app, &event, &laptop).await;
    let code = code["code"].as_str().unwrap().to_owned();
    let claim = async |session: &str| {
        app.client
            .post(app.url(&format!("/api/events/{event}/queue/claim")))
            .bearer_auth(session)
            .json(&json!({ "code": code }))
            .send()
            .await
            .unwrap()
    };
    let (_, anonymous) = app.session().await;
    let r = claim(&anonymous).await;
    let body = expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert!(body["sign_in_url"].is_string(), "{body}");
    // The code is still good: an account the room takes claims it.
    let (_, friend) = account(&app, &key.sign(json!({"sub": "friend"}))).await;
    let r = claim(&friend).await;
    assert!(r.status().is_success(), "{}", r.status());
}

/// Issue 63 (12): an eligibility rule counts a claim only from its own issuer (by default the
/// buyers' OpenID provider): a ticketer's hand-over that says `groups: fanclub` does not open a
/// presale the provider's fan club was promised, unless the rule names that ticketer. A rule
/// naming an issuer not configured is refused; so is a bare subject in a list, or a rule with
/// no issuer where several ticketers and no provider are configured.
#[tokio::test]
async fn an_eligibility_rule_counts_claims_of_its_own_issuer_only() {
    let key = Key::new("k1");
    let ticketer = Ticketer::start(&[&key]).await;
    let mut config = test_config();
    config.ticketers = vec![ticketer.setting()];
    config.account_audience = Some(AUDIENCE.into());
    // Named only: discovery happens at a sign-in, which this test makes none of.
    config.oidc_issuer = Some("https://idp.example".into());
    let app = spawn_with(config).await;
    let event = account_event(
        &app,
        json!({"eligible": {"claim": "groups", "value": "fanclub"}}),
    )
    .await;
    let (_, fan) = account(
        &app,
        &key.sign(json!({"sub": "fan", "groups": ["fanclub"]})),
    )
    .await;
    let (status, body) = join(&app, &event, &fan).await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (StatusCode::FORBIDDEN, Some("not_eligible")),
        "the provider's fan club, not the ticketer's: {body}"
    );
    let r = put_room(
        &app,
        &event,
        json!({"eligible": {"claim": "groups", "value": "fanclub", "issuer": ISSUER}}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(join(&app, &event, &fan).await.0, StatusCode::ACCEPTED);
    let r = put_room(
        &app,
        &event,
        json!({"eligible": {"claim": "groups", "value": "fanclub", "issuer": "https://evil.example"}}),
    )
    .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let room: Value = app
        .client
        .get(app.url(&format!("/api/events/{event}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(room["room"]["eligible"]["issuer"], ISSUER, "unchanged");

    // A list: a bare subject could be two people here.
    let listed = account_event(&app, json!({"eligible": {"list": true}})).await;
    let upload = |csv: String| {
        app.admin(
            app.client
                .put(app.url(&format!("/api/admin/events/{listed}/eligible"))),
        )
        .header("content-type", "text/csv")
        .body(csv)
        .send()
    };
    let r = upload("fan\n".into()).await.unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = upload(format!("{ISSUER},fan\n")).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(join(&app, &listed, &fan).await.0, StatusCode::ACCEPTED);

    // Two ticketers and no provider: a rule must say whose claim it means.
    let mut config = test_config();
    config.ticketers = vec![
        ticketer.setting(),
        "https://other.example=http://127.0.0.1:9/jwks".into(),
    ];
    let two = spawn_with(config).await;
    let r = two
        .admin(two.client.post(two.url("/api/admin/events")))
        .json(&event_body(
            1,
            5,
            json!({"eligible": {"claim": "groups", "value": "fanclub"}}),
        ))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
}
