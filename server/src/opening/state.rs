//! What the opening's work reads ([`Opening`]): the events' state below it and the draws this
//! instance published. Built from the line's state (`queue::state::Line::opening`, which
//! keeps the draws: an opening's draw orders the line) or, for the routes, from the composed
//! state.
//!
//! Invariant: the opening imports nothing above the events; whoever holds the draws lends
//! them here.

use std::{ops::Deref, sync::Arc};

use crate::{events::state::Catalog, opening::published::Published};

#[derive(Clone)]
pub struct Opening {
    pub catalog: Catalog,
    /// The draws this instance has published once made (a made draw never changes).
    pub draws: Arc<Published>,
}

/// `opening.db`, `opening.rooms`, ... read the events' state.
impl Deref for Opening {
    type Target = Catalog;

    fn deref(&self) -> &Catalog {
        &self.catalog
    }
}
