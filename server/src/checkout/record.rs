//! The payment record as every part of checkout reads it (the checkout, the providers,
//! reconciliation): one `payment` row. Invariant: every query that reads a [`PaymentRow`]
//! selects [`ROW`], so a column added here is read everywhere.

/// A payment as the checkout and reconciliation drive it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct PaymentRow {
    pub id: i64,
    pub hold_id: String,
    pub buyer_id: String,
    /// `<hold>:<attempt>`: the provider's idempotency key.
    pub provider_key: String,
    pub amount_cents: i64,
    /// The client's Idempotency-Key of the request that started it (the sale records it).
    pub idempotency_key: String,
    /// The event's currency (ISO 4217), in which it is charged and refunded.
    pub currency: String,
    /// The provider's id of what this record started (Stripe: its PaymentIntent), recorded
    /// before the buyer's page may act on it; `None` for the fake.
    pub provider_ref: Option<String>,
}

/// The columns of a [`PaymentRow`], for every query that reads one.
pub const ROW: &str =
    "id, hold_id, buyer_id, provider_key, amount_cents, idempotency_key, currency, provider_ref";
