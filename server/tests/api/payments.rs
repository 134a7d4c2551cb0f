//! Money is never lost (issue 15): one charge per hold whatever keys a client sends, a payment
//! row before every call, and reconciliation of what a request could not finish. Postgres is
//! cut by the fault tests' proxy, the instance is killed with SIGKILL, the provider is the fake
//! as a real HTTP service, and every test ends with the audit: provider charges = sales +
//! refunds, exactly.

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use anteroom::{
    checkout::{
        fake::{self, FakeSettings, MoneyAudit},
        reconcile,
    },
    config::{Config, Secret},
};
use chrono::Utc;
use futures::future::join_all;
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

use testkit::procs::{Instance, Proxy};

use crate::helpers::{
    TestApp, checkout, eventually_every, expect_error, hold, holder, ledger, open_event, quick,
    spawn_with, test_config,
};

/// A fake provider with `settings` and an app on it, configured by `tweak`: (app, fake URL).
async fn app_on_fake(settings: FakeSettings, tweak: impl FnOnce(&mut Config)) -> (TestApp, String) {
    let url = fake::spawn(settings, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut config = test_config();
    config.payments_url = Some(url.clone());
    tweak(&mut config);
    (spawn_with(config).await, url)
}

/// An app that reaches Postgres through `proxy` (a pool wait of `acquire_ms`, so a cut is
/// answered quickly), and a pool of the test's own that does not.
async fn app_behind(
    proxy: &Proxy,
    settings: FakeSettings,
    acquire_ms: u64,
) -> (TestApp, String, sqlx::PgPool) {
    let mut direct = String::new();
    let (app, url) = app_on_fake(settings, |config| {
        direct = config.database_url.expose().to_owned();
        config.database_url = Secret::new(direct.replace(":5432/", &format!(":{}/", proxy.port)));
        config.db_acquire_timeout_ms = acquire_ms;
    })
    .await;
    let db = sqlx::PgPool::connect(&direct).await.unwrap();
    (app, url, db)
}

/// Runs reconciliation steps (as if long after every claim ran out) until nothing is pending;
/// returns what they did, summed.
async fn reconcile_all(app: &TestApp, db: &sqlx::PgPool) -> reconcile::Reconciled {
    let mut sum = reconcile::Reconciled::default();
    let step = async || {
        if let Ok(done) = reconcile::step(&app.state, Utc::now() + chrono::Duration::hours(1)).await
        {
            sum.leader |= done.leader;
            sum.sold += done.sold;
            sum.refunded += done.refunded;
            sum.declined += done.declined;
            sum.failed += done.failed;
        }
        pending_payments(db).await == 0
    };
    let every = Duration::from_millis(100);
    eventually_every("no payment pending", Duration::from_secs(30), every, step).await;
    sum
}

async fn audit(url: &str, db: &sqlx::PgPool, event: &str) -> MoneyAudit {
    let audit = fake::audit(url, db, event).await.unwrap();
    assert!(audit.holds(), "money lost or given away: {audit:?}");
    audit
}

/// Waits for `ready`, checking every 10 ms; the bound is generous because a loaded CI machine
/// starts a debug process and serves its first requests slowly (this waits for an event, it
/// times nothing).
async fn until(what: &str, ready: impl AsyncFnMut() -> bool) {
    let every = Duration::from_millis(10);
    eventually_every(what, Duration::from_secs(30), every, ready).await
}

async fn pending_payments(db: &sqlx::PgPool) -> i64 {
    sqlx::query_scalar("select count(*) from payment where state = 'pending'")
        .fetch_one(db)
        .await
        .unwrap()
}

#[tokio::test]
async fn postgres_cut_between_the_charge_and_the_sale_ends_in_an_order_or_a_refund_never_neither() {
    let proxy = Proxy::start(5432);
    let (app, url, db) = app_behind(
        &proxy,
        FakeSettings {
            latency_ms: 400,
            ..FakeSettings::default()
        },
        500,
    )
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;

    // Cut once the charge is on its way (the fake counts it as it arrives, then takes 400 ms).
    // Not when the payment row is seen: the row is committed before the app has read the
    // insert's answer, and a cut in between fails the request before any charge.
    let cut = async {
        until("the charge is on its way", async || {
            ledger(&url).await["calls"].as_u64() >= Some(1)
        })
        .await;
        proxy.cut();
    };
    let (r, ()) = tokio::join!(checkout(&app, &session, &hold_id, "pay"), cut);
    assert!(r.headers().contains_key("retry-after"));
    expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    let charges = ledger(&url).await["charges"].as_array().unwrap().clone();
    assert_eq!(charges.len(), 1);
    assert_eq!(charges[0]["refunded"], true, "refunded in the same request");
    assert_eq!(pending_payments(&db).await, 1, "Postgres could not be told");

    proxy.restore();
    let done = reconcile_all(&app, &db).await;
    assert_eq!(done.refunded, 1, "{done:?}");
    let state: String = sqlx::query_scalar("select state from payment where hold_id = $1")
        .bind(&hold_id)
        .fetch_one(&db)
        .await
        .unwrap();
    assert_eq!(state, "refunded");
    let money = audit(&url, &db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (1, 0, 1));

    // The hold is still the buyer's: paying again is a new attempt, charged once, sold once.
    let r = checkout(&app, &session, &hold_id, "pay").await;
    assert_eq!(r.status(), StatusCode::OK);
    let money = audit(&url, &db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (2, 1, 1));

    // The operator sees both, and the refund with its reason.
    let r = app
        .client
        .get(app.url(&format!("/api/admin/events/{event}/payments")))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let seen: Value = app
        .client
        .get(app.url(&format!("/api/admin/events/{event}/payments")))
        .bearer_auth(&app.admin_key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        seen["counts"],
        json!({"pending": 0, "succeeded": 1, "declined": 0, "refunded": 1, "failed": 0})
    );
    assert_eq!(seen["refunds"].as_array().unwrap().len(), 1);
    assert_eq!(seen["refunds"][0]["provider_key"], format!("{hold_id}:1"));
    assert!(seen["refunds"][0]["note"].as_str().is_some());
    let metrics = app.metrics_text().await;
    for line in [
        "anteroom_payments{state=\"refunded\"} 1",
        "anteroom_payments{state=\"succeeded\"} 1",
        "anteroom_payments{state=\"pending\"} 0",
    ] {
        assert!(metrics.contains(line), "{line} in\n{metrics}");
    }
    db.close().await;
}

#[tokio::test]
async fn two_hundred_checkouts_with_postgres_cut_at_random_charge_exactly_sales_plus_refunds() {
    let proxy = Proxy::start(5432);
    let (app, url, db) = app_behind(
        &proxy,
        FakeSettings {
            latency_ms: 100,
            ..FakeSettings::default()
        },
        // Two hundred requests on a pool of 24, on a debug build of a busy machine.
        3_000,
    )
    .await;
    let (event, ids) = open_event(&app, 5, 20).await;
    let mut buyers = Vec::new();
    // In groups, so that the pool's short wait (for the cuts) is no bound on the set-up.
    for group in ids[..200].chunks(20) {
        buyers.extend(
            join_all(
                group
                    .iter()
                    .map(|id| holder(&app, &event, std::slice::from_ref(id))),
            )
            .await,
        );
    }

    let done = std::sync::atomic::AtomicBool::new(false);
    // The burst arrives over three seconds, as buyers pay, while Postgres is cut again and again.
    let burst = async {
        let answers = join_all(buyers.iter().enumerate().map(|(i, (session, hold_id))| {
            let app = &app;
            async move {
                // Arrivals spread over the burst, by design.
                tokio::time::sleep(Duration::from_millis(15 * i as u64)).await;
                checkout(app, session, hold_id, "pay").await
            }
        }))
        .await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        answers
    };
    let cuts = async {
        let mut rng = StdRng::seed_from_u64(15);
        let mut n = 0;
        while !done.load(std::sync::atomic::Ordering::SeqCst) {
            // Cuts of random length at random moments: the fault, not a wait.
            tokio::time::sleep(Duration::from_millis(rng.gen_range(300..900))).await;
            proxy.cut();
            n += 1;
            tokio::time::sleep(Duration::from_millis(rng.gen_range(10..60))).await;
            proxy.restore();
        }
        n
    };
    let (answers, cuts) = tokio::join!(burst, cuts);
    proxy.restore();
    let mut by_status: HashMap<u16, usize> = HashMap::new();
    let mut messages: HashMap<String, usize> = HashMap::new();
    for r in answers {
        *by_status.entry(r.status().as_u16()).or_default() += 1;
        let body: Value = r.json().await.unwrap_or_default();
        *messages
            .entry(body["message"].as_str().unwrap_or("").to_owned())
            .or_default() += 1;
    }
    println!("{messages:?}");
    assert!(
        by_status.keys().all(|s| [200, 503].contains(s)),
        "an order or 503, never a 500: {by_status:?}"
    );
    let before = fake::audit(&url, &db, &event).await.unwrap();
    let reconciled = reconcile_all(&app, &db).await;
    let money = audit(&url, &db, &event).await;
    println!(
        "200 checkouts, Postgres cut {cuts} times: answers {by_status:?}; before reconciliation \
         {before:?}; reconciliation {reconciled:?}; after {money:?}"
    );
    assert_eq!(money.pending, 0);
    assert_eq!(money.charges, money.sales + money.refunds);
    assert!(cuts > 0);
    let ok = by_status.get(&200).copied().unwrap_or(0) as u64;
    assert!(ok > 0 && money.sales >= ok, "every 200 is a sale");
    assert!(
        reconciled.sold + reconciled.refunded + money.refunds > 0,
        "some cut fell between a charge and its sale"
    );
    db.close().await;
}

#[tokio::test]
async fn reconciliation_after_a_sigkill_settles_every_payment_the_dead_instance_left_pending() {
    // Every charge is taken and its answer never comes: the instance dies waiting for them.
    let url = fake::spawn(
        FakeSettings {
            latency_ms: 50,
            hang_rate: 1.0,
            ..FakeSettings::default()
        },
        "127.0.0.1:0".parse().unwrap(),
    )
    .await
    .unwrap();
    let mut config = test_config();
    config.payments_url = Some(url.clone());
    let app = spawn_with(config.clone()).await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let buyers = join_all((0..20).map(|i| holder(&app, &event, &ids[i..i + 1]))).await;
    let process = Instance::serve(env!("CARGO_BIN_EXE_anteroom"), &config).await;
    let client = reqwest::Client::new();
    let paying: Vec<_> = buyers
        .iter()
        .map(|(session, hold_id)| {
            let req = client
                .post(process.url(&format!("/api/holds/{hold_id}/checkout")))
                .bearer_auth(session)
                .header("idempotency-key", "pay");
            tokio::spawn(async move { req.send().await.map(|r| r.status()).ok() })
        })
        .collect();
    until("20 charges", async || {
        ledger(&url).await["charges"].as_array().unwrap().len() == 20
    })
    .await;
    process.signal("KILL");
    for p in paying {
        assert_eq!(p.await.unwrap(), None, "nobody was answered");
    }
    let db = app.state.db.clone();
    assert_eq!(pending_payments(&db).await, 20);
    let unsettled = fake::audit(&url, &db, &event).await.unwrap();
    assert_eq!(unsettled.unsettled, 20, "{unsettled:?}");

    // Another instance (this one) reconciles: every hold is still its buyer's, so all sold.
    let done = reconcile_all(&app, &db).await;
    assert_eq!(done.sold, 20, "{done:?}");
    let money = audit(&url, &db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (20, 20, 0));
    println!("after SIGKILL with 20 charges unanswered: reconciliation {done:?}, {money:?}");
    // The buyers asking again find their orders, and nothing is charged again.
    let (session, hold_id) = &buyers[0];
    let r = checkout(&app, session, hold_id, "another-key").await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(ledger(&url).await["charges"].as_array().unwrap().len(), 20);
}

#[tokio::test]
async fn five_keys_for_one_hold_at_once_make_one_charge_one_order_and_five_identical_answers() {
    let (app, url) = app_on_fake(
        FakeSettings {
            latency_ms: 300,
            ..FakeSettings::default()
        },
        |_| {},
    )
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..2]).await;
    let answers = join_all((0..5).map(|i| {
        let (app, session, hold_id) = (&app, &session, &hold_id);
        async move {
            let r = checkout(app, session, hold_id, &format!("key-{i}")).await;
            (r.status(), r.json::<Value>().await.unwrap())
        }
    }))
    .await;
    for (status, body) in &answers {
        assert_eq!(*status, StatusCode::OK, "{body}");
        assert_eq!(body, &answers[0].1);
    }
    let ledger = ledger(&url).await;
    assert_eq!(ledger["charges"].as_array().unwrap().len(), 1);
    assert_eq!(
        ledger["calls"], 1,
        "the other four waited instead of calling"
    );
    let money = audit(&url, &app.state.db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (1, 1, 0));
}

