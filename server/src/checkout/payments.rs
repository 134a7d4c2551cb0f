//! The payment record: one `payment` row per attempt to pay for a hold, written `pending`
//! before the provider is called, so no money moves that no table knows of.
//!
//! Invariants (DESIGN.md, Payments): the provider's idempotency key is `<hold>:<attempt>`,
//! never the client's header, and at most one payment of a hold is `pending` or `succeeded`
//! (a partial unique index), so a hold is charged at most once whatever keys a client sends;
//! a new attempt starts only after the last one ended without a sale (declined, refunded,
//! failed). The sale and the payment's `succeeded` commit in one transaction ([`settle`]),
//! which checks that the payment is still pending, so two parties settling one payment (a
//! retry and reconciliation) record one sale at most. A pending payment is driven by one party
//! at a time: whoever holds its claim (`claimed_until`).

use std::time::Duration;

use app::wire::{HoldStatus, Order, OrderStatus, PaymentCounts, PaymentEntry, Payments};
use axum::{Json, extract::State};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    checkout::state::Checkout, config::Config, error::Result, events, extract::EventId, ids,
    responses::NoEvent, sql::Text,
};

/// The states of a payment, as stored.
pub const STATES: [&str; 5] = ["pending", "succeeded", "declined", "refunded", "failed"];

pub use super::record::{PaymentRow, ROW};

/// The longest a checkout request can drive its payment: a bulkhead slot, the provider's 429s,
/// the charge, the sale transaction and a refund. Its claim lasts this long, so nobody else
/// touches the payment while the request may still act on it.
pub fn request_bound(config: &Config) -> Duration {
    let ms = u64::from(config.checkout_wait_ms)
        + u64::from(config.payments_busy_wait_ms)
        + 2 * u64::from(config.payments_timeout_ms)
        + 2 * config.db_acquire_timeout_ms
        + 5_000;
    Duration::from_millis(ms)
}

/// What [`claim`] found for a hold.
pub enum Claimed {
    /// This request now drives the payment (a new attempt, or a pending one nobody drives).
    Drive(PaymentRow),
    /// Another request drives the hold's pending payment: wait for it to end.
    Busy(i64),
    /// The hold is already paid.
    Paid,
}

/// Takes the hold's payment for `claim_for`: the pending one nobody drives, else a new
/// attempt if none is pending or succeeded.
#[tracing::instrument(name = "postgres payment claim", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "payment claim"))]
pub async fn claim(
    db: &PgPool,
    hold: &app::wire::Hold,
    buyer: &str,
    key: &str,
    claim_for: Duration,
) -> Result<Claimed> {
    let secs = claim_for.as_secs_f64();
    // A few turns at most: each one that finds nothing lost a race to a row the next finds.
    for _ in 0..5 {
        let taken: Option<PaymentRow> = sqlx::query_as(&format!(
            "update payment set claimed_until = now() + make_interval(secs => $2), \
                 updated_at = now() \
             where hold_id = $1 and state = 'pending' and claimed_until <= now() returning {ROW}"
        ))
        .bind(&hold.hold_id)
        .bind(secs)
        .fetch_optional(db)
        .await?;
        if let Some(row) = taken {
            return Ok(Claimed::Drive(row));
        }
        let live: Option<(i64, String)> = sqlx::query_as(
            "select id, state from payment where hold_id = $1 and state in ('pending', 'succeeded')",
        )
        .bind(&hold.hold_id)
        .fetch_optional(db)
        .await?;
        match live {
            Some((_, state)) if state == "succeeded" => return Ok(Claimed::Paid),
            Some((id, _)) => return Ok(Claimed::Busy(id)),
            None => {}
        }
        // A new attempt; a concurrent request may insert first (either unique index), and
        // then this one finds its payment on the next turn.
        let inserted: Option<PaymentRow> = sqlx::query_as(&format!(
            "insert into payment (hold_id, event_id, buyer_id, attempt, provider_key, amount_cents, \
                 idempotency_key, claimed_until, currency) \
             select h.id, h.event_id, h.buyer_id, n, h.id || ':' || n, h.total_cents, $3, \
                 now() + make_interval(secs => $4), e.currency \
             from hold h join event e on e.id = h.event_id, \
                  (select coalesce(max(attempt), 0) + 1 as n from payment where hold_id = $1) a \
             where h.id = $1 and h.buyer_id = $2 \
             on conflict do nothing returning {ROW}"
        ))
        .bind(&hold.hold_id)
        .bind(buyer)
        .bind(key)
        .bind(secs)
        .fetch_optional(db)
        .await?;
        if let Some(row) = inserted {
            return Ok(Claimed::Drive(row));
        }
    }
    Err(crate::error::Error::Internal(format!(
        "no payment could be claimed for hold {}",
        hold.hold_id
    )))
}

