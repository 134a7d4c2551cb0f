//! Tokens bound to the device (API.md "Tokens bound to the device"): a room with `bind_tokens`
//! takes a join only with a DPoP proof, binds the place to its key, and lets a token past the
//! gate only with a fresh proof of that key bound to that token.

use anteroom::{admission::ticker::Ticker, forms::form_token};
use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use reqwest::StatusCode;
use serde_json::{Value, json};
use testkit::device::DeviceKey;

use crate::helpers::{TestApp, event_body, expect_error, hold_body, put_room, seat_ids, spawn_app};

/// An event whose room binds tokens, admitting 10 a second.
async fn bound_event(app: &TestApp) -> String {
    let event = app
        .create_event(event_body(
            1,
            4,
            json!({"admit_rate_per_second": 10, "bind_tokens": true}),
        ))
        .await;
    assert_eq!(event["room"]["bind_tokens"], true);
    event["id"].as_str().unwrap().to_owned()
}

/// A join of `event` by `session`, with the proof `dpop` if given.
async fn join_with(
    app: &TestApp,
    event: &str,
    session: &str,
    dpop: Option<String>,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue")))
        .bearer_auth(session)
        .json(&json!({}));
    if let Some(proof) = dpop {
        req = req.header("dpop", proof);
    }
    req.send().await.unwrap()
}

/// The buyer `session` joined with `key`, admitted by a tick, and their poll's token.
async fn admitted(app: &TestApp, event: &str, session: &str, key: &DeviceKey) -> String {
    let url = app.url(&format!("/api/events/{event}/queue"));
    let r = join_with(app, event, session, Some(key.proof("POST", &url, None))).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(event, &room, 0)
        .await
        .unwrap();
    let body: Value = app
        .get(&format!("/api/events/{event}/queue"), session)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(body["status"], "admitted", "{body}");
    body["admission_token"].as_str().unwrap().to_owned()
}

/// The refusals of browsers that could not bind a place, as the operator's stats say.
async fn refusals(app: &TestApp, event: &str) -> Value {
    app.stats(event).await["device_refusals"].clone()
}

/// The claims of a JWT, unverified.
fn claims(token: &str) -> Value {
    let part = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(part).unwrap()).unwrap()
}

/// A request for the seat map with `token` in the header and the proof `dpop`.
async fn seats(
    app: &TestApp,
    event: &str,
    session: &str,
    token: &str,
    dpop: Option<String>,
) -> reqwest::Response {
    let mut req = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(session)
        .header("admission-token", token);
    if let Some(proof) = dpop {
        req = req.header("dpop", proof);
    }
    req.send().await.unwrap()
}

