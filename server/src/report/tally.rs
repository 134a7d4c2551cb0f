//! The report's arithmetic, admission by admission in log order: FIFO inversions, the buyers
//! back from away (counted apart, neither inversions nor samples), and the errors of the
//! estimates against the real waits (nearest-rank median and p90, the band in whole seconds).
//! Pure: no I/O, no clock.

use app::wire::{EstimateReport, OutlookReport, Report};

/// One admitted buyer's estimate at joining against their real wait.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub real_seconds: f64,
    pub estimate: f64,
    pub range: [f64; 2],
}

impl Sample {
    /// Whether the real wait, in whole seconds rounded either way, lies in the band.
    pub fn within(&self) -> bool {
        let [low, high] = self.range;
        self.real_seconds.ceil() >= low && self.real_seconds.floor() <= high
    }
}

/// The errors of one kind of estimate, sample by sample.
#[derive(Debug, Default)]
struct Errors {
    errors: Vec<f64>,
    within: u64,
}

impl Errors {
    fn add(&mut self, sample: Sample) {
        self.errors
            .push((sample.estimate - sample.real_seconds).abs());
        self.within += u64::from(sample.within());
    }

    fn report(mut self) -> EstimateReport {
        self.errors.sort_by(f64::total_cmp);
        let samples = self.errors.len() as u64;
        let rank = |p: f64| -> Option<f64> {
            let i = ((p * self.errors.len() as f64).ceil() as usize).max(1) - 1;
            self.errors.get(i).map(|e| (e * 1000.0).round() / 1000.0)
        };
        EstimateReport {
            samples,
            median_abs_error_seconds: rank(0.5),
            p90_abs_error_seconds: rank(0.9),
            within_range_share: (samples > 0).then(|| self.within as f64 / samples as f64),
        }
    }
}

/// The report's figures, added up admission by admission in log order.
#[derive(Debug, Default)]
pub struct Tally {
    admitted: u64,
    inversions: u64,
    back_from_away: u64,
    latest_arrival: Option<i64>,
    at_joining: Errors,
    before: Errors,
}

impl Tally {
    /// One admission: `told` the estimate at joining against the real wait, `before` the
    /// estimate a [`LEAD_MS`](super::LEAD_MS) before the admission against that lead.
    pub fn add(
        &mut self,
        arrival: i64,
        back_from_away: bool,
        told: Option<Sample>,
        before: Option<Sample>,
    ) {
        self.admitted += 1;
        if back_from_away {
            self.back_from_away += 1;
            return;
        }
        if self.latest_arrival.is_some_and(|a| arrival < a) {
            self.inversions += 1;
        }
        self.latest_arrival = self.latest_arrival.max(Some(arrival));
        if let Some(sample) = told {
            self.at_joining.add(sample);
        }
        if let Some(sample) = before {
            self.before.add(sample);
        }
    }

    pub fn report(self, joined: u64, event_id: &str) -> Report {
        Report {
            joined,
            admitted: self.admitted,
            fifo_inversions: self.inversions,
            back_from_away: self.back_from_away,
            outlook: OutlookReport::default(),
            estimate: self.at_joining.report(),
            estimate_60s_before: self.before.report(),
            admission_log_url: format!("/api/events/{event_id}/report/admissions"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(real_seconds: f64, estimate: f64, range: [f64; 2]) -> Option<Sample> {
        Some(Sample {
            real_seconds,
            estimate,
            range,
        })
    }

    #[test]
    fn an_admission_behind_a_later_arrival_is_one_inversion() {
        let mut tally = Tally::default();
        for arrival in [1, 2, 5, 3, 4, 6] {
            tally.add(arrival, false, None, None);
        }
        let report = tally.report(6, "e");
        assert_eq!((report.admitted, report.fifo_inversions), (6, 2));
        assert_eq!(report.estimate.samples, 0);
        assert_eq!(report.estimate.median_abs_error_seconds, None);
    }

    #[test]
    fn a_buyer_back_from_away_is_counted_apart_and_others_behind_them_still_invert() {
        let mut tally = Tally::default();
        tally.add(1, false, None, None);
        tally.add(4, false, None, None);
        // Back from away: before 4, by design; and not an estimate sample.
        tally.add(2, true, sample(100.0, 5.0, [4.0, 6.0]), None);
        // Present all along and admitted after 4: still an inversion.
        tally.add(3, false, None, None);
        let report = tally.report(4, "e");
        assert_eq!((report.fifo_inversions, report.back_from_away), (1, 1));
        assert_eq!(report.estimate.samples, 0);
    }

    #[test]
    fn errors_are_ranked_and_the_band_counts_in_whole_seconds() {
        let mut tally = Tally::default();
        tally.add(1, false, sample(9.5, 10.0, [10.0, 10.0]), None);
        tally.add(2, false, sample(12.0, 10.0, [9.0, 11.0]), None);
        tally.add(3, false, sample(10.0, 10.0, [10.0, 12.0]), None);
        tally.add(4, false, sample(7.0, 10.0, [8.0, 12.0]), None);
        let report = tally.report(4, "e");
        assert_eq!(report.estimate.samples, 4);
        assert_eq!(report.estimate.median_abs_error_seconds, Some(0.5));
        assert_eq!(report.estimate.p90_abs_error_seconds, Some(3.0));
        assert_eq!(report.estimate.within_range_share, Some(0.5));
    }

    #[test]
    fn the_estimate_before_is_tallied_apart_from_the_one_at_joining() {
        let mut tally = Tally::default();
        tally.add(
            1,
            false,
            sample(90.0, 30.0, [20.0, 40.0]),
            sample(60.0, 58.0, [50.0, 70.0]),
        );
        tally.add(2, false, sample(5.0, 5.0, [5.0, 5.0]), None);
        let report = tally.report(2, "e");
        assert_eq!(report.estimate.samples, 2);
        assert_eq!(report.estimate_60s_before.samples, 1);
        assert_eq!(
            report.estimate_60s_before.median_abs_error_seconds,
            Some(2.0)
        );
        assert_eq!(report.estimate_60s_before.within_range_share, Some(1.0));
    }
}
