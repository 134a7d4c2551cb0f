//! The tests of `estimate`.
use super::*;

#[test]
fn the_operators_expectations_fill_only_what_no_earlier_night_measured() {
    let room = crate::wire::Room {
        seats_per_buyer: 4,
        expected_seats_per_hold: 6,
        expected_holding_percent: 40,
        ..crate::wire::DEFAULT_ROOM
    };
    // A first night: the expectations, the seats within the room's limit; the seats back
    // have no expectation (the generic prior).
    assert_eq!(
        History::default().or_expected(&room),
        History {
            seats_per_hold_milli: 4000,
            back_milli: 0,
            came_milli: 400,
        }
    );
    // Earlier nights measured: theirs stand.
    let measured = History {
        seats_per_hold_milli: 1500,
        back_milli: 300,
        came_milli: 900,
    };
    assert_eq!(measured.or_expected(&room), measured);
    // Weighed as an earlier night: twenty holds of one seat bring 4 to 2.5.
    let seats = Seats {
        holds: 20,
        hold_seats: 20,
        history: History::default().or_expected(&room),
        ..Seats::default()
    };
    assert!((seats.seats_per_hold(4.0).mid - 2.5).abs() < 1e-9);
}
use crate::wire::Outlook::{Likely, Uncertain, Unlikely};

fn band(rate: u32) -> Band {
    Band {
        hold_seconds: 60,
        ..Band::exact(rate)
    }
}

fn model(band: Band, seats: Seats) -> Model {
    Model {
        band,
        seats: Some(seats),
        now_ms: 1_000_000,
    }
}

#[test]
fn without_seats_the_estimate_is_the_position_over_the_rate() {
    let exact = Band::exact(300);
    assert_eq!(exact.wait_without_seats(14_812).0, 50);
    assert_eq!(exact.wait_without_seats(1).0, 1);
    assert_eq!(exact.wait_without_seats(300).0, 1);
    assert_eq!(exact.wait_without_seats(301), (2, [1, 2]));
    assert_eq!(exact.wait_without_seats(0), (0, [0, 0]));
}

#[test]
fn a_rate_that_moved_widens_the_band_both_ways() {
    let band = Band {
        slow_milli: 5_000,
        fast_milli: 20_000,
        came_milli: 500,
        admissions: 1000,
        ..Band::exact(10)
    };
    // 100 places: 10 s at the rate, 20 s at the slow one, 2.5 s at the fast one with
    // half the turns skipped.
    assert_eq!(band.wait_without_seats(100), (10, [2, 20]));
}

/// A night bounded by the rate: plenty of free seats, the estimate is the rate's.
#[test]
fn where_the_free_seats_serve_everyone_ahead_the_rate_bounds_the_wait() {
    let seats = Seats {
        available: 10_000,
        holds: 100,
        hold_seats: 200,
        ..Seats::default()
    };
    let m = model(band(10), seats);
    for p in [1, 10, 99, 1_000, 4_000] {
        assert_eq!(m.wait(p).0, p.div_ceil(10), "position {p}");
    }
    assert_eq!(m.outlook(1_000), Some(Likely));
}

/// A night bounded by the seats: 10 seats free, 20 held whose holds end 30 to 40 s from
/// now, one seat a hold, everyone holds, half the held seats come back (measured).
fn bounded() -> Model {
    let now = 1_000;
    let seats = Seats {
        available: 10,
        held: 20,
        sold: 100,
        holds: 320,
        hold_seats: 320,
        back_from: now + 30,
        back_until: now + 40,
        admitted: 0,
        shopping: 0,
        history: History::default(),
    };
    // Ended: 300 seats, of which 100 sold and 200 came back: two thirds.
    model(
        Band {
            came_milli: 1000,
            admissions: 10_000,
            ..band(10)
        },
        Seats { ..seats },
    )
}

