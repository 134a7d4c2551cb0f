//! The model of the line's future (DESIGN.md "The estimate", "Sold out and the outlook"): how
//! long a buyer at a position waits ([`Model::wait`]: the estimate and its band) and whether
//! seats are likely to be left at their turn ([`Model::outlook`]). One implementation: the
//! server answers with it and the night's report recomputes, from a join's record, what the
//! buyer was told; a page far from the front can compute the same from the line's progress.
//!
//! The model: the buyers ahead are admitted at the rate in force while the free seats serve
//! them (each admitted buyer takes the seats a hold takes, times the share of admitted buyers
//! who hold; the admitted buyers still shopping take theirs first); behind them, admission
//! follows the seats that come back: the held seats' share that lapses rather than sells, as
//! their holds end (between the soonest and the latest end), and, a hold's time later, the
//! same share of the seats taken since, round after round; never faster than the rate in
//! force, and with the automatic rate no slower than its floor. Where seats do not bound the
//! wait (or are not known) the estimate is `ceil(position / rate)`.
//!
//! What is measured is known only so well: each share comes with a range ([`Range`]) that
//! narrows as samples come in (a prior until there are any). The band's fast end takes every
//! range at its most favourable to the buyer (the fast rate, seats back at their holds'
//! soonest end), the slow end at its least; the outlook is `likely` when even the unfavourable
//! ranges leave the buyer a seat with a probability of at least [`LIKELY`], `unlikely` when
//! even the favourable ones leave it at most `1 - LIKELY`, else `uncertain`.
//!
//! Invariants: `low <= estimate <= high` for every position; the estimate never falls below
//! `ceil(position / rate)` (admission never outruns the rate); positions further back never
//! wait less (the wait is monotone in the position); everything is exact arithmetic on the
//! recorded whole numbers plus IEEE-754 basic operations (no transcendental functions), so a
//! WebAssembly page and the server compute the same figures.

use crate::wire::Outlook;
use returns::Returns;

mod returns;

/// The probability of a seat above which the outlook is `likely` (and below `1 - LIKELY`,
/// `unlikely`), as the standard normal quantile: z >= 0.5244 is P >= 70%.
pub const LIKELY: f64 = 0.7;
const Z_LIKELY: f64 = 0.5244;

/// Seats a hold takes before the event has any hold (DESIGN.md): 2, somewhere from 1 to 4.
const SEATS_PER_HOLD_PRIOR: Range = Range {
    mid: 2.0,
    low: 1.0,
    high: 4.0,
};
/// The share of held seats that come back before any hold has ended: a buyer who holds pays
/// about as often as not.
const BACK_PRIOR: Range = Range {
    mid: 0.5,
    low: 0.25,
    high: 0.75,
};
/// The share of admitted buyers who hold, before enough have been admitted to say: all of
/// them, perhaps only half.
const CAME_PRIOR: Range = Range {
    mid: 1.0,
    low: 0.5,
    high: 1.0,
};
/// What one earlier night's shares weigh against this night's own samples: as many as this
/// (nights of one house differ, so twenty of the night's own holds outweigh its history).
pub const HISTORY_WEIGHT: u64 = 20;
/// How well the earlier nights' shares are known for this one: as well as this many samples
/// of its own (a range of half the share either way). Nights of one house differ in more than
/// their shares (the seats that come back serve the line in pieces: on the bench's night,
/// with the history's range as narrow as twenty samples, 46% of the buyers told `likely` left
/// without a seat).
const HISTORY_RANGE: u64 = 4;
/// Admissions needed before the share who came says anything.
pub const MIN_ADMISSIONS: u64 = 20;
/// The most rounds of seats coming back the model follows (each a hold's time).
const MAX_ROUNDS: u32 = 64;
/// The rounds stop once all but this share of the seats that will ever come back have: the
/// tail of the series is a few seats spread over many holds' times, and a place that would
/// need it is told when the bulk has come back (then the line knows), not minutes later.
const TAIL: f64 = 0.05;

