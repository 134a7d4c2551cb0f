//! In front of the ticketer's own site (API.md "The gate"): the hand-over, its one use, the
//! proxy's check and the site's done reports, against a real server, Redis and Postgres.

use anteroom::admission::ticker::Ticker;
use app::wire::{Events, Scope};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, admitted_answer, event_body, eventually, expect_error, poll, put_room, spawn_app,
    spawn_with, steer, test_config,
};

const TARGET: &str = "http://127.0.0.1:9/shop/";

/// An event of 10 seats whose room has the settings `room`: its id.
async fn event_with(app: &TestApp, room: Value) -> String {
    let event = app.create_event(event_body(1, 5, room)).await;
    event["id"].as_str().unwrap().to_owned()
}

/// An event whose room sends its admitted buyers to [`TARGET`] and protects `/shop` there.
async fn gated_event(app: &TestApp) -> String {
    event_with(
        app,
        json!({"admit_rate_per_second": 10, "target_url": TARGET, "protect": ["/shop"]}),
    )
    .await
}

/// The hand-over token of an admitted answer.
fn handover(answer: &Value) -> String {
    let url = answer["handoff_url"].as_str().expect("a hand-over address");
    assert!(
        url.starts_with(&format!("{TARGET}?anteroom_token=")),
        "{url}"
    );
    url.rsplit_once("anteroom_token=").unwrap().1.to_owned()
}

async fn redeem(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/handoff/redeem"))
        .json(&json!({ "token": token }))
        .send()
        .await
        .unwrap()
}

/// The proxy's question about `uri` on the target's host, with `admission` as its header.
async fn check(app: &TestApp, uri: &str, admission: Option<&str>) -> reqwest::Response {
    check_on(app, "127.0.0.1:9", uri, admission).await
}

