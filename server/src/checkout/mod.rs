//! Checkout: `POST /api/holds/{id}/checkout` charges the hold's total through the payment
//! provider ([`provider`]) and, in one transaction, marks the hold purchased, its seats sold,
//! records the sale and the payment's success ([`payments`]). With a provider whose buyer
//! confirms on the page (Stripe), the first answer is what the page must do
//! (`requires_action` and the intent's client secret); the sale is then recorded by whichever
//! comes first of the page's return (the same request again), the provider's signed webhook
//! ([`stripe::webhook`]) and reconciliation, each through the same [`drive`].
//!
//! Invariants: only the hold's owner pays, and only for an active hold. Money is recorded
//! before it moves: a `pending` payment row is written before the provider is called, under
//! the key `<hold>:<attempt>`, and a hold has at most one pending or succeeded payment, so it
//! is charged at most once whatever Idempotency-Keys a client sends; every retry (same key or
//! another) and every concurrent request returns the same order. The sale and the payment's
//! `succeeded` commit together; a charge whose sale is refused (the hold ended) or whose
//! transaction certainly did not commit is refunded in the request; one whose outcome is
//! unknown (the commit's answer lost, the client gone, the instance stopped) stays `pending`
//! and [`reconcile`] settles it: provider charges = sales + refunds. A decline (402) leaves
//! the hold active. The request answers within a bound (`payments_busy_wait_ms` caps waiting
//! out 429s; past it, 503 with Retry-After). No call to the provider happens inside a
//! transaction.

pub mod breaker;
pub mod fake;
pub mod fake_client;
pub mod payments;
pub mod provider;
pub mod reconcile;
pub mod record;
pub mod state;
pub mod stripe;

use std::time::{Duration, Instant};

use crate::extract::HoldId;
use app::wire::{ActionStatus, CheckoutAnswer, HoldStatus, Order, OrderStatus, PaymentAction};
use axum::{
    Json, Router,
    extract::State,
    http::{HeaderMap, Method},
    routing::post,
};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    checkout::state::Checkout,
    error::{Error, Result},
    holds::{self, after_seat_change, idempotency_key},
    queue::device,
    redis::Counter,
    responses::{NoHold, RateLimited, Session},
    tokens::Buyer,
};
use payments::{Claimed, PaymentRow, SettleError, Settled};
use provider::{Charge, Started};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Checkout: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/api/holds/{hold_id}/checkout", post(checkout))
        .route(
            "/api/payments/stripe/webhook",
            post(stripe::webhook::receive),
        )
}

/// How often a request waiting on another request's payment of the same hold looks again.
const BUSY_POLL: Duration = Duration::from_millis(50);

/// Rounds of claim and drive one request makes at most (a new attempt after a payment that
/// another party ended without a sale).
const MAX_ROUNDS: usize = 3;

#[utoipa::path(
    post,
    path = "/api/holds/{hold_id}/checkout",
    tag = "checkout",
    summary = "Pay for a hold (charged at most once)",
    params(("hold_id" = String, Path, description = "The hold's id"), ("Idempotency-Key" = String, Header, description = "The client's key for this attempt")),
    security(("session" = [])),
    responses(
        (status = 200, description = "Confirmed, or (Stripe) what the page must do first", body = app::wire::CheckoutAnswer),
        (status = 400, description = "No Idempotency-Key, or a bad one", body = app::wire::ErrorBody),
        (status = 402, description = "payment_declined", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: the hold is not active", body = app::wire::ErrorBody),
        Session, NoHold, RateLimited,
    )
)]
async fn checkout(
    State(state): State<Checkout>,
    buyer: Buyer,
    HoldId(hold_id): HoldId,
    headers: HeaderMap,
) -> Result<Json<CheckoutAnswer>> {
    let key = idempotency_key(&headers)?;
    let path = format!("/api/holds/{}/checkout", hold_id.as_str());
    pay(
        &state,
        &hold_id,
        &buyer.id,
        &key,
        (&Method::POST, &path),
        &headers,
    )
    .await
    .map(Json)
}