/// What the line's recent history says of the rate (read every few seconds by the server):
/// the rate in force and how the admission rate really moved (in thousandths of an admission
/// a second, so that a record is a short string of whole numbers), and the share of admitted
/// buyers who came (held a seat). Invariant: `slow_milli <= 1000 * rate <= fast_milli` once
/// clamped (see [`Band::wait_without_seats`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Band {
    /// The admission rate in force (a second).
    pub rate: u32,
    /// The slow end of the rate lately, in milli-admissions a second.
    pub slow_milli: u64,
    /// The fast end of the rate lately, in milli-admissions a second.
    pub fast_milli: u64,
    /// Thousandths of the admitted buyers who came (held a seat) lately.
    pub came_milli: u64,
    /// The admissions `came_milli` was measured over (below [`MIN_ADMISSIONS`]: a prior).
    pub admissions: u64,
    /// With the automatic rate, its floor (a second; 0 with the operator's fixed N).
    pub floor_rate: u32,
    /// A hold's time: a held seat that lapses comes back this long after it was taken.
    pub hold_seconds: u64,
    /// The most seats one buyer may hold (the room's `seats_per_buyer`; 0: unknown, taken as
    /// [`SEATS_PER_HOLD_PRIOR`]'s high end): a hold never takes more.
    pub most_seats: u32,
}

impl Band {
    /// The band of a rate nothing is known about yet: the rate exactly, everyone coming.
    pub fn exact(rate: u32) -> Self {
        let milli = u64::from(rate.max(1)) * 1000;
        Self {
            rate: rate.max(1),
            slow_milli: milli,
            fast_milli: milli,
            came_milli: 1000,
            admissions: 0,
            floor_rate: 0,
            hold_seconds: 0,
            most_seats: 0,
        }
    }

    /// `(estimate, [low, high])` with nothing known of the seats: the estimate is
    /// `ceil(position / rate)`, the band runs from the fast rate with the absent buyers'
    /// turns skipped (rounded down) to the slow rate (rounded up).
    pub fn wait_without_seats(&self, position: u64) -> (u64, [u64; 2]) {
        Model {
            band: *self,
            seats: None,
            now_ms: 0,
        }
        .wait(position)
    }

    /// The band as the line records it with a place:
    /// `m:rate:slow:fast:came:admissions:floor:hold_seconds:most_seats`.
    pub fn record(&self) -> String {
        format!(
            "m:{}:{}:{}:{}:{}:{}:{}:{}",
            self.rate,
            self.slow_milli,
            self.fast_milli,
            self.came_milli,
            self.admissions,
            self.floor_rate,
            self.hold_seconds,
            self.most_seats
        )
    }

    /// The band of a [`Band::record`]; a record of the model before the seats were part of it
    /// (`rate:slow:fast:came:free:cycle:seconds[:floor]`) reads as its rate's parts.
    pub fn from_record(record: &str) -> Option<Self> {
        let (current, record) = match record.strip_prefix("m:") {
            Some(record) => (true, record),
            None => (false, record),
        };
        let parts = record
            .split(':')
            .map(str::parse::<u64>)
            .collect::<Result<Vec<u64>, _>>()
            .ok()?;
        let (rate, slow, fast, came, admissions, floor, hold, most) = match (current, &parts[..]) {
            (true, &[rate, slow, fast, came, admissions, floor, hold, most]) => {
                (rate, slow, fast, came, admissions, floor, hold, most)
            }
            (false, &[rate, slow, fast, came, _, _, hold]) => {
                (rate, slow, fast, came, MIN_ADMISSIONS, 0, hold, 0)
            }
            (false, &[rate, slow, fast, came, _, _, hold, floor]) => {
                (rate, slow, fast, came, MIN_ADMISSIONS, floor, hold, 0)
            }
            _ => return None,
        };
        Some(Self {
            rate: u32::try_from(rate).ok()?.max(1),
            slow_milli: slow,
            fast_milli: fast,
            came_milli: came,
            admissions,
            floor_rate: u32::try_from(floor).ok()?,
            hold_seconds: hold,
            most_seats: u32::try_from(most).ok()?,
        })
    }

