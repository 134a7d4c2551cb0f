//! Moving a place to another device (API.md): the place keeps its position, arrival number,
//! admission and ticket, moves once, and never comes back to the session it left, not even
//! through a place receipt or an admission token that session still holds (the failover's
//! restore path). In a room that binds tokens it moves to the claimer's device key.

use anteroom::admission::ticker::Ticker;
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use testkit::device::DeviceKey;

use crate::helpers::{
    Backend, TestApp, event_body, eventually, expect_error, hold_admitted, hold_body, join,
    join_response, joined, on_single_and_cluster, page, poll, put_room, seat_ids, spawn_app,
    spawn_on, spawn_with, test_config,
};

/// `POST /api/events/{event}/queue/move` as the buyer of `session`.
async fn ask_move(app: &TestApp, event: &str, session: &str) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/events/{event}/queue/move")))
        .bearer_auth(session)
        .send()
        .await
        .unwrap()
}

/// A move code of the buyer of `session` (asserting the 201).
pub async fn move_code(app: &TestApp, event: &str, session: &str) -> Value {
    let r = ask_move(app, event, session).await;
    let status = r.status();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// The claim URL of `event`, as a DPoP proof names it.
fn claim_url(app: &TestApp, event: &str) -> String {
    app.url(&format!("/api/events/{event}/queue/claim"))
}

/// `POST /api/events/{event}/queue/claim` with `body` as the buyer of `session`, with a DPoP
/// proof made by `device` if given.
async fn claim_body(
    app: &TestApp,
    event: &str,
    session: &str,
    body: Value,
    device: Option<&DeviceKey>,
) -> reqwest::Response {
    let mut req = app
        .client
        .post(claim_url(app, event))
        .bearer_auth(session)
        .json(&body);
    if let Some(key) = device {
        req = req.header("dpop", key.proof("POST", &claim_url(app, event), None));
    }
    req.send().await.unwrap()
}

/// Claims `code` as the buyer of `session`.
async fn claim(app: &TestApp, event: &str, session: &str, code: &str) -> reqwest::Response {
    claim_body(app, event, session, json!({ "code": code }), None).await
}

/// The place receipt a response hands out in its cookie, if any.
fn receipt_of(r: &reqwest::Response, event: &str) -> Option<String> {
    let name = format!("anteroom_place_{event}=");
    r.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|c| c.strip_prefix(&name))
        .map(|c| c.split(';').next().unwrap().to_owned())
}

/// `GET /api/events/{event}/queue` as the buyer of `session` with the header `name: value`.
async fn poll_with(
    app: &TestApp,
    event: &str,
    session: &str,
    (name, value): (&str, &str),
) -> reqwest::Response {
    app.client
        .get(app.url(&format!("/api/events/{event}/queue")))
        .bearer_auth(session)
        .header(name, value)
        .send()
        .await
        .unwrap()
}

/// Asserts the 404 `not_in_queue` of a session whose place moved away.
async fn expect_moved(r: reqwest::Response) {
    let body = expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    assert_eq!(body["moved"], true, "{body}");
    let at: DateTime<Utc> = serde_json::from_value(body["moved_at"].clone()).unwrap();
    assert!((Utc::now() - at).num_seconds().abs() < 60, "{body}");
}

/// Admits the first `n` waiting buyers of `event` by one tick (its rate is `n` a second).
async fn admit(app: &TestApp, event: &str) {
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(event, &room, Utc::now().timestamp())
        .await
        .unwrap();
}

on_single_and_cluster!(a_claimed_place_keeps_its_position_and_the_session_it_left_is_told_it_moved);

