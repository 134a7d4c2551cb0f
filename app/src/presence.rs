//! How often a waiting page asks for its own place, how often it refreshes what it shows, and
//! how long an answer counts as the buyer's presence (DESIGN.md "A line of millions"): the
//! schedule that makes a line's polling cost its Redis master almost nothing per buyer.
//!
//! The rule: every waiting answer makes its buyer present for a window of half
//! ([`SHARE`]) of their remaining wait at the rate in force (the quickest their turn can come),
//! at most [`WINDOW_MAX_MS`] (so a rate raised later is seen within it) and at least the room's
//! floor (`ANTEROOM_AWAY_AFTER_SECONDS`, 60 s by default). At their turn a buyer whose window
//! has ended is skipped (away); one who asks again within the floor of being skipped is back
//! at their own place (admitted at the next tick), one who asks later joins again at the back.
//! The page asks for its place again within half its window ([`Schedule::next_poll_ms`]), and
//! every [`POLL_NEAR_MS`] once its turn is within [`NEAR_SECONDS`] at the rate (which is when the
//! admission is handed over); in between it refreshes what it shows from the line's public
//! progress (`wire::Progress`, served by any cache), every [`Schedule::refresh_ms`]: seldom far
//! back, every few seconds near the front. A page without JavaScript refreshes on the same
//! schedule, each refresh an ask.
//!
//! Invariants: the window is never shorter than the floor; a page that follows the schedule
//! asks again before its window ends, with half of it to spare (one lost answer does not make
//! it away), and a page without JavaScript does too ([`Schedule::refresh_ms`] is at most
//! [`REFRESH_MAX_MS`], which is at most the floor's default); the server's script computes the
//! window with the same integer arithmetic as [`Schedule::window_ms`] (`max(floor, min((position
//! - 1) * 1000 / divisor, cap))`, tested against the script).

/// How often a page on the seat map says so while its tab is shown (a reading of the map):
/// the server counts a buyer as on the map for `ANTEROOM_SEATMAP_WINDOW_SECONDS` (30) after
/// each reading, three of these, so a page that is shown is never dropped and one left
/// hidden or closed stops holding admissions back within the window (DESIGN.md "N a second
/// while seats are free").
pub const ON_MAP_SECONDS: i64 = 10;

use crate::{
    estimate::Model,
    wire::{Outlook, Progress},
};

/// The window is this share of the remaining wait: 1/2.
pub const SHARE: u64 = 2;
/// Within this many seconds of its turn (at the rate in force) a page asks every
/// [`POLL_NEAR_MS`].
pub const NEAR_SECONDS: u64 = 10;
/// How often a page near the front asks for its place.
pub const POLL_NEAR_MS: u64 = 3_000;
/// The longest a presence window above the floor: a buyer far back asks again at least every
/// half of it, so a rate raised later (a shorter wait) reaches their page within it.
pub const WINDOW_MAX_MS: u64 = 15 * 60 * 1000;
/// The longest a page waits before refreshing what it shows.
pub const REFRESH_MAX_MS: u64 = 60_000;
/// Far back, a page refreshes what it shows this many times over its remaining wait.
const REFRESHES_PER_WAIT: u64 = 20;

/// A line's schedule: its rate in force and the room's floor of the presence window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Admissions a second now (at least 1 is used).
    pub rate: u32,
    /// The shortest presence window, ms.
    pub floor_ms: u64,
}

impl Schedule {
    /// The ms until the turn of the buyer at `position` if the line moves at the rate in force:
    /// the quickest it can come (departures ahead aside).
    pub fn fast_wait_ms(&self, position: u64) -> u64 {
        position.saturating_sub(1) * 1000 / u64::from(self.rate.max(1))
    }

    /// What the script divides `(position - 1) * 1000` by to get the window: the rate times
    /// [`SHARE`].
    pub fn divisor(&self) -> u64 {
        u64::from(self.rate.max(1)) * SHARE
    }

    /// How long an answer at `position` counts as presence, ms.
    pub fn window_ms(&self, position: u64) -> u64 {
        self.floor_ms
            .max((position.saturating_sub(1) * 1000 / self.divisor()).min(WINDOW_MAX_MS))
    }