#[test]
fn behind_the_free_seats_the_wait_follows_the_seats_that_come_back() {
    let m = bounded();
    // 10 free seats: the first 10 places at the rate.
    assert_eq!(m.wait(10).0, 1);
    // The 20 held seats come back two thirds (13.3) evenly from 30 to 40 s: the 11th
    // place when the first seat is back (30.75 s), the 20th by 37.5 s.
    assert_eq!(m.wait(11).0, 31);
    assert_eq!(m.wait(20).0, 38);
    // Behind those, the 10 seats taken at first come back two thirds a hold's time
    // later (60 to 61 s).
    assert_eq!(m.wait(25).0, 61);
    // Never faster than the rate, whatever the seats.
    for p in 1..200 {
        let (estimate, [low, high]) = m.wait(p);
        assert!(estimate >= p.div_ceil(10), "position {p}");
        assert!(low <= estimate && estimate <= high, "position {p}");
        assert!(m.wait(p + 1).0 >= estimate, "monotone at {p}");
    }
}

#[test]
fn the_share_who_hold_is_measured_over_the_buyers_done_shopping() {
    let seats = |admitted, shopping, holds| Seats {
        available: 100,
        admitted,
        shopping,
        holds,
        hold_seats: holds,
        ..Seats::default()
    };
    let b = band(10);
    assert_eq!(
        seats(30, 15, 10).came(&b),
        CAME_PRIOR,
        "15 done: too few to say"
    );
    // 40 done, 30 of them held: three quarters, whatever the 60 still shopping do.
    let came = seats(100, 60, 30).came(&b);
    assert_eq!(came.mid, 0.75);
    assert!(came.low < 0.75 && came.high > 0.75);
    // The model reads it before the band's: 100 free seats at one a hold serve 133.
    let m = model(band(10), seats(100, 60, 30));
    assert_eq!(m.free_seat_places(), Some(133));
}

#[test]
fn the_seats_still_held_count_at_the_expected_share_until_their_holds_end() {
    // The seed's night a few seconds in: 1,000 seats held in 400 holds, the 100 seats of
    // the buyers who paid at once sold, nothing lapsed yet. The ended seats alone say
    // nothing comes back; the 900 still held count at the prior's half, and anywhere from
    // none to all of them in the range.
    let early = Seats {
        available: 1000,
        held: 900,
        sold: 100,
        holds: 400,
        hold_seats: 1000,
        ..Seats::default()
    };
    let back = early.back();
    assert_eq!(back.mid, 0.45);
    assert!(
        back.low <= 0.0 + 1e-9 && back.high >= 0.9 - 1e-9,
        "{back:?}"
    );
    // A hold's time later every one of them has ended: two thirds came back, known to
    // within the error of 1,000 samples.
    let later = Seats {
        held: 0,
        sold: 333,
        ..early
    };
    let back = later.back();
    assert!((back.mid - 0.667).abs() < 1e-9, "{back:?}");
    assert!(back.high - back.low < 0.05, "{back:?}");
    // Between the two the range narrows, and always holds the share that will be.
    let half = Seats {
        held: 450,
        sold: 250,
        ..early
    };
    let back = half.back();
    assert!(back.low < 0.667 && 0.667 < back.high, "{back:?}");
    assert!(back.high - back.low < early.back().high - early.back().low);
}

#[test]
fn the_earlier_nights_stand_in_for_the_priors_until_the_night_measures_its_own() {
    let history = History {
        seats_per_hold_milli: 1000,
        back_milli: 330,
        came_milli: 750,
    };
    let first = Seats {
        available: 60,
        ..Seats::default()
    };
    let second = Seats { history, ..first };
    // Before any hold: the priors (2 seats a hold, everyone holding) let 60 seats serve
    // 30 places; the earlier nights (1 seat, three quarters holding), 80.
    assert_eq!(model(band(4), first).free_seat_places(), Some(30));
    assert_eq!(model(band(4), second).free_seat_places(), Some(80));
    assert_eq!(second.back().mid, 0.33);
    let b = band(4);
    assert_eq!(second.came(&b).mid, 0.75);
    // Known as well as four samples: a range of half the share either way.
    let spread = second.seats_per_hold(4.0);
    assert_eq!((spread.low, spread.high), (1.0, 1.5), "{spread:?}");
    // The night's own samples weigh in as they come: 20 holds of 3 seats against the
    // history's 1 make 2; the first hold alone moves it a little.
    let own = |holds| Seats {
        holds,
        hold_seats: 3 * holds,
        ..second
    };
    assert_eq!(own(20).seats_per_hold(4.0).mid, 2.0);
    // Another event's history never makes a hold take more than this room allows.
    let generous = Seats {
        history: History {
            seats_per_hold_milli: 3500,
            ..history
        },
        ..first
    };
    assert_eq!(generous.seats_per_hold(2.0).mid, 2.0);
    assert_eq!(generous.seats_per_hold(2.0).high, 2.0);
    let one = own(1).seats_per_hold(4.0).mid;
    assert!(one > 1.0 && one < 1.2, "{one}");
    // Without a history the first hold is the measure, as before.
    assert_eq!(
        Seats {
            holds: 1,
            hold_seats: 3,
            ..first
        }
        .seats_per_hold(4.0)
        .mid,
        3.0
    );
    // The outlook and the estimate follow: place 70 is within the seats the earlier
    // nights say the free ones serve, far behind those the priors say.
    let (told_first, _) = model(band(4), first).wait(70);
    let (told_second, _) = model(band(4), second).wait(70);
    assert_eq!(told_second, 18, "70 places at 4 a second");
    assert!(
        told_first > 60,
        "behind the seats, a hold's time: {told_first}"
    );
    // The outlook promises only on what this night measured: the same as without them.
    assert_eq!(model(band(4), second).outlook(40), Some(Uncertain));
    assert_eq!(model(band(4), first).outlook(40), Some(Uncertain));
    assert_eq!(model(band(4), second).outlook(10), Some(Likely));
}

