//! The [`Provider`] that takes cards through Stripe: PaymentIntents over Stripe's HTTP API
//! (`/v1/payment_intents`, `/v1/refunds`), and its signed webhook ([`webhook`]).
//!
//! A payment record becomes one PaymentIntent: created for the record's amount and currency
//! with Stripe's `Idempotency-Key` = the record's provider key (so a repeated create is the
//! same intent) and metadata naming the hold and the payment. Its id is recorded on the payment
//! row (`provider_ref`) before its client secret goes to the buyer's page, and only the page,
//! with that secret, can confirm it: an intent whose id we never recorded was never shown to
//! anyone and can take no money. Every later question (the page's return, the webhook,
//! reconciliation) reads the intent by that id. No card data passes through Anteroom: the
//! card is typed into Stripe's frames and confirmed between the page and Stripe.
//!
//! Why HTTP through reqwest and not the `async-stripe` crate: Anteroom needs five calls of
//! Stripe's API and the webhook's signature, reqwest is already its HTTP client, and the crate
//! generates the whole API (a long build on CI's two cores) with typed objects stricter than
//! what the test server (`localstripe`) returns.

pub mod webhook;

use std::time::Duration;

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::Value;

use super::{
    provider::{Charge, Failure, Provider, Started, down, retry_after},
    record::PaymentRow,
};
use crate::config::Secret;

/// The API version Anteroom reads Stripe's objects in (`Stripe-Version`).
const API_VERSION: &str = "2024-06-20";

pub struct Stripe {
    http: reqwest::Client,
    /// `https://api.stripe.com`, or a test server's address.
    base: String,
    secret_key: Secret,
}

impl Stripe {
    pub fn new(base: String, secret_key: Secret, timeout: Duration) -> Self {
        Self {
            http: reqwest::Client::builder()
                .timeout(timeout)
                .build()
                .expect("a plain HTTP client"),
            base: base.trim_end_matches('/').to_owned(),
            secret_key,
        }
    }

