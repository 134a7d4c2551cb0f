//! The automatic admission rate's control rule, a pure function ([`propose`]). The rate in
//! force as this instance knows it is the line's (`queue::rates::Board`): the line divides
//! by it, the ticker admits by it and writes it.
//!
//! The rule is AIMD with a dead band, on two signals measured across every instance
//! ([`Signals`]): the hold path's pressure (the worst of hold p99 against the room's target,
//! the pool's acquire wait against its limit and the event-loop lag against its limit: 1.0 is
//! at the limit) and the buyers shopping against a target. The target is the smaller of two:
//! - the slots the operator's starting rate opens at most, N times the admission's life
//!   (every admitted buyer shopping to the end of their admission);
//! - the holds the seats left can still make ([`seats_target`]): the free seats, and the held
//!   seats in the share that came back so far (a held seat is a seat the night may still
//!   sell, but only as often as holds have ended unpaid). Without it the rate climbs while
//!   the map is empty and admits buyers into nothing; counting only the free seats instead
//!   starves the seats that come back in a burst when holds lapse together.
//!
//! A buyer who holds, lapses or never opens the seat map frees their slot early; the rate
//! rises to fill it.
//! - Pressure above 1: cut by [`CUT`] (multiplicative), then no other cut for [`COOL_DOWN`],
//!   the measurement window, so that one slow spell is not cut for again while its samples age.
//! - More shoppers than the target: cut gently by [`EASE`] (the line is outrunning the shops).
//! - Pressure below [`HEADROOM`] and shoppers below [`HEADROOM`] of the target: add one step,
//!   a twentieth of the bounds' span (additive): shoppers who finish or lapse are replaced.
//! - Otherwise: hold. The band between the rise and the cut is what keeps it from ringing:
//!   a proportional rule with no band chases its own measurement noise, and a multiplicative
//!   rise overshoots into the next cut. Additive rise and multiplicative cut converge (TCP's
//!   argument), and every answer is clamped to the operator's bounds.

use std::time::Duration;

use app::wire::Room;

use crate::queue::inventory::Inventory;

/// The cut when the hold path is past its limits.
pub const CUT: f64 = 0.7;
/// The cut when more buyers shop than the target.
pub const EASE: f64 = 0.9;
/// Below this share of every limit (and of the shoppers' target) the rate may rise.
pub const HEADROOM: f64 = 0.8;
/// How long after a cut the hold path's pressure cannot cut again.
pub const COOL_DOWN: Duration = Duration::from_secs(5);

/// What the leader measured across instances, once a second.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Signals {
    /// The worst hold-transaction p99 of any instance over the window (`None`: no hold).
    pub hold_p99_ms: Option<f64>,
    /// The worst pool acquire wait (p99) of any instance's hold transactions.
    pub acquire_wait_ms: Option<f64>,
    /// The worst event-loop lag of any instance over the last second.
    pub loop_lag_ms: f64,
    /// Admitted buyers still shopping (no hold yet, not lapsed, seat map opened in time).
    pub shopping: u64,
    /// In a room in front of the ticketer's site with an `origin_probe_url`: the last probe
    /// of the site, which the rate follows instead of the hold path (Anteroom holds nothing
    /// for such a room).
    pub origin: Option<OriginHealth>,
}

/// The leader's last probe of the ticketer's site (`origin::probe`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum OriginHealth {
    /// It answered with a success status in this many milliseconds.
    Answered(f64),
    /// It failed: an error status, no answer, or no answer within the probe's timeout.
    Failed,
}

/// The pressure a failed probe counts as: well over the target, so the rate is cut.
pub const FAILED_PROBE_PRESSURE: f64 = 2.0;

/// What the signals are held against.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    pub target_hold_p99_ms: f64,
    pub acquire_wait_limit_ms: f64,
    pub loop_lag_limit_ms: f64,
    pub target_shoppers: u64,
    pub min: u32,
    pub max: u32,
}