#[test]
fn the_free_seats_serve_their_places_at_the_measured_shares() {
    // 10 free seats, one a hold, everyone holds: 10 places; with half the admitted
    // holding, 20; before any hold (2 seats a hold, all holding), 5.
    assert_eq!(bounded().free_seat_places(), Some(10));
    let half = Model {
        band: Band {
            came_milli: 500,
            ..bounded().band
        },
        ..bounded()
    };
    assert_eq!(half.free_seat_places(), Some(20));
    let fresh = model(
        band(10),
        Seats {
            available: 10,
            ..Seats::default()
        },
    );
    assert_eq!(fresh.free_seat_places(), Some(5));
    assert_eq!(
        Model {
            seats: None,
            ..fresh
        }
        .free_seat_places(),
        None
    );
}

#[test]
fn the_outlook_says_likely_within_the_free_seats_and_unlikely_far_beyond_the_seats() {
    let m = bounded();
    // Uses of every seat left: (10 + 20 * 2/3) / (1/3) = 70 places, give or take.
    assert_eq!(m.outlook(5), Some(Likely));
    assert_eq!(m.outlook(70), Some(Uncertain));
    assert_eq!(m.outlook(200), Some(Unlikely));
}

#[test]
fn before_any_hold_the_priors_leave_most_of_the_line_uncertain() {
    // 60 seats, nothing held or sold yet, nobody admitted.
    let seats = Seats {
        available: 60,
        ..Seats::default()
    };
    let m = model(band(20), seats);
    assert_eq!(
        m.outlook(10),
        Some(Likely),
        "a quarter of the seats at 4 a hold"
    );
    assert_eq!(m.outlook(100), Some(Uncertain));
    assert_eq!(m.outlook(2_000), Some(Unlikely));
}

/// With the automatic rate, the places behind the free seats go no slower than its floor.
#[test]
fn with_the_automatic_rate_the_floor_bounds_the_wait_behind_the_free_seats() {
    let fixed = bounded();
    let auto = Model {
        band: Band {
            floor_rate: 2,
            ..fixed.band
        },
        ..fixed
    };
    // 15 places beyond the 10 free ones at 2 a second: 1 + 7.5 s, sooner than the seats.
    assert_eq!(fixed.wait(25).0, 61);
    assert_eq!(auto.wait(25).0, 9);
    // Within the free seats the floor changes nothing.
    assert_eq!(auto.wait(10).0, fixed.wait(10).0);
}

#[test]
fn a_place_the_seats_never_reach_waits_until_the_last_seat_could_come_back() {
    let mut m = bounded();
    let seats = m.seats.as_mut().unwrap();
    // Everything ended sold: nothing comes back.
    seats.sold = 300;
    let (estimate, [low, high]) = m.wait(50);
    // The 20 held seats' holds end by 40 s, the 10 free ones' by 61 s.
    assert_eq!(estimate, 61);
    assert!(low <= estimate && estimate <= high);
    assert_eq!(m.outlook(50), Some(Unlikely));
}