#[tokio::test]
async fn a_bound_room_refuses_a_token_without_the_right_fresh_proof_and_takes_the_right_one() {
    let app = spawn_app().await;
    let event = bound_event(&app).await;
    let (_, session) = app.session().await;
    let key = DeviceKey::new();
    let token = admitted(&app, &event, &session, &key).await;
    assert_eq!(claims(&token)["cnf"]["jkt"], key.thumbprint());

    let url = app.url(&format!("/api/events/{event}/seats"));
    // The stale and future proofs are 90 s off, not 61: the cases run one after the other on
    // a loaded machine, and a proof dated 61 s ahead is only 59 s ahead two seconds later.
    let now = chrono::Utc::now().timestamp();
    let other = DeviceKey::new();
    let replayed = key.proof("GET", &url, Some(&token));
    let r = seats(&app, &event, &session, &token, Some(replayed.clone())).await;
    assert_eq!(r.status(), StatusCode::OK, "the right proof passes");

    let refused: Vec<(&str, Option<String>)> = vec![
        ("no proof", None),
        (
            "a proof from another key",
            Some(other.proof("GET", &url, Some(&token))),
        ),
        ("a replayed jti", Some(replayed)),
        (
            "a stale iat",
            Some(key.proof_with("GET", &url, Some(&token), now - 90, "stale")),
        ),
        (
            "an iat from the future",
            Some(key.proof_with("GET", &url, Some(&token), now + 90, "future")),
        ),
        (
            "a wrong ath",
            Some(key.proof("GET", &url, Some("another token"))),
        ),
        ("no ath", Some(key.proof("GET", &url, None))),
        (
            "another method",
            Some(key.proof("POST", &url, Some(&token))),
        ),
        (
            "another path",
            Some(key.proof("GET", &app.url("/api/events/x/seats"), Some(&token))),
        ),
        ("garbage", Some("a.b.c".into())),
    ];
    for (case, proof) in refused {
        let r = seats(&app, &event, &session, &token, proof).await;
        let body = expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
        assert_eq!(
            body["queue_url"],
            format!("/api/events/{event}/queue"),
            "{case}"
        );
    }
    let r = seats(
        &app,
        &event,
        &session,
        &token,
        Some(key.proof("GET", &url, Some(&token))),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK, "a fresh proof passes again");

    // The hold path is gated the same way: a proof for the hold's own request.
    let ids = seat_ids(&app, &event).await;
    let holds = app.url(&format!("/api/events/{event}/holds"));
    let hold = |proof: Option<String>| {
        let mut req = app
            .client
            .post(&holds)
            .bearer_auth(&session)
            .header("admission-token", &token)
            .header("idempotency-key", "k1")
            .json(&hold_body(&ids[..1]));
        if let Some(proof) = proof {
            req = req.header("dpop", proof);
        }
        req.send()
    };
    let r = hold(Some(key.proof("GET", &url, Some(&token))))
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    let r = hold(Some(key.proof("POST", &holds, Some(&token))))
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    // Every proof counted once, by its outcome: the join's, 4 that passed the gate (one of them
    // made with another key), the replay, 8 that did not verify, the missing one.
    let metrics = app.metrics_text().await;
    for (outcome, n) in [
        ("ok", 5),
        ("wrong_key", 1),
        ("replayed", 1),
        ("invalid", 8),
        ("missing", 1),
    ] {
        let line = format!("anteroom_dpop_proofs_total{{outcome=\"{outcome}\"}} {n}\n");
        assert!(metrics.contains(&line), "{line} in {metrics}");
    }
}

#[tokio::test]
async fn a_join_in_a_bound_room_needs_a_proof_and_binds_the_place_once() {
    let app = spawn_app().await;
    let event = bound_event(&app).await;
    let (buyer, session) = app.session().await;
    let url = app.url(&format!("/api/events/{event}/queue"));

    // Without a proof, or with one that does not pass: 400, no place, and counted.
    let r = join_with(&app, &event, &session, None).await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let key = DeviceKey::new();
    let wrong = key.proof("GET", &url, None);
    let r = join_with(&app, &event, &session, Some(wrong)).await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = app
        .get(&format!("/api/events/{event}/queue"), &session)
        .await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    assert_eq!(
        refusals(&app, &event).await,
        json!({"no_key": 1, "no_script": 0})
    );

    // With one: a place, bound to the key; joining again with the same key finds it, with
    // another key is refused and changes nothing.
    let r = join_with(&app, &event, &session, Some(key.proof("POST", &url, None))).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let r = join_with(&app, &event, &session, Some(key.proof("POST", &url, None))).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let other = DeviceKey::new();
    let r = join_with(
        &app,
        &event,
        &session,
        Some(other.proof("POST", &url, None)),
    )
    .await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let bound: Option<String> = redis::cmd("HGET")
        .arg(app.state.keys.bound(&event))
        .arg(&buyer)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(bound, Some(key.thumbprint()));

    // A page without JavaScript asks for the counting image; reloaded ten times, or asked by
    // a script in a loop, it still counts once (issue 63). Another session counts too.
    let image = format!("/api/events/{event}/refusals/no-script");
    for _ in 0..10 {
        let r = app.client.get(app.url(&image)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::NO_CONTENT);
    }
    for _ in 0..10 {
        assert_eq!(
            app.get(&image, &session).await.status(),
            StatusCode::NO_CONTENT
        );
    }
    assert_eq!(
        refusals(&app, &event).await,
        json!({"no_key": 1, "no_script": 2})
    );
}

