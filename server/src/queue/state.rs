//! The state of the line: the [`Tokens`] below (a buyer joins with a session, leaves with an
//! admission token), what each event's estimate band is made of, the rate in force of each
//! event, this instance's measurements of the hold path (the automatic rate's signals), and
//! the draws an opening published (lent to the opening's work by [`Line::opening`]). The
//! ticker (`admission`) admits from the line with the same state.

use std::{ops::Deref, sync::Arc};

use crate::{
    fresh::Fresh,
    opening::{Opening, published::Published},
    queue::{estimate::Bands, rates::Board, wakes::Wakes},
    telemetry::health::Health,
    tokens::state::Tokens,
};

#[derive(Clone)]
pub struct Line {
    pub tokens: Tokens,
    /// What each event's estimate band is made of, read at most every few seconds.
    pub bands: Arc<Bands>,
    /// The rate in force of each event as this instance last read it ([`Board::in_force`]).
    pub rates: Arc<Board>,
    /// This instance's measurements of the hold path and the event loop (the automatic
    /// rate's signals, shared through Redis once a second by the ticker loop).
    pub health: Arc<Health>,
    /// The draws this instance has published once made (a made draw never changes): an
    /// opening's draw orders the line.
    pub draws: Arc<Published>,
    /// The wakes of resting rooms: every waiting answer wakes its event's tickers.
    pub wakes: Arc<Wakes>,
    /// The line's progress as this instance last read it (JSON and tag), at most once a
    /// second per event (`queue::progress`).
    pub progresses: Arc<Fresh<(axum::body::Bytes, String)>>,
}

/// The line's state extends the [`Tokens`]: `line.sessions`, `line.rooms`, `line.db`, ...
impl Deref for Line {
    type Target = Tokens;

    fn deref(&self) -> &Tokens {
        &self.tokens
    }
}

impl Line {
    /// What the opening's work reads: the events' state and the draws this line keeps.
    pub fn opening(&self) -> Opening {
        Opening {
            catalog: self.catalog.clone(),
            draws: self.draws.clone(),
        }
    }
}
