//! Rooms at rest (issue 35): a room that is on but whose line has been empty, with nobody
//! admitted by its ticks and its night kept, costs no Redis command and no Postgres query per
//! tick; it wakes within a tick of the next buyer in line.
//!
//! How a room wakes: every waiting answer (join, poll, pre-queue) calls
//! `queue::wakes::Wakes::waiting`, which wakes this instance's ticker at once and, at most once per `PUBLISH_EVERY` per event
//! and instance, publishes the event on the deployment's wake channel (`Keys::wake_channel`),
//! to which every instance's ticker listens: an instance without a ticker, or whose ticker is
//! not the one at rest, still wakes the others. A room whose sale opens later rests until a
//! tick before its opening (its draw needs no buyer to wake it).
//!
//! Invariants: nobody waits on a resting room: a buyer in line asks for their place at least
//! every few seconds, and every such answer wakes every ticker, so a room with a buyer in line
//! is awake within a tick plus one publication after the next poll, even if its leader died
//! while everyone else rested; while this instance does not listen to the wake channel (not yet
//! subscribed, or Redis lost the subscription), no room rests here (`Wakes::listening`); a
//! room rests only after `rest_after_seconds` (the quiet time) of ticks that admitted nobody
//! with an empty line (never when it is 0), and once
//! its night was kept (`archive::close_if_idle` found nothing open), so the night archive
//! never waits on a resting room; a woken instance that cannot take the ticker lock (another
//! leads) goes back to rest after the quiet time without a wake.

use std::time::{Duration, Instant};

/// What one tick of a room found, as the rest reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Nobody admitted, nobody in line.
    Quiet,
    /// Somebody admitted or in line.
    Busy,
    /// Another instance leads the room.
    NotLeader,
    /// The sale has not opened (or its draw is to be made).
    BeforeOpening,
}

/// One room as this instance's ticker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Ticking. `quiet_since`: since when every tick found nothing to do (`None`: the last
    /// did something); `led_since`: since when this ticker failed to lead (`None`: it leads).
    Awake {
        quiet_since: Option<Instant>,
        follower_since: Option<Instant>,
    },
    /// Not ticking until woken (or, with a sale to open, until `until`).
    Resting { until: Option<Instant> },
}

impl Phase {
    pub const AWAKE: Self = Self::Awake {
        quiet_since: None,
        follower_since: None,
    };

    /// Whether the room ticks now.
    pub fn ticks(&self, now: Instant) -> bool {
        match self {
            Self::Awake { .. } => true,
            Self::Resting { until } => until.is_some_and(|u| now >= u),
        }
    }

    /// The phase after a tick that found `seen` at `now`: `settled` when the room's night
    /// was kept (nothing open), `opens_in` the time until the sale opens (if later), `quiet`
    /// the time with nothing to do after which a room rests (zero: never).
    pub fn after(
        self,
        seen: Seen,
        now: Instant,
        settled: bool,
        opens_in: Option<Duration>,
        quiet: Duration,
    ) -> Self {
        if quiet.is_zero() {
            return Self::AWAKE;
        }
        let (quiet_since, follower_since) = match self {
            Self::Awake {
                quiet_since,
                follower_since,
            } => (quiet_since, follower_since),
            Self::Resting { .. } => (None, None),
        };
        let long = |since: Option<Instant>| since.is_some_and(|s| now.duration_since(s) >= quiet);
        match seen {
            Seen::Quiet => {
                let quiet_since = quiet_since.or(Some(now));
                if settled && long(quiet_since) {
                    Self::Resting { until: None }
                } else {
                    Self::Awake {
                        quiet_since,
                        follower_since: None,
                    }
                }
            }
            Seen::Busy => Self::AWAKE,
            Seen::NotLeader => {
                let follower_since = follower_since.or(Some(now));
                if long(follower_since) {
                    Self::Resting { until: None }
                } else {
                    Self::Awake {
                        quiet_since: None,
                        follower_since,
                    }
                }
            }
            Seen::BeforeOpening => match opens_in {
                // A tick before the opening: the draw is made on time.
                Some(d) if d > quiet => Self::Resting {
                    until: Some(now + d - Duration::from_secs(1)),
                },
                _ => Self::AWAKE,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_secs(10);
    const QUIET_TICK: Seen = Seen::Quiet;

    #[test]
    fn a_room_rests_after_quiet_ticks_and_once_its_night_is_kept() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut phase = Phase::AWAKE.after(QUIET_TICK, at(0), true, None, Q);
        assert!(
            matches!(phase, Phase::Awake { .. }),
            "quiet, not yet for long"
        );
        phase = phase.after(QUIET_TICK, at(5), true, None, Q);
        assert!(matches!(phase, Phase::Awake { .. }));
        // Quiet for QUIET, but the night is still open: awake.
        let open = phase.after(QUIET_TICK, at(10), false, None, Q);
        assert!(matches!(open, Phase::Awake { .. }));
        phase = open.after(QUIET_TICK, at(11), true, None, Q);
        assert_eq!(phase, Phase::Resting { until: None });
        assert!(!phase.ticks(at(1000)), "at rest until woken");
    }

    #[test]
    fn a_buyer_in_line_or_an_admission_starts_the_quiet_again() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let phase = Phase::AWAKE.after(QUIET_TICK, at(0), true, None, Q);
        let phase = phase.after(Seen::Busy, at(9), true, None, Q);
        assert_eq!(phase, Phase::AWAKE);
        let phase = phase.after(QUIET_TICK, at(12), true, None, Q);
        assert!(
            matches!(phase, Phase::Awake { .. }),
            "quiet again only since 12 s"
        );
        assert_eq!(phase.after(Seen::Busy, at(30), true, None, Q), Phase::AWAKE);
    }

    #[test]
    fn a_follower_goes_back_to_rest_and_a_sale_to_open_rests_until_just_before() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let phase = Phase::AWAKE.after(Seen::NotLeader, at(0), false, None, Q);
        assert!(matches!(phase, Phase::Awake { .. }));
        let phase = phase.after(Seen::NotLeader, at(10), false, None, Q);
        assert_eq!(phase, Phase::Resting { until: None });

        let later = Phase::AWAKE.after(
            Seen::BeforeOpening,
            at(0),
            false,
            Some(Duration::from_secs(60)),
            Q,
        );
        assert_eq!(
            later,
            Phase::Resting {
                until: Some(at(59))
            }
        );
        assert!(!later.ticks(at(58)) && later.ticks(at(59)));
        let soon = Phase::AWAKE.after(
            Seen::BeforeOpening,
            at(0),
            false,
            Some(Duration::from_secs(3)),
            Q,
        );
        assert_eq!(
            soon,
            Phase::AWAKE,
            "opening within the quiet time: keep ticking"
        );
        let never = Phase::AWAKE.after(QUIET_TICK, at(0), true, None, Duration::ZERO);
        assert_eq!(
            never.after(QUIET_TICK, at(100), true, None, Duration::ZERO),
            Phase::AWAKE
        );
    }
}
