//! The estimate and its band (API.md "Queue", issue 18). The estimate is `ceil(position /
//! rate)` with the rate from `Board::in_force` (`crate::admission::rate`), the one place that says which
//! rate is in force.
//! The band ([`app::wire::Band`]) says how far the real wait may stray from it: how the
//! admission rate really moved over the last [`WINDOW_SECONDS`] (the per-second admissions of
//! the operator's series, in [`SLICE_SECONDS`] slices while the line was never empty, so that
//! a short line's quiet seconds do not read as a slow rate) and the share of admitted buyers
//! who came (held seats), whose absent others' turns may go to the next buyer; and the seats
//! (the line's inventory): behind the places the free seats serve, admission waits for held
//! seats to come back, up to a hold's time a round; and with the automatic rate, behind those
//! places the ticker eases toward its floor ([`floor_rate`]) while the seats come back, so
//! they may move no faster than the floor. A night whose buyers all join in its first second
//! is estimated before any history exists: without the floor, its band's slow end was the
//! starting rate's, and 40.5% of the real waits fell inside it (94.9% with it: `onsale
//! --auto-rate`, 5,000 buyers, 1,000 seats, N = 100, 2026-12-01).
//!
//! Invariants: the band always holds the estimate (`Band::wait`); what the band is made of is
//! read from Redis at most once per [`REFRESH`] per event and instance (one pipeline, never on
//! every join or poll); a read that fails leaves the last band known (or the exact one), so the
//! line never fails for want of a band; the map holds only events whose room was found.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use app::wire::{Band, Room};

use crate::{
    admission::rate::Board, base::Handles, error::Result, queue::inventory::Inventory,
    redis::Counters,
};

/// How far back the rate's movement is read.
pub const WINDOW_SECONDS: i64 = 120;
/// The slices the window is cut in: a rate is admissions over a slice.
pub const SLICE_SECONDS: i64 = 10;
/// How long a band's parts are used before they are read again.
pub const REFRESH: Duration = Duration::from_secs(5);
/// Slices with the line busy needed before the history says anything.
const MIN_SLICES: usize = 3;
/// Admissions needed before the share who came says anything.
const MIN_ADMISSIONS: u64 = 20;

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
            (_, last) => match read(base, event_id, rate, room.hold_ttl_seconds).await {
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

/// Reads the last [`WINDOW_SECONDS`] of `event_id`'s series and the line's inventory, and
/// makes the band of `rate` (with holds lasting `hold_seconds`).
async fn read(state: &Handles, event_id: &str, rate: u32, hold_seconds: u32) -> Result<Band> {
    let now = chrono::Utc::now().timestamp();
    // The second under way is not over: it would read as a slow one.
    let first = now - WINDOW_SECONDS;
    let mut pipe = ::redis::pipe();
    pipe.hget(state.keys.inventory(event_id), &Inventory::FIELDS[..]);
    for t in first..now {
        Counters::at(&state.keys, event_id, t).read_series(&mut pipe);
    }
    let mut reply: Vec<::redis::Value> = pipe.query_async(&mut state.redis.clone()).await?;
    let seconds = reply
        .split_off(1)
        .into_iter()
        .map(|v| ::redis::from_redis_value(&v))
        .collect::<::redis::RedisResult<Vec<[Option<u64>; 5]>>>()?;
    let inventory: Vec<Option<u64>> = ::redis::from_redis_value(&reply[0])?;
    let band = band(rate, &seconds);
    Ok(match Inventory::from_values(&inventory) {
        Some(inventory) => with_seats(band, &inventory, hold_seconds),
        None => band,
    })
}

/// `band` with the wait for held seats: the free seats serve so many places (at the average
/// seats a hold), then each hold's time the free and held seats serve that many again.
pub fn with_seats(band: Band, inventory: &Inventory, hold_seconds: u32) -> Band {
    let (seats, holds) = inventory.seats_per_hold();
    let places = |s: u64| (u128::from(s) * u128::from(holds) / u128::from(seats.max(1))) as u64;
    Band {
        free_places: places(inventory.available),
        cycle_places: places(inventory.available + inventory.held).max(1),
        cycle_seconds: u64::from(hold_seconds),
        ..band
    }
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
    let came_milli = if admissions < MIN_ADMISSIONS {
        1000
    } else {
        (holds * 1000 / admissions).min(1000)
    };
    Band {
        slow_milli,
        fast_milli,
        came_milli,
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
        assert_eq!(band.wait(100), (10, [10, 10]));
    }

    #[test]
    fn a_slice_that_slowed_widens_the_band_upward() {
        let mut seconds = vec![second(10, 10, 500); 120];
        for s in &mut seconds[..10] {
            *s = second(5, 5, 500);
        }
        assert_eq!(band(10, &seconds).wait(100), (10, [10, 20]));
    }

    #[test]
    fn absent_buyers_widen_the_band_downward() {
        let seconds = vec![second(10, 5, 500); 120];
        assert_eq!(band(10, &seconds).wait(100), (10, [5, 10]));
    }

    #[test]
    fn quiet_seconds_of_an_empty_line_are_not_a_slow_rate() {
        let mut seconds = vec![second(10, 10, 500); 120];
        for s in &mut seconds[..60] {
            *s = second(0, 0, 0);
        }
        assert_eq!(band(10, &seconds).wait(100), (10, [10, 10]));
    }

    /// A rate of 10 that held, 2 seats a hold, holds of 60 s: 10 free seats serve 5 places,
    /// 10 free and held serve 10 a round.
    fn ten_a_second_with_ten_seats_free_and_ten_held() -> Band {
        let seconds = vec![second(10, 10, 500); 120];
        let inventory = Inventory {
            available: 10,
            held: 10,
            holds: 5,
            hold_seats: 10,
            ..Inventory::default()
        };
        with_seats(band(10, &seconds), &inventory, 60)
    }

    #[test]
    fn behind_the_free_seats_each_round_of_held_ones_adds_a_holds_time() {
        let band = ten_a_second_with_ten_seats_free_and_ten_held();
        assert_eq!(band.wait(5), (1, [0, 1]));
        assert_eq!(band.wait(6), (1, [0, 61]));
        assert_eq!(band.wait(16), (2, [1, 122]));
    }

    #[test]
    fn with_the_automatic_rate_the_places_behind_the_free_seats_may_go_at_its_floor() {
        let fixed = ten_a_second_with_ten_seats_free_and_ten_held();
        let auto = Band {
            floor_rate: 2,
            ..fixed
        };
        // 5 places the free seats serve at 10 a second, then 100 at 2 a second: 1 + 50 s,
        // more than the seats' rounds (0.5 s + 10 rounds of 60 s would be slower still).
        assert_eq!(fixed.wait(105), (11, [10, 611]));
        assert_eq!(auto.wait(105), (11, [10, 611]));
        // Seats that come back quickly: the floor is what bounds the wait.
        let quick = Band {
            cycle_seconds: 1,
            ..auto
        };
        assert_eq!(quick.wait(105), (11, [10, 51]));
        assert_eq!(
            Band {
                floor_rate: 0,
                ..quick
            }
            .wait(105),
            (11, [10, 21])
        );
        // Within the free seats the floor changes nothing.
        assert_eq!(auto.wait(5), (1, [0, 1]));
    }

    #[test]
    fn without_history_the_band_allows_a_quarter_slower() {
        assert_eq!(band(10, &[]).wait(90), (9, [9, 12]));
    }
}
