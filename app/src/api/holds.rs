//! The buyer's turn: the seat map, holds, release and checkout. Holds and payments carry an
//! idempotency key, so that a retried press holds (or pays) once.

use super::{Api, binding::device_headers, call};
use crate::wire::{Deferred, ErrorBody, Hold, HoldRequest, Order, SeatRuns};

impl Api {
    /// The seat map in runs, unread: the turn's stages read it ([`Deferred`]).
    pub async fn seats(&self, event_id: &str) -> Result<Deferred<SeatRuns>, ErrorBody> {
        let path = format!("/api/events/{event_id}/seats");
        let device = device_headers(event_id, "GET", &path, true).await?;
        call("GET", &format!("{path}?form=runs"), None::<&()>, &device).await
    }

    pub async fn hold(
        &self,
        event_id: &str,
        request: &HoldRequest,
        key: &str,
    ) -> Result<Hold, ErrorBody> {
        let path = format!("/api/events/{event_id}/holds");
        let mut headers = device_headers(event_id, "POST", &path, true).await?;
        headers.push((IDEMPOTENCY_KEY, key.to_owned()));
        call("POST", &path, Some(request), &headers).await
    }

    /// Releases a hold of `event_id` (in a room that binds tokens, with a proof of this
    /// device's key).
    pub async fn release(&self, event_id: &str, hold_id: &str) -> Result<(), ErrorBody> {
        let path = format!("/api/holds/{hold_id}");
        let device = device_headers(event_id, "DELETE", &path, false).await?;
        call("DELETE", &path, None::<&()>, &device).await
    }

    /// Pays a hold of `event_id` (in a room that binds tokens, with a proof of this device's
    /// key).
    pub async fn checkout(
        &self,
        event_id: &str,
        hold_id: &str,
        key: &str,
    ) -> Result<Order, ErrorBody> {
        let path = format!("/api/holds/{hold_id}/checkout");
        let mut headers = device_headers(event_id, "POST", &path, false).await?;
        headers.push((IDEMPOTENCY_KEY, key.to_owned()));
        call("POST", &path, Some(&()), &headers).await
    }
}

const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
