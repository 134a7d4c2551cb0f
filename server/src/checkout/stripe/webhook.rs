//! `POST /api/payments/stripe/webhook`: Stripe's signed events.
//!
//! Invariants: nothing is read from an event before its `Stripe-Signature` is verified (HMAC
//! SHA-256 of `<t>.<body>` under the webhook secret, compared in constant time) and its
//! timestamp is within [`TOLERANCE`] of ours, so a forged event and an old one replayed are
//! refused (400) and change nothing. An event is handled once: its id is remembered
//! (`stripe_event`) after it was handled, and an event seen before is answered 200 without
//! being handled again; handling is itself idempotent (the sale's transaction settles a pending
//! payment once), so two deliveries racing each other record one sale. Without Stripe
//! configured the endpoint is 404.

use std::time::Duration;

use axum::{Json, body::Bytes, extract::State, http::HeaderMap};
use chrono::Utc;
use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::{
    checkout::{self, payments, state::Checkout},
    error::{Error, Result},
};

/// How far a signature's timestamp may be from our clock (Stripe's libraries use 5 minutes).
pub const TOLERANCE: Duration = Duration::from_secs(300);

/// The largest event taken (a PaymentIntent's event is a few kilobytes).
const MAX_BODY: usize = 256 * 1024;

#[utoipa::path(
    post,
    path = "/api/payments/stripe/webhook",
    tag = "checkout",
    summary = "Stripe's signed events (payment_intent.succeeded settles the payment)",
    params(("Stripe-Signature" = String, Header, description = "t=<unix time>,v1=<HMAC SHA-256>")),
    request_body(content = Object, description = "A Stripe event", content_type = "application/json"),
    responses(
        (status = 200, description = "Received (handled now, or before)", body = Object),
        (status = 400, description = "A bad or stale signature, or not an event", body = app::wire::ErrorBody),
        (status = 404, description = "Payments do not go through Stripe here", body = app::wire::ErrorBody),
        (status = 413, description = "Too large", body = app::wire::ErrorBody),
    )
)]
pub async fn receive(
    State(state): State<Checkout>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Json<Value>> {
    let Some(secret) = &state.stripe_webhook_secret else {
        return Err(Error::NotFound(
            "payments do not go through Stripe here".into(),
        ));
    };
    if body.len() > MAX_BODY {
        return Err(Error::PayloadTooLarge);
    }
    let signature = headers
        .get("stripe-signature")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| Error::BadRequest("a Stripe-Signature header is required".into()))?;
    verify(
        secret.expose().as_bytes(),
        signature,
        &body,
        Utc::now().timestamp(),
    )
    .map_err(|why| Error::BadRequest(format!("the Stripe-Signature does not verify: {why}")))?;
    let event: Value = serde_json::from_slice(&body)
        .map_err(|_| Error::BadRequest("the body is not a Stripe event".into()))?;
    let (Some(id), Some(kind)) = (event["id"].as_str(), event["type"].as_str()) else {
        return Err(Error::BadRequest("the body is not a Stripe event".into()));
    };
    let seen: bool = sqlx::query_scalar("select exists (select 1 from stripe_event where id = $1)")
        .bind(id)
        .fetch_one(&state.db)
        .await?;
    if seen {
        return Ok(Json(json!({"received": true, "handled": "before"})));
    }
    if kind == "payment_intent.succeeded" {
        let intent = event["data"]["object"]["id"].as_str().unwrap_or_default();
        if let Some(payment) = payments::by_reference(&state.db, intent).await? {
            checkout::settle_now(&state, payment).await?;
        }
    }
    sqlx::query("insert into stripe_event (id, type) values ($1, $2) on conflict do nothing")
        .bind(id)
        .bind(kind)
        .execute(&state.db)
        .await?;
    Ok(Json(json!({"received": true, "handled": "now"})))
}

/// Checks `header` (`t=<unix time>,v1=<hex>[,v1=<hex>...]`) over `body` under `secret` at
/// unix time `now`: one `v1` must be the HMAC SHA-256 of `<t>.<body>`, and `t` within
/// [`TOLERANCE`] of `now`.
pub fn verify(secret: &[u8], header: &str, body: &[u8], now: i64) -> Result<(), &'static str> {
    let mut at = None;
    let mut signatures = Vec::new();
    for part in header.split(',').take(16) {
        match part.trim().split_once('=') {
            Some(("t", t)) => at = t.parse::<i64>().ok(),
            Some(("v1", hex)) => signatures.push(hex),
            _ => {}
        }
    }
    let at = at.ok_or("no timestamp")?;
    if (now - at).unsigned_abs() > TOLERANCE.as_secs() {
        return Err("its timestamp is too old or in the future");
    }
    for hex in signatures {
        let Ok(given) = hex::decode(hex) else {
            continue;
        };
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).map_err(|_| "a bad secret")?;
        mac.update(at.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        if mac.verify_slice(&given).is_ok() {
            return Ok(());
        }
    }
    Err("no v1 signature matches")
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(receive))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(secret: &[u8], at: i64, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret).unwrap();
        mac.update(format!("{at}.").as_bytes());
        mac.update(body);
        let hex: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("t={at},v1={hex}")
    }

    #[test]
    fn a_signature_verifies_only_its_body_under_its_secret_and_in_time() {
        let body = br#"{"id":"evt_1"}"#;
        let header = sign(b"whsec_a", 1_000, body);
        assert_eq!(verify(b"whsec_a", &header, body, 1_000), Ok(()));
        assert_eq!(verify(b"whsec_a", &header, body, 1_299), Ok(()));
        assert!(
            verify(b"whsec_a", &header, body, 1_301).is_err(),
            "replayed late"
        );
        assert!(
            verify(b"whsec_a", &header, body, 699).is_err(),
            "from the future"
        );
        assert!(
            verify(b"whsec_b", &header, body, 1_000).is_err(),
            "another secret"
        );
        assert!(verify(b"whsec_a", &header, br#"{"id":"evt_2"}"#, 1_000).is_err());
        // Another timestamp on the same signature: refused.
        let moved = header.replace("t=1000", "t=1001");
        assert!(verify(b"whsec_a", &moved, body, 1_000).is_err());
        // One good signature among others (a secret being rolled) is enough.
        let two = format!("{},v1={}", header, "0".repeat(64));
        assert_eq!(verify(b"whsec_a", &two, body, 1_000), Ok(()));
        for bad in ["", "t=1000", "v1=abc", "t=x,v1=00", "garbage"] {
            assert!(verify(b"whsec_a", bad, body, 1_000).is_err(), "{bad}");
        }
    }
}
