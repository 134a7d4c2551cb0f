//! The state of the events: the [`Base`] and the room settings as this instance knows them
//! ([`Rooms`]). Every capability above reads rooms through it; the draws an opening published
//! are the line's (`queue::state::Line`), above.

use std::{ops::Deref, sync::Arc};

use crate::{
    base::{Base, Handles},
    events::rooms::Rooms,
};

#[derive(Clone)]
pub struct Catalog {
    pub base: Base,
    /// Room settings, re-read from Postgres every `room_refresh_ms`.
    pub rooms: Arc<Rooms>,
}

/// `catalog.db`, `catalog.redis`, ... read the [`Base`]'s handles.
impl Deref for Catalog {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.base
    }
}
