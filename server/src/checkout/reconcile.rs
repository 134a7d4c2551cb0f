//! Reconciliation: settles the payments a checkout left `pending` (the commit's answer lost,
//! the client gone, the instance stopped, Postgres unreachable after the charge). It runs at
//! start-up and then every [`PERIOD`], one instance at a time (a Redis lease), and takes only
//! payments nobody drives: pending past their claim by longer than a provider call can take,
//! so no call made for them is still on its way. For each it asks the provider what became
//! of its key and records that: no charge → `failed`; declined → `declined`; refunded →
//! `refunded`; charged → the sale, if the hold is still the buyer's and active (the same
//! transaction as checkout's), else a refund. A payment the buyer's page is still confirming
//! with the provider (Stripe) is left open while its hold lives, looked at again after
//! [`LOOK_AGAIN`], and closed at the provider once the hold has ended, before anything is
//! recorded. Invariant: provider charges = sales + refunds.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use super::{
    payments::{self, PaymentRow, SettleError, Settled},
    provider::Charge,
};
use crate::{
    checkout::state::Checkout,
    error::Result,
    holds::after_seat_change,
    redis::{Counter, Lock},
};

/// How often reconciliation looks for pending payments.
pub const PERIOD: Duration = Duration::from_secs(5);

/// How long a payment the buyer's page is confirming is left before reconciliation asks the
/// provider about it again (the page's return and the webhook settle it first).
pub const LOOK_AGAIN: Duration = Duration::from_secs(60);

/// How long a handled webhook event is remembered: Stripe delivers an event again for up to
/// three days, and a signature older than five minutes is refused anyway.
const EVENTS_KEPT: &str = "3 days";

/// Payments settled in one step at most, so one step stays well inside its lease.
const BATCH: i64 = 50;

/// How long one step may take before another instance may run one: a batch of look-ups and
/// refunds, each bounded by the provider's timeout.
fn lease(state: &Checkout) -> Duration {
    Duration::from_millis(u64::from(state.config.payments_timeout_ms) * 4 + 10_000)
}

/// What one step did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Reconciled {
    /// False when another instance holds the lease (and this step did nothing).
    pub leader: bool,
    pub sold: u64,
    pub refunded: u64,
    pub declined: u64,
    pub failed: u64,
    /// Payments the provider could not be asked about this time (still pending).
    pub skipped: u64,
    /// Payments the buyer's page is still confirming, left open while their hold lives.
    pub open: u64,
}

/// One step at time `now`: settles every payment pending since before `now` minus a call's
/// length (up to [`BATCH`]). Tests pass a `now` in the future instead of sleeping.
pub async fn step(state: &Checkout, now: DateTime<Utc>) -> Result<Reconciled> {
    let lease_for = lease(state);
    let lock = Lock::new(state.keys.reconcile_lock());
    if !lock.acquire(&state.redis, lease_for).await? {
        return Ok(Reconciled::default());
    }
    let outcome = settle_due(state, now, lease_for).await;
    if let Err(e) = lock.release(&state.redis).await {
        tracing::warn!(error = %e, "could not release the reconciliation lease (it runs out)");
    }
    outcome
}

async fn settle_due(
    state: &Checkout,
    now: DateTime<Utc>,
    lease_for: Duration,
) -> Result<Reconciled> {
    let call = chrono::Duration::milliseconds(i64::from(state.config.payments_timeout_ms));
    let claim_until = now + chrono::Duration::from_std(lease_for).unwrap_or_default();
    // Claimed for the lease, so that a retry of the buyer's does not drive them meanwhile.
    let due: Vec<PaymentRow> = sqlx::query_as(&format!(
        "update payment set claimed_until = $3, updated_at = now() where id in ( \
             select id from payment where state = 'pending' and claimed_until < $1 \
                 and (look_after is null or look_after <= $4) \
             order by id limit $2 for update skip locked) \
         returning {}",
        payments::ROW
    ))
    .bind(now - call)
    .bind(BATCH)
    .bind(claim_until)
    .bind(now)
    .fetch_all(&state.db)
    .await?;
    let forgotten =
        format!("delete from stripe_event where received_at < now() - interval '{EVENTS_KEPT}'");
    if let Err(e) = sqlx::query(&forgotten).execute(&state.db).await {
        tracing::warn!(error = %e, "could not forget old webhook events");
    }
    let mut done = Reconciled {
        leader: true,
        ..Reconciled::default()
    };
    for payment in &due {
        if let Err(e) = settle_one(state, payment, now, &mut done).await {
            done.skipped += 1;
            tracing::warn!(payment = payment.id, error = %e, "reconciliation could not settle a payment");
        }
    }
    if due.len() as u64 > done.skipped {
        tracing::info!(?done, "payments reconciled");
    }
    Ok(done)
}