/// Hands a pending payment back (its request is done with it without an outcome), so that a
/// retry may drive it at once.
#[tracing::instrument(name = "postgres payment release", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "payment release"))]
pub async fn release(db: &PgPool, id: i64) -> Result<()> {
    sqlx::query(
        "update payment set claimed_until = now(), updated_at = now() \
         where id = $1 and state = 'pending'",
    )
    .bind(id)
    .execute(db)
    .await?;
    Ok(())
}

/// Takes payment `id` for `claim_for` if it is pending and nobody drives it (a webhook's
/// news of it): `None` otherwise, and whoever drives it, or reconciliation, settles it.
pub async fn claim_one(db: &PgPool, id: i64, claim_for: Duration) -> Result<Option<PaymentRow>> {
    Ok(sqlx::query_as(&format!(
        "update payment set claimed_until = now() + make_interval(secs => $2), \
             updated_at = now() \
         where id = $1 and state = 'pending' and claimed_until <= now() returning {ROW}"
    ))
    .bind(id)
    .bind(claim_for.as_secs_f64())
    .fetch_optional(db)
    .await?)
}

/// The pending payment whose provider reference is `reference`, if any.
pub async fn by_reference(db: &PgPool, reference: &str) -> Result<Option<i64>> {
    Ok(
        sqlx::query_scalar("select id from payment where provider_ref = $1 and state = 'pending'")
            .bind(reference)
            .fetch_optional(db)
            .await?,
    )
}

/// Records what the provider started for a pending payment (before the buyer's page hears
/// of it). Recording the same reference again is no change.
pub async fn record_reference(db: &PgPool, id: i64, reference: &str) -> Result<()> {
    let done = sqlx::query(
        "update payment set provider_ref = $2, updated_at = now() \
         where id = $1 and state = 'pending' and (provider_ref is null or provider_ref = $2)",
    )
    .bind(id)
    .bind(reference)
    .execute(db)
    .await?;
    if done.rows_affected() == 1 {
        Ok(())
    } else {
        Err(crate::error::Error::Internal(format!(
            "payment {id} is not pending or names another provider payment than {reference}"
        )))
    }
}

/// Reconciliation looks at pending payment `id` again no sooner than `at` (the provider holds it
/// open for the buyer's page, which returns, or the webhook comes, long before). The buyer's
/// own retries are not held back by it.
pub async fn look_again(db: &PgPool, id: i64, at: DateTime<Utc>) -> Result<()> {
    sqlx::query(
        "update payment set look_after = $2, updated_at = now() where id = $1 and state = 'pending'",
    )
    .bind(id)
    .bind(at)
    .execute(db)
    .await?;
    Ok(())
}

