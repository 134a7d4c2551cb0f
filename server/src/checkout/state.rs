//! The state of checkout: the [`HoldPath`] below (checkout sells a hold) and the payment
//! provider's client.

use std::{ops::Deref, sync::Arc};

use crate::{checkout::provider::Payments, config::Secret, holds::state::HoldPath};

#[derive(Clone)]
pub struct Checkout {
    pub holds: HoldPath,
    /// The payment provider's client (bulkhead, breaker).
    pub payments: Arc<Payments>,
    /// Stripe's webhook signing secret (`whsec_...`): `None` unless payments go through Stripe.
    pub stripe_webhook_secret: Option<Secret>,
}

/// Checkout's state extends the [`HoldPath`]: `checkout.line`, `checkout.db`, ...
impl Deref for Checkout {
    type Target = HoldPath;

    fn deref(&self) -> &HoldPath {
        &self.holds
    }
}
