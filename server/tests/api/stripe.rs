//! Payments through Stripe (issue 67), against a real Stripe-compatible server (`localstripe`,
//! a process of each test's own). The test plays the buyer's page: it types the card into
//! "Stripe's frames" (creates the payment method at the server and confirms the intent with
//! it, as Stripe.js does) and passes or fails 3-D Secure with the intent's client secret, as
//! Stripe.js's challenge does. Every test ends with the money audit against the server's own
//! records: intents succeeded = sales + refunds.

use std::time::Duration;

use anteroom::{
    checkout::{reconcile, stripe::webhook},
    config::{Config, PaymentsKind, Secret},
};
use chrono::Utc;
use reqwest::StatusCode;
use serde_json::{Value, json};
use testkit::stripe::{PUBLISHABLE_KEY, SECRET_KEY, TestStripe, WEBHOOK_SECRET};

use crate::helpers::{
    TestApp, checkout, eventually, expect_error, holder, open_event, spawn_with, test_config,
};

/// Cards of Stripe's test numbers that localstripe knows.
const CARD: &str = "4242424242424242";
const THREE_D_SECURE: &str = "4000000000003220";
const DECLINED: &str = "4000000000000341";

/// localstripe and an app that pays through it, configured by `tweak`; with `webhook`, the
/// app's endpoint is registered at localstripe (its events come about a second after).
async fn stripe_app(webhook: bool, tweak: impl FnOnce(&mut Config)) -> (TestApp, TestStripe) {
    let stripe = TestStripe::start().await;
    let mut config = test_config();
    config.payments = PaymentsKind::Stripe;
    config.stripe_api_url = stripe.url.clone();
    config.stripe_secret_key = Some(Secret::new(SECRET_KEY));
    config.stripe_webhook_secret = Some(Secret::new(WEBHOOK_SECRET));
    tweak(&mut config);
    let app = spawn_with(config).await;
    if webhook {
        let r = reqwest::Client::new()
            .post(format!("{}/_config/webhooks/anteroom", stripe.url))
            .form(&[
                ("url", app.url("/api/payments/stripe/webhook")),
                ("secret", WEBHOOK_SECRET.to_owned()),
            ])
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.status());
    }
    (app, stripe)
}

