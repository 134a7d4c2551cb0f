//! The line's progress for everyone (API.md "Progress"): what a page far from the front needs
//! to compute its own position, estimate, band and outlook without asking for its place, from
//! a document any cache may serve for a second.
//!
//! Invariants: the position [`Progress::position`] gives for an arrival number is exact for a
//! place among the [`Progress::ranks`] sampled (every place of the first hundred) and off by at
//! most the gap to the next sampled place beyond, which the server keeps within
//! [`RANK_STEP`] of the place (1%); an arrival admitted already, or gone, reads as at the
//! front or past the line's end, never as a negative place.

use serde::{Deserialize, Serialize};

/// How far apart the places the progress samples are, at most: each sampled rank is at most
/// this share past the one before (and the first hundred are every place).
pub const RANK_STEP: f64 = 0.01;
/// The most places one progress document samples (a line of ten million needs about 1,260).
pub const MAX_RANKS: usize = 2_000;

/// A place in a draw is its number, 1, 2, ...; every arrival number a join gives is Redis's
/// clock in microseconds, so far above: an arrival below this is a drawn entrant's place.
pub const DRAWN_PLACES_BELOW: u64 = 1_000_000_000_000;

/// `GET /api/events/{id}/progress`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Progress {
    /// When the line was read (unix ms, the line's clock).
    pub t: i64,
    /// The greatest arrival number admitted so far.
    pub admitted_through: u64,
    /// The last arrival number given (places made so far, in or out of line).
    pub last_arrival: u64,
    /// Buyers in line now.
    pub in_line: u64,
    /// Places ahead of everyone who joined after a sale's opening: the entrants of a draw not
    /// yet in line (all of them before the draw is made, then those behind the part of its
    /// order placed so far). A drawn entrant's own place is never behind them.
    pub ahead_of_line: u64,
    /// The admission rate in force (a second).
    pub rate: u32,
    pub paused: bool,
    pub sold_out: bool,
    /// The seats as the ticker last counted them; `None` until it has.
    pub seats: Option<ProgressSeats>,
    /// Sampled places of the line: `[rank, arrival]` pairs, rank 0 the front, in rank order,
    /// the last place of the line among them.
    pub ranks: Vec<[u64; 2]>,
    /// The estimate's model as the server reads it now (`crate::estimate::Model::from_record`):
    /// a page computes its estimate, band and outlook from it exactly as the server would.
    pub model: String,
}

/// The seats' counts of a [`Progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct ProgressSeats {
    pub available: u64,
    pub held: u64,
    pub sold: u64,
}

impl Progress {
    /// The 1-based position of the place with `arrival` (as the waiting answer counts it), and
    /// whether it is exact (the place is one of the samples); `None` when no place of the line
    /// is at or behind it (admitted already, gone, or the line is empty).
    pub fn position(&self, arrival: u64) -> Option<(u64, bool)> {
        let at = self.ranks.partition_point(|&[_, a]| a < arrival);
        let &[rank, sampled] = self.ranks.get(at)?;
        let exact = sampled == arrival;
        let rank = match self.ranks[..at].last() {
            Some(&[before, before_arrival]) if !exact && rank - before > 1 => {
                // Between two samples: the places between them spread over the arrivals
                // between them, in proportion.
                let share = (arrival - before_arrival) as f64 / (sampled - before_arrival) as f64;
                let between = ((rank - before) as f64 * share).round() as u64;
                before + between.clamp(1, rank - before - 1)
            }
            _ => rank,
        };
        let ahead = if arrival < DRAWN_PLACES_BELOW {
            0
        } else {
            self.ahead_of_line
        };
        Some((rank + 1 + ahead, exact))
    }