    /// The seats one hold may take at most.
    fn most_seats(&self) -> f64 {
        match self.most_seats {
            0 => SEATS_PER_HOLD_PRIOR.high,
            most => f64::from(most),
        }
    }

    /// The share of admitted buyers who hold as the band measured it lately, and over how
    /// many admissions; `None` below [`MIN_ADMISSIONS`].
    fn came(&self) -> Option<(f64, u64)> {
        (self.admissions >= MIN_ADMISSIONS).then(|| {
            (
                self.came_milli.clamp(1, 1000) as f64 / 1000.0,
                self.admissions,
            )
        })
    }
}

/// What the house's earlier nights measured (DESIGN.md "The estimate"): the seats a hold
/// took, the share of held seats that came back rather than sold, and the share of admitted
/// buyers who held, in thousandths; 0 where no earlier night measured it. Until a night has
/// measured its own, a buyer is told what the nights before it saw (not the generic priors),
/// weighed as [`HISTORY_WEIGHT`] samples against the night's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct History {
    pub seats_per_hold_milli: u64,
    pub back_milli: u64,
    pub came_milli: u64,
}

impl History {
    /// These shares, and where no earlier night measured one, what the operator expects of a
    /// first night (`room.expected_seats_per_hold` within its seat limit,
    /// `expected_holding_percent`): weighed as an earlier night, so the night's own holds
    /// replace them as they come.
    pub fn or_expected(self, room: &crate::wire::Room) -> Self {
        let or = |measured: u64, expected: u64| if measured > 0 { measured } else { expected };
        Self {
            seats_per_hold_milli: or(
                self.seats_per_hold_milli,
                u64::from(room.expected_seats()) * 1000,
            ),
            back_milli: self.back_milli,
            came_milli: or(
                self.came_milli,
                u64::from(room.expected_holding_percent.clamp(1, 100)) * 10,
            ),
        }
    }
}

/// An event's seats as the line knows them when it answers: counted in Postgres by the
/// ticker's leader each tick, with the admitted buyers still shopping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seats {
    /// Free, or held by a hold past its expiry.
    pub available: u64,
    /// Held by a hold that has not expired: they may come back.
    pub held: u64,
    pub sold: u64,
    /// Holds ever made for the event, and the seats in them.
    pub holds: u64,
    pub hold_seats: u64,
    /// When the holds of the held seats end: the soonest and the latest (unix seconds; 0
    /// when nothing is held).
    pub back_from: i64,
    pub back_until: i64,
    /// Buyers admitted so far.
    pub admitted: u64,
    /// Admitted buyers without a hold yet: ahead of everyone waiting for the seats.
    pub shopping: u64,
    /// What the house's earlier nights measured, in place of the generic priors.
    pub history: History,
}

impl Seats {
    /// Every seat sold: the line is over.
    pub fn sold_out(&self) -> bool {
        self.available == 0 && self.held == 0 && self.sold > 0
    }

    /// The seats a hold takes, of at most `most`: measured over the event's holds, a prior
    /// before any.
    pub fn seats_per_hold(&self, most: f64) -> Range {
        let most = most.max(1.0);
        let own =
            (self.holds > 0).then(|| (self.hold_seats as f64 / self.holds as f64, self.holds));
        // A hold takes at most this room's limit, unless this night's own holds took more (the
        // limit was lowered since): the priors and another event's history never exceed it.
        let top = own.map_or(most, |(mean, _)| most.max(mean));
        Range::blend(self.history.seats_per_hold_milli, own, SEATS_PER_HOLD_PRIOR).within(1.0, top)
    }

