//! The fake payment provider that Anteroom ships for the demo and the tests: a real HTTP
//! service with the behaviour of the real one that matters on the night. Latency (default
//! 400 ms), a decline rate, a per-merchant rate limit (default 100 charges a second, then 429
//! with Retry-After), injected 5xx and hangs (a hung call has charged: the answer is what is
//! lost, the merchant's worst case), idempotency keys (the same key is one charge), refunds,
//! a look-up by key (as real providers have), and a ledger that tests read, with the most
//! calls it ever had in flight.
//!
//! `POST /charges` `{"amount_cents", "currency", "idempotency_key", "merchant"}` → 201
//! `{"id", "status": "succeeded", "refunded"}` or 402 `{"id", "status": "declined", ...}`;
//! `GET /charges?idempotency_key=K` → 200 the charge made under K, or 404;
//! `POST /charges/{id}/refund`; `GET /ledger`; `PUT /settings` (any of the settings below).

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use axum::{
    Json, Router,
    extract::{Path, Query, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post, put},
};
use rand::Rng;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::net::TcpListener;

pub use crate::config::FakeSettings;

#[derive(Clone, Serialize)]
struct LedgerCharge {
    id: String,
    idempotency_key: String,
    merchant: String,
    amount_cents: i64,
    currency: String,
    status: &'static str,
    refunded: bool,
}

#[derive(Default)]
struct Ledger {
    /// By idempotency key: the same key is the same charge.
    charges: HashMap<String, LedgerCharge>,
    /// (unix second, charges counted in it) per merchant.
    windows: HashMap<String, (u64, u32)>,
}

pub struct Fake {
    settings: Mutex<FakeSettings>,
    ledger: Mutex<Ledger>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    /// Every `POST /charges` received, answered or not.
    calls: AtomicUsize,
}

#[derive(Deserialize)]
struct ChargeRequest {
    amount_cents: i64,
    /// ISO 4217: three capital letters, else 422 (a provider charges in what it is told).
    currency: String,
    idempotency_key: String,
    #[serde(default)]
    merchant: String,
}

/// Counts a call in flight for as long as it lives.
struct InFlight<'a>(&'a Fake);

impl<'a> InFlight<'a> {
    fn enter(fake: &'a Fake) -> Self {
        let now = fake.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        fake.max_in_flight.fetch_max(now, Ordering::SeqCst);
        Self(fake)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

pub fn router(fake: Arc<Fake>) -> Router {
    Router::new()
        .route("/charges", post(charge).get(lookup))
        .route("/charges/{id}/refund", post(refund))
        .route("/ledger", get(ledger))
        .route("/settings", put(update_settings))
        .with_state(fake)
}

/// Serves a fake on `addr` in this process; returns its base URL.
pub async fn spawn(settings: FakeSettings, addr: SocketAddr) -> std::io::Result<String> {
    let listener = TcpListener::bind(addr).await?;
    let url = format!("http://{}", listener.local_addr()?);
    let fake = Arc::new(Fake {
        settings: Mutex::new(settings),
        ledger: Mutex::new(Ledger::default()),
        in_flight: AtomicUsize::new(0),
        max_in_flight: AtomicUsize::new(0),
        calls: AtomicUsize::new(0),
    });
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router(fake)).await {
            tracing::error!(error = %e, "the fake payment provider stopped");
        }
    });
    Ok(url)
}

async fn charge(State(fake): State<Arc<Fake>>, Json(req): Json<ChargeRequest>) -> Response {
    fake.calls.fetch_add(1, Ordering::SeqCst);
    if req.currency.len() != 3 || !req.currency.bytes().all(|b| b.is_ascii_uppercase()) {
        return (
            StatusCode::UNPROCESSABLE_ENTITY,
            Json(json!({"error": "invalid_currency"})),
        )
            .into_response();
    }
    let _in_flight = InFlight::enter(&fake);
    let settings = fake.settings.lock().expect("not poisoned").clone();
    let now = chrono::Utc::now();
    let second = now.timestamp() as u64;
    {
        let mut ledger = fake.ledger.lock().expect("not poisoned");
        let window = ledger
            .windows
            .entry(req.merchant.clone())
            .or_insert((second, 0));
        if window.0 != second {
            *window = (second, 0);
        }
        if window.1 >= settings.rate_per_second {
            // Until the next second starts, rounded up to a whole second as the header says.
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [(header::RETRY_AFTER, "1")],
                Json(json!({"error": "rate_limited"})),
            )
                .into_response();
        }
        window.1 += 1;
    }
    let (hang, fail, decline) = {
        let mut rng = rand::thread_rng();
        (
            rng.gen_bool(settings.hang_rate.clamp(0.0, 1.0)),
            rng.gen_bool(settings.fail_rate.clamp(0.0, 1.0)),
            rng.gen_bool(settings.decline_rate.clamp(0.0, 1.0)),
        )
    };
    tokio::time::sleep(Duration::from_millis(settings.latency_ms)).await;
    if fail {
        return (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": "injected"})),
        )
            .into_response();
    }
    let charge = {
        let mut ledger = fake.ledger.lock().expect("not poisoned");
        let id = format!("ch_{}", crate::ids::random_id(9));
        ledger
            .charges
            .entry(req.idempotency_key.clone())
            .or_insert_with(|| LedgerCharge {
                id,
                idempotency_key: req.idempotency_key.clone(),
                merchant: req.merchant.clone(),
                amount_cents: req.amount_cents,
                currency: req.currency.clone(),
                status: if decline { "declined" } else { "succeeded" },
                refunded: false,
            })
            .clone()
    };
    if hang {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    let status = if charge.status == "succeeded" {
        StatusCode::CREATED
    } else {
        StatusCode::PAYMENT_REQUIRED
    };
    (status, Json(charge.public())).into_response()
}