    /// Whether the turn of the buyer at `position` is near: the page then asks every
    /// [`POLL_NEAR_MS`].
    pub fn near(&self, position: u64) -> bool {
        self.fast_wait_ms(position) <= NEAR_SECONDS * 1000
    }

    /// Within how many ms of an answer at `position` the page asks for its place again.
    pub fn next_poll_ms(&self, position: u64) -> u64 {
        if self.near(position) {
            POLL_NEAR_MS
        } else {
            (self.window_ms(position) / 2).max(POLL_NEAR_MS)
        }
    }

    /// How often the page at `position` refreshes what it shows (and a page without
    /// JavaScript reloads), ms: every [`POLL_NEAR_MS`] near the front, a twentieth of the wait
    /// further back, at most [`REFRESH_MAX_MS`].
    pub fn refresh_ms(&self, position: u64) -> u64 {
        if self.near(position) {
            POLL_NEAR_MS
        } else {
            (self.fast_wait_ms(position) / REFRESHES_PER_WAIT).clamp(POLL_NEAR_MS, REFRESH_MAX_MS)
        }
    }
}

/// Where a place stands by the line's public progress: what a page far from the front shows
/// without asking for its place, from the same model and code as the server's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Standing {
    pub position: u64,
    /// Whether the position is exact (the place is one of the progress's samples); else it is
    /// within 1% of it, and the page says "about".
    pub exact: bool,
    /// The estimate and its band, seconds, as the server's answer gives them.
    pub estimate: u64,
    pub range: [u64; 2],
    pub outlook: Option<Outlook>,
    /// Whether the turn is near ([`Schedule::near`]): the page then asks for its place.
    pub near: bool,
    /// How often the page refreshes at this place ([`Schedule::refresh_ms`]), seconds.
    pub refresh_seconds: u64,
    pub paused: bool,
}