async fn settle_one(
    state: &Checkout,
    payment: &PaymentRow,
    now: DateTime<Utc>,
    done: &mut Reconciled,
) -> Result<()> {
    let db = &state.db;
    let mut charge = state.payments.lookup(payment).await?;
    if matches!(charge, Some(Charge::Open | Charge::Declined)) {
        if charge == Some(Charge::Open) && hold_lives(db, payment, now).await? {
            // The buyer's page may still confirm it: asked again later.
            let later = now + chrono::Duration::from_std(LOOK_AGAIN).unwrap_or_default();
            payments::look_again(db, payment.id, later).await?;
            payments::release(db, payment.id).await?;
            done.open += 1;
            return Ok(());
        }
        // Nothing more may be taken under it before its end is recorded.
        charge = state.payments.close(payment).await?;
    }
    let charge_id = match charge {
        None => {
            payments::end(db, payment.id, "failed", Some("the provider has no charge")).await?;
            done.failed += 1;
            return Ok(());
        }
        Some(Charge::Declined) => {
            payments::end(db, payment.id, "declined", None).await?;
            done.declined += 1;
            return Ok(());
        }
        Some(Charge::Open) => {
            // Still processing at the provider: the next step asks again.
            payments::release(db, payment.id).await?;
            done.skipped += 1;
            return Ok(());
        }
        Some(Charge::Succeeded { refunded: true, .. }) => {
            payments::end(db, payment.id, "refunded", Some("refunded at the provider")).await?;
            done.refunded += 1;
            return Ok(());
        }
        Some(Charge::Succeeded { charge_id, .. }) => charge_id,
    };
    match payments::settle(db, payment, &charge_id).await {
        Ok(Settled::Sold { event_id, .. }) => {
            done.sold += 1;
            after_seat_change(state, &event_id, Counter::Checkouts).await;
        }
        Ok(Settled::Ended(_)) => {}
        Ok(Settled::HoldGone) => {
            state.payments.refund(&charge_id).await?;
            payments::end(
                db,
                payment.id,
                "refunded",
                Some("reconciliation: the hold was no longer the buyer's"),
            )
            .await?;
            done.refunded += 1;
        }
        // The next step asks again (a lost commit answer is found as `succeeded` then).
        Err(SettleError::NotCommitted(e) | SettleError::Unknown(e)) => return Err(e),
    }
    Ok(())
}

/// Whether the payment's hold is still the buyer's to pay for at `now`.
async fn hold_lives(db: &sqlx::PgPool, payment: &PaymentRow, now: DateTime<Utc>) -> Result<bool> {
    Ok(sqlx::query_scalar(
        "select exists (select 1 from hold where id = $1 and buyer_id = $2 \
             and status = 'active' and expires_at > $3)",
    )
    .bind(&payment.hold_id)
    .bind(&payment.buyer_id)
    .bind(now)
    .fetch_one(db)
    .await?)
}

/// Reconciles at start-up, then every [`PERIOD`] until `shutdown`.
pub async fn run(state: Checkout, shutdown: CancellationToken) {
    loop {
        match step(&state, Utc::now()).await {
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "payment reconciliation failed"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(PERIOD) => {}
        }
    }
}