async fn a_claimed_place_keeps_its_position_and_the_session_it_left_is_told_it_moved(
    backend: Backend,
) {
    let app = spawn_on(backend).await;
    let event = app.room_event(1).await;
    for _ in 0..3 {
        joined(&app, &event).await;
    }
    let (_, mover) = app.session().await;
    let r = join_response(&app, &event, &mover).await;
    let old_receipt = receipt_of(&r, &event).unwrap();
    let placed: Value = r.json().await.unwrap();
    assert_eq!(placed["position"], 4);
    // The other device opened the event page first: it has a place of its own at the back,
    // and even a code for it.
    let claimer = joined(&app, &event).await;
    let claimer_code = move_code(&app, &event, &claimer).await;

    let code = move_code(&app, &event, &mover).await;
    let shown = code["code"].as_str().unwrap();
    assert!(
        shown.len() == 11 && shown.chars().nth(5) == Some('-'),
        "{code}"
    );
    assert_eq!(
        code["claim_url"],
        app.url(&format!("/events/{event}?claim={shown}"))
    );
    let svg = code["qr_svg"].as_str().unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains(r#"role="img""#),
        "{svg}"
    );
    // Asking again while it lives: the same code, the same expiry.
    assert_eq!(move_code(&app, &event, &mover).await, code);

    // Typed in lower case, with blanks for the dash.
    let typed = shown.to_lowercase().replace('-', " ");
    let r = claim(&app, &event, &claimer, &typed).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert!(
        receipt_of(&r, &event).is_some(),
        "the claim hands out a place receipt"
    );
    let moved: Value = r.json().await.unwrap();
    assert_eq!(
        (&moved["status"], &moved["position"], &moved["arrival"]),
        (&json!("waiting"), &json!(4), &placed["arrival"]),
        "{moved}"
    );
    let (status, polled) = poll(&app, &event, &claimer).await;
    assert_eq!((status, &polled["position"]), (StatusCode::OK, &json!(4)));
    // The claimer's own place at the back was given up: the next buyer is 5th.
    let (_, later) = app.session().await;
    assert_eq!(join(&app, &event, &later).await.1["position"], 5);

    // The session the place left: its poll, its join, and its poll with the receipt that
    // would put a lost place back, all say where the place went.
    expect_moved(app.get(&format!("/api/events/{event}/queue"), &mover).await).await;
    expect_moved(join_response(&app, &event, &mover).await).await;
    expect_moved(poll_with(&app, &event, &mover, ("place-token", &old_receipt)).await).await;
    // Its page, reloaded, says so too (not an error), and takes no place.
    let (html, _) = page(
        &app,
        &format!("/events/{event}"),
        Some(&format!("anteroom_session={mover}")),
    )
    .await;
    assert!(
        html.contains("Your place moved to another device at"),
        "{html}"
    );
    expect_moved(app.get(&format!("/api/events/{event}/queue"), &mover).await).await;
    let (status, _) = poll(&app, &event, &claimer).await;
    assert_eq!(status, StatusCode::OK, "the place is still the claimer's");

    // A place moves once, asked from either end; its code was used.
    let r = ask_move(&app, &event, &claimer).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let r = ask_move(&app, &event, &mover).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let r = claim(&app, &event, &later, shown).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    // The code of the place the claimer gave up names the place it holds now: refused.
    let r = claim(&app, &event, &later, claimer_code["code"].as_str().unwrap()).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    assert_eq!(poll(&app, &event, &later).await.1["position"], 5);
    assert_eq!(poll(&app, &event, &claimer).await.1["position"], 4);
}

