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

/// Seats coming back: `(seats, from, until)` seconds from now, spread evenly in between.
struct Returns {
    rounds: Vec<(f64, f64, f64)>,
    /// When every seat unsold now has been taken and its first hold has ended.
    settled: f64,
}

impl Returns {
    /// The seats back by `t`, each round placed at `timing` within its window (evenly spread
    /// when `None`).
    fn by(&self, t: f64, timing: Option<f64>) -> f64 {
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
    fn end(&self) -> f64 {
        self.rounds.iter().map(|r| r.2).fold(0.0, f64::max)
    }

    /// The first moment `need` seats are back, to a hundredth of a second; `None` if they
    /// never are.
    fn when(&self, need: f64, timing: Option<f64>) -> Option<f64> {
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

#[cfg(test)]
mod tests {
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
}