impl Limits {
    /// The limits of `room`, with this deployment's acquire timeout, loop-lag limit and
    /// admission life, and the seats as the line last counted them (`None`: not counted yet).
    pub fn of(
        room: &Room,
        acquire_timeout_ms: u64,
        loop_lag_limit_ms: u32,
        admission_secs: u32,
        inventory: Option<&Inventory>,
    ) -> Self {
        let slots = u64::from(room.admit_rate_per_second) * u64::from(admission_secs);
        Self {
            target_hold_p99_ms: f64::from(room.target_hold_p99_ms),
            // Waiting a tenth of the timeout is already queueing at the pool.
            acquire_wait_limit_ms: (acquire_timeout_ms as f64 / 10.0).max(1.0),
            loop_lag_limit_ms: f64::from(loop_lag_limit_ms),
            target_shoppers: inventory.map_or(slots, |i| slots.min(seats_target(i))),
            min: room.min_admit_rate_per_second,
            max: room
                .max_admit_rate_per_second
                .max(room.min_admit_rate_per_second),
        }
    }
}

/// The buyers worth having at the seat map for the seats left: the holds that the free seats
/// and the held seats expected back can make, at the event's seats per hold so far (the shares
/// of the estimate's model, `app::estimate::Seats`, with their priors before any hold). At
/// least 1 while a seat is unsold, so that a night never stops itself.
pub fn seats_target(inventory: &Inventory) -> u64 {
    let seats = inventory.seats(0);
    // The share of the held seats that came back among those whose hold ended (the rule's
    // own reading: a held seat counts only as often as holds have ended unpaid), the model's
    // expectation before any ended.
    let ended = seats.hold_seats.saturating_sub(seats.held);
    let back = if ended > 0 {
        ended.saturating_sub(seats.sold) as f64 / ended as f64
    } else {
        seats.back().mid
    };
    let left = inventory.available as f64 + inventory.held as f64 * back;
    let target = (left / seats.seats_per_hold(f64::MAX).mid).ceil() as u64;
    let unsold = inventory.available + inventory.held > 0;
    target.max(u64::from(unsold))
}

/// The rule's answer: the rate, and why, in a short sentence for the operator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub rate: u32,
    pub reason: String,
    /// Whether this step was a cut for the hold path's pressure (starts the cool-down).
    pub cut: bool,
}

/// The next rate from `rate` (see the module's rule). `cooling`: a pressure cut was made less
/// than [`COOL_DOWN`] ago.
pub fn propose(rate: u32, signals: &Signals, limits: &Limits, cooling: bool) -> Step {
    let clamp = |r: f64| (r.floor() as u32).clamp(limits.min, limits.max);
    let ratios = [
        (
            signals.hold_p99_ms.unwrap_or(0.0) / limits.target_hold_p99_ms,
            format!(
                "hold p99 {:.0} ms against a {:.0} ms target",
                signals.hold_p99_ms.unwrap_or(0.0),
                limits.target_hold_p99_ms
            ),
        ),
        (
            signals.acquire_wait_ms.unwrap_or(0.0) / limits.acquire_wait_limit_ms,
            format!(
                "pool wait {:.0} ms against {:.0} ms",
                signals.acquire_wait_ms.unwrap_or(0.0),
                limits.acquire_wait_limit_ms
            ),
        ),
        (
            signals.loop_lag_ms / limits.loop_lag_limit_ms,
            format!(
                "event-loop lag {:.0} ms against {:.0} ms",
                signals.loop_lag_ms, limits.loop_lag_limit_ms
            ),
        ),
    ];
    let origin = signals.origin.map(|health| match health {
        OriginHealth::Answered(ms) => (
            ms / limits.target_hold_p99_ms,
            format!(
                "the site answered in {ms:.0} ms against a {:.0} ms target",
                limits.target_hold_p99_ms
            ),
        ),
        OriginHealth::Failed => (FAILED_PROBE_PRESSURE, "the site's probe failed".to_owned()),
    });
    let (pressure, worst) = ratios
        .into_iter()
        .chain(origin)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .expect("three signals");
    let shoppers = format!(
        "{} shopping of a {} target",
        signals.shopping, limits.target_shoppers
    );
    let step = |rate: u32, reason: String, cut: bool| Step { rate, reason, cut };
    if pressure > 1.0 {
        return if cooling {
            step(
                clamp(f64::from(rate)),
                format!("holding after a cut: {worst}"),
                false,
            )
        } else {
            step(
                clamp(f64::from(rate) * CUT),
                format!("slowing: {worst}"),
                true,
            )
        };
    }
    if signals.shopping > limits.target_shoppers {
        return step(
            clamp(f64::from(rate) * EASE),
            format!("slowing: {shoppers}"),
            false,
        );
    }
    if pressure < HEADROOM && (signals.shopping as f64) < HEADROOM * limits.target_shoppers as f64 {
        let span = f64::from(limits.max - limits.min);
        let rise = (span / 20.0).max(1.0);
        return step(
            clamp(f64::from(rate) + rise),
            format!("rising: holds are quick, {shoppers}"),
            false,
        );
    }
    step(
        clamp(f64::from(rate)),
        format!("steady: {worst}, {shoppers}"),
        false,
    )
}