#[tokio::test]
async fn unknown_expired_malformed_and_own_codes_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let owner = joined(&app, &event).await;
    let other = joined(&app, &event).await;
    let code = move_code(&app, &event, &owner).await;
    let code = code["code"].as_str().unwrap().to_owned();

    for unknown in ["ABCDE-FGHJK", "ABCDE-FGHJU", "ABC", &"A".repeat(100)] {
        let r = claim(&app, &event, &other, unknown).await;
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    let r = claim(&app, &event, &owner, &code).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let url = claim_url(&app, &event);
    let send = |body: Vec<u8>| {
        app.client
            .post(&url)
            .bearer_auth(&other)
            .header("content-type", "application/json")
            .body(body)
            .send()
    };
    let r = send(b"{not json".to_vec()).await.unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let r = send(serde_json::to_vec(&json!({"code": code, "place": 1})).unwrap())
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = send(serde_json::to_vec(&json!({})).unwrap()).await.unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let huge = format!(r#"{{"code": "{code}", "x": "{}"}}"#, "a".repeat(2 << 20));
    let r = send(huge.into_bytes()).await.unwrap();
    expect_error(r, StatusCode::PAYLOAD_TOO_LARGE, "payload_too_large").await;

    // Nothing moved, and the code still works until it expires.
    assert_eq!(poll(&app, &event, &owner).await.1["position"], 1);
    assert_eq!(poll(&app, &event, &other).await.1["position"], 2);
    let key = app.state.keys.move_code(&event, &code.replace('-', ""));
    let () = redis::cmd("PEXPIRE")
        .arg(&key)
        .arg(1)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    eventually(
        "the code's key expires",
        std::time::Duration::from_secs(5),
        async || {
            let exists: bool = redis::cmd("EXISTS")
                .arg(&key)
                .query_async(&mut app.state.redis.clone())
                .await
                .unwrap();
            !exists
        },
    )
    .await;
    let r = claim(&app, &event, &other, &code).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    assert_eq!(poll(&app, &event, &owner).await.1["position"], 1);
    // An expired code is no longer the owner's: asking again gives a new one.
    let again = move_code(&app, &event, &owner).await;
    assert_ne!(again["code"], json!(code));
}

#[tokio::test]
async fn an_admitted_place_moves_with_its_expiry_and_an_admitted_claimer_is_refused() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let mover = joined(&app, &event).await;
    admit(&app, &event).await;
    let (status, admitted) = poll(&app, &event, &mover).await;
    assert_eq!(
        (status, &admitted["status"]),
        (StatusCode::OK, &json!("admitted"))
    );
    let old_token = admitted["admission_token"].as_str().unwrap().to_owned();

    let code = move_code(&app, &event, &mover).await;
    let (_, claimer) = app.session().await;
    let r = claim(&app, &event, &claimer, code["code"].as_str().unwrap()).await;
    assert_eq!(r.status(), StatusCode::OK);
    // The receipt of a place the claimer might have given up goes: it could put it back.
    assert_eq!(receipt_of(&r, &event).as_deref(), Some(""));
    let moved: Value = r.json().await.unwrap();
    assert_eq!(moved["status"], "admitted", "{moved}");
    assert_eq!(moved["expires_at"], admitted["expires_at"]);
    let token = moved["admission_token"].as_str().unwrap();
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(&claimer)
        .header("admission-token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    // The old session's admission token would mark a lost admission again: not this one.
    expect_moved(poll_with(&app, &event, &mover, ("admission-token", &old_token)).await).await;
    // Its token is still signed and unexpired, but the seats are the claimer's to hold.
    let seats = seat_ids(&app, &event).await;
    let r = hold_admitted(
        &app,
        &event,
        (&mover, &old_token),
        "k",
        hold_body(&seats[..1]),
    )
    .await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    let r = hold_admitted(&app, &event, (&claimer, token), "k", hold_body(&seats[..1])).await;
    assert_eq!(r.status(), StatusCode::CREATED);

    // An admitted claimer would trade an admission for a place: refused, nothing changes.
    let waiting = joined(&app, &event).await;
    let code = move_code(&app, &event, &waiting).await;
    let r = claim(&app, &event, &claimer, code["code"].as_str().unwrap()).await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    assert_eq!(poll(&app, &event, &waiting).await.1["position"], 1);
    assert_eq!(poll(&app, &event, &claimer).await.1["status"], "admitted");
}

#[tokio::test]
async fn a_pre_queue_entrant_s_ticket_moves() {
    let app = spawn_app().await;
    let opens_at = Utc::now() + chrono::Duration::seconds(3600);
    let event = app
        .create_event(event_body(
            1,
            5,
            json!({"opens_at": opens_at.to_rfc3339(), "prequeue_seconds": 7200}),
        ))
        .await;
    let event = event["id"].as_str().unwrap();
    let (_, entrant) = app.session().await;
    let (status, entered) = join(&app, event, &entrant).await;
    assert_eq!(
        (status, &entered["status"]),
        (StatusCode::ACCEPTED, &json!("pre_queue"))
    );

    let code = move_code(&app, event, &entrant).await;
    let (_, claimer) = app.session().await;
    let r = claim(&app, event, &claimer, code["code"].as_str().unwrap()).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let moved: Value = r.json().await.unwrap();
    assert_eq!(
        (&moved["status"], &moved["ticket"]),
        (&json!("pre_queue"), &entered["ticket"])
    );
    let (status, polled) = poll(&app, event, &claimer).await;
    assert_eq!(
        (status, &polled["ticket"]),
        (StatusCode::OK, &entered["ticket"])
    );
    expect_moved(
        app.get(&format!("/api/events/{event}/queue"), &entrant)
            .await,
    )
    .await;
}

#[tokio::test]
async fn in_a_bound_room_the_claim_needs_a_proof_and_the_place_passes_the_gate_only_with_the_new_key()
 {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let r = put_room(&app, &event, json!({"bind_tokens": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    let (old_key, new_key) = (DeviceKey::new(), DeviceKey::new());
    let (mover_id, mover) = app.session().await;
    let queue_url = app.url(&format!("/api/events/{event}/queue"));
    let r = app
        .client
        .post(&queue_url)
        .bearer_auth(&mover)
        .header("dpop", old_key.proof("POST", &queue_url, None))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);

    // Only the place's device asks for its code (review finding 3).
    let move_url = app.url(&format!("/api/events/{event}/queue/move"));
    let ask = |key: &DeviceKey| {
        app.client
            .post(&move_url)
            .bearer_auth(&mover)
            .header("dpop", key.proof("POST", &move_url, None))
            .send()
    };
    let r = ask(&new_key).await.unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = ask(&old_key).await.unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let code: Value = r.json().await.unwrap();
    let code = code["code"].as_str().unwrap();
    let (claimer_id, claimer) = app.session().await;
    let r = claim(&app, &event, &claimer, code).await;
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    let body = json!({ "code": code });
    let r = claim_body(&app, &event, &claimer, body, Some(&new_key)).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let bound = app.state.keys.bound(&event);
    let (new_bound, old_bound): (Option<String>, Option<String>) = redis::pipe()
        .hget(&bound, &claimer_id)
        .hget(&bound, &mover_id)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!((new_bound, old_bound), (Some(new_key.thumbprint()), None));

    admit(&app, &event).await;
    let (status, admitted) = poll(&app, &event, &claimer).await;
    assert_eq!(
        (status, &admitted["status"]),
        (StatusCode::OK, &json!("admitted"))
    );
    let token = admitted["admission_token"].as_str().unwrap();
    let seats_url = app.url(&format!("/api/events/{event}/seats"));
    let seats = |key: &DeviceKey| {
        app.client
            .get(&seats_url)
            .bearer_auth(&claimer)
            .header("admission-token", token)
            .header("dpop", key.proof("GET", &seats_url, Some(token)))
            .send()
    };
    assert_eq!(seats(&new_key).await.unwrap().status(), StatusCode::OK);
    let r = seats(&old_key).await.unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
}

#[tokio::test]
async fn claims_are_limited_per_network() {
    let mut config = test_config();
    config.claims_per_network_per_minute = 3;
    let app = spawn_with(config).await;
    let event = app.room_event(1).await;
    let claimer = joined(&app, &event).await;
    for _ in 0..3 {
        let r = claim(&app, &event, &claimer, "ABCDE-FGHJK").await;
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
    let r = claim(&app, &event, &claimer, "ABCDE-FGHJK").await;
    assert!(r.headers().contains_key("retry-after"));
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

/// Review finding 9: a claim by script from another site's page moved a place behind the
/// buyer's back, and a page with a place of its own claimed without asking. The JSON claim now
/// refuses what a browser says comes from another site, and a page can see where the moving
/// place stands (without taking it) to show both places first.
#[tokio::test]
async fn a_claim_from_another_site_is_refused_and_a_preview_shows_the_moving_place_untouched() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(crate::helpers::joined(&app, &event).await);
    }
    let code = move_code(&app, &event, &sessions[1]).await;
    let code = code["code"].as_str().unwrap().to_owned();
    let claimer = &sessions[2];
    let preview = |session: &str, code: &str| {
        app.client
            .get(app.url(&format!("/api/events/{event}/queue/claim")))
            .query(&[("code", code)])
            .bearer_auth(session)
            .send()
    };
    let r = preview(claimer, &code).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let seen: Value = r.json().await.unwrap();
    assert_eq!(seen, json!({"status": "waiting", "position": 2}));
    let r = preview(&sessions[1], &code).await.unwrap();
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let r = preview(claimer, "ZZZZZ-ZZZZZ").await.unwrap();
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    for site in ["cross-site", "same-site"] {
        let r = app
            .client
            .post(app.url(&format!("/api/events/{event}/queue/claim")))
            .bearer_auth(claimer)
            .header("sec-fetch-site", site)
            .json(&json!({ "code": code }))
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    }
    // Nothing moved: the code still moves the place, once the buyer chooses it.
    assert_eq!(poll(&app, &event, &sessions[1]).await.1["position"], 2);
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/queue/claim")))
        .bearer_auth(claimer)
        .header("sec-fetch-site", "same-origin")
        .json(&json!({ "code": code }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(r.json::<Value>().await.unwrap()["position"], 2);
}
