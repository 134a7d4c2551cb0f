//! Checkout: `POST /api/holds/{id}/checkout` charges the hold's total through the payment
//! provider ([`provider`]) and, in one transaction, marks the hold purchased, its seats sold and
//! records the sale.
//!
//! Invariants: only the hold's owner pays, and only for an active hold; one payment at a time
//! per hold (a `Lock` for the call's duration); the provider's idempotency key is the hold
//! and the buyer's Idempotency-Key, so a retry never charges twice and the same key returns the
//! same order; a decline (402) leaves the hold active; a hold that ended while its payment ran
//! is refunded and answered 409; no call to the provider happens inside a transaction.

pub mod breaker;
pub mod fake;
pub mod provider;

use crate::extract::HoldId;
use app::wire::{HoldStatus, Order, OrderStatus};
use axum::{Json, Router, extract::State, http::HeaderMap, routing::post};
use chrono::Utc;
use sqlx::PgPool;
use std::time::Duration;

use crate::{
    error::{Error, Result},
    holds::{self, after_seat_change, idempotency_key},
    redis::{Counter, Lock},
    sql::Text,
    state::AppState,
    tokens::Buyer,
};
use provider::Charge;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/holds/{hold_id}/checkout", post(checkout))
}

async fn checkout(
    State(state): State<AppState>,
    buyer: Buyer,
    HoldId(hold_id): HoldId,
    headers: HeaderMap,
) -> Result<Json<Order>> {
    let key = idempotency_key(&headers)?;
    if let Some(order) = find_order(&state.db, &hold_id, &buyer.id).await? {
        return Ok(Json(order));
    }
    let hold = holds::load(&state.db, &hold_id, &buyer.id).await?;
    if hold.status != HoldStatus::Active {
        return Err(Error::Conflict(format!(
            "this hold is {}; hold the seats again",
            serde_json::to_value(hold.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        )));
    }
    let lock = Lock::new(state.keys.checkout_lock(&hold.event_id, &hold_id));
    let lease = (hold.expires_at - Utc::now())
        .to_std()
        .unwrap_or_default()
        .max(Duration::from_secs(1));
    if !lock.acquire(&state.redis, lease).await? {
        return Err(Error::Conflict(
            "a payment for this hold is already in progress".into(),
        ));
    }
    let outcome = pay(&state, &hold, &buyer.id, &key).await;
    // A release that fails leaves the lock to its lease; the payment's outcome stands.
    let _ = lock.release(&state.redis).await;
    outcome.map(Json)
}

async fn pay(state: &AppState, hold: &app::wire::Hold, buyer: &str, key: &str) -> Result<Order> {
    let provider_key = format!("{}:{key}", hold.hold_id);
    let charge = state
        .payments
        .charge(
            &provider_key,
            hold.total_cents,
            hold.expires_at,
            &state.metrics,
        )
        .await?;
    let Charge::Succeeded { charge_id } = charge else {
        state
            .metrics
            .checkouts
            .with_label_values(&["declined"])
            .inc();
        return Err(Error::PaymentDeclined);
    };
    match confirm(&state.db, &hold.hold_id, buyer, key, &charge_id).await? {
        Some(order) => {
            state.metrics.checkouts.with_label_values(&["ok"]).inc();
            after_seat_change(state, &hold.event_id, Counter::Checkouts).await;
            Ok(order)
        }
        None => {
            state.payments.refund(&charge_id).await?;
            state
                .metrics
                .checkouts
                .with_label_values(&["refunded"])
                .inc();
            Err(Error::Conflict(
                "your hold ended while the payment ran; the charge was refunded".into(),
            ))
        }
    }
}

/// The sale transaction: if the hold is still active, it becomes purchased, its seats sold,
/// and the order is recorded. `None` if the hold ended meanwhile (the caller refunds).
async fn confirm(
    db: &PgPool,
    hold_id: &str,
    buyer: &str,
    key: &str,
    charge_id: &str,
) -> Result<Option<Order>> {
    let mut tx = db.begin().await?;
    let row: Option<(String, Text<HoldStatus>, bool, i64)> = sqlx::query_as(
        "select event_id, status, expires_at > now(), total_cents from hold \
         where id = $1 and buyer_id = $2 for update",
    )
    .bind(hold_id)
    .bind(buyer)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((event_id, Text(status), alive, total_cents)) = row else {
        return Ok(None);
    };
    if status != HoldStatus::Active || !alive {
        return Ok(None);
    }
    let order_id = format!("ord_{}", ids::random_id(9));
    sqlx::query("update hold set status = 'purchased', updated_at = now() where id = $1")
        .bind(hold_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "update seat set status = 'sold', version = version + 1, updated_at = now() \
         where hold_id = $1 and status = 'held'",
    )
    .bind(hold_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into sale (id, hold_id, event_id, buyer_id, total_cents, payment_id, idempotency_key) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&order_id)
    .bind(hold_id)
    .bind(&event_id)
    .bind(buyer)
    .bind(total_cents)
    .bind(charge_id)
    .bind(key)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(Order {
        order_id,
        hold_id: hold_id.to_owned(),
        status: OrderStatus::Confirmed,
        total_cents,
    }))
}

/// The order already made for this hold of this buyer, if any.
async fn find_order(db: &PgPool, hold_id: &str, buyer: &str) -> Result<Option<Order>> {
    let row: Option<(String, i64)> =
        sqlx::query_as("select id, total_cents from sale where hold_id = $1 and buyer_id = $2")
            .bind(hold_id)
            .bind(buyer)
            .fetch_optional(db)
            .await?;
    Ok(row.map(|(order_id, total_cents)| Order {
        order_id,
        hold_id: hold_id.to_owned(),
        status: OrderStatus::Confirmed,
        total_cents,
    }))
}