    /// Sends a form (`POST`) or a query (`GET`) to `path` and reads the JSON answer; a 429 is
    /// [`Failure::Busy`], a 5xx or no answer [`Failure::Down`], another 4xx
    /// [`Failure::Refused`] with Stripe's error code.
    async fn call(
        &self,
        post: bool,
        path: &str,
        params: &[(&str, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.base);
        let request = if post {
            self.http.post(url).form(params)
        } else {
            self.http.get(url).query(params)
        };
        let mut request = request
            .bearer_auth(self.secret_key.expose())
            .header("Stripe-Version", API_VERSION);
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        let response = request.send().await.map_err(down)?;
        let status = response.status();
        if status == StatusCode::TOO_MANY_REQUESTS {
            return Err(Failure::Busy(retry_after(&response)));
        }
        let body: Value = response.json().await.unwrap_or_default();
        if status.is_server_error() {
            return Err(Failure::Down(format!("Stripe answered {status}")));
        }
        if !status.is_success() {
            let code = body["error"]["code"].as_str().unwrap_or_default();
            let message = body["error"]["message"].as_str().unwrap_or_default();
            return Err(Failure::Refused(format!("{status} {code} {message}")));
        }
        Ok(body)
    }

    /// The payment's intent, created under its key if none is recorded yet.
    async fn intent(&self, payment: &PaymentRow) -> Result<Value, Failure> {
        match &payment.provider_ref {
            Some(id) => self.retrieve(id).await,
            None => {
                let params = [
                    ("amount", payment.amount_cents.to_string()),
                    ("currency", payment.currency.to_ascii_lowercase()),
                    ("payment_method_types[]", "card".to_owned()),
                    ("metadata[hold]", payment.hold_id.clone()),
                    ("metadata[payment]", payment.id.to_string()),
                ];
                self.call(
                    true,
                    "/v1/payment_intents",
                    &params,
                    Some(&payment.provider_key),
                )
                .await
            }
        }
    }

    async fn retrieve(&self, id: &str) -> Result<Value, Failure> {
        check_id(id)?;
        let expand = [("expand[]", "latest_charge".to_owned())];
        self.call(false, &format!("/v1/payment_intents/{id}"), &expand, None)
            .await
    }

    /// Stops an intent from ever taking money unless it already did.
    async fn cancel(&self, id: &str) -> Result<(), Failure> {
        check_id(id)?;
        match self
            .call(true, &format!("/v1/payment_intents/{id}/cancel"), &[], None)
            .await
        {
            // Refused: it cannot be canceled any more (succeeded, or canceled already); the
            // caller reads what it became.
            Ok(_) | Err(Failure::Refused(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// An intent's id as Stripe makes them: it goes into a URL path.
fn check_id(id: &str) -> Result<(), Failure> {
    let ok = id.starts_with("pi_")
        && id.len() <= 255
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Failure::Refused(format!("not an intent's id: {id:?}")))
    }
}

/// Where an intent stands, as [`Charge`]: `None` when it was canceled (nothing taken, nothing
/// ever will be).
fn charge_of(intent: &Value) -> Option<Charge> {
    let id = intent["id"].as_str().unwrap_or_default().to_owned();
    match intent["status"].as_str().unwrap_or_default() {
        "succeeded" => {
            let charge = &intent["latest_charge"];
            let refunded = charge["refunded"].as_bool().unwrap_or(false)
                || charge["amount_refunded"].as_i64().unwrap_or(0) > 0;
            Some(Charge::Succeeded {
                charge_id: id,
                refunded,
            })
        }
        "canceled" => None,
        // A failed attempt leaves the intent waiting for another card, with the error.
        "requires_payment_method" if !intent["last_payment_error"].is_null() => {
            Some(Charge::Declined)
        }
        _ => Some(Charge::Open),
    }
}

/// The intent is the one made for `payment`: its amount and currency.
fn check_matches(intent: &Value, payment: &PaymentRow) -> Result<(), Failure> {
    let amount = intent["amount"].as_i64();
    let currency = intent["currency"].as_str().map(str::to_ascii_uppercase);
    if amount == Some(payment.amount_cents) && currency.as_deref() == Some(&payment.currency) {
        Ok(())
    } else {
        Err(Failure::Refused(format!(
            "the intent {} is for {amount:?} {currency:?}, the payment {} for {} {}",
            intent["id"], payment.id, payment.amount_cents, payment.currency
        )))
    }
}

#[async_trait]
impl Provider for Stripe {
    async fn pay(&self, payment: &PaymentRow) -> Result<Started, Failure> {
        let intent = self.intent(payment).await?;
        check_matches(&intent, payment)?;
        Ok(match charge_of(&intent) {
            None => Started::Closed,
            Some(Charge::Open) if intent["status"] == "processing" => Started::Charge(Charge::Open),
            Some(Charge::Open) => Started::Confirm {
                reference: intent["id"].as_str().unwrap_or_default().to_owned(),
                client_secret: intent["client_secret"]
                    .as_str()
                    .ok_or_else(|| Failure::Refused("an intent without its secret".into()))?
                    .to_owned(),
            },
            Some(Charge::Declined) => {
                // Declined: closed, so that the same intent never takes a second card later;
                // the buyer's next try is a new attempt.
                let id = intent["id"].as_str().unwrap_or_default();
                self.cancel(id).await?;
                match charge_of(&self.retrieve(id).await?) {
                    None | Some(Charge::Declined) => Started::Charge(Charge::Declined),
                    Some(other) => Started::Charge(other),
                }
            }
            Some(charge) => Started::Charge(charge),
        })
    }

    async fn lookup(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure> {
        // No intent recorded: none was ever shown to a page, so none can have taken money.
        let Some(id) = &payment.provider_ref else {
            return Ok(None);
        };
        Ok(charge_of(&self.retrieve(id).await?))
    }

    async fn close(&self, payment: &PaymentRow) -> Result<Option<Charge>, Failure> {
        let Some(id) = &payment.provider_ref else {
            return Ok(None);
        };
        self.cancel(id).await?;
        Ok(match charge_of(&self.retrieve(id).await?) {
            // Declined and then canceled: nothing was taken.
            Some(Charge::Declined) => None,
            other => other,
        })
    }

    async fn refund(&self, charge_id: &str) -> Result<(), Failure> {
        // Refunded already (fully): nothing to give back twice.
        let intent = self.retrieve(charge_id).await?;
        if let Some(Charge::Succeeded { refunded: true, .. }) = charge_of(&intent) {
            return Ok(());
        }
        let params = [("payment_intent", charge_id.to_owned())];
        let key = format!("refund:{charge_id}");
        match self.call(true, "/v1/refunds", &params, Some(&key)).await {
            Ok(_) => Ok(()),
            Err(Failure::Refused(e)) if e.contains("charge_already_refunded") => Ok(()),
            Err(e) => Err(e),
        }
    }
}