/// Ends a pending payment without a sale (`declined`, `refunded`, `failed`). False if it was
/// not pending any more.
#[tracing::instrument(name = "postgres payment end", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "payment end"))]
pub async fn end(db: &PgPool, id: i64, state: &str, note: Option<&str>) -> Result<bool> {
    let done = sqlx::query(
        "update payment set state = $2, note = $3, updated_at = now() \
         where id = $1 and state = 'pending'",
    )
    .bind(id)
    .bind(state)
    .bind(note)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The outcome of [`settle`].
pub enum Settled {
    /// The sale is recorded (now, or by whoever settled the payment first).
    Sold { order: Order, event_id: String },
    /// The hold is no longer the buyer's to buy: the charge must be refunded.
    HoldGone,
    /// The payment had already ended without a sale (its state).
    Ended(String),
}

/// Why [`settle`] has no outcome: whether its transaction may have committed matters, since
/// a charge whose sale may be recorded must not be refunded.
pub enum SettleError {
    /// Nothing was committed: refunding is safe.
    NotCommitted(crate::error::Error),
    /// The commit was sent and its answer lost: only the provider and Postgres, asked later,
    /// can say (the payment stays pending).
    Unknown(crate::error::Error),
}

impl From<sqlx::Error> for SettleError {
    fn from(e: sqlx::Error) -> Self {
        SettleError::NotCommitted(e.into())
    }
}

impl From<crate::error::Error> for SettleError {
    fn from(e: crate::error::Error) -> Self {
        SettleError::NotCommitted(e)
    }
}

/// The sale transaction: if the payment is still pending, its hold still the buyer's and
/// active, and every one of the hold's seats still held by it (locked here, so nobody takes
/// them before the commit), the hold becomes purchased, its seats sold, the sale recorded and
/// the payment `succeeded` with `charge_id`, all in one commit. Otherwise [`Settled::HoldGone`]:
/// the charge is refunded and no sale records seats the buyer does not get.
#[tracing::instrument(name = "postgres payment settle", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "payment settle"))]
pub async fn settle(
    db: &PgPool,
    payment: &PaymentRow,
    charge_id: &str,
) -> Result<Settled, SettleError> {
    let mut tx = db.begin().await?;
    let state: Option<String> =
        sqlx::query_scalar("select state from payment where id = $1 for update")
            .bind(payment.id)
            .fetch_optional(&mut *tx)
            .await?;
    let state = state.unwrap_or_else(|| "failed".into());
    if state == "succeeded" {
        drop(tx);
        return match find_order(db, &payment.hold_id).await? {
            Some(sold) => Ok(sold),
            None => Ok(Settled::Ended(state)),
        };
    }
    if state != "pending" {
        return Ok(Settled::Ended(state));
    }
    let hold: Option<(String, Text<HoldStatus>, bool, i32)> = sqlx::query_as(
        "select event_id, status, expires_at > now(), seat_count from hold \
         where id = $1 and buyer_id = $2 for update",
    )
    .bind(&payment.hold_id)
    .bind(&payment.buyer_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((event_id, Text(status), alive, seat_count)) = hold else {
        return Ok(Settled::HoldGone);
    };
    if status != HoldStatus::Active || !alive {
        return Ok(Settled::HoldGone);
    }
    // The hold transaction treats an expired hold's seats as free without locking the hold,
    // so the hold row being ours says nothing of its seats: lock them (in id order, as the
    // hold transaction does) and sell only if every one is still this hold's. Once locked, a
    // hold racing for them waits and then finds them sold.
    let locked: Vec<i64> = sqlx::query_scalar(
        "select id from seat where hold_id = $1 and status = 'held' order by id for update",
    )
    .bind(&payment.hold_id)
    .fetch_all(&mut *tx)
    .await?;
    if locked.len() != seat_count.max(0) as usize {
        tracing::warn!(
            payment = payment.id,
            hold = %payment.hold_id,
            seats = seat_count,
            still_held = locked.len(),
            "the hold's seats were taken at its expiry: no sale"
        );
        return Ok(Settled::HoldGone);
    }
    let order_id = format!("ord_{}", ids::random_id(9));
    sqlx::query("update hold set status = 'purchased', updated_at = now() where id = $1")
        .bind(&payment.hold_id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "update seat set status = 'sold', version = version + 1, updated_at = now() \
         where id = any($1)",
    )
    .bind(&locked)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "insert into sale (id, hold_id, event_id, buyer_id, total_cents, payment_id, idempotency_key) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(&order_id)
    .bind(&payment.hold_id)
    .bind(&event_id)
    .bind(&payment.buyer_id)
    .bind(payment.amount_cents)
    .bind(charge_id)
    .bind(&payment.idempotency_key)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "update payment set state = 'succeeded', charge_id = $2, updated_at = now() where id = $1",
    )
    .bind(payment.id)
    .bind(charge_id)
    .execute(&mut *tx)
    .await?;
    tx.commit()
        .await
        .map_err(|e| SettleError::Unknown(e.into()))?;
    Ok(Settled::Sold {
        order: Order {
            order_id,
            hold_id: payment.hold_id.clone(),
            status: OrderStatus::Confirmed,
            total_cents: payment.amount_cents,
        },
        event_id,
    })
}

/// The order of a hold, if it was sold.
async fn find_order(db: &PgPool, hold_id: &str) -> Result<Option<Settled>> {
    let row: Option<(String, i64, String)> =
        sqlx::query_as("select id, total_cents, event_id from sale where hold_id = $1")
            .bind(hold_id)
            .fetch_optional(db)
            .await?;
    Ok(row.map(|(order_id, total_cents, event_id)| Settled::Sold {
        order: Order {
            order_id,
            hold_id: hold_id.to_owned(),
            status: OrderStatus::Confirmed,
            total_cents,
        },
        event_id,
    }))
}

/// The state of one payment, and whether nobody drives it now (its claim has run out).
pub async fn state_of(db: &PgPool, id: i64) -> Result<(String, bool)> {
    Ok(
        sqlx::query_as("select state, claimed_until <= now() from payment where id = $1")
            .bind(id)
            .fetch_one(db)
            .await?,
    )
}

/// Payments by state over every event (for `/metrics`).
pub async fn counts(db: &PgPool) -> Result<Vec<(String, i64)>> {
    Ok(
        sqlx::query_as("select state, count(*) from payment group by state")
            .fetch_all(db)
            .await?,
    )
}

/// Entries listed at most by [`admin_payments`] per list: every refund of a night fits.
const LIST_LIMIT: i64 = 10_000;

#[derive(sqlx::FromRow)]
struct EntryRow {
    id: i64,
    hold_id: String,
    buyer_id: String,
    provider_key: String,
    amount_cents: i64,
    currency: String,
    state: String,
    charge_id: Option<String>,
    note: Option<String>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
}

impl From<EntryRow> for PaymentEntry {
    fn from(r: EntryRow) -> Self {
        PaymentEntry {
            payment_id: r.id.to_string(),
            hold_id: r.hold_id,
            buyer_id: r.buyer_id,
            provider_key: r.provider_key,
            amount_cents: r.amount_cents,
            currency: r.currency,
            state: r.state,
            charge_id: r.charge_id,
            note: r.note,
            created_at: r.created_at,
            updated_at: r.updated_at,
        }
    }
}

/// `GET /api/admin/events/{id}/payments`: the event's payments by state, every refund, and
/// the payments still pending (the ones reconciliation will settle).
/// (Guarded by the admin route's permission, `admin::routes`.)
#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/payments",
    tag = "admin",
    summary = "The event's payments and what reconciliation did",
    params(crate::extract::EventPath),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The payments", body = app::wire::Payments),
        NoEvent,
    )
)]
pub async fn admin_payments(
    State(state): State<Checkout>,
    EventId(event_id): EventId,
) -> Result<Json<Payments>> {
    events::room::get_event(&state.db, &event_id).await?;
    let by_state: Vec<(String, i64)> =
        sqlx::query_as("select state, count(*) from payment where event_id = $1 group by state")
            .bind(&event_id)
            .fetch_all(&state.db)
            .await?;
    let count = |s: &str| {
        by_state
            .iter()
            .find(|(k, _)| k == s)
            .map_or(0, |(_, n)| *n as u64)
    };
    let list = |wanted: &'static str| {
        sqlx::query_as::<_, EntryRow>(
            "select id, hold_id, buyer_id, provider_key, amount_cents, currency, state, charge_id, note, \
                 created_at, updated_at \
             from payment where event_id = $1 and state = $2 order by updated_at desc limit $3",
        )
        .bind(&event_id)
        .bind(wanted)
        .bind(LIST_LIMIT)
        .fetch_all(&state.db)
    };
    let refunds = list("refunded").await?;
    let pending = list("pending").await?;
    Ok(Json(Payments {
        counts: PaymentCounts {
            pending: count("pending"),
            succeeded: count("succeeded"),
            declined: count("declined"),
            refunded: count("refunded"),
            failed: count("failed"),
        },
        refunds: refunds.into_iter().map(PaymentEntry::from).collect(),
        pending: pending.into_iter().map(PaymentEntry::from).collect(),
    }))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(admin_payments))]
pub struct Api;
