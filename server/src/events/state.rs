//! The state of the events and their openings: the [`Base`], the room settings as this
//! instance knows them ([`Rooms`]) and the draws it published ([`Published`]). Every
//! capability above reads rooms through it.

use std::{ops::Deref, sync::Arc};

use crate::{
    base::{Base, Handles},
    events::rooms::Rooms,
    opening::published::Published,
};

#[derive(Clone)]
pub struct Catalog {
    pub base: Base,
    /// Room settings, re-read from Postgres every `room_refresh_ms`.
    pub rooms: Arc<Rooms>,
    /// The draws this instance has published once made (a made draw never changes).
    pub draws: Arc<Published>,
}

/// `catalog.db`, `catalog.redis`, ... read the [`Base`]'s handles.
impl Deref for Catalog {
    type Target = Handles;

    fn deref(&self) -> &Handles {
        &self.base
    }
}
