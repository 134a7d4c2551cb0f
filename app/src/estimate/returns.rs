//! The seats that come back as the model reads them ([`Returns`]): round after round, each a
//! window of seconds from now in which so many seats come back, and when the line knows the
//! last of them. Pure arithmetic on what `Model::returns` measured.
//!
//! Invariant: the seats back by a moment never fall as the moment moves on.

/// Seats coming back: `(seats, from, until)` seconds from now, spread evenly in between.
pub(super) struct Returns {
    pub(super) rounds: Vec<(f64, f64, f64)>,
    /// When every seat unsold now has been taken and its first hold has ended.
    pub(super) settled: f64,
}

impl Returns {
    /// The seats back by `t`, each round placed at `timing` within its window (evenly spread
    /// when `None`).
    pub(super) fn by(&self, t: f64, timing: Option<f64>) -> f64 {
        self.rounds
            .iter()
            .map(|&(seats, from, until)| {
                let done = match timing {
                    Some(at) => f64::from(u8::from(t >= from + at * (until - from))),
                    None if until <= from => f64::from(u8::from(t >= from)),
                    None => ((t - from) / (until - from)).clamp(0.0, 1.0),
                };
                seats * done
            })
            .sum()
    }

    /// When the last seat that may come back has.
    pub(super) fn end(&self) -> f64 {
        self.rounds.iter().map(|r| r.2).fold(0.0, f64::max)
    }

    /// The first moment `need` seats are back, to a hundredth of a second; `None` if they
    /// never are.
    pub(super) fn when(&self, need: f64, timing: Option<f64>) -> Option<f64> {
        let end = self.end();
        if self.by(end, timing) + 1e-9 < need {
            return None;
        }
        let (mut lo, mut hi) = (0.0, end);
        while hi - lo > 0.01 {
            let mid = (lo + hi) / 2.0;
            if self.by(mid, timing) + 1e-9 >= need {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }
}
