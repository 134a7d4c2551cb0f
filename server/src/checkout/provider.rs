//! The payment provider: one trait, [`Provider`], for what checkout needs of any provider (pay
//! for a payment record under its idempotency key, look it up, make sure it can no longer be
//! charged, refund), with two implementations: the fake Anteroom ships
//! ([`super::fake_client`]) and Stripe ([`super::stripe`]), chosen by `ANTEROOM_PAYMENTS`.
//!
//! [`Payments`] wraps whichever provider runs, so the guarantees are the same for both: every
//! payment call passes a bulkhead (at most `checkout_concurrency` calls in flight per instance;
//! a full bulkhead waits a bounded time, then 503), the provider's own timeout and the circuit
//! breaker. A 429 is honoured: the call waits its Retry-After and is made again with the same
//! idempotency key (so the provider charges once) until the deadline its caller gives
//! (`payments_busy_wait_ms` and the hold's life), then answers 503. Look-ups, closes and refunds
//! (what reconciliation asks) bypass the bulkhead: they are rare, and they must not wait behind
//! the very payments whose answers went missing.

use std::time::Duration;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use tokio::sync::Semaphore;

use super::{breaker::Breaker, record::PaymentRow};
use crate::{config::Config, error::Error, telemetry::metrics::Metrics};

/// What the provider says of a payment's money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Charge {
    /// Taken; `refunded` when it has since been given back. `charge_id` is what a refund names.
    Succeeded {
        charge_id: String,
        refunded: bool,
    },
    Declined,
    /// Not taken yet, and it may still be: the buyer's page is confirming it with the provider.
    Open,
}

/// The answer to [`Provider::pay`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Started {
    /// The provider decided (the fake charges at once; Stripe, an intent already settled).
    /// `Charge::Open` only while the provider is still processing it.
    Charge(Charge),
    /// The buyer's page confirms the payment with the provider (Stripe.js and its frames):
    /// `reference` is the provider's id of it, recorded before `client_secret` leaves us.
    Confirm {
        reference: String,
        client_secret: String,
    },
    /// The provider's payment under this record was closed without a charge: the record ends
    /// and a new attempt may start.
    Closed,
}

/// Why a provider call has no answer.
#[derive(Debug, Clone)]
pub enum Failure {
    /// 429: busy, not failing. Ask again after this long, with the same key.
    Busy(Duration),
    /// No answer, a timeout or a 5xx: maybe done, maybe not (the breaker counts it).
    Down(String),
    /// An answer that makes no sense for the request (a 4xx we did not expect).
    Refused(String),
}