    /// The seats a buyer on the seat map is counted to take while admissions wait for seats,
    /// in thousandths: what this night's holds took on average, or `prior_milli` before its
    /// first hold. What holds the line back is measured: never the estimate's priors.
    pub fn taken_by_a_shopper_milli(&self, prior_milli: u64) -> u64 {
        if self.holds == 0 {
            return prior_milli.max(1);
        }
        ((self.hold_seats * 1000 + self.holds / 2) / self.holds).max(1)
    }

    /// The share of held seats that come back (their hold lapsed or was released) rather
    /// than sell, over every seat ever held: those whose hold ended count as they ended,
    /// those still held at what was expected before (the earlier nights' share, or a prior),
    /// anywhere from none to all of them within the range. The seats whose hold has ended are
    /// not a fair sample while others are held: a buyer who pays ends their hold in seconds,
    /// one who walks away only at its expiry, so the first holds to end are the sold ones (on
    /// the seed's night, a share of 0 that becomes two thirds a hold's time later) and the
    /// seats still held are mostly those that will come back. The range narrows as holds end.
    pub fn back(&self) -> Range {
        let expected = Range::blend(self.history.back_milli, None, BACK_PRIOR);
        let ended = self.hold_seats.saturating_sub(self.held);
        if ended == 0 {
            return expected.within(0.0, 0.95);
        }
        let (total, held) = (self.hold_seats as f64, self.held as f64);
        let returned = ended.saturating_sub(self.sold) as f64;
        let share = |still_held: f64| (returned + held * still_held) / total;
        // And the error of a share measured over the seats that ended.
        let chance = share(expected.mid) / (ended as f64).sqrt() * (ended as f64 / total);
        Range {
            mid: share(expected.mid),
            low: share(0.0) - chance,
            high: share(1.0) + chance,
        }
        .within(0.0, 0.95)
    }

    /// The share of admitted buyers who hold, measured over those done shopping (admitted,
    /// and no longer shopping: they held, or their turn at the seat map passed) once there
    /// are [`MIN_ADMISSIONS`] of them (fresher than the band's share: counted at every tick),
    /// else as the band measured it lately, on top of the earlier nights' share (or a prior).
    pub fn came(&self, band: &Band) -> Range {
        let done = self.admitted.saturating_sub(self.shopping);
        let own = if done >= MIN_ADMISSIONS {
            Some(((self.holds as f64 / done as f64).min(1.0), done))
        } else {
            band.came()
        };
        Range::blend(self.history.came_milli, own, CAME_PRIOR).within(0.05, 1.0)
    }

    /// The shares the estimate counts with for `room` at `rate`, beside the operator's
    /// expectations and this night's own measures (the operator's panel).
    pub fn shares(&self, room: &crate::wire::Room, rate: u32) -> crate::wire::Shares {
        use crate::wire::Share;
        let done = self.admitted.saturating_sub(self.shopping);
        crate::wire::Shares {
            seats_per_hold: Share {
                expected: f64::from(room.expected_seats()),
                measured: (self.holds > 0).then(|| self.hold_seats as f64 / self.holds as f64),
                samples: self.holds,
                in_use: self.seats_per_hold(f64::from(room.seats_per_buyer)).mid,
            },
            holding: Share {
                expected: f64::from(room.expected_holding_percent) / 100.0,
                measured: (done >= MIN_ADMISSIONS)
                    .then(|| (self.holds as f64 / done as f64).min(1.0)),
                samples: done,
                in_use: self.came(&Band::exact(rate)).mid,
            },
        }
    }

    /// The record of the seats (what [`Seats::from_record`] reads, as `locate.lua` writes it).
    pub fn record(&self) -> String {
        let history = &self.history;
        format!(
            "{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}:{}",
            self.shopping,
            self.available,
            self.held,
            self.sold,
            self.holds,
            self.hold_seats,
            self.back_from,
            self.back_until,
            history.seats_per_hold_milli,
            history.back_milli,
            history.came_milli,
            self.admitted
        )
    }