fn claims(token: &str) -> Value {
    use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
    let payload = token.split('.').nth(1).unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

#[tokio::test]
async fn an_admitted_buyer_is_handed_over_once_and_a_copy_is_worth_nothing() {
    let app = spawn_app().await;
    let event = gated_event(&app).await;
    let (buyer, session, answer) = admitted_answer(&app, &event).await;
    let token = handover(&answer);
    let c = claims(&token);
    assert_eq!(
        (c["sub"].as_str(), c["evt"].as_str(), c["aud"].as_str()),
        (
            Some(buyer.as_str()),
            Some(event.as_str()),
            Some("http://127.0.0.1:9")
        )
    );
    assert_eq!(c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(), 60);
    assert_eq!(
        c["until"],
        claims(answer["admission_token"].as_str().unwrap())["exp"]
    );

    // Polling again hands over again, but it is the same hand-over (one jti an admission).
    let (_, again) = poll(&app, &event, &session).await;
    let second = handover(&again);
    assert_eq!(claims(&second)["jti"], c["jti"]);

    // Not ours, tampered, an admission token (another audience), or a body with more than the
    // token: refused, and the hand-over is not used up by any of them.
    let (head, rest) = token.split_once('.').unwrap();
    let tampered = format!("{head}.e30{}", &rest[rest.find('.').unwrap()..]);
    for bad in [
        tampered.as_str(),
        answer["admission_token"].as_str().unwrap(),
        "not.a.token",
        "",
    ] {
        expect_error(
            redeem(&app, bad).await,
            StatusCode::UNAUTHORIZED,
            "unauthorized",
        )
        .await;
    }
    let r = app
        .client
        .post(app.url("/api/handoff/redeem"))
        .json(&json!({"token": token, "extra": 1}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;

    // The first redemption answers the claims; any later one, of any copy, 409.
    let r = redeem(&app, &token).await;
    assert_eq!(r.status(), StatusCode::OK);
    let redeemed: Value = r.json().await.unwrap();
    assert_eq!(
        (
            redeemed["sub"].as_str(),
            redeemed["evt"].as_str(),
            &redeemed["jti"],
            &redeemed["until"]
        ),
        (
            Some(buyer.as_str()),
            Some(event.as_str()),
            &c["jti"],
            &c["until"]
        )
    );
    expect_error(redeem(&app, &token).await, StatusCode::CONFLICT, "conflict").await;
    expect_error(
        redeem(&app, &second).await,
        StatusCode::CONFLICT,
        "conflict",
    )
    .await;
}

#[tokio::test]
async fn the_proxy_passes_admitted_buyers_on_protected_paths_only() {
    let app = spawn_app().await;
    let event = gated_event(&app).await;
    // A second sale on the same site protects a longer prefix: its paths are its own.
    let vip = event_with(
        &app,
        json!({"admit_rate_per_second": 10, "target_url": TARGET, "protect": ["/shop/vip/"]}),
    )
    .await;
    let (buyer, _, answer) = admitted_answer(&app, &event).await;
    let token = answer["admission_token"].as_str().unwrap();

    // Fail closed: the proxy asks only about what it protects, so a path no room covers is
    // refused, to the host's room (even with an admission), and another host's /shop is 403.
    for uri in ["/", "/shopping", "/about?x=1"] {
        for admission in [None, Some(token)] {
            let r = check(&app, uri, admission).await;
            assert!(r.headers().get("anteroom-buyer").is_none());
            expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
        }
    }
    let r = app
        .client
        .get(app.url("/api/gate/check"))
        .header("x-original-uri", "/shop/x")
        .header("x-forwarded-host", "127.0.0.1:10")
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;

    // Without an admission: 401, and where the room is, with the way back.
    let r = check(&app, "/shop/seat?id=4", None).await;
    let room = r.headers()["anteroom-room"].to_str().unwrap().to_owned();
    let body = expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
    assert_eq!(body["queue_url"], format!("/api/events/{event}/queue"));
    assert_eq!(
        room,
        format!("/events/{event}?return=%2Fshop%2Fseat%3Fid%3D4")
    );

    // With the admission: 200, naming the buyer and the event, on its event's paths only.
    let r = check(&app, "/shop/seat?id=4", Some(token)).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["anteroom-buyer"], buyer.as_str());
    assert_eq!(r.headers()["anteroom-event"], event.as_str());
    let r = check(&app, "/shop/vip/box", Some(token)).await;
    let room = r.headers()["anteroom-room"].to_str().unwrap().to_owned();
    expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
    assert!(room.starts_with(&format!("/events/{vip}?")), "{room}");

    // A second sale protecting the very same path: an admission to either passes, each
    // named as its own; a refusal names the first of them by id.
    let same = gated_event(&app).await;
    let (twin, _, twin_answer) = admitted_answer(&app, &same).await;
    let r = check(&app, "/shop/seat", twin_answer["admission_token"].as_str()).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["anteroom-buyer"], twin.as_str());
    assert_eq!(r.headers()["anteroom-event"], same.as_str());
    let r = check(&app, "/shop/seat", Some(token)).await;
    assert_eq!(r.headers()["anteroom-event"], event.as_str());
    let r = check(&app, "/shop/seat", None).await;
    let first = event.as_str().min(same.as_str());
    assert!(
        r.headers()["anteroom-room"]
            .to_str()
            .unwrap()
            .starts_with(&format!("/events/{first}?"))
    );

    // A room that is off lets everyone through to its paths.
    let r = put_room(&app, &vip, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let r = check(&app, "/shop/vip/box", None).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["anteroom-event"], vip.as_str());

    // Each answer counted by its outcome, for the on-call engineer.
    let metrics = app.metrics_text().await;
    for (outcome, at_least) in [
        ("uncovered", 6),
        ("unknown", 1),
        ("refused", 2),
        ("passed", 1),
        ("room_off", 1),
    ] {
        let line = metrics
            .lines()
            .find(|l| {
                l.starts_with(&format!(
                    "anteroom_gate_checks_total{{outcome=\"{outcome}\"}}"
                ))
            })
            .unwrap_or_else(|| panic!("no {outcome} count"));
        let count: u64 = line.rsplit(' ').next().unwrap().parse().unwrap();
        assert!(count >= at_least, "{line}");
    }
}

#[tokio::test]
async fn the_gate_refuses_forged_foreign_and_stale_admissions_and_hands_over_once() {
    let app = spawn_app().await;
    let event = event_with(&app, json!({"admit_rate_per_second": 10, "target_url": "http://127.0.0.1:9/", "protect": ["/only-mine"]})).await;
    let other = event_with(&app, json!({"admit_rate_per_second": 10})).await;
    let (buyer, _, answer) = admitted_answer(&app, &event).await;
    let token = answer["admission_token"].as_str().unwrap();
    let (_, _, foreign) = admitted_answer(&app, &other).await;
    let foreign = foreign["admission_token"].as_str().unwrap();

    assert_eq!(
        check(&app, "/only-mine/x", Some(token)).await.status(),
        StatusCode::OK
    );
    let (head, rest) = token.split_once('.').unwrap();
    let forged = format!("{head}.e30{}", &rest[rest.find('.').unwrap()..]);
    for bad in [foreign, forged.as_str(), "garbage"] {
        let r = check(&app, "/only-mine/x", Some(bad)).await;
        expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
    }

    // A hand-over in the address (a site on another host): passes once, with the admission
    // as a cookie for that host; the same address again does not pass.
    let handed = handover_of(&answer);
    let uri = format!("/only-mine/x?anteroom_token={handed}");
    let r = check(&app, &uri, None).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["anteroom-buyer"], buyer.as_str());
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        cookie.starts_with(&format!("anteroom_admission_{event}=")),
        "{cookie}"
    );
    let again = check(&app, &uri, None).await;
    let room = again.headers()["anteroom-room"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        room.ends_with("?return=%2Fonly-mine%2Fx"),
        "the token is left out: {room}"
    );
    expect_error(again, StatusCode::UNAUTHORIZED, "not_admitted").await;
    // The cookie it set passes from then on.
    let pair = cookie.split(';').next().unwrap();
    let r = app
        .client
        .get(app.url("/api/gate/check"))
        .header("x-original-uri", "/only-mine/y")
        .header("x-forwarded-host", "127.0.0.1:9")
        .header("cookie", pair)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);

    // The room turned off and on again: a new epoch, the old admission does not pass.
    for enabled in [false, true] {
        let r = put_room(&app, &event, json!({ "enabled": enabled })).await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    let r = check(&app, "/only-mine/x", Some(token)).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;

    // The proxy must say what it asks about.
    let r = app
        .client
        .get(app.url("/api/gate/check"))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
}