/// What checkout needs of a payment provider. Every call is safe to repeat: `pay` under the
/// same record's key is one payment at the provider, whatever the number of calls.
#[async_trait]
pub trait Provider: Send + Sync {
    /// Pays for `payment` or says where it stands: charged at once, to be confirmed by the
    /// buyer's page, or closed. `payment.provider_ref`, when recorded, names what an earlier
    /// call started.
    async fn pay(&self, payment: &PaymentRow) -> Result<Started, Failure>;
    /// What became of `payment` at the provider: `None` when no money was or can ever be taken
    /// under it.
    async fn lookup(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure>;
    /// Makes sure nothing more can be charged under `payment` (Stripe cancels its intent) and
    /// says what was taken before that: `None` when nothing.
    async fn close(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure>;
    /// Gives a charge back. Refunding a refunded charge again is no error.
    async fn refund(&self, charge_id: &str) -> Result<(), Failure>;
}

pub struct Payments {
    provider: Box<dyn Provider>,
    /// Limits calls in flight, so a slow provider costs these slots and nothing else.
    bulkhead: Semaphore,
    bulkhead_wait: Duration,
    breaker: Breaker,
}

fn unavailable(message: &str, retry_after: Duration) -> Error {
    Error::Unavailable {
        message: message.to_owned(),
        retry_after_secs: retry_after.as_secs().max(1),
    }
}

/// A failure of a call outside checkout's request (reconciliation, a webhook): an error to log.
fn internal(what: &str, failure: Failure) -> Error {
    Error::Internal(format!("{what}: {failure:?}"))
}

impl Payments {
    pub fn new(provider: Box<dyn Provider>, config: &Config) -> Self {
        Self {
            provider,
            bulkhead: Semaphore::new(config.checkout_concurrency as usize),
            bulkhead_wait: Duration::from_millis(u64::from(config.checkout_wait_ms)),
            breaker: Breaker::new(
                config.breaker_failures,
                Duration::from_millis(u64::from(config.breaker_open_ms)),
            ),
        }
    }

    pub fn breaker_open(&self) -> bool {
        self.breaker.is_open()
    }

    /// Pays for `payment` (see [`Provider::pay`]), retrying after 429s until `deadline`.
    #[tracing::instrument(name = "provider pay", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn pay(
        &self,
        payment: &PaymentRow,
        deadline: DateTime<Utc>,
        metrics: &Metrics,
    ) -> Result<Started, Error> {
        loop {
            if let Err(wait) = self.breaker.allow() {
                metrics.checkouts.with_label_values(&["breaker_open"]).inc();
                return Err(unavailable(
                    "payments are briefly unavailable; your seats stay held, try again shortly",
                    wait,
                ));
            }
            let permit = tokio::time::timeout(self.bulkhead_wait, self.bulkhead.acquire())
                .await
                .map_err(|_| {
                    unavailable(
                        "checkout is busy; try again in a moment",
                        Duration::from_secs(1),
                    )
                })?
                .expect("the bulkhead is never closed");
            let answer = self.provider.pay(payment).await;
            drop(permit);
            match answer {
                Ok(started) => {
                    self.breaker.success();
                    return Ok(started);
                }
                Err(Failure::Busy(wait)) => {
                    // The provider is healthy, only busy: not a breaker failure.
                    self.breaker.success();
                    metrics.checkouts.with_label_values(&["provider_429"]).inc();
                    if Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default() >= deadline
                    {
                        return Err(unavailable(
                            "the payment provider is busy and your hold is about to end",
                            wait,
                        ));
                    }
                    tokio::time::sleep(wait).await;
                }
                Err(Failure::Down(e)) => {
                    self.breaker.failure();
                    tracing::warn!(error = %e, "payment provider call failed");
                    return Err(unavailable(
                        "the payment provider did not answer; try again",
                        Duration::from_secs(1),
                    ));
                }
                Err(Failure::Refused(e)) => {
                    self.breaker.success();
                    return Err(Error::Internal(format!(
                        "the payment provider refused: {e}"
                    )));
                }
            }
        }
    }

    /// What the provider has of `payment` (see [`Provider::lookup`]).
    #[tracing::instrument(name = "provider lookup", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn lookup(&self, payment: &PaymentRow) -> Result<Option<Charge>, Error> {
        let key = &payment.provider_key;
        self.provider
            .lookup(payment)
            .await
            .map_err(|f| internal(&format!("looking up payment {key}"), f))
    }

    /// Closes `payment` at the provider (see [`Provider::close`]).
    #[tracing::instrument(name = "provider close", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn close(&self, payment: &PaymentRow) -> Result<Option<Charge>, Error> {
        let key = &payment.provider_key;
        self.provider
            .close(payment)
            .await
            .map_err(|f| internal(&format!("closing payment {key}"), f))
    }

    /// Refunds a charge (a hold that ended while its payment ran, a sale that could not be
    /// recorded).
    #[tracing::instrument(name = "provider refund", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn refund(&self, charge_id: &str) -> Result<(), Error> {
        self.provider
            .refund(charge_id)
            .await
            .map_err(|f| internal(&format!("refund of {charge_id}"), f))
    }
}

/// A Retry-After header's wait (seconds, fractions allowed), bounded; 1 s when absent.
pub fn retry_after(response: &reqwest::Response) -> Duration {
    let secs = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(1.0)
        .clamp(0.05, 60.0);
    Duration::from_secs_f64(secs)
}

/// A reqwest error as a [`Failure`]: no answer, so maybe done.
pub fn down(e: reqwest::Error) -> Failure {
    Failure::Down(e.to_string())
}