    /// The seats of a record's seat part: `shopping:available:held:sold:holds:hold_seats:
    /// back_from:back_until:seats_per_hold_milli:back_milli:came_milli:admitted`, the three
    /// before the last being the earlier nights' [`History`] (a record made before the
    /// history was part of it has none, one made before the admissions neither).
    pub fn from_record(record: &str) -> Option<Self> {
        let parts = record
            .split(':')
            .map(str::parse::<i64>)
            .collect::<Result<Vec<i64>, _>>()
            .ok()?;
        let u = |n: i64| u64::try_from(n).ok();
        let (seats, history, admitted) = match parts.len() {
            12 => (
                &parts[..8],
                History {
                    seats_per_hold_milli: u(parts[8])?,
                    back_milli: u(parts[9])?,
                    came_milli: u(parts[10])?,
                },
                u(parts[11])?,
            ),
            9 => (&parts[..8], History::default(), u(parts[8])?),
            _ => (&parts[..], History::default(), 0),
        };
        match *seats {
            [
                shopping,
                available,
                held,
                sold,
                holds,
                hold_seats,
                back_from,
                back_until,
            ] => Some(Self {
                available: u(available)?,
                held: u(held)?,
                sold: u(sold)?,
                holds: u(holds)?,
                hold_seats: u(hold_seats)?,
                back_from,
                back_until,
                admitted,
                shopping: u(shopping)?,
                history,
            }),
            _ => None,
        }
    }
}

/// A measured share or size and how far it may be off: `low <= mid <= high`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    pub mid: f64,
    pub low: f64,
    pub high: f64,
}

impl Range {
    /// `mid` measured over `samples`: off by up to `1 / sqrt(samples)` of itself (at least
    /// a tenth of a unit), the error of a mean of that many.
    fn measured(mid: f64, samples: u64) -> Self {
        let off = (mid / (samples.max(1) as f64).sqrt()).max(0.1 / (samples.max(1) as f64));
        Self {
            mid,
            low: mid - off,
            high: mid + off,
        }
    }

    /// A share or size measured as `own` (its mean and samples) on top of what the earlier
    /// nights measured (`history`, in thousandths; 0: nothing), weighed as
    /// [`HISTORY_WEIGHT`] samples; `prior` when neither says anything.
    fn blend(history: u64, own: Option<(f64, u64)>, prior: Range) -> Self {
        match (history, own) {
            (0, None) => prior,
            (0, Some((mean, samples))) => Self::measured(mean, samples),
            (history, own) => {
                let (mean, samples) = own.unwrap_or((0.0, 0));
                let weight = HISTORY_WEIGHT as f64;
                let mid = (history as f64 / 1000.0 * weight + mean * samples as f64)
                    / (weight + samples as f64);
                Self::measured(mid, HISTORY_RANGE + samples)
            }
        }
    }

    fn within(self, low: f64, high: f64) -> Self {
        Self {
            mid: self.mid.clamp(low, high),
            low: self.low.clamp(low, high),
            high: self.high.clamp(low, high),
        }
    }
}

/// How the line's future is read: the point (every share at its measure) or one end of the
/// band (every share at its most or least favourable to the waiting buyer).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    Fast,
    Mid,
    Slow,
}

/// The line as one buyer's answer sees it: the band (the rate's history) and the seats now.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    pub band: Band,
    /// `None` while the line does not know the event's seats.
    pub seats: Option<Seats>,
    /// When the model is read (unix ms), against which the holds' ends are counted.
    pub now_ms: i64,
}