/// A call to the Stripe server with the secret key (what Stripe.js does in the page, and what
/// the test reads back): the JSON answer.
async fn api(stripe: &TestStripe, post: bool, path: &str, form: &[(&str, &str)]) -> Value {
    let client = reqwest::Client::new();
    let url = format!("{}{path}", stripe.url);
    let request = if post {
        client.post(url).form(form)
    } else {
        client.get(url).query(form)
    };
    request
        .basic_auth(SECRET_KEY, Some(""))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// The intent named by a client secret (`pi_..._secret_...`).
fn intent_of(client_secret: &str) -> String {
    client_secret.split("_secret_").next().unwrap().to_owned()
}

/// The page's part: the card typed into Stripe's frames and the intent confirmed with it.
/// Returns the intent as Stripe then describes it (a declined card answers an error).
async fn pay_at_stripe(stripe: &TestStripe, client_secret: &str, number: &str) -> Value {
    let intent = intent_of(client_secret);
    let method = api(
        stripe,
        true,
        "/v1/payment_methods",
        &[
            ("type", "card"),
            ("card[number]", number),
            ("card[exp_month]", "12"),
            ("card[exp_year]", "2031"),
            ("card[cvc]", "123"),
        ],
    )
    .await;
    let pm = method["id"].as_str().unwrap();
    api(
        stripe,
        true,
        &format!("/v1/payment_intents/{intent}"),
        &[("payment_method", pm)],
    )
    .await;
    api(
        stripe,
        true,
        &format!("/v1/payment_intents/{intent}/confirm"),
        &[],
    )
    .await
}

/// 3-D Secure's challenge, passed or failed, as Stripe.js's frame does with the publishable
/// key and the client secret.
async fn three_d_secure(stripe: &TestStripe, client_secret: &str, pass: bool) -> Value {
    let intent = intent_of(client_secret);
    reqwest::Client::new()
        .post(format!(
            "{}/v1/payment_intents/{intent}/_authenticate?success={pass}",
            stripe.url
        ))
        .json(&json!({"key": PUBLISHABLE_KEY, "client_secret": client_secret}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

async fn intent(stripe: &TestStripe, id: &str) -> Value {
    api(
        stripe,
        false,
        &format!("/v1/payment_intents/{id}"),
        &[("expand[]", "latest_charge")],
    )
    .await
}

/// Checkout's answer when the page must confirm: the client secret.
async fn requires_action(r: reqwest::Response) -> String {
    assert_eq!(r.status(), StatusCode::OK);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["status"], "requires_action", "{body}");
    assert!(body["payment_id"].is_string(), "{body}");
    body["client_secret"].as_str().unwrap().to_owned()
}

/// A buyer of one seat of a new event, at the payment: the first checkout answered
/// `requires_action` with `secret`.
struct Paying {
    app: TestApp,
    stripe: TestStripe,
    session: String,
    hold: String,
    secret: String,
}

async fn paying(webhook: bool) -> Paying {
    let (app, stripe) = stripe_app(webhook, |_| {}).await;
    let (event, seats) = open_event(&app, 1, 4).await;
    let (session, hold) = holder(&app, &event, &seats[..1]).await;
    let secret = requires_action(checkout(&app, &session, &hold, "k").await).await;
    Paying {
        app,
        stripe,
        session,
        hold,
        secret,
    }
}

/// The money audit: every intent that took money at Stripe is a sale or was refunded, and
/// every sale's money is at Stripe.
async fn audit(app: &TestApp, stripe: &TestStripe) {
    let intents = api(stripe, false, "/v1/payment_intents", &[("limit", "100")]).await;
    let mut charged = 0;
    let mut refunded = 0;
    for i in intents["data"].as_array().unwrap() {
        if i["status"] == "succeeded" {
            charged += 1;
            if i["latest_charge"]["refunded"] == true {
                refunded += 1;
            }
        }
    }
    let sales = app.count("select count(*) from sale").await;
    let refunds = app
        .count("select count(*) from payment where state = 'refunded'")
        .await;
    assert_eq!(
        (charged, refunded),
        (sales + refunds, refunds),
        "intents charged = sales + refunds"
    );
}

#[tokio::test]
async fn a_hold_is_paid_through_stripe_after_three_d_secure_and_the_order_comes_on_the_return() {
    let (app, stripe) = stripe_app(false, |_| {}).await;
    let (event, seats) = open_event(&app, 1, 4).await;
    let (session, hold) = holder(&app, &event, &seats[..2]).await;
    let total: i64 = app
        .count(&format!("select total_cents from hold where id = '{hold}'"))
        .await;

    let secret = requires_action(checkout(&app, &session, &hold, "k1").await).await;
    // A retry, with another key, is the same intent: one payment for the hold.
    let again = requires_action(checkout(&app, &session, &hold, "k2").await).await;
    assert_eq!(again, secret);
    let at_stripe = intent(&stripe, &intent_of(&secret)).await;
    assert_eq!(at_stripe["amount"], total);
    assert_eq!(at_stripe["currency"], "eur");
    assert_eq!(at_stripe["metadata"]["hold"], hold.as_str());

    // The card asks for 3-D Secure: the page is told to go on, never that it was declined.
    let confirmed = pay_at_stripe(&stripe, &secret, THREE_D_SECURE).await;
    assert_eq!(confirmed["status"], "requires_action", "{confirmed}");
    assert_eq!(
        requires_action(checkout(&app, &session, &hold, "k1").await).await,
        secret
    );
    let passed = three_d_secure(&stripe, &secret, true).await;
    assert_eq!(passed["status"], "succeeded", "{passed}");

    // The page's return: the order.
    let r = checkout(&app, &session, &hold, "k1").await;
    assert_eq!(r.status(), StatusCode::OK);
    let order: Value = r.json().await.unwrap();
    assert_eq!(order["status"], "confirmed", "{order}");
    assert_eq!(order["total_cents"], total);
    let sold = app
        .count(&format!(
            "select count(*) from seat where hold_id = '{hold}' and status = 'sold'"
        ))
        .await;
    assert_eq!(sold, 2);
    // Asked again: the same order, nothing charged twice.
    let r = checkout(&app, &session, &hold, "k3").await;
    let same: Value = r.json().await.unwrap();
    assert_eq!(same["order_id"], order["order_id"]);
    audit(&app, &stripe).await;
}

#[tokio::test]
async fn a_declined_card_or_a_failed_challenge_is_402_and_the_next_try_is_a_new_intent() {
    let Paying {
        app,
        stripe,
        session,
        hold,
        secret: first,
    } = paying(false).await;
    pay_at_stripe(&stripe, &first, DECLINED).await;
    expect_error(
        checkout(&app, &session, &hold, "k").await,
        StatusCode::PAYMENT_REQUIRED,
        "payment_declined",
    )
    .await;
    // The declined intent is closed: it can never take a second card later.
    assert_eq!(
        intent(&stripe, &intent_of(&first)).await["status"],
        "canceled"
    );
    let active = app
        .count(&format!(
            "select count(*) from hold where id = '{hold}' and status = 'active'"
        ))
        .await;
    assert_eq!(active, 1, "a decline leaves the hold active");

    // The challenge failed: declined as well.
    let second = requires_action(checkout(&app, &session, &hold, "k").await).await;
    assert_ne!(second, first, "a new attempt is a new intent");
    pay_at_stripe(&stripe, &second, THREE_D_SECURE).await;
    three_d_secure(&stripe, &second, false).await;
    expect_error(
        checkout(&app, &session, &hold, "k").await,
        StatusCode::PAYMENT_REQUIRED,
        "payment_declined",
    )
    .await;

    let third = requires_action(checkout(&app, &session, &hold, "k").await).await;
    let paid = pay_at_stripe(&stripe, &third, CARD).await;
    assert_eq!(paid["status"], "succeeded", "{paid}");
    let r = checkout(&app, &session, &hold, "k").await;
    assert_eq!(r.status(), StatusCode::OK);
    let states: Vec<String> =
        sqlx::query_scalar("select state from payment where hold_id = $1 order by attempt")
            .bind(&hold)
            .fetch_all(&app.state.db)
            .await
            .unwrap();
    assert_eq!(states, ["declined", "declined", "succeeded"]);
    audit(&app, &stripe).await;
}

#[tokio::test]
async fn the_webhook_settles_a_payment_before_the_page_returns_and_once() {
    let Paying {
        app,
        stripe,
        session,
        hold,
        secret,
    } = paying(true).await;
    pay_at_stripe(&stripe, &secret, CARD).await;
    // The page never came back: Stripe's signed event records the sale (and then the event,
    // as handled).
    eventually("the webhook handled", Duration::from_secs(15), async || {
        app.count("select count(*) from stripe_event where type = 'payment_intent.succeeded'")
            .await
            == 1
    })
    .await;
    let sales = app
        .count(&format!(
            "select count(*) from sale where hold_id = '{hold}'"
        ))
        .await;
    assert_eq!(sales, 1);
    // The page's return after it: the same order.
    let r = checkout(&app, &session, &hold, "k").await;
    assert_eq!(r.status(), StatusCode::OK);
    let order: Value = r.json().await.unwrap();
    assert_eq!(order["status"], "confirmed");
    audit(&app, &stripe).await;
}

/// `body` signed as Stripe signs it, at unix time `at`, under `secret`.
fn signature(secret: &str, at: i64, body: &str) -> String {
    use hmac::{Hmac, Mac};
    let mut mac = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{at}.{body}").as_bytes());
    format!("t={at},v1={}", hex::encode(mac.finalize().into_bytes()))
}

async fn deliver(app: &TestApp, body: &str, signature: &str) -> reqwest::Response {
    app.client
        .post(app.url("/api/payments/stripe/webhook"))
        .header("content-type", "application/json")
        .header("stripe-signature", signature)
        .body(body.to_owned())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_forged_a_stale_or_a_replayed_webhook_changes_nothing() {
    let Paying {
        app,
        stripe,
        hold,
        secret,
        ..
    } = paying(false).await;
    let id = intent_of(&secret);
    let body = json!({
        "id": "evt_forged1", "type": "payment_intent.succeeded",
        "data": {"object": {"id": id, "object": "payment_intent", "status": "succeeded"}}
    })
    .to_string();
    let now = Utc::now().timestamp();
    let no_sale = async || {
        app.count(&format!(
            "select count(*) from sale where hold_id = '{hold}'"
        ))
        .await
    };

    // Signed with another secret, unsigned, stale, or signed over another body: 400.
    let forged = signature("whsec_not_the_one", now, &body);
    expect_error(
        deliver(&app, &body, &forged).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    let stale = signature(WEBHOOK_SECRET, now - 600, &body);
    expect_error(
        deliver(&app, &body, &stale).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    let other = signature(WEBHOOK_SECRET, now, "{}");
    expect_error(
        deliver(&app, &body, &other).await,
        StatusCode::BAD_REQUEST,
        "bad_request",
    )
    .await;
    let r = app
        .client
        .post(app.url("/api/payments/stripe/webhook"))
        .header("content-type", "application/json")
        .body(body.clone())
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    assert_eq!(no_sale().await, 0);

    // Well signed, but the intent took no money: Anteroom asks Stripe, and sells nothing.
    let good = signature(WEBHOOK_SECRET, now, &body);
    let r = deliver(&app, &body, &good).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        no_sale().await,
        0,
        "an event is news, not proof: Stripe is asked"
    );

    // Paid now; the same event delivered again is answered and not handled twice...
    pay_at_stripe(&stripe, &secret, CARD).await;
    let r = deliver(&app, &body, &good).await;
    let answer: Value = r.json().await.unwrap();
    assert_eq!(answer["handled"], "before");
    assert_eq!(no_sale().await, 0);
    // ...while a new event of the same intent settles it.
    let fresh = body.replace("evt_forged1", "evt_forged2");
    let r = deliver(&app, &fresh, &signature(WEBHOOK_SECRET, now, &fresh)).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(no_sale().await, 1);
    audit(&app, &stripe).await;
}

#[tokio::test]
async fn a_hold_that_ends_while_the_buyer_pays_is_refunded() {
    let Paying {
        app,
        stripe,
        session,
        hold,
        secret,
    } = paying(true).await;
    sqlx::query("update hold set expires_at = clock_timestamp() where id = $1")
        .bind(&hold)
        .execute(&app.state.db)
        .await
        .unwrap();
    pay_at_stripe(&stripe, &secret, CARD).await;
    // The webhook (or the page's return, whichever first) finds the hold gone: refunded.
    eventually("the refund", Duration::from_secs(15), async || {
        app.count(&format!(
            "select count(*) from payment where hold_id = '{hold}' and state = 'refunded'"
        ))
        .await
            == 1
    })
    .await;
    let at_stripe = intent(&stripe, &intent_of(&secret)).await;
    assert_eq!(at_stripe["latest_charge"]["refunded"], true, "{at_stripe}");
    let r = checkout(&app, &session, &hold, "k").await;
    expect_error(r, StatusCode::CONFLICT, "conflict").await;
    audit(&app, &stripe).await;
}

#[tokio::test]
async fn stripe_down_is_503_and_nothing_is_lost() {
    let (app, stripe) = stripe_app(false, |config| {
        config.breaker_failures = 2;
    })
    .await;
    let (event, seats) = open_event(&app, 1, 4).await;
    let (session, hold) = holder(&app, &event, &seats[..1]).await;
    // Stripe goes down: its port answers nothing.
    drop(stripe);
    for key in ["a", "b", "c"] {
        let r = checkout(&app, &session, &hold, key).await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(r.headers().contains_key("retry-after"));
    }
    let pending = app
        .count("select count(*) from payment where state = 'pending'")
        .await;
    assert_eq!(pending, 1, "one payment record, kept for later");
    // No intent was ever recorded, so none was shown to a page: reconciliation ends it.
    let later = Utc::now() + chrono::Duration::hours(1);
    let done = reconcile::step(&app.state, later).await.unwrap();
    assert_eq!(done.failed, 1, "{done:?}");
    let active = app
        .count(&format!(
            "select count(*) from hold where id = '{hold}' and status = 'active'"
        ))
        .await;
    assert_eq!(active, 1, "the seats stay held");
}

#[tokio::test]
async fn reconciliation_settles_a_payment_whose_answers_were_lost_and_closes_an_abandoned_one() {
    let (app, stripe) = stripe_app(false, |_| {}).await;
    let (event, seats) = open_event(&app, 1, 4).await;
    // Paid at Stripe; no webhook, and the page never came back.
    let (session, paid) = holder(&app, &event, &seats[..1]).await;
    let secret = requires_action(checkout(&app, &session, &paid, "k").await).await;
    pay_at_stripe(&stripe, &secret, CARD).await;
    // Opened and left while the hold lives; and opened and left until the hold ended.
    let (left_session, left) = holder(&app, &event, &seats[1..2]).await;
    requires_action(checkout(&app, &left_session, &left, "k").await).await;
    let (gone_session, gone) = holder(&app, &event, &seats[2..3]).await;
    let gone_secret = requires_action(checkout(&app, &gone_session, &gone, "k").await).await;
    sqlx::query("update hold set expires_at = clock_timestamp() where id = $1")
        .bind(&gone)
        .execute(&app.state.db)
        .await
        .unwrap();

    let later = Utc::now() + reconcile::LOOK_AGAIN + Duration::from_secs(1);
    let done = reconcile::step(&app.state, later).await.unwrap();
    assert_eq!((done.sold, done.open, done.failed), (1, 1, 1), "{done:?}");
    assert_eq!(
        app.count(&format!(
            "select count(*) from sale where hold_id = '{paid}'"
        ))
        .await,
        1
    );
    // The abandoned intent can take no money any more.
    assert_eq!(
        intent(&stripe, &intent_of(&gone_secret)).await["status"],
        "canceled"
    );
    // The one left open is not asked about again before its time.
    let done = reconcile::step(&app.state, later).await.unwrap();
    assert_eq!(done.open, 0, "{done:?}");
    audit(&app, &stripe).await;
}

#[test]
fn the_webhook_signature_of_the_tests_is_the_one_the_server_checks() {
    let body = r#"{"id":"evt_1"}"#;
    let header = signature(WEBHOOK_SECRET, 1_000, body);
    assert_eq!(
        webhook::verify(WEBHOOK_SECRET.as_bytes(), &header, body.as_bytes(), 1_000),
        Ok(())
    );
}
