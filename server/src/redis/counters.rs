//! The operator dashboard's per-second counters of one event: one Redis hash per event and
//! second (unix time), one field per [`Counter`], written by whichever instance did the work
//! and read by any (`ops::stats`), so every instance shows the same series.
//!
//! Invariants: the field names, the time to live and the key are defined here only; the admit
//! script (`scripts/admit.lua`) counts admissions and the queue length inside its own step and
//! gets the field names and the time to live from here as ARGV; every write renews the time to
//! live, so a second's hash lives [`Counters::TTL_SECS`] after its last write, longer than
//! the 10 minutes the series shows, and then goes away by itself.

use ::redis::Pipeline;

use super::keys::Keys;

/// One field of a second's hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    /// Buyers admitted (by the ticker's admit script).
    Admissions,
    /// Holds created.
    Holds,
    /// Checkouts that sold their seats.
    Checkouts,
    /// Holds their buyers released.
    Releases,
    /// Holds the sweep expired.
    Expiries,
    /// The line's length after the second's last tick (a gauge: set, not added to).
    QueueLength,
    /// The admission rate in force in the second, as the ticker's leader steered it (a
    /// gauge).
    Rate,
}

impl Counter {
    pub fn field(self) -> &'static str {
        match self {
            Self::Admissions => "admissions",
            Self::Holds => "holds",
            Self::Checkouts => "checkouts",
            Self::Releases => "releases",
            Self::Expiries => "expiries",
            Self::QueueLength => "queue_length",
            Self::Rate => "rate",
        }
    }
}

/// The field of a second's hash that keeps the estimate's model record (not a count).
const MODEL: &str = "model";

/// The counters of one event in one second.
pub struct Counters {
    /// The second's hash, built by `Keys`.
    key: String,
}

impl Counters {
    /// Seconds in the operator's series (the panel and the night's archive read this many).
    pub const SERIES_SECONDS: i64 = 600;
    /// How long a second's counters are kept: the 10 minutes the series shows, and a bit.
    pub const TTL_SECS: i64 = Self::SERIES_SECONDS + 60;
    /// The counters of the operator's series, in the order [`Counters::read_series`] answers.
    pub const SERIES: [Counter; 5] = [
        Counter::Admissions,
        Counter::Holds,
        Counter::Checkouts,
        Counter::QueueLength,
        Counter::Rate,
    ];

    /// The counters of `event_id` in `unix_second`.
    pub fn at(keys: &Keys, event_id: &str, unix_second: i64) -> Self {
        Self {
            key: keys.second(event_id, unix_second),
        }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    /// Adds to `pipe` what counts one `counter` in this second (the caller sends it).
    pub fn count(&self, pipe: &mut Pipeline, counter: Counter) {
        pipe.hincr(&self.key, counter.field(), 1)
            .ignore()
            .expire(&self.key, Self::TTL_SECS)
            .ignore();
    }

    /// Adds to `pipe` what sets the gauge `counter` to `value` in this second.
    pub fn set(&self, pipe: &mut Pipeline, counter: Counter, value: u64) {
        pipe.hset(&self.key, counter.field(), value)
            .ignore()
            .expire(&self.key, Self::TTL_SECS)
            .ignore();
    }

    /// Adds to `pipe` what keeps the estimate's model as the ticker's leader saw it in this
    /// second (`app::estimate::Model::record`), so that the night's report can say what a
    /// buyer was told a minute before their admission.
    pub fn set_model(&self, pipe: &mut Pipeline, record: &str) {
        pipe.hset(&self.key, MODEL, record)
            .ignore()
            .expire(&self.key, Self::TTL_SECS)
            .ignore();
    }

    /// Adds to `pipe` the read of this second's model record: one reply, an `Option<String>`.
    pub fn read_model(&self, pipe: &mut Pipeline) {
        pipe.hget(&self.key, MODEL);
    }

    /// Adds to `pipe` the read of this second's [`Counters::SERIES`]: one reply, an array of
    /// five `Option<u64>` (absent when nothing was counted).
    pub fn read_series(&self, pipe: &mut Pipeline) {
        pipe.hget(&self.key, &Self::SERIES.map(Counter::field));
    }
}