/// Pays `buyer`'s hold `hold_id` (at most once, whatever `key`): the one path of `POST
/// /api/holds/{id}/checkout` and of the event page's pay form. In a room that binds tokens
/// the `request` (method and path, and its `headers`) must prove the place's device
/// (`queue::device::prove_owner`) before any money moves.
pub async fn pay(
    state: &Checkout,
    hold_id: &app::wire::HoldId,
    buyer: &app::wire::BuyerId,
    key: &str,
    request: (&Method, &str),
    headers: &HeaderMap,
) -> Result<CheckoutAnswer> {
    let mut proven = false;
    let config = &state.config;
    let answer_by = Instant::now()
        + Duration::from_millis(
            u64::from(config.checkout_wait_ms)
                + u64::from(config.payments_busy_wait_ms)
                + u64::from(config.payments_timeout_ms),
        );
    for _ in 0..MAX_ROUNDS {
        if let Some(order) = find_order(&state.db, hold_id, buyer).await? {
            return Ok(CheckoutAnswer::Order(order));
        }
        let hold = holds::load(&state.db, hold_id, buyer).await?;
        if !proven {
            let event_id = app::wire::EventId::from(hold.event_id.clone());
            let room = state.rooms.get(&state.db, &event_id).await?;
            device::prove_owner(state, &room, buyer, &event_id, request, headers).await?;
            proven = true;
        }
        if hold.status != HoldStatus::Active {
            return Err(Error::Conflict(format!(
                "this hold is {}; hold the seats again",
                serde_json::to_value(hold.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            )));
        }
        let claim_for = payments::request_bound(config);
        match payments::claim(&state.db, &hold, buyer, key, claim_for).await? {
            Claimed::Paid => continue,
            Claimed::Busy(id) => {
                if let Some(answer) = wait_for(&state.db, id, answer_by).await? {
                    return answer.map(CheckoutAnswer::Order);
                }
            }
            Claimed::Drive(payment) => {
                if let Some(answer) = drive(state, &payment, hold.expires_at).await {
                    return answer;
                }
            }
        }
    }
    Err(in_progress())
}

fn in_progress() -> Error {
    Error::Unavailable {
        message: "your payment for this hold is being confirmed; ask again in a moment".into(),
        retry_after_secs: 1,
    }
}

/// Waits for another party's payment `id` to end: `None` when it ended without a sale, or was
/// handed back (the page confirms it with the provider), and the caller should look again,
/// else the answer.
async fn wait_for(db: &PgPool, id: i64, answer_by: Instant) -> Result<Option<Result<Order>>> {
    loop {
        let (state, free) = payments::state_of(db, id).await?;
        match state.as_str() {
            "pending" if free => return Ok(None),
            "pending" if Instant::now() + BUSY_POLL < answer_by => {
                tokio::time::sleep(BUSY_POLL).await
            }
            "pending" => return Ok(Some(Err(in_progress()))),
            "declined" => return Ok(Some(Err(Error::PaymentDeclined))),
            // Succeeded: the order is found on the next round; refunded or failed: the hold
            // is looked at again.
            _ => return Ok(None),
        }
    }
}

/// Drives a claimed payment: pay, then the sale transaction, or a refund, or (Stripe) the
/// intent's secret for the page with the claim handed back. `None` when the payment turned out
/// to have ended already (a new attempt is due). 429s are waited out until `until` at most
/// (the hold's end) and `payments_busy_wait_ms`.
async fn drive(
    state: &Checkout,
    payment: &PaymentRow,
    until: DateTime<Utc>,
) -> Option<Result<CheckoutAnswer>> {
    let db = &state.db;
    let busy_until =
        Utc::now() + chrono::Duration::milliseconds(i64::from(state.config.payments_busy_wait_ms));
    let started = state
        .payments
        .pay(payment, busy_until.min(until), &state.metrics)
        .await;
    let charge_id = match started {
        Err(e) => {
            // Maybe charged (a timeout), maybe not (a 429, the breaker): pending, and a retry
            // drives the same key at once.
            hand_back(db, payment).await;
            return Some(Err(e));
        }
        Ok(Started::Confirm {
            reference,
            client_secret,
        }) => return Some(confirm_on_page(state, payment, &reference, client_secret).await),
        Ok(Started::Closed) => {
            let ended =
                payments::end(db, payment.id, "failed", Some("closed at the provider")).await;
            return ended.err().map(Err);
        }
        Ok(Started::Charge(Charge::Open)) => {
            hand_back(db, payment).await;
            return Some(Err(in_progress()));
        }
        Ok(Started::Charge(Charge::Declined)) => {
            state
                .metrics
                .checkouts
                .with_label_values(&["declined"])
                .inc();
            if let Err(e) = payments::end(db, payment.id, "declined", None).await {
                return Some(Err(e));
            }
            return Some(Err(Error::PaymentDeclined));
        }
        Ok(Started::Charge(Charge::Succeeded { refunded: true, .. })) => {
            // An earlier request refunded it and could not record that.
            let ended = payments::end(db, payment.id, "refunded", Some("refunded earlier")).await;
            return ended.err().map(Err);
        }
        Ok(Started::Charge(Charge::Succeeded { charge_id, .. })) => charge_id,
    };
    sell(state, payment, &charge_id)
        .await
        .map(|r| r.map(CheckoutAnswer::Order))
}

/// The page confirms the payment with the provider: its reference recorded first (else the
/// secret does not leave us), the claim handed back so the page's return drives it again, and
/// reconciliation told to look again only after a while.
async fn confirm_on_page(
    state: &Checkout,
    payment: &PaymentRow,
    reference: &str,
    client_secret: String,
) -> Result<CheckoutAnswer> {
    let recorded = payments::record_reference(&state.db, payment.id, reference).await;
    if let Err(e) = recorded {
        hand_back(&state.db, payment).await;
        return Err(e);
    }
    let later = Utc::now() + chrono::Duration::from_std(reconcile::LOOK_AGAIN).unwrap_or_default();
    if let Err(e) = payments::look_again(&state.db, payment.id, later).await {
        tracing::warn!(payment = payment.id, error = %e, "could not put off reconciliation");
    }
    hand_back(&state.db, payment).await;
    Ok(CheckoutAnswer::Action(PaymentAction {
        status: ActionStatus::RequiresAction,
        client_secret,
        payment_id: payment.id.to_string(),
    }))
}

/// The sale of a charged payment, or its refund when the hold is gone. `None` when the payment
/// had ended already.
async fn sell(state: &Checkout, payment: &PaymentRow, charge_id: &str) -> Option<Result<Order>> {
    let db = &state.db;
    match payments::settle(db, payment, charge_id).await {
        Ok(Settled::Sold { order, event_id }) => {
            state.metrics.checkouts.with_label_values(&["ok"]).inc();
            after_seat_change(state, &event_id, Counter::Checkouts).await;
            Some(Ok(order))
        }
        Ok(Settled::Ended(_)) => None,
        Ok(Settled::HoldGone) => Some(
            match refund(
                state,
                payment,
                charge_id,
                "the hold ended while the payment ran",
            )
            .await
            {
                Ok(()) => Err(Error::Conflict(
                    "your hold ended while the payment ran; the charge was refunded".into(),
                )),
                Err(e) => Err(e),
            },
        ),
        Err(SettleError::NotCommitted(e)) => {
            tracing::warn!(payment = payment.id, error = %e, "the sale could not be recorded: refunding");
            Some(
                match refund(state, payment, charge_id, "the sale could not be recorded").await {
                    Ok(()) => Err(Error::Unavailable {
                        message: "your purchase could not be recorded and the charge was \
                                  refunded; your seats are still held, try again"
                            .into(),
                        retry_after_secs: 1,
                    }),
                    Err(e) => Err(e),
                },
            )
        }
        Err(SettleError::Unknown(e)) => {
            tracing::warn!(payment = payment.id, error = %e, "the sale's commit has no answer: left pending");
            hand_back(db, payment).await;
            Some(Err(in_progress()))
        }
    }
}

/// Settles payment `id` now, as the buyer's request would, if it is pending and nobody drives
/// it (the provider's webhook says it took the money). Whoever drives it otherwise, or
/// reconciliation, settles it.
pub async fn settle_now(state: &Checkout, id: i64) -> Result<()> {
    let claim_for = payments::request_bound(&state.config);
    let Some(payment) = payments::claim_one(&state.db, id, claim_for).await? else {
        return Ok(());
    };
    let until = Utc::now() + chrono::Duration::from_std(claim_for).unwrap_or_default();
    match drive(state, &payment, until).await {
        // Sold, refunded (the hold had ended), declined, or still open: each recorded.
        None | Some(Ok(_)) => Ok(()),
        Some(Err(Error::PaymentDeclined | Error::Conflict(_) | Error::Unavailable { .. })) => {
            Ok(())
        }
        Some(Err(e)) => Err(e),
    }
}

/// Refunds a charge whose sale will not be recorded and ends the payment `refunded`. If
/// either step fails the payment stays pending and reconciliation finishes it.
async fn refund(state: &Checkout, payment: &PaymentRow, charge_id: &str, why: &str) -> Result<()> {
    let refunded = state.payments.refund(charge_id).await;
    if let Err(e) = refunded {
        tracing::warn!(payment = payment.id, error = %e, "refund failed: left for reconciliation");
        hand_back(&state.db, payment).await;
        return Err(in_progress());
    }
    state
        .metrics
        .checkouts
        .with_label_values(&["refunded"])
        .inc();
    if let Err(e) = payments::end(&state.db, payment.id, "refunded", Some(why)).await {
        tracing::warn!(payment = payment.id, error = %e, "a refund could not be recorded: reconciliation will");
    }
    Ok(())
}

/// Hands a pending payment back; if Postgres cannot take even that, its claim runs out.
async fn hand_back(db: &PgPool, payment: &PaymentRow) {
    if let Err(e) = payments::release(db, payment.id).await {
        tracing::warn!(payment = payment.id, error = %e, "could not hand a pending payment back");
    }
}

/// The order already made for this hold of this buyer, if any.
pub async fn find_order(db: &PgPool, hold_id: &str, buyer: &str) -> Result<Option<Order>> {
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

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(checkout))]
pub struct Api;