#[tokio::test]
async fn a_token_minted_before_the_room_bound_tokens_is_refused_until_a_poll_binds_it() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 4, json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let (_, session) = app.session().await;
    let url = app.url(&format!("/api/events/{event}/queue"));
    let r = join_with(&app, &event, &session, None).await;
    assert_eq!(
        r.status(),
        StatusCode::ACCEPTED,
        "an unbound room needs no proof"
    );
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    let body: Value = app
        .get(&format!("/api/events/{event}/queue"), &session)
        .await
        .json()
        .await
        .unwrap();
    let unbound = body["admission_token"].as_str().unwrap().to_owned();
    assert!(claims(&unbound).get("cnf").is_none());
    let seats_url = app.url(&format!("/api/events/{event}/seats"));
    let r = seats(&app, &event, &session, &unbound, None).await;
    assert_eq!(r.status(), StatusCode::OK, "unbound rooms work as before");

    let r = put_room(&app, &event, json!({"bind_tokens": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let key = DeviceKey::new();
    let proof = key.proof("GET", &seats_url, Some(&unbound));
    let r = seats(&app, &event, &session, &unbound, Some(proof)).await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;

    // A poll with a proof binds the place and mints a bound token.
    let r = app
        .client
        .get(&url)
        .bearer_auth(&session)
        .header("dpop", key.proof("GET", &url, None))
        .send()
        .await
        .unwrap();
    let body: Value = r.json().await.unwrap();
    let bound = body["admission_token"].as_str().unwrap().to_owned();
    assert_eq!(claims(&bound)["cnf"]["jkt"], key.thumbprint());
    let proof = key.proof("GET", &seats_url, Some(&bound));
    let r = seats(&app, &event, &session, &bound, Some(proof)).await;
    assert_eq!(r.status(), StatusCode::OK);
    // A poll without a proof mints a token bound the same way.
    let body: Value = app
        .get(&format!("/api/events/{event}/queue"), &session)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(
        claims(body["admission_token"].as_str().unwrap())["cnf"]["jkt"],
        key.thumbprint()
    );
}

#[tokio::test]
async fn a_form_in_a_bound_room_says_the_page_needs_its_script_and_holds_nothing() {
    let app = spawn_app().await;
    let event = bound_event(&app).await;
    let (buyer, session) = app.session().await;
    let key = DeviceKey::new();
    let token = admitted(&app, &event, &session, &key).await;
    let ids = seat_ids(&app, &event).await;
    let form = form_token(&app.state.sessions, &buyer.into(), &event.as_str().into());
    let r = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(&format!("/events/{event}/hold")))
        .header(
            "cookie",
            format!("anteroom_session={session}; anteroom_admission_{event}={token}"),
        )
        .header("sec-fetch-site", "same-origin")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={form}&key=k-seats&seat={}", ids[0]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let to = r.headers()["location"].to_str().unwrap();
    assert!(to.contains("note=needs_device"), "{to}");
    let holds: i64 = sqlx::query_scalar("select count(*) from hold where event_id = $1")
        .bind(&event)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(holds, 0);
}

/// The example verifier for other services (`docs/verify_bound_token.py`, PyJWT) checks a
/// bound token the way the gate does: it takes the right proof once, and refuses a replay and
/// a proof from another device.
#[tokio::test]
async fn the_documented_python_verifier_agrees_with_the_gate() {
    let app = spawn_app().await;
    let event = bound_event(&app).await;
    let (buyer, session) = app.session().await;
    let key = DeviceKey::new();
    let token = admitted(&app, &event, &session, &key).await;
    let url = app.url(&format!("/api/events/{event}/seats"));
    let jwks: Value = app
        .client
        .get(app.url("/.well-known/jwks.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let run = |proof: String| {
        let case = json!({
            "jwks": jwks, "token": token, "proof": proof,
            "method": "GET", "url": url, "event_id": event,
        });
        let path = std::env::temp_dir().join(format!("anteroom-case-{}.json", buyer));
        std::fs::write(&path, case.to_string()).unwrap();
        let out = std::process::Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../docs/verify_bound_token.py"
            ))
            .arg(&path)
            .output()
            .expect("python3 runs (scripts/setup.sh installs PyJWT)");
        std::fs::remove_file(&path).ok();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let said = run(key.proof("GET", &url, Some(&token)));
    assert_eq!(
        said,
        format!("first accepted {buyer}\nagain refused: a replayed proof\n")
    );
    let said = run(DeviceKey::new().proof("GET", &url, Some(&token)));
    assert!(
        said.starts_with("first refused: a proof from another device"),
        "{said}"
    );
}

/// The skew's edge, with a fixed clock (`verify` is the check without Redis): the HTTP cases
/// above keep a wide margin so that a slow run cannot move a proof across it.
#[test]
fn a_proof_passes_up_to_the_skew_either_way_and_not_a_second_beyond() {
    use anteroom::tokens::dpop::{ProofFor, Refused, verify};
    use axum::http::{HeaderMap, Method, header};

    let key = DeviceKey::new();
    let mut headers = HeaderMap::new();
    headers.insert(header::HOST, "t.example".parse().unwrap());
    let skew = app::dpop::MAX_SKEW_SECS;
    let now = 1_800_000_000;
    for (iat, passes) in [
        (now - skew, true),
        (now + skew, true),
        (now - skew - 1, false),
        (now + skew + 1, false),
    ] {
        let proof = key.proof_with(
            "GET",
            "https://t.example/api/events/e/seats",
            Some("t"),
            iat,
            &format!("j{iat}"),
        );
        headers.insert(app::dpop::HEADER, proof.parse().unwrap());
        let request = ProofFor {
            method: &Method::GET,
            path: "/api/events/e/seats",
            headers: &headers,
            token: Some("t"),
        };
        let verified = verify(&request, now);
        assert_eq!(verified.is_ok(), passes, "iat {}", iat - now);
        if !passes {
            assert!(matches!(verified, Err(Refused::Invalid(_))));
        }
    }
}

/// Review finding 3: in a bound room the session alone moved a place (even an admitted one,
/// rebinding it to the claimer's key), released a hold and paid. Now each needs a proof from
/// the place's key: none is 400, another key's is 403, and nothing changes; an admitted place
/// does not move at all.
#[tokio::test]
async fn in_a_bound_room_moving_releasing_and_paying_need_the_places_device() {
    let app = spawn_app().await;
    let event = bound_event(&app).await;
    let (_, session) = app.session().await;
    let key = DeviceKey::new();
    let thief = DeviceKey::new();
    // Another buyer joins first, and the one tick of `admitted` admits both.
    let (_, other) = app.session().await;
    let other_key = DeviceKey::new();
    let queue = app.url(&format!("/api/events/{event}/queue"));
    let r = join_with(
        &app,
        &event,
        &other,
        Some(other_key.proof("POST", &queue, None)),
    )
    .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let token = admitted(&app, &event, &session, &key).await;
    let ids = seat_ids(&app, &event).await;
    let url = app.url(&format!("/api/events/{event}/holds"));
    let r = app
        .client
        .post(&url)
        .bearer_auth(&session)
        .header("admission-token", &token)
        .header("dpop", key.proof("POST", &url, Some(&token)))
        .header("idempotency-key", "h")
        .json(&hold_body(&ids[..1]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold: Value = r.json().await.unwrap();
    let hold_id = hold["hold_id"].as_str().unwrap();
    let send = |method: reqwest::Method, path: String, proof: Option<&DeviceKey>| {
        let url = app.url(&path);
        let mut req = app
            .client
            .request(method.clone(), &url)
            .bearer_auth(&session)
            .header("idempotency-key", "pay")
            .json(&json!({}));
        if let Some(device) = proof {
            req = req.header("dpop", device.proof(method.as_str(), &url, None));
        }
        req.send()
    };
    let release = format!("/api/holds/{hold_id}");
    let pay = format!("/api/holds/{hold_id}/checkout");
    let moving = format!("/api/events/{event}/queue/move");
    for (method, path) in [
        (reqwest::Method::DELETE, &release),
        (reqwest::Method::POST, &pay),
        (reqwest::Method::POST, &moving),
    ] {
        let r = send(method.clone(), path.clone(), None).await.unwrap();
        expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
        let r = send(method, path.clone(), Some(&thief)).await.unwrap();
        expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    }
    let status: String = sqlx::query_scalar("select status from hold where id = $1")
        .bind(hold_id)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert_eq!(status, "active", "the refused requests changed nothing");
    assert_eq!(
        app.count("select count(*) from payment").await,
        0,
        "no payment was started"
    );
    // The place's own device: its admitted place does not move, and it pays.
    let r = send(reqwest::Method::POST, moving.clone(), Some(&key))
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let r = send(reqwest::Method::POST, pay, Some(&key)).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // An admitted place with no hold does not move either, even asked from its device.
    let url = app.url(&moving);
    let r = app
        .client
        .post(&url)
        .bearer_auth(&other)
        .header("dpop", other_key.proof("POST", &url, None))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let body = expect_error(r, StatusCode::CONFLICT, "conflict").await;
    assert!(
        body["message"].as_str().unwrap().contains("admitted"),
        "{body}"
    );
}