#[test]
fn records_read_back_and_old_ones_read_as_their_rate() {
    let band = Band {
        slow_milli: 7_500,
        came_milli: 900,
        admissions: 40,
        floor_rate: 2,
        hold_seconds: 600,
        most_seats: 4,
        ..Band::exact(10)
    };
    assert_eq!(Band::from_record(&band.record()), Some(band));
    assert_eq!(
        band.record(),
        "m:10:7500:10000:900:40:2:600:4",
        "one field each"
    );
    let old = Band::from_record("10:7500:10000:1000:5:10:60:2").expect("an eight-part record");
    assert_eq!((old.rate, old.floor_rate, old.hold_seconds), (10, 2, 60));
    assert_eq!(Band::from_record("10:7500:10000:1000:5:10"), None);
    let seats = Seats {
        available: 1,
        held: 2,
        sold: 3,
        holds: 4,
        hold_seats: 5,
        back_from: 6,
        back_until: 7,
        admitted: 0,
        shopping: 8,
        history: History::default(),
    };
    let record = format!("{}/8:1:2:3:4:5:6:7", band.record());
    let with_admitted = format!("{record}:9");
    let admitted = Seats {
        admitted: 9,
        ..seats
    };
    assert_eq!(
        Model::from_record(&with_admitted),
        Some((band, Some(admitted)))
    );
    let history = Seats {
        history: History {
            seats_per_hold_milli: 1500,
            back_milli: 330,
            came_milli: 750,
        },
        ..admitted
    };
    let model = Model {
        band,
        seats: Some(history),
        now_ms: 0,
    };
    assert_eq!(
        model.record(),
        format!("{record}:1500:330:750:9"),
        "the history before the admissions, as the inventory's fields"
    );
    assert_eq!(
        Model::from_record(&model.record()),
        Some((band, Some(history)))
    );
    assert_eq!(
        Model::from_record("10:7500:10000:1000:5:10:60"),
        Some((
            Band {
                rate: 10,
                slow_milli: 7500,
                fast_milli: 10_000,
                came_milli: 1000,
                admissions: MIN_ADMISSIONS,
                floor_rate: 0,
                hold_seconds: 60,
                most_seats: 0
            },
            None
        ))
    );
    assert_eq!(Model::from_record(&record), Some((band, Some(seats))));
    assert_eq!(Model::from_record(&band.record()), Some((band, None)));
    assert_eq!(Model::from_record(&format!("{}/1:2", band.record())), None);
}

mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// Whatever the rate did and wherever the seats stand, the band holds the
        /// estimate, the estimate is never below `ceil(position / rate)`, a place further
        /// back never waits less, and the record gives back the same model.
        #[test]
        fn the_band_holds_the_estimate_and_survives_its_record(
            position in 1u64..1_000_000, rate in 1u32..=100_000,
            slow in 0u64..200_000_000, fast in 0u64..200_000_000, came in 0u64..2000,
            admissions in 0u64..100_000, floor in 0u32..=1000, hold in 0u64..2000,
            most in 0u32..10,
            seats in proptest::option::of((0u64..5000, 0u64..5000, 0u64..5000, 0u64..2000,
                0u64..8000, 0i64..4000, 0i64..4000, 0u64..1000)),
            history in proptest::option::of((0u64..5000, 0u64..=1000, 0u64..=1000)),
        ) {
            let band = Band {
                rate, slow_milli: slow, fast_milli: fast, came_milli: came, admissions,
                floor_rate: floor, hold_seconds: hold, most_seats: most,
            };
            let seats = seats.map(|(available, held, sold, holds, hold_seats, from, until, shopping)| Seats {
                available, held, sold, holds, hold_seats: hold_seats.max(holds),
                back_from: 1_000 + from, back_until: 1_000 + from + until,
                admitted: holds + shopping, shopping,
                history: history.map_or(History::default(), |(s, b, c)| History {
                    seats_per_hold_milli: s, back_milli: b, came_milli: c,
                }),
            });
            let model = Model { band, seats, now_ms: 1_000_000 };
            let (estimate, [low, high]) = model.wait(position);
            prop_assert!(estimate >= position.div_ceil(u64::from(band.rate)));
            prop_assert!(low <= estimate && estimate <= high);
            prop_assert!(model.wait(position + 1).0 >= estimate);
            prop_assert_eq!(Band::from_record(&band.record()), Some(band));
            prop_assert_eq!(Model::from_record(&model.record()), Some((band, seats)));
        }
    }
}