impl Standing {
    /// Where the place with `arrival` stands by `progress`; `None` when the progress places it
    /// nowhere (admitted, gone, or the model unreadable): the page asks for its place.
    pub fn of(progress: &Progress, arrival: u64) -> Option<Self> {
        let (position, exact) = progress.position(arrival)?;
        let (band, seats) = Model::from_record(&progress.model)?;
        let model = Model {
            band,
            seats,
            now_ms: progress.t,
        };
        let (estimate, range) = model.wait(position);
        let schedule = Schedule {
            rate: progress.rate,
            floor_ms: 0,
        };
        Some(Self {
            position,
            exact,
            estimate,
            range,
            outlook: model.outlook(position),
            near: schedule.near(position),
            refresh_seconds: schedule.refresh_ms(position) / 1000,
            paused: progress.paused,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: Schedule = Schedule {
        rate: 100,
        floor_ms: 60_000,
    };

    #[test]
    fn the_window_is_half_the_wait_and_never_under_the_floor() {
        assert_eq!(LINE.window_ms(1), 60_000);
        // 12,000 places ahead at 100 a second: 120 s, of which half is the floor.
        assert_eq!(LINE.window_ms(12_001), 60_000);
        assert_eq!(LINE.window_ms(6_001), 60_000);
        // 150,000 ahead: 1,500 s, a window of 750 s.
        assert_eq!(LINE.window_ms(150_001), 750_000);
        // A million ahead: 10,000 s, half of it is over the cap of 15 minutes.
        assert_eq!(LINE.window_ms(1_000_001), WINDOW_MAX_MS);
        assert_eq!(LINE.fast_wait_ms(1_000_001), 10_000_000);
        let none = Schedule {
            rate: 0,
            floor_ms: 1_000,
        };
        assert_eq!(none.window_ms(5), 2_000, "a rate of 0 counts as 1");
        assert_eq!(none.divisor(), SHARE);
        // A floor above the cap is still the floor.
        let high = Schedule {
            rate: 1,
            floor_ms: 2 * WINDOW_MAX_MS,
        };
        assert_eq!(high.window_ms(10_000_000), 2 * WINDOW_MAX_MS);
    }

    #[test]
    fn near_the_front_the_page_asks_every_three_seconds() {
        assert!(LINE.near(1_001));
        assert!(!LINE.near(1_002));
        assert_eq!(LINE.next_poll_ms(1_001), POLL_NEAR_MS);
        assert_eq!(LINE.refresh_ms(1_001), POLL_NEAR_MS);
        // Just past near: the floor's window, asked again within half of it.
        assert_eq!(LINE.next_poll_ms(1_101), 30_000);
        assert_eq!(LINE.refresh_ms(1_101), POLL_NEAR_MS);
        assert_eq!(LINE.refresh_ms(1_000_001), REFRESH_MAX_MS);
        assert_eq!(LINE.refresh_ms(20_001), 10_000);
    }

    #[test]
    fn a_page_on_the_schedule_asks_before_its_window_ends() {
        for floor_ms in [1_000, 60_000, 600_000] {
            for rate in [1, 7, 100, 5_000] {
                let line = Schedule { rate, floor_ms };
                for position in [1, 2, 50, 3_001, 40_000, 1_000_000, 10_000_000] {
                    let window = line.window_ms(position);
                    let poll = line.next_poll_ms(position);
                    assert!(
                        poll <= window / 2 || window < 2 * POLL_NEAR_MS,
                        "{line:?} at {position}"
                    );
                    // Without JavaScript every refresh asks: within the window too.
                    if floor_ms >= REFRESH_MAX_MS {
                        assert!(
                            line.refresh_ms(position) <= window,
                            "{line:?} at {position}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_standing_from_the_progress_is_the_models_answer_at_the_place() {
        let band = crate::estimate::Band::exact(50);
        let model = Model {
            band,
            seats: None,
            now_ms: 7,
        };
        // A line of 5,000 places, arrivals 10, 20, ...: place 4,000 is not sampled exactly.
        let ranks = Progress::sample_ranks(5_000)
            .into_iter()
            .map(|r| [r, (r + 1) * 10])
            .collect();
        let progress = Progress {
            t: 7,
            admitted_through: 0,
            last_arrival: 50_000,
            in_line: 5_000,
            ahead_of_line: 0,
            rate: 50,
            paused: false,
            sold_out: false,
            seats: None,
            ranks,
            model: model.record(),
        };
        let at = Standing::of(&progress, 40_000).unwrap();
        assert!(at.position.abs_diff(4_000) <= 40, "{at:?}");
        let (estimate, range) = model.wait(at.position);
        assert_eq!((at.estimate, at.range, at.outlook), (estimate, range, None));
        assert!(!at.near);
        assert_eq!(
            at.refresh_seconds, 3,
            "80 s at the rate: a twentieth, whole seconds"
        );
        let front = Standing::of(&progress, 10).unwrap();
        assert_eq!((front.position, front.exact, front.near), (1, true, true));
        assert_eq!(
            Standing::of(&progress, 50_001),
            None,
            "behind the line: not placed"
        );
        let unreadable = Progress {
            model: "?".into(),
            ..progress
        };
        assert_eq!(Standing::of(&unreadable, 10), None);
    }

    #[test]
    fn asks_over_a_wait_grow_with_its_logarithm_up_to_the_cap() {
        // A buyer at ten million in a line of 100 a second (a wait of 28 hours), following
        // the schedule while the line moves at the rate: the asks of their whole wait.
        let asks = |start: u64| {
            let (mut position, mut asks) = (start, 0u64);
            while position > 1 {
                asks += 1;
                let step = LINE.next_poll_ms(position) * u64::from(LINE.rate) / 1000;
                position = position.saturating_sub(step.max(1));
            }
            asks
        };
        // Within the cap (a window of at most 15 minutes: a wait up to 30 minutes), a few
        // dozen asks for the whole wait.
        let capped = asks(180_001);
        assert!(capped < 40, "{capped}");
        // Beyond it, one ask every half of the cap: 100,000 s in 7.5-minute steps, 223 asks
        // and the few of the last 30 minutes (every 3 s for 100,000 s would be 33,333).
        let far = asks(10_000_000);
        let steps = 100_000_000 / (WINDOW_MAX_MS / 2);
        assert!(far <= steps + capped + 1, "{far}");
        assert!(asks(1_000_000) < far);
    }
}
