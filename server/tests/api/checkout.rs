use std::collections::HashSet;

use anteroom::checkout::fake::FakeSettings;
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    JsonBody, TestApp, app_with_fake, checkout, expect_error, holder, ledger, open_event, quick,
};

async fn set_fake(url: &str, patch: Value) {
    reqwest::Client::new()
        .put(format!("{url}/settings"))
        .json(&patch)
        .send()
        .await
        .unwrap();
}

async fn hold_status(app: &TestApp, session: &str, hold_id: &str) -> String {
    let body: Value = app
        .get(&format!("/api/holds/{hold_id}"), session)
        .await
        .json()
        .await
        .unwrap();
    body["status"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_checkout_sells_the_seats_once_and_a_replay_returns_the_same_order() {
    let (app, url) = app_with_fake(quick()).await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..2]).await;
    let r = checkout(&app, &session, &hold_id, "pay-1").await;
    assert_eq!(r.status(), StatusCode::OK);
    let order: Value = r.json().await.unwrap();
    assert_eq!(order["status"], "confirmed");
    assert_eq!(order["hold_id"], hold_id.as_str());
    assert_eq!(order["total_cents"], 10_000);
    assert_eq!(hold_status(&app, &session, &hold_id).await, "purchased");
    assert_eq!(
        app.count(&format!(
            "select count(*) from seat where id in ({}, {}) and status = 'sold'",
            ids[0], ids[1]
        ))
        .await,
        2
    );
    let again: Value = checkout(&app, &session, &hold_id, "pay-1")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again, order);
    assert_eq!(ledger(&url).await["charges"].as_array().unwrap().len(), 1);
    // Someone else's hold is not found; a sold hold cannot be released.
    let (_, stranger) = app.session().await;
    let r = checkout(&app, &stranger, &hold_id, "x").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    let r = app
        .client
        .delete(app.url(&format!("/api/holds/{hold_id}")))
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
}