/// The hand-over token of an admitted answer whatever its target.
fn handover_of(answer: &Value) -> String {
    let url = answer["handoff_url"].as_str().expect("a hand-over address");
    url.rsplit_once("anteroom_token=").unwrap().1.to_owned()
}

#[tokio::test]
async fn the_site_reports_a_buyer_done_and_the_gate_closes_for_them() {
    let app = spawn_app().await;
    let event = gated_event(&app).await;
    let (buyer, _, answer) = admitted_answer(&app, &event).await;
    let token = answer["admission_token"].as_str().unwrap();
    let (second, _, second_answer) = admitted_answer(&app, &event).await;
    assert_eq!(
        check(&app, "/shop", Some(token)).await.status(),
        StatusCode::OK
    );
    let shopping = |who: String| {
        let app = &app;
        let event = event.clone();
        async move {
            let score: Option<f64> = redis::cmd("ZSCORE")
                .arg(app.state.keys.shopping(&event))
                .arg(who)
                .query_async(&mut app.state.redis.clone())
                .await
                .unwrap();
            score.is_some()
        }
    };
    assert!(
        shopping(buyer.clone()).await,
        "admitted and not done: shopping"
    );

    let config = &app.state.config;
    let key = testkit::operators::key(
        config,
        &[Scope::AdmissionsDone],
        Events::Only(vec![event.clone()]),
    )
    .await;
    let done = |body: Value, key: String, event: String| {
        let app = &app;
        async move {
            app.client
                .post(app.url(&format!("/api/events/{event}/admissions/done")))
                .bearer_auth(key)
                .json(&body)
                .send()
                .await
                .unwrap()
        }
    };
    let r = done(json!({ "sub": buyer }), key.clone(), event.clone()).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert!(!shopping(buyer.clone()).await, "done: no longer shopping");
    let r = check(&app, "/shop", Some(token)).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
    // Twice changes nothing more.
    let r = done(json!({ "sub": buyer }), key.clone(), event.clone()).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);

    // By a redeemed hand-over's jti.
    let handed = handover(&second_answer);
    assert_eq!(redeem(&app, &handed).await.status(), StatusCode::OK);
    let jti = claims(&handed)["jti"].as_str().unwrap().to_owned();
    let r = done(json!({ "jti": jti }), key.clone(), event.clone()).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert!(!shopping(second).await);

    // Unknown jti: 404; neither or both: 422; another event's or no scope: 403; no key: 401.
    let r = done(json!({ "jti": "unknown" }), key.clone(), event.clone()).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    for body in [json!({}), json!({"sub": "a", "jti": "b"})] {
        let r = done(body, key.clone(), event.clone()).await;
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    let elsewhere = gated_event(&app).await;
    let r = done(json!({ "sub": buyer }), key.clone(), elsewhere).await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let reader = testkit::operators::key(config, &[Scope::StatsRead], Events::All).await;
    let r = done(json!({ "sub": buyer }), reader, event.clone()).await;
    expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    let r = app
        .client
        .post(app.url(&format!("/api/events/{event}/admissions/done")))
        .json(&json!({ "sub": buyer }))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn gate_settings_are_checked_and_a_room_without_a_target_hands_over_nothing() {
    let app = spawn_app().await;
    let event = gated_event(&app).await;
    for bad in [
        json!({"target_url": "http://shop.example/"}),
        json!({"target_url": "https://user:pw@shop.example/"}),
        json!({"target_url": null, "protect": ["/shop"]}),
        json!({"protect": ["shop"]}),
        json!({"protect": ["/a?b"]}),
        json!({"protect": vec!["/a"; 21]}),
        json!({"origin_probe_url": "ftp://127.0.0.1/"}),
    ] {
        let r = put_room(&app, &event, bad.clone()).await;
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    let r = put_room(
        &app,
        &event,
        json!({"target_url": null, "protect": [], "origin_probe_url": null}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let room: Value = r.json().await.unwrap();
    assert_eq!(
        (
            &room["target_url"],
            &room["protect"],
            &room["origin_probe_url"]
        ),
        (&Value::Null, &json!([]), &Value::Null)
    );
    // Without a target, admitted buyers stay with Anteroom's seat map: no hand-over.
    let (_, _, answer) = admitted_answer(&app, &event).await;
    assert!(answer.get("handoff_url").is_none(), "{answer}");
}

/// A ticketer's site on a loopback port whose `/health` answers after `delay_ms` (or 500
/// when it is `u64::MAX`): its base URL.
async fn site(delay_ms: std::sync::Arc<std::sync::atomic::AtomicU64>) -> String {
    use std::sync::atomic::Ordering;
    let health = axum::routing::get(move || {
        let delay = delay_ms.load(Ordering::Relaxed);
        async move {
            if delay == u64::MAX {
                return StatusCode::INTERNAL_SERVER_ERROR;
            }
            // The site's slowness under test, not a wait.
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
            StatusCode::OK
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, axum::Router::new().route("/health", health))
            .await
            .unwrap();
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn with_the_automatic_rate_the_room_follows_the_sites_probe() {
    use std::sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    };
    let mut config = test_config();
    // The machine running the tests is busy: the event loop's lag is not what this measures.
    config.loop_lag_limit_ms = 60_000;
    let app = spawn_with(config).await;
    let delay = Arc::new(AtomicU64::new(400));
    let site = site(delay.clone()).await;
    let event = event_with(
        &app,
        json!({"admit_rate_per_second": 50, "auto_rate": true,
                "min_admit_rate_per_second": 5, "max_admit_rate_per_second": 100,
                "target_hold_p99_ms": 100, "target_url": format!("{site}/shop/"),
                "origin_probe_url": format!("{site}/health")}),
    )
    .await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    // The first step starts the probe; a later one reads it: 400 ms against a 100 ms target.
    let slowed = eventually(
        "the slow site cuts the rate",
        std::time::Duration::from_secs(10),
        async || {
            let step = steer(&app, &ticker, &event, &room).await;
            (step.rate < 50).then_some(step)
        },
    )
    .await;
    assert!(
        slowed.reason.contains("the site answered in"),
        "{}",
        slowed.reason
    );

    // A failing site: the rate holds after the cut (cool-down) or is cut again, and says why.
    delay.store(u64::MAX, Ordering::Relaxed);
    let failing = eventually(
        "the failure is seen",
        std::time::Duration::from_secs(10),
        async || {
            let step = steer(&app, &ticker, &event, &room).await;
            step.reason.contains("probe failed").then_some(step)
        },
    )
    .await;
    assert!(failing.rate <= slowed.rate, "{failing:?}");

    // Without the probe setting, the same room follows the hold path again.
    let r = put_room(&app, &event, json!({"origin_probe_url": null})).await;
    assert_eq!(r.status(), StatusCode::OK);
}

/// `GET path` as a browser with `cookie`, redirects not followed.
async fn browse(app: &TestApp, path: &str, cookie: &str) -> reqwest::Response {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn without_javascript_the_event_page_sends_an_admitted_buyer_on_to_the_site() {
    let app = spawn_app().await;
    let event = gated_event(&app).await;
    let (_, session, answer) = admitted_answer(&app, &event).await;
    let token = answer["admission_token"].as_str().unwrap();
    let cookie = format!("anteroom_session={session}; anteroom_admission_{event}={token}");

    // The event page (the way back from the proxy kept) sends the admitted buyer on...
    let r = browse(
        &app,
        &format!("/events/{event}?return=%2Fshop%2Fseat%2F4"),
        &cookie,
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let onward = r.headers()["location"].to_str().unwrap().to_owned();
    assert_eq!(
        onward,
        format!("/events/{event}/continue?return=%2Fshop%2Fseat%2F4")
    );
    // ...and on to the return path on the target's origin, with a hand-over.
    let r = browse(&app, &onward, &cookie).await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    let landing = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        landing.starts_with("http://127.0.0.1:9/shop/seat/4?anteroom_token="),
        "{landing}"
    );
    let handed = landing.rsplit_once("anteroom_token=").unwrap().1;
    assert_eq!(claims(handed)["jti"], claims(&handover(&answer))["jti"]);
    // A return address off the target's origin lands on the target itself.
    let r = browse(
        &app,
        &format!("/events/{event}/continue?return=%2F%2Fevil.example%2F"),
        &cookie,
    )
    .await;
    let landing = r.headers()["location"].to_str().unwrap();
    assert!(
        landing.starts_with(&format!("{TARGET}?anteroom_token=")),
        "{landing}"
    );

    // Not admitted (no admission cookie): the page itself, and continue leads back to it.
    let waiting = format!("anteroom_session={session}");
    let (_, other) = app.session().await;
    let r = browse(
        &app,
        &format!("/events/{event}/continue"),
        &format!("anteroom_session={other}"),
    )
    .await;
    assert_eq!(r.status(), StatusCode::SEE_OTHER);
    assert_eq!(r.headers()["location"], format!("/events/{event}").as_str());
    let r = browse(&app, &format!("/events/{event}"), &waiting).await;
    // The page's own poll finds the admission: sent on, with the admission cookie set.
    assert_eq!(r.status(), StatusCode::SEE_OTHER, "{:?}", r.headers());
    assert_eq!(
        r.headers()["location"],
        format!("/events/{event}/continue").as_str()
    );
    assert!(
        r.headers().get_all("set-cookie").iter().any(|v| v
            .to_str()
            .unwrap()
            .starts_with(&format!("anteroom_admission_{event}="))),
        "{:?}",
        r.headers()
    );
}

/// The proxy's question about `uri` on `host`, with `admission` as its header.
async fn check_on(
    app: &TestApp,
    host: &str,
    uri: &str,
    admission: Option<&str>,
) -> reqwest::Response {
    let mut req = app
        .client
        .get(app.url("/api/gate/check"))
        .header("x-original-uri", uri)
        .header("x-forwarded-host", host);
    if let Some(token) = admission {
        req = req.header("admission-token", token);
    }
    req.send().await.unwrap()
}

/// Issue 63: a protected path spelled another way (the host's case, trailing dot or default
/// port; an escaped letter, a doubled slash, a dot segment) is the protected path: refused
/// without an admission, passed with one; a path that does not normalise cleanly is refused
/// even with one; a dot segment cannot carry one sale's admission into another's prefix.
#[tokio::test]
async fn every_spelling_of_a_protected_path_is_the_protected_path() {
    let app = spawn_app().await;
    let room = |prefix: &str| json!({"admit_rate_per_second": 10, "target_url": "https://shop.test/", "protect": [prefix]});
    let event = event_with(&app, room("/checkout")).await;
    let other = event_with(&app, room("/vip")).await;
    let (_, _, answer) = admitted_answer(&app, &event).await;
    let token = answer["admission_token"].as_str().unwrap();
    let spellings = [
        ("shop.test", "/checkout/pay"),
        ("SHOP.test", "/checkout/pay"),
        ("shop.test:443", "/checkout/pay"),
        ("shop.test.", "/checkout/pay"),
        ("shop.test", "/%63heckout/pay"),
        ("shop.test", "//checkout/pay"),
        ("shop.test", "/x/../checkout/pay"),
        ("shop.test", "/checkout/./pay?x=1"),
    ];
    for (host, uri) in spellings {
        let r = check_on(&app, host, uri, None).await;
        let room = r.headers()["anteroom-room"].to_str().unwrap().to_owned();
        expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
        assert!(
            room.starts_with(&format!("/events/{event}?")),
            "{host} {uri}: {room}"
        );
        let r = check_on(&app, host, uri, Some(token)).await;
        assert_eq!(r.status(), StatusCode::OK, "{host} {uri}");
        assert_eq!(r.headers()["anteroom-event"], event.as_str());
    }
    // What does not normalise cleanly is refused, admission or not.
    for uri in [
        "/../checkout/pay",
        "/checkout%2Fpay",
        "/checkout/%5C",
        "http://shop.test/checkout/pay",
    ] {
        let r = check_on(&app, "shop.test", uri, Some(token)).await;
        expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
    }
    // One sale's admission does not open the other's prefix through a dot segment.
    for uri in ["/checkout/../vip/box", "/checkout/%2e%2e/vip/box"] {
        let r = check_on(&app, "shop.test", uri, Some(token)).await;
        let room = r.headers()["anteroom-room"].to_str().unwrap().to_owned();
        expect_error(r, StatusCode::UNAUTHORIZED, "not_admitted").await;
        assert!(
            room.starts_with(&format!("/events/{other}?")),
            "{uri}: {room}"
        );
    }
    // A host no room knows, however its path is spelled: 403.
    for host in ["shop.test:8443", "other.test", "shop..test", ""] {
        let r = check_on(&app, host, "/checkout/pay", Some(token)).await;
        expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
    }
    // A protect prefix spelled otherwise than the gate compares is refused at the door.
    let r = put_room(&app, &event, json!({"protect": ["/%63heckout"]})).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
}

/// Issue 63: one event's key cannot open another event's gate. A key for one event may not
/// protect a path on a host where another event's room protects an overlapping prefix (403,
/// nothing changed); a key for both may.
#[tokio::test]
async fn a_key_for_one_event_cannot_claim_another_events_protected_paths() {
    let app = spawn_app().await;
    let theirs = gated_event(&app).await;
    let mine = event_with(&app, json!({"admit_rate_per_second": 10})).await;
    let config = &app.state.config;
    let key = testkit::operators::key(
        config,
        &[Scope::RoomsWrite],
        Events::Only(vec![mine.clone()]),
    )
    .await;
    let put = |key: String, room: Value| {
        let app = &app;
        let mine = mine.clone();
        async move {
            app.client
                .put(app.url(&format!("/api/admin/events/{mine}/room")))
                .bearer_auth(key)
                .json(&room)
                .send()
                .await
                .unwrap()
        }
    };
    for prefix in ["/shop", "/shop/checkout", "/"] {
        let r = put(
            key.clone(),
            json!({"target_url": TARGET, "protect": [prefix]}),
        )
        .await;
        let body = expect_error(r, StatusCode::FORBIDDEN, "forbidden").await;
        assert!(
            body["message"].as_str().unwrap().contains(&theirs),
            "{body}"
        );
    }
    let room = app.state.rooms.get(&app.state.db, &mine).await.unwrap();
    assert!(room.gate.protect.is_empty(), "nothing changed");
    // A prefix of its own on that host, or the same prefix on another host: its own.
    let r = put(
        key.clone(),
        json!({"target_url": TARGET, "protect": ["/tickets"]}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let other_host = "http://127.0.0.1:10/shop/";
    let r = put(
        key.clone(),
        json!({"target_url": other_host, "protect": ["/shop"]}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    // A key for both events may.
    let both = testkit::operators::key(
        config,
        &[Scope::RoomsWrite],
        Events::Only(vec![mine.clone(), theirs.clone()]),
    )
    .await;
    let r = put(
        both,
        json!({"target_url": TARGET, "protect": ["/shop/vip"]}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
}
