//! The state of the hold path: the [`Line`] below (a hold needs an admission from it, and
//! records its latency in the line's health signals). Its own parts are Postgres's: the hold
//! transaction and the expiry sweep keep nothing in memory.

use std::ops::Deref;

use crate::queue::state::Line;

#[derive(Clone)]
pub struct HoldPath {
    pub line: Line,
}

/// The hold path's state extends the [`Line`]: `holds.health`, `holds.rooms`, `holds.db`, ...
impl Deref for HoldPath {
    type Target = Line;

    fn deref(&self) -> &Line {
        &self.line
    }
}