/// One case's parameters, in the units the model counts in.
struct Reading {
    /// Admissions a second while seats are free.
    rate: f64,
    /// Seconds per place while seats are free: `1 / rate`, or less for the turns of absent
    /// buyers skipped (the fast end).
    per_place: f64,
    /// Places a seat serves: `1 / (seats a hold * share who hold)`.
    places_per_seat: f64,
    /// The share of held seats that come back.
    back: f64,
    /// Where within their holds' ends held seats come back: 0 the soonest, 1 the latest.
    timing: Option<f64>,
}

impl Model {
    fn reading(&self, seats: &Seats, case: Case) -> Reading {
        let band = &self.band;
        let milli = u64::from(band.rate) * 1000;
        let (spread, came, back) = (
            seats.seats_per_hold(band.most_seats()),
            seats.came(band),
            seats.back(),
        );
        let pick = |r: Range, favourable_high: bool| match (case, favourable_high) {
            (Case::Mid, _) => r.mid,
            (Case::Fast, true) | (Case::Slow, false) => r.high,
            (Case::Fast, false) | (Case::Slow, true) => r.low,
        };
        let rate = match case {
            Case::Fast => band.fast_milli.max(milli),
            Case::Mid => milli,
            Case::Slow => band.slow_milli.clamp(1, milli),
        } as f64
            / 1000.0;
        let skipped = match case {
            Case::Fast => came.mid,
            _ => 1.0,
        };
        Reading {
            rate,
            per_place: skipped / rate,
            places_per_seat: 1.0 / (pick(spread, false) * pick(came, false)),
            back: pick(back, true),
            timing: match case {
                Case::Fast => Some(0.0),
                Case::Mid => None,
                Case::Slow => Some(1.0),
            },
        }
    }

    /// The places the free seats serve now, before the admitted buyers still shopping take
    /// theirs (each place takes the seats a hold takes times the share who hold, at their
    /// measure): what the ticker may admit at most while the seats bound the line. `None`
    /// while the seats are not known.
    pub fn free_seat_places(&self) -> Option<u64> {
        let seats = self.seats.as_ref()?;
        let r = self.reading(seats, Case::Mid);
        Some((seats.available as f64 * r.places_per_seat).floor() as u64)
    }

    /// `(estimate, [low, high])` in whole seconds for a buyer at `position`.
    pub fn wait(&self, position: u64) -> (u64, [u64; 2]) {
        let at_rate = position.div_ceil(u64::from(self.band.rate.max(1)));
        let seconds = |case| self.seconds(position, case);
        let estimate = (seconds(Case::Mid).ceil() as u64).max(at_rate);
        let low = (seconds(Case::Fast).floor() as u64).min(estimate);
        let high = (seconds(Case::Slow).ceil() as u64).max(estimate);
        (estimate, [low, high])
    }

    /// The seconds until `position` is admitted, in `case`.
    fn seconds(&self, position: u64, case: Case) -> f64 {
        let p = position as f64;
        let Some(seats) = self.seats.as_ref().filter(|_| self.band.hold_seconds > 0) else {
            let band = &self.band;
            return match case {
                Case::Mid => p / f64::from(band.rate.max(1)),
                _ => {
                    let empty = Seats::default();
                    let r = self.reading(&empty, case);
                    p * r.per_place
                }
            };
        };
        let r = self.reading(seats, case);
        let free = (seats.available as f64 * r.places_per_seat - seats.shopping as f64).max(0.0);
        if p <= free {
            return p * r.per_place;
        }
        let free_time = free * r.per_place;
        // Behind the free seats: as fast as the seats come back, never faster than the rate.
        let need = (p - free) / r.places_per_seat;
        let returns = self.returns(seats, &r, free / r.rate);
        // Seats that never come back in time: the buyer knows once the last seat that may come
        // back has (and at least once every seat unsold now has been taken and its hold has
        // ended), never sooner than a place ahead of them would.
        let by_seats = returns
            .when(need, r.timing)
            .unwrap_or_else(|| returns.end().max(returns.settled));
        let mut t = by_seats.max(p * r.per_place);
        if self.band.floor_rate > 0 {
            t = t.min(free_time + (p - free) / f64::from(self.band.floor_rate));
        }
        t
    }

