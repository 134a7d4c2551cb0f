//! The rate's part of the estimate ([`app::estimate::Band`]): the rate in force (from
//! `Board::in_force`, the one place that says which rate is in force), how the admission rate
//! really moved over the last [`WINDOW_SECONDS`] (the per-second admissions of the operator's
//! series, in [`SLICE_SECONDS`] slices while the line was never empty, so that a short line's
//! quiet seconds do not read as a slow rate), the share of admitted buyers who came (held
//! seats), the automatic rate's floor ([`floor_rate`]) and a hold's time. The seats' part
//! comes fresh with each answer (the line's inventory, `queue::inventory`); the model that
//! makes the estimate, its band and the outlook of both is `app::estimate::Model`.
//!
//! Invariants: what the band is made of is read from Redis at most once per [`REFRESH`] per
//! event and instance (one pipeline, never on every join or poll); a read that fails leaves
//! the last band known (or the exact one), so the line never fails for want of a band; the
//! map holds only events whose room was found.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use app::{estimate::Band, wire::Room};

use crate::{base::Handles, error::Result, queue::rates::Board, redis::Counters};

/// How far back the rate's movement is read.
pub const WINDOW_SECONDS: i64 = 120;
/// The slices the window is cut in: a rate is admissions over a slice.
pub const SLICE_SECONDS: i64 = 10;
/// How long a band's parts are used before they are read again.
pub const REFRESH: Duration = Duration::from_secs(5);
/// Slices with the line busy needed before the history says anything.
const MIN_SLICES: usize = 3;

/// The band's parts by event, as this instance last read them. A std Mutex: held to look up
/// or store, never across an await.
#[derive(Default)]
pub struct Bands {
    known: Mutex<HashMap<String, (Instant, Band)>>,
}

impl Bands {
    /// The band for `event_id` now, its rate the one in force in `room`.
    pub async fn get(&self, base: &Handles, rates: &Board, event_id: &str, room: &Room) -> Band {
        let rate = rates.in_force(event_id, room).max(1);
        let (stale, last) = {
            let mut known = self.known.lock().expect("not poisoned");
            match known.get_mut(event_id) {
                Some((read_at, band)) if read_at.elapsed() < REFRESH => (false, Some(*band)),
                Some((read_at, band)) => {
                    // Claimed: the other requests meanwhile use the last band.
                    *read_at = Instant::now();
                    (true, Some(*band))
                }
                None => (true, None),
            }
        };
        let band = match (stale, last) {
            (false, Some(band)) => band,
            (_, last) => match read(base, event_id, rate).await {
                Ok(band) => {
                    self.known
                        .lock()
                        .expect("not poisoned")
                        .insert(event_id.to_owned(), (Instant::now(), band));
                    band
                }
                Err(e) => {
                    tracing::warn!(event = %event_id, error = %e, "could not read how the rate moved");
                    last.unwrap_or_else(|| Band::exact(rate))
                }
            },
        };
        Band {
            rate,
            floor_rate: floor_rate(room),
            hold_seconds: u64::from(room.hold_ttl_seconds),
            most_seats: room.seats_per_buyer,
            ..band
        }
    }
}

/// The floor the band's slow end counts on: the automatic rate's lower bound (the ticker may
/// ease down to it once the free seats are taken), none with the operator's fixed N.
pub fn floor_rate(room: &Room) -> u32 {
    if room.auto_rate {
        room.min_admit_rate_per_second.max(1)
    } else {
        0
    }
}

/// Reads the last [`WINDOW_SECONDS`] of `event_id`'s series and makes the band of `rate`.
async fn read(state: &Handles, event_id: &str, rate: u32) -> Result<Band> {
    let now = chrono::Utc::now().timestamp();
    // The second under way is not over: it would read as a slow one.
    let first = now - WINDOW_SECONDS;
    let mut pipe = ::redis::pipe();
    for t in first..now {
        Counters::at(&state.keys, event_id, t).read_series(&mut pipe);
    }
    let reply: Vec<::redis::Value> = pipe.query_async(&mut state.redis.clone()).await?;
    let seconds = reply
        .into_iter()
        .map(|v| ::redis::from_redis_value(&v))
        .collect::<::redis::RedisResult<Vec<[Option<u64>; 5]>>>()?;
    Ok(band(rate, &seconds))
}

/// The band of `rate` from the series' `seconds` (admissions, holds, checkouts, queue length),
/// oldest first.
pub fn band(rate: u32, seconds: &[[Option<u64>; 5]]) -> Band {
    let exact = Band::exact(rate);
    let rates: Vec<u64> = seconds
        .chunks_exact(SLICE_SECONDS as usize)
        .filter(|slice| slice.iter().all(|s| s[3].unwrap_or(0) > 0))
        .map(|slice| slice.iter().map(|s| s[0].unwrap_or(0)).sum::<u64>() * 1000 / 10)
        .collect();
    let (slow_milli, fast_milli) = if rates.len() < MIN_SLICES {
        // Nothing known yet: a quarter slower than the rate, as honest as a guess gets.
        (exact.slow_milli * 3 / 4, exact.fast_milli)
    } else {
        (
            rates.iter().copied().min().unwrap_or(exact.slow_milli),
            rates.iter().copied().max().unwrap_or(exact.fast_milli),
        )
    };
    let admissions: u64 = seconds.iter().map(|s| s[0].unwrap_or(0)).sum();
    let holds: u64 = seconds.iter().map(|s| s[1].unwrap_or(0)).sum();
    let came_milli = (holds * 1000)
        .checked_div(admissions)
        .map_or(1000, |c| c.min(1000));
    Band {
        slow_milli,
        fast_milli,
        came_milli,
        admissions,
        ..exact
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn second(admissions: u64, holds: u64, queue: u64) -> [Option<u64>; 5] {
        [Some(admissions), Some(holds), None, Some(queue), None]
    }

    #[test]
    fn a_rate_that_held_gives_a_band_as_narrow_as_the_rounding() {
        let seconds = vec![second(10, 10, 500); 120];
        let band = band(10, &seconds);
        assert_eq!(band.wait_without_seats(100), (10, [10, 10]));
    }

    #[test]
    fn a_slice_that_slowed_widens_the_band_upward() {
        let mut seconds = vec![second(10, 10, 500); 120];
        for s in &mut seconds[..10] {
            *s = second(5, 5, 500);
        }
        assert_eq!(band(10, &seconds).wait_without_seats(100), (10, [10, 20]));
    }

    #[test]
    fn absent_buyers_widen_the_band_downward() {
        let seconds = vec![second(10, 5, 500); 120];
        assert_eq!(band(10, &seconds).wait_without_seats(100), (10, [5, 10]));
    }

    #[test]
    fn quiet_seconds_of_an_empty_line_are_not_a_slow_rate() {
        let mut seconds = vec![second(10, 10, 500); 120];
        for s in &mut seconds[..60] {
            *s = second(0, 0, 0);
        }
        assert_eq!(band(10, &seconds).wait_without_seats(100), (10, [10, 10]));
    }

    #[test]
    fn without_history_the_band_allows_a_quarter_slower() {
        assert_eq!(band(10, &[]).wait_without_seats(90), (9, [9, 12]));
    }
}
