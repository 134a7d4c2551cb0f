//! The payment provider's client. Every call passes a bulkhead (at most `checkout_concurrency`
//! calls in flight per instance; a full bulkhead waits a bounded time, then 503), a timeout and
//! the circuit breaker. A 429 is honoured: the client waits its Retry-After and tries again
//! with the same idempotency key (so the provider charges once) until the deadline its caller
//! gives (`payments_busy_wait_ms` and the hold's life), then answers 503. Refunds and the
//! look-up by key (what reconciliation asks) bypass the bulkhead: they are rare, and they must
//! not wait behind the very charges whose answers went missing.

use std::time::Duration;

use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::breaker::Breaker;
use crate::{config::Config, error::Error, telemetry::metrics::Metrics};

/// What the provider said about a charge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Charge {
    /// Taken; `refunded` when it has since been given back (a charge looked up again).
    Succeeded {
        charge_id: String,
        refunded: bool,
    },
    Declined,
}

pub struct Payments {
    http: reqwest::Client,
    base: String,
    merchant: String,
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

impl Payments {
    pub fn new(base: String, config: &Config) -> Self {
        Self {
            http: reqwest::Client::builder()
                .timeout(Duration::from_millis(u64::from(config.payments_timeout_ms)))
                .build()
                .expect("a plain HTTP client"),
            base,
            merchant: config.payments_merchant.clone(),
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

    /// Charges `amount_cents` of `currency` (ISO 4217) once for `key`, retrying after 429s
    /// until `deadline`.
    #[tracing::instrument(name = "provider charge", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn charge(
        &self,
        key: &str,
        amount_cents: i64,
        currency: &str,
        deadline: DateTime<Utc>,
        metrics: &Metrics,
    ) -> Result<Charge, Error> {
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
            let sent = self
                .http
                .post(format!("{}/charges", self.base))
                .json(&json!({
                    "amount_cents": amount_cents,
                    "currency": currency,
                    "idempotency_key": key,
                    "merchant": self.merchant,
                }))
                .send()
                .await;
            drop(permit);
            let response = match sent {
                Ok(r) => r,
                Err(e) => {
                    self.breaker.failure();
                    tracing::warn!(error = %e, "payment provider call failed");
                    return Err(unavailable(
                        "the payment provider did not answer; try again",
                        Duration::from_secs(1),
                    ));
                }
            };
            match response.status() {
                StatusCode::TOO_MANY_REQUESTS => {
                    // The provider is healthy, only busy: not a breaker failure.
                    self.breaker.success();
                    metrics.checkouts.with_label_values(&["provider_429"]).inc();
                    let wait = retry_after(&response);
                    if Utc::now() + chrono::Duration::from_std(wait).unwrap_or_default() >= deadline
                    {
                        return Err(unavailable(
                            "the payment provider is busy and your hold is about to end",
                            wait,
                        ));
                    }
                    tokio::time::sleep(wait).await;
                }
                s if s.is_server_error() => {
                    self.breaker.failure();
                    return Err(unavailable(
                        "the payment provider failed; try again",
                        Duration::from_secs(1),
                    ));
                }
                s => {
                    self.breaker.success();
                    let body: Value = response.json().await.unwrap_or_default();
                    return parse_charge(s, &body);
                }
            }
        }
    }

    /// What the provider has under `key`: `None` when no charge was ever made with it.
    #[tracing::instrument(name = "provider lookup", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn lookup(&self, key: &str) -> Result<Option<Charge>, Error> {
        let r = self
            .http
            .get(format!("{}/charges", self.base))
            .query(&[("idempotency_key", key)])
            .send()
            .await
            .map_err(|e| Error::Internal(format!("looking up payment {key} failed: {e}")))?;
        let status = r.status();
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(Error::Internal(format!(
                "looking up payment {key} answered {status}"
            )));
        }
        let body: Value = r.json().await.unwrap_or_default();
        parse_charge(status, &body).map(Some)
    }

    /// Refunds a charge (a hold that ended while its payment ran, a sale that could not be
    /// recorded). Refunding a refunded charge again is no error.
    #[tracing::instrument(name = "provider refund", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client"))]
    pub async fn refund(&self, charge_id: &str) -> Result<(), Error> {
        let r = self
            .http
            .post(format!("{}/charges/{charge_id}/refund", self.base))
            .send()
            .await
            .map_err(|e| Error::Internal(format!("refund of {charge_id} failed: {e}")))?;
        if r.status().is_success() {
            Ok(())
        } else {
            Err(Error::Internal(format!(
                "refund of {charge_id} answered {}",
                r.status()
            )))
        }
    }
}

/// A charge as the provider describes it (the answer to a charge or to a look-up).
fn parse_charge(status: StatusCode, body: &Value) -> Result<Charge, Error> {
    match (body["status"].as_str(), body["id"].as_str()) {
        (Some("succeeded"), Some(id)) => Ok(Charge::Succeeded {
            charge_id: id.to_owned(),
            refunded: body["refunded"].as_bool().unwrap_or(false),
        }),
        (Some("declined"), _) => Ok(Charge::Declined),
        _ => Err(Error::Internal(format!(
            "the payment provider answered {status} {body}"
        ))),
    }
}

fn retry_after(response: &reqwest::Response) -> Duration {
    let secs = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .unwrap_or(1.0)
        .clamp(0.05, 60.0);
    Duration::from_secs_f64(secs)
}
