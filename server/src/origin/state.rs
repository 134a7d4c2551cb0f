//! The gate's state: the [`Line`] it reads rooms, keys and admissions from, and what only
//! this capability keeps: the buyers the ticketer's site reported done ([`Revoked`], read by
//! the proxy's gate check and forgotten by the report of a done buyer).
//!
//! Invariant: nothing below this capability reaches the revoked buyers; they are built once
//! at startup beside the other capabilities' states (`state.rs`).

use std::sync::Arc;

use crate::{origin::revoked::Revoked, queue::state::Line};

#[derive(Clone)]
pub struct Origin {
    pub line: Line,
    /// The buyers the ticketer's site reported done, as the proxy's gate reads them.
    pub revoked: Arc<Revoked>,
}