#[tokio::test]
async fn a_key_reused_on_a_second_hold_buys_the_second_hold_without_a_stray_charge() {
    let (app, url) = app_on_fake(quick(), |_| {}).await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, first) = holder(&app, &event, &ids[0..1]).await;
    let r = checkout(&app, &session, &first, "my-key").await;
    assert_eq!(r.status(), StatusCode::OK);
    let first_order: Value = r.json().await.unwrap();
    let r = hold(
        &app,
        &event,
        &session,
        "second-hold",
        json!({"seat_ids": [ids[1].to_string()]}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let second = r.json::<Value>().await.unwrap()["hold_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = checkout(&app, &session, &second, "my-key").await;
    assert_eq!(r.status(), StatusCode::OK);
    let second_order: Value = r.json().await.unwrap();
    assert_eq!(second_order["hold_id"], second.as_str());
    assert_ne!(second_order["order_id"], first_order["order_id"]);
    // The key replayed on the first hold still answers its own order.
    let again: Value = checkout(&app, &session, &first, "my-key")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(again, first_order);
    assert_eq!(ledger(&url).await["charges"].as_array().unwrap().len(), 2);
    let money = audit(&url, &app.state.db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (2, 2, 0));
}

#[tokio::test]
async fn a_provider_that_hangs_is_answered_within_the_bound_and_the_payment_reconciled_later() {
    let (app, url) = app_on_fake(
        FakeSettings {
            latency_ms: 20,
            hang_rate: 1.0,
            ..FakeSettings::default()
        },
        |config| {
            config.payments_timeout_ms = 300;
            config.payments_busy_wait_ms = 1000;
            config.checkout_wait_ms = 500;
        },
    )
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    let started = Instant::now();
    let r = checkout(&app, &session, &hold_id, "pay").await;
    let took = started.elapsed();
    assert!(r.headers().contains_key("retry-after"));
    expect_error(r, StatusCode::SERVICE_UNAVAILABLE, "unavailable").await;
    // Its bound: a bulkhead slot, the 429s' budget and one call.
    assert!(took < Duration::from_millis(1800), "answered in {took:?}");
    println!("a hanging provider: checkout answered 503 in {took:?}");
    let db = app.state.db.clone();
    assert_eq!(pending_payments(&db).await, 1);

    reconcile_all(&app, &db).await;
    let (state, sold): (String, i64) = sqlx::query_as(
        "select p.state, (select count(*) from sale s where s.hold_id = p.hold_id) \
         from payment p where p.hold_id = $1",
    )
    .bind(&hold_id)
    .fetch_one(&db)
    .await
    .unwrap();
    assert_eq!((state.as_str(), sold), ("succeeded", 1));
    let r = checkout(&app, &session, &hold_id, "pay-again").await;
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "the order reconciliation recorded"
    );
    let money = audit(&url, &db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (1, 1, 0));
}

#[tokio::test]
async fn a_client_that_disconnects_mid_payment_is_settled_by_reconciliation() {
    let (app, url) = app_on_fake(
        FakeSettings {
            latency_ms: 50,
            hang_rate: 1.0,
            ..FakeSettings::default()
        },
        |config| config.payments_timeout_ms = 1000,
    )
    .await;
    let (event, ids) = open_event(&app, 1, 10).await;
    let (session, hold_id) = holder(&app, &event, &ids[0..1]).await;
    let mut stream = tokio::net::TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap();
    let request = format!(
        "POST /api/holds/{hold_id}/checkout HTTP/1.1\r\nHost: test\r\n\
         Authorization: Bearer {session}\r\nIdempotency-Key: pay\r\nContent-Length: 0\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // Gone once the provider has charged and before any answer.
    until("the charge", async || {
        ledger(&url).await["charges"].as_array().unwrap().len() == 1
    })
    .await;
    drop(stream);
    // Past the call's timeout: whatever the request still did, it is over. (Time: a dropped
    // request leaves no sign to wait on.)
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let db = app.state.db.clone();
    assert_eq!(
        pending_payments(&db).await,
        1,
        "the charge is not settled yet"
    );
    let done = reconcile_all(&app, &db).await;
    println!("a client gone mid-payment: reconciliation {done:?}");
    assert_eq!(done.sold, 1);
    let money = audit(&url, &db, &event).await;
    assert_eq!((money.charges, money.sales, money.refunds), (1, 1, 0));
}

/// Review finding 1: the sale transaction must lock the hold's seats. The interleaving is made
/// exact with a lock: the sale's transaction starts (its `now()` is before the hold's expiry)
/// and waits on the payment row; the hold expires; another buyer's hold takes the seat (the
/// hold transaction treats an expired hold's seats as free) and commits; then the sale goes on.
/// Before the fix it recorded a sale of 0 seats and kept the money.
#[tokio::test]
async fn a_sale_racing_a_hold_at_its_expiry_sells_no_seat_it_lost_and_refunds_instead() {
    use anteroom::checkout::payments::{self, PaymentRow, Settled};
    let app = crate::helpers::spawn_app().await;
    let (event, seats) = open_event(&app, 1, 1).await;
    let (_, hold_a) = holder(&app, &event, &seats).await;
    let db = &app.state.db;
    let payment: PaymentRow = sqlx::query_as(&format!(
        "insert into payment (hold_id, event_id, buyer_id, attempt, provider_key, amount_cents, \
             idempotency_key, claimed_until, currency) \
         select id, event_id, buyer_id, 1, id || ':1', total_cents, 'k', now(), 'EUR' from hold \
         where id = $1 \
         returning {}",
        payments::ROW
    ))
    .bind(&hold_a)
    .fetch_one(db)
    .await
    .unwrap();
    let mut blocker = db.begin().await.unwrap();
    sqlx::query("select 1 from payment where id = $1 for update")
        .bind(payment.id)
        .execute(&mut *blocker)
        .await
        .unwrap();
    let sale = tokio::spawn({
        let db = db.clone();
        let payment = payment.clone();
        async move { payments::settle(&db, &payment, "ch_edge").await }
    });
    until("the sale waits on the payment row", async || {
        sqlx::query_scalar::<_, i64>(
            "select count(*) from pg_stat_activity \
             where datname = current_database() and wait_event_type = 'Lock'",
        )
        .fetch_one(db)
        .await
        .unwrap()
            == 1
    })
    .await;
    // The hold ends now: after the sale's transaction began, before the other buyer's.
    sqlx::query("update hold set expires_at = clock_timestamp() where id = $1")
        .bind(&hold_a)
        .execute(db)
        .await
        .unwrap();
    let (_, hold_b) = holder(&app, &event, &seats).await;
    blocker.commit().await.unwrap();
    let settled = sale.await.unwrap();
    assert!(
        matches!(settled, Ok(Settled::HoldGone)),
        "the sale went on with its seats gone"
    );
    let sales = app
        .count(&format!(
            "select count(*) from sale where hold_id = '{hold_a}'"
        ))
        .await;
    assert_eq!(
        sales, 0,
        "a sale was recorded for a hold whose seat is gone"
    );
    let owner: (String, String) = sqlx::query_as("select status, hold_id from seat where id = $1")
        .bind(seats[0])
        .fetch_one(db)
        .await
        .unwrap();
    assert_eq!(owner, ("held".to_owned(), hold_b));
}
