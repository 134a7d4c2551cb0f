//! The [`Provider`] that speaks to the fake Anteroom ships ([`super::fake`]): a charge is made
//! and decided in one call (`POST /charges` under the payment's key), so the buyer's page
//! never confirms anything and `close` has nothing to close, only to look up.

use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::{
    provider::{Charge, Failure, Provider, Started, down, retry_after},
    record::PaymentRow,
};

pub struct FakeClient {
    http: reqwest::Client,
    base: String,
    merchant: String,
}

impl FakeClient {
    /// The fake at `base` (no trailing slash), as `merchant`; calls time out after `timeout`.
    pub fn new(base: String, merchant: String, timeout: Duration) -> Self {
        Self {
            http: reqwest::Client::builder()
                .timeout(timeout)
                .build()
                .expect("a plain HTTP client"),
            base,
            merchant,
        }
    }
}

#[async_trait]
impl Provider for FakeClient {
    async fn pay(&self, payment: &PaymentRow) -> Result<Started, Failure> {
        let response = self
            .http
            .post(format!("{}/charges", self.base))
            .json(&json!({
                "amount_cents": payment.amount_cents,
                "currency": payment.currency,
                "idempotency_key": payment.provider_key,
                "merchant": self.merchant,
            }))
            .send()
            .await
            .map_err(down)?;
        match response.status() {
            StatusCode::TOO_MANY_REQUESTS => Err(Failure::Busy(retry_after(&response))),
            s if s.is_server_error() => Err(Failure::Down(format!("the fake answered {s}"))),
            s => {
                let body: Value = response.json().await.unwrap_or_default();
                parse_charge(s, &body).map(Started::Charge)
            }
        }
    }

    async fn lookup(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure> {
        let r = self
            .http
            .get(format!("{}/charges", self.base))
            .query(&[("idempotency_key", &payment.provider_key)])
            .send()
            .await
            .map_err(down)?;
        let status = r.status();
        if status == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !status.is_success() {
            return Err(Failure::Down(format!("a look-up answered {status}")));
        }
        let body: Value = r.json().await.unwrap_or_default();
        parse_charge(status, &body).map(Some)
    }

    /// The fake decides a charge in the call that makes it: nothing stays open to close.
    async fn close(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure> {
        self.lookup(payment).await
    }

    async fn refund(&self, charge_id: &str) -> Result<(), Failure> {
        let r = self
            .http
            .post(format!("{}/charges/{charge_id}/refund", self.base))
            .send()
            .await
            .map_err(down)?;
        if r.status().is_success() {
            Ok(())
        } else {
            Err(Failure::Down(format!("a refund answered {}", r.status())))
        }
    }
}

/// A charge as the fake describes it (the answer to a charge or to a look-up).
fn parse_charge(status: StatusCode, body: &Value) -> Result<Charge, Failure> {
    match (body["status"].as_str(), body["id"].as_str()) {
        (Some("succeeded"), Some(id)) => Ok(Charge::Succeeded {
            charge_id: id.to_owned(),
            refunded: body["refunded"].as_bool().unwrap_or(false),
        }),
        (Some("declined"), _) => Ok(Charge::Declined),
        _ => Err(Failure::Refused(format!(
            "the fake answered {status} {body}"
        ))),
    }
}