#[cfg(test)]
mod tests {
    use app::wire::DEFAULT_ROOM;

    use super::*;

    fn limits() -> Limits {
        Limits {
            target_hold_p99_ms: 50.0,
            acquire_wait_limit_ms: 100.0,
            loop_lag_limit_ms: 100.0,
            target_shoppers: 1000,
            min: 10,
            max: 210,
        }
    }

    fn healthy(shopping: u64) -> Signals {
        Signals {
            hold_p99_ms: Some(10.0),
            acquire_wait_ms: Some(1.0),
            loop_lag_ms: 2.0,
            shopping,
            origin: None,
        }
    }

    fn seats(available: u64, held: u64, sold: u64, holds: u64, hold_seats: u64) -> Inventory {
        Inventory(app::estimate::Seats {
            available,
            held,
            sold,
            holds,
            hold_seats,
            ..Default::default()
        })
    }

    #[test]
    fn the_target_counts_free_seats_and_held_seats_in_the_share_that_came_back() {
        // Before any hold: 2 seats a hold, 1000 free seats make 500 holds.
        assert_eq!(seats_target(&seats(1000, 0, 0, 0, 0)), 500);
        // All held, none ended yet: half expected back, 500 seats at 2.5 a hold.
        assert_eq!(seats_target(&seats(0, 1000, 0, 400, 1000)), 200);
        // 600 seats' holds ended, 150 sold: 3 in 4 came back; 100 free + 300 of 400 held,
        // at 2.5 seats a hold.
        assert_eq!(seats_target(&seats(100, 400, 150, 400, 1000)), 160);
        // Every held seat so far was sold: only the free ones count; one unsold seat is 1.
        assert_eq!(seats_target(&seats(0, 10, 990, 500, 1000)), 1);
        assert_eq!(seats_target(&seats(0, 0, 1000, 500, 1000)), 0);
    }

    #[test]
    fn the_seats_left_cap_the_operators_slots() {
        let room = Room {
            enabled: true,
            paused: false,
            admit_rate_per_second: 100,
            tick_ms: 1000,
            hold_ttl_seconds: 600,
            seats_per_buyer: 4,
            hold_sweep_seconds: 5,
            epoch: 0,
            join_pow_bits: 0,
            opens_at: None,
            prequeue_seconds: 0,
            prequeue_opens_at: None,
            auto_rate: true,
            min_admit_rate_per_second: 1,
            max_admit_rate_per_second: 400,
            target_hold_p99_ms: 50,
            ..DEFAULT_ROOM
        };
        let limits = |inventory: Option<&Inventory>| Limits::of(&room, 1000, 100, 60, inventory);
        assert_eq!(limits(None).target_shoppers, 6000);
        assert_eq!(limits(Some(&seats(1000, 0, 0, 0, 0))).target_shoppers, 500);
        assert_eq!(
            limits(Some(&seats(1_000_000, 0, 0, 0, 0))).target_shoppers,
            6000
        );
    }