    /// The seats that come back, round by round: the held ones as their holds end, the free
    /// ones (taken over the first `taking` seconds) a hold's time after, and each round the
    /// same share again a hold's time later.
    fn returns(&self, seats: &Seats, r: &Reading, taking: f64) -> Returns {
        let hold = self.band.hold_seconds as f64;
        let from_now = |at: i64| ((at * 1000 - self.now_ms) as f64 / 1000.0).max(0.0);
        let (from, until) = if seats.held > 0 {
            let from = from_now(seats.back_from);
            (from, from_now(seats.back_until).max(from))
        } else {
            (0.0, 0.0)
        };
        let mut rounds = Vec::new();
        let settled = until.max(hold + taking);
        let b = r.back.min(0.95);
        // Every seat that will ever come back: the geometric series of the rounds.
        let total = (seats.held + seats.available) as f64 * b / (1.0 - b);
        let (mut share, mut back) = (b, 0.0);
        for k in 0..MAX_ROUNDS {
            let later = f64::from(k) * hold;
            let (held, free) = (seats.held as f64 * share, seats.available as f64 * share);
            if held + free < 1e-2 || back >= (1.0 - TAIL) * total {
                break;
            }
            rounds.push((held, from + later, until + later));
            rounds.push((free, hold + later, hold + taking + later));
            back += held + free;
            share *= b;
        }
        Returns { rounds, settled }
    }

    /// Whether seats are likely to be left at the turn of a buyer at `position`; `None`
    /// while the seats are not known.
    pub fn outlook(&self, position: u64) -> Option<Outlook> {
        // A promise of a seat rests on what this night measured, not on the earlier nights':
        // their shares made the estimate right on the bench's second night, but the seats
        // that come back serve the line in pieces, and with them 29% of the buyers told
        // `likely` left without a seat (2% on the first night, with the priors).
        let seats = &Seats {
            history: History::default(),
            ..*self.seats.as_ref()?
        };
        let p = position as f64;
        // The places every seat left serves, on average, and how far it may stray by chance:
        // a free seat serves a place, comes back with the share `back`, serves another...
        let places = |case| {
            let r = self.reading(seats, case);
            let b = r.back.min(0.95);
            let uses = (seats.available as f64 + seats.held as f64 * b) / (1.0 - b);
            let mean = uses * r.places_per_seat - seats.shopping as f64;
            let chance = r.places_per_seat.powi(2) * (seats.available + seats.held) as f64 * b
                / (1.0 - b).powi(2);
            (mean, (chance + mean.max(0.0) / 4.0 + 1.0).sqrt())
        };
        let z = |(mean, sd): (f64, f64)| (mean - p + 0.5) / sd;
        Some(if z(places(Case::Slow)) >= Z_LIKELY {
            Outlook::Likely
        } else if z(places(Case::Fast)) <= -Z_LIKELY {
            Outlook::Unlikely
        } else {
            Outlook::Uncertain
        })
    }

    /// The model's record (what [`Model::from_record`] reads): the band's, then `/` and the
    /// seats' when they are known. `now_ms` is not in it: whoever keeps a record keeps its time.
    pub fn record(&self) -> String {
        match &self.seats {
            Some(seats) => format!("{}/{}", self.band.record(), seats.record()),
            None => self.band.record(),
        }
    }

    /// The record of a join: the band's, then `/` and the seats' when they are known
    /// (the line's script writes the same from the values it read).
    pub fn from_record(record: &str) -> Option<(Band, Option<Seats>)> {
        match record.split_once('/') {
            Some((band, seats)) => {
                Some((Band::from_record(band)?, Some(Seats::from_record(seats)?)))
            }
            None => Some((Band::from_record(record)?, None)),
        }
    }
}

#[cfg(test)]
mod tests;