impl LedgerCharge {
    /// The charge as the provider shows it to the merchant.
    fn public(&self) -> Value {
        json!({"id": self.id, "status": self.status, "refunded": self.refunded,
               "amount_cents": self.amount_cents, "currency": self.currency})
    }
}

#[derive(Deserialize)]
struct Lookup {
    idempotency_key: String,
}

/// `GET /charges?idempotency_key=K`: what became of a call whose answer was lost.
async fn lookup(State(fake): State<Arc<Fake>>, Query(q): Query<Lookup>) -> Response {
    let ledger = fake.ledger.lock().expect("not poisoned");
    match ledger.charges.get(&q.idempotency_key) {
        Some(c) => Json(c.public()).into_response(),
        None => (StatusCode::NOT_FOUND, Json(json!({"error": "not_found"}))).into_response(),
    }
}

async fn refund(State(fake): State<Arc<Fake>>, Path(id): Path<String>) -> StatusCode {
    let mut ledger = fake.ledger.lock().expect("not poisoned");
    match ledger.charges.values_mut().find(|c| c.id == id) {
        Some(c) => {
            c.refunded = true;
            StatusCode::OK
        }
        None => StatusCode::NOT_FOUND,
    }
}

async fn ledger(State(fake): State<Arc<Fake>>) -> Json<Value> {
    let ledger = fake.ledger.lock().expect("not poisoned");
    let charges: Vec<&LedgerCharge> = ledger.charges.values().collect();
    Json(json!({
        "charges": charges,
        "max_in_flight": fake.max_in_flight.load(Ordering::SeqCst),
        "calls": fake.calls.load(Ordering::SeqCst),
    }))
}

async fn update_settings(State(fake): State<Arc<Fake>>, Json(patch): Json<Value>) -> Json<Value> {
    let mut settings = fake.settings.lock().expect("not poisoned");
    let mut current = serde_json::to_value(&*settings).expect("plain settings");
    if let (Some(current), Some(patch)) = (current.as_object_mut(), patch.as_object()) {
        for (k, v) in patch {
            current.insert(k.clone(), v.clone());
        }
    }
    if let Ok(updated) = serde_json::from_value::<FakeSettings>(current) {
        *settings = updated;
    }
    Json(serde_json::to_value(&*settings).expect("plain settings"))
}

/// The money invariant of one event, counted at the fake provider and in Postgres: every
/// charge ends in exactly one of a sale and a refund (charges = sales + refunds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MoneyAudit {
    /// Charges the provider took for the event's payments.
    pub charges: u64,
    /// The event's sales.
    pub sales: u64,
    /// The event's charges given back.
    pub refunds: u64,
    /// Charges with neither a sale nor a refund: money taken for nothing.
    pub unsettled: u64,
    /// Charges both sold and refunded: seats given away.
    pub sold_and_refunded: u64,
    /// Sales without a charge that stands.
    pub sales_without_charge: u64,
    /// Payments still pending in Postgres.
    pub pending: u64,
}

impl MoneyAudit {
    /// Whether no money was lost or given away.
    pub fn holds(&self) -> bool {
        self.charges == self.sales + self.refunds
            && self.unsettled == 0
            && self.sold_and_refunded == 0
            && self.sales_without_charge == 0
    }
}

/// Audits event `event_id` against the ledger of the fake at `url`.
pub async fn audit(
    url: &str,
    db: &sqlx::PgPool,
    event_id: &str,
) -> Result<MoneyAudit, Box<dyn std::error::Error + Send + Sync>> {
    let ledger: Value = reqwest::get(format!("{}/ledger", url.trim_end_matches('/')))
        .await?
        .json()
        .await?;
    let keys: std::collections::HashSet<String> =
        sqlx::query_scalar("select provider_key from payment where event_id = $1")
            .bind(event_id)
            .fetch_all(db)
            .await?
            .into_iter()
            .collect();
    let sales: Vec<String> =
        sqlx::query_scalar("select coalesce(payment_id, '') from sale where event_id = $1")
            .bind(event_id)
            .fetch_all(db)
            .await?;
    let sold: std::collections::HashSet<&str> = sales.iter().map(String::as_str).collect();
    let pending: i64 = sqlx::query_scalar(
        "select count(*) from payment where event_id = $1 and state = 'pending'",
    )
    .bind(event_id)
    .fetch_one(db)
    .await?;
    let mut audit = MoneyAudit {
        sales: sales.len() as u64,
        pending: pending as u64,
        ..MoneyAudit::default()
    };
    let mut standing = std::collections::HashSet::new();
    let charges = ledger["charges"].as_array().cloned().unwrap_or_default();
    for c in &charges {
        let key = c["idempotency_key"].as_str().unwrap_or_default();
        if c["status"] != "succeeded" || !keys.contains(key) {
            continue;
        }
        let id = c["id"].as_str().unwrap_or_default();
        let refunded = c["refunded"].as_bool().unwrap_or(false);
        audit.charges += 1;
        audit.refunds += u64::from(refunded);
        match (sold.contains(id), refunded) {
            (false, false) => audit.unsettled += 1,
            (true, true) => audit.sold_and_refunded += 1,
            (true, false) => {
                standing.insert(id);
            }
            (false, true) => {}
        }
    }
    audit.sales_without_charge = sales
        .iter()
        .filter(|id| !standing.contains(id.as_str()))
        .count() as u64
        - audit.sold_and_refunded;
    Ok(audit)
}