    #[test]
    fn a_slow_or_failing_site_cuts_the_rate_and_says_so() {
        let limits = Limits {
            target_hold_p99_ms: 200.0,
            acquire_wait_limit_ms: 100.0,
            loop_lag_limit_ms: 100.0,
            target_shoppers: 1000,
            min: 10,
            max: 1000,
        };
        let with = |origin| Signals {
            origin: Some(origin),
            ..healthy(0)
        };
        let slow = propose(100, &with(OriginHealth::Answered(450.0)), &limits, false);
        assert_eq!(slow.rate, 70);
        assert!(slow.cut);
        assert!(
            slow.reason
                .contains("the site answered in 450 ms against a 200 ms target"),
            "{}",
            slow.reason
        );
        let failed = propose(100, &with(OriginHealth::Failed), &limits, false);
        assert_eq!((failed.rate, failed.cut), (70, true));
        assert!(failed.reason.contains("probe failed"), "{}", failed.reason);
        let quick = propose(100, &with(OriginHealth::Answered(20.0)), &limits, false);
        assert!(quick.rate > 100, "{quick:?}");
    }

    #[test]
    fn slow_holds_cut_the_rate_once_per_cool_down_and_never_below_the_minimum() {
        let slow = Signals {
            hold_p99_ms: Some(80.0),
            ..healthy(0)
        };
        let cut = propose(100, &slow, &limits(), false);
        assert_eq!((cut.rate, cut.cut), (70, true));
        assert!(cut.reason.contains("hold p99 80 ms"), "{}", cut.reason);
        assert_eq!(propose(100, &slow, &limits(), true).rate, 100);
        assert_eq!(propose(12, &slow, &limits(), false).rate, 10);
    }

    #[test]
    fn pool_wait_or_loop_lag_past_their_limits_cut_too() {
        let waiting = Signals {
            acquire_wait_ms: Some(150.0),
            ..healthy(0)
        };
        assert!(
            propose(100, &waiting, &limits(), false)
                .reason
                .contains("pool wait")
        );
        let lagging = Signals {
            loop_lag_ms: 300.0,
            ..healthy(0)
        };
        assert_eq!(propose(100, &lagging, &limits(), false).rate, 70);
    }

    #[test]
    fn quick_holds_and_few_shoppers_add_a_step_up_to_the_maximum() {
        assert_eq!(propose(100, &healthy(0), &limits(), false).rate, 110);
        assert_eq!(propose(205, &healthy(0), &limits(), false).rate, 210);
        assert_eq!(propose(5, &healthy(0), &limits(), true).rate, 15);
    }

    #[test]
    fn too_many_shoppers_ease_the_rate_and_the_band_holds_it() {
        assert_eq!(propose(100, &healthy(1001), &limits(), false).rate, 90);
        // Between the rise and the cut: neither.
        assert_eq!(propose(100, &healthy(900), &limits(), false).rate, 100);
        let near = Signals {
            hold_p99_ms: Some(45.0),
            ..healthy(0)
        };
        assert_eq!(propose(100, &near, &limits(), false).rate, 100);
    }

    #[test]
    fn a_slow_spell_then_recovery_settles_without_ringing() {
        // Pressure follows the rate: p99 = 0.5 ms per admission a second.
        let mut rate = 200;
        let mut rates = Vec::new();
        let mut cooling = 0u32;
        for _ in 0..60 {
            let signals = Signals {
                hold_p99_ms: Some(f64::from(rate) * 0.5),
                ..healthy(0)
            };
            let step = propose(rate, &signals, &limits(), cooling > 0);
            cooling = if step.cut {
                5
            } else {
                cooling.saturating_sub(1)
            };
            rate = step.rate;
            rates.push(rate);
        }
        // The target is met at 100 a second; the rate ends in the band, at most 100.
        let tail = &rates[40..];
        assert!(tail.iter().all(|r| (70..=100).contains(r)), "{rates:?}");
        let changes = tail.windows(2).filter(|w| w[0] != w[1]).count();
        assert!(changes <= 4, "rings: {rates:?}");
    }
}