    /// The ranks to sample in a line of `len` places: every place of the first hundred, then
    /// each at most [`RANK_STEP`] past the last, and the last place; at most [`MAX_RANKS`].
    pub fn sample_ranks(len: u64) -> Vec<u64> {
        let mut ranks = Vec::new();
        let mut r = 0u64;
        while r < len && ranks.len() < MAX_RANKS - 1 {
            ranks.push(r);
            r = ((r as f64 * (1.0 + RANK_STEP)).floor() as u64).max(r + 1);
        }
        if len > 0 && ranks.last() != Some(&(len - 1)) {
            ranks.push(len - 1);
        }
        ranks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(arrivals: &[u64]) -> Progress {
        let ranks = Progress::sample_ranks(arrivals.len() as u64)
            .into_iter()
            .map(|r| [r, arrivals[r as usize]])
            .collect();
        Progress {
            t: 0,
            admitted_through: 0,
            last_arrival: arrivals.last().copied().unwrap_or(0),
            in_line: arrivals.len() as u64,
            ahead_of_line: 0,
            rate: 10,
            paused: false,
            sold_out: false,
            seats: None,
            ranks,
            model: String::new(),
        }
    }

    #[test]
    fn the_first_hundred_are_exact_and_the_samples_grow_by_a_hundredth() {
        let ranks = Progress::sample_ranks(10_000_000);
        assert_eq!(&ranks[..100], &(0..100).collect::<Vec<_>>()[..]);
        assert!(ranks.len() < MAX_RANKS, "{}", ranks.len());
        assert_eq!(ranks.last(), Some(&9_999_999));
        for pair in ranks.windows(2).skip(100) {
            let gap = pair[1] - pair[0];
            assert!(
                gap as f64 <= (pair[0] as f64 * RANK_STEP).max(1.0) + 1.0,
                "{pair:?}"
            );
        }
        assert_eq!(Progress::sample_ranks(0), Vec::<u64>::new());
        assert_eq!(Progress::sample_ranks(1), vec![0]);
    }

    #[test]
    fn a_place_gone_or_admitted_is_not_placed_and_the_entrants_count_ahead() {
        let mut p = progress(&[5, 7, 9]);
        assert_eq!(p.position(7), Some((2, true)));
        assert_eq!(p.position(3), Some((1, false)), "ahead of the front: first");
        assert_eq!(p.position(10), None, "behind the last place: not in line");
        p.ahead_of_line = 4;
        assert_eq!(
            p.position(9),
            Some((3, true)),
            "a drawn entrant: none ahead"
        );
        let after = DRAWN_PLACES_BELOW;
        let mut p = progress(&[5, 7, after + 9]);
        p.ahead_of_line = 4;
        assert_eq!(p.position(7), Some((2, true)), "a drawn entrant placed");
        assert_eq!(
            p.position(after + 9),
            Some((7, true)),
            "a later joiner counts the entrants not yet placed"
        );
        assert_eq!(progress(&[]).position(1), None);
    }

    mod properties {
        use proptest::prelude::*;

        use super::*;

        proptest! {
            /// A line of arrivals with departures anywhere: every place's position from the
            /// progress is within 1% of its exact rank (and exact among the first hundred).
            #[test]
            fn positions_are_within_a_hundredth_of_the_exact_rank(
                len in 1usize..30_000, gone in 0.0f64..0.9, seed in any::<u64>(),
            ) {
                let mut state = seed | 1;
                let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
                let arrivals: Vec<u64> = (1..=len as u64 * 2)
                    .filter(|_| (next() % 1000) as f64 >= gone * 1000.0)
                    .take(len)
                    .collect();
                let p = progress(&arrivals);
                for (rank, &arrival) in arrivals.iter().enumerate().step_by(7) {
                    let exact = rank as u64 + 1;
                    let (position, _) = p.position(arrival).unwrap();
                    let off = position.abs_diff(exact);
                    prop_assert!(off as f64 <= exact as f64 * RANK_STEP, "rank {exact}: {position}");
                    if exact <= 100 { prop_assert_eq!(off, 0); }
                }
            }
        }
    }
}