#[tokio::test]
async fn a_decline_is_402_and_leaves_the_hold_active() {
    let (app, url) = app_with_fake(FakeSettings {
        decline_rate: 1.0,
        ..quick()
    })
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    let r = checkout(&app, &session, &hold_id, "card-1").await;
    expect_error(r, StatusCode::PAYMENT_REQUIRED, "payment_declined").await;
    assert_eq!(hold_status(&app, &session, &hold_id).await, "active");
    set_fake(&url, json!({"decline_rate": 0.0})).await;
    let r = checkout(&app, &session, &hold_id, "card-2").await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn a_checkout_needs_an_active_hold_and_an_idempotency_key() {
    let (app, _) = app_with_fake(quick()).await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    let r = app
        .client
        .post(app.url(&format!("/api/holds/{hold_id}/checkout")))
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    app.client
        .delete(app.url(&format!("/api/holds/{hold_id}")))
        .bearer_auth(&session)
        .send()
        .await
        .unwrap();
    let r = checkout(&app, &session, &hold_id, "k").await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
}

#[tokio::test]
async fn one_hundred_fifty_checkouts_against_a_limit_of_50_a_second_all_confirm_once() {
    // 50 a second, so that 150 at once exceed it even on a busy machine.
    let (app, url) = app_with_fake(FakeSettings {
        latency_ms: 50,
        rate_per_second: 50,
        ..FakeSettings::default()
    })
    .await;
    let (event, ids) = open_event(&app, 5, 30).await;
    let buyers = join_all((0..150).map(|i| holder(&app, &event, &ids[i..i + 1]))).await;
    let answers = join_all(
        buyers
            .iter()
            .map(|(session, hold_id)| checkout(&app, session, hold_id, "pay")),
    )
    .await;
    let statuses: Vec<u16> = answers.iter().map(|r| r.status().as_u16()).collect();
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let ledger = ledger(&url).await;
    let charges = ledger["charges"].as_array().unwrap();
    assert_eq!(charges.len(), 150, "exactly one charge each");
    let keys: HashSet<&str> = charges
        .iter()
        .map(|c| c["idempotency_key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), 150);
    assert!(
        ledger["calls"].as_u64().unwrap() > 150,
        "some calls were refused with 429 and retried"
    );
    let in_flight = ledger["max_in_flight"].as_u64().unwrap();
    assert!(
        in_flight <= 20,
        "the bulkhead bounds calls in flight, saw {in_flight}"
    );
    assert_eq!(
        app.count(&format!(
            "select count(*) from seat where event_id = '{event}' and status = 'sold'"
        ))
        .await,
        150
    );
    let retried: u64 = app
        .state
        .metrics
        .checkouts
        .with_label_values(&["provider_429"])
        .get();
    assert!(retried > 0);
}

#[tokio::test]
async fn the_breaker_opens_on_failures_answers_503_without_calling_and_closes_after_recovery() {
    let (app, url) = app_with_fake(FakeSettings {
        fail_rate: 1.0,
        ..quick()
    })
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    for i in 0..5 {
        let r = checkout(&app, &session, &hold_id, &format!("k{i}")).await;
        assert!(r.headers().contains_key("retry-after"));
        expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    }
    let calls = ledger(&url).await["calls"].as_u64().unwrap();
    assert_eq!(calls, 5);
    let r = checkout(&app, &session, &hold_id, "k5").await;
    expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    assert_eq!(
        ledger(&url).await["calls"].as_u64().unwrap(),
        5,
        "open: no call made"
    );
    assert_eq!(hold_status(&app, &session, &hold_id).await, "active");

    set_fake(&url, json!({"fail_rate": 0.0})).await;
    // Time itself: the breaker stays open for its 300 ms by the clock, then half-opens.
    tokio::time::sleep(std::time::Duration::from_millis(350)).await;
    let r = checkout(&app, &session, &hold_id, "k6").await;
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "the half-open probe succeeds and closes it"
    );
    assert!(!app.state.payments.breaker_open());
}

#[tokio::test]
async fn a_hold_that_expires_during_a_slow_payment_is_refunded_and_409() {
    let (app, url) = app_with_fake(FakeSettings {
        latency_ms: 1500,
        ..FakeSettings::default()
    })
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    sqlx::query("update hold set expires_at = now() + interval '500 milliseconds' where id = $1")
        .bind(&hold_id)
        .execute(&app.state.db)
        .await
        .unwrap();
    let r = checkout(&app, &session, &hold_id, "slow").await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    let ledger = ledger(&url).await;
    let charges = ledger["charges"].as_array().unwrap();
    assert_eq!(charges.len(), 1);
    assert_eq!(charges[0]["refunded"], true);
    assert_eq!(app.count("select count(*) from sale").await, 0);
    assert_eq!(
        app.count("select count(*) from seat where status = 'sold'")
            .await,
        0
    );
}

/// Review finding 2: the seat limit is per buyer and event over the whole sale, seats held
/// plus seats bought. Before, only active holds counted, so one admission could hold, pay
/// and hold again without end.
#[tokio::test]
async fn a_buyer_who_bought_their_limit_cannot_hold_another_seat_of_the_event() {
    let (app, _url) = app_with_fake(quick()).await;
    let event = app
        .create_event(crate::helpers::event_body(
            1,
            10,
            json!({"enabled": false, "seats_per_buyer": 2}),
        ))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let ids = crate::helpers::seat_ids(&app, &event).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    let r = checkout(&app, &session, &hold_id, "pay-1").await;
    assert_eq!(r.status(), StatusCode::OK);
    // One bought, one more may be held and bought: two in all.
    let r = crate::helpers::hold(
        &app,
        &event,
        &session,
        "second",
        crate::helpers::hold_body(&ids[1..2]),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let second: Value = r.json().await.unwrap();
    let r = checkout(&app, &session, second["hold_id"].as_str().unwrap(), "pay-2").await;
    assert_eq!(r.status(), StatusCode::OK);
    for (key, seats) in [("third", &ids[2..3]), ("best", &ids[3..4])] {
        let r = crate::helpers::hold(
            &app,
            &event,
            &session,
            key,
            crate::helpers::hold_body(seats),
        )
        .await;
        let body = expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
        assert!(
            body["message"].as_str().unwrap().contains("bought 2"),
            "{body}"
        );
    }
    let r = crate::helpers::hold(
        &app,
        &event,
        &session,
        "section",
        json!({"section": "B", "quantity": 1}),
    )
    .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let sold = app
        .count(&format!(
            "select count(*) from seat where event_id = '{event}' and status <> 'available'"
        ))
        .await;
    assert_eq!(sold, 2, "the buyer took more than their limit");
}

/// Review finding 6: every charge was made in EUR whatever the event sold in.
#[tokio::test]
async fn a_charge_is_made_and_recorded_in_the_events_currency() {
    let (app, url) = app_with_fake(quick()).await;
    let mut body = crate::helpers::event_body(1, 4, json!({"enabled": false}));
    body["currency"] = json!("USD");
    let event = app.create_event(body).await;
    let event = event["id"].as_str().unwrap().to_owned();
    let ids = crate::helpers::seat_ids(&app, &event).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..2]).await;
    let r = checkout(&app, &session, &hold_id, "pay-usd").await;
    assert_eq!(r.status(), StatusCode::OK);
    let charges = ledger(&url).await["charges"].as_array().unwrap().clone();
    assert_eq!(charges.len(), 1);
    assert_eq!(charges[0]["currency"], "USD", "{charges:?}");
    assert_eq!(charges[0]["amount_cents"], 10_000);
    let recorded = app
        .count(&format!(
            "select count(*) from payment where hold_id = '{hold_id}' and currency = 'USD'"
        ))
        .await;
    assert_eq!(recorded, 1);
    let listed: Value = app
        .admin(
            app.client
                .get(app.url(&format!("/api/admin/events/{event}/payments"))),
        )
        .json_body()
        .await;
    assert_eq!(listed["counts"]["succeeded"], 1, "{listed}");
}
