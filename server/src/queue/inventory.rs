//! What the line knows of an event's seats, so that join and poll answer `sold_out` and the
//! outlook within their one Redis round trip, and the ticker stops admitting into an empty map.
//!
//! The model of the estimate and the outlook reads them as [`Seats`] ([`Inventory::seats`]).
//!
//! Invariants: the counts are Postgres's, never kept by adding and subtracting: the ticker's
//! lock holder counts the seats every tick (one grouped query, [`Inventory::count`]) and the
//! fenced admit script stores the count in the event's inventory hash, so only the leader
//! writes it, one tick after another. A crash between a hold's commit and anything after it, a
//! lost write, a Redis failover that loses the hash, a leader killed mid-tick: each is made
//! right by the next tick's count, at most one tick later. Until the first count the hash is
//! absent and the line says nothing of the inventory (no outlook, never `sold_out`).
//!
//! The buyers admitted who have not held yet are the event's `shopping` set (the admit script
//! adds each admission with its expiry, a created hold removes its buyer, an admission that
//! lapses drops out by its score). A removal lost to a crash counts a buyer as still shopping
//! until their admission ends, ten minutes at most: the outlook errs towards caution.

use app::estimate::{History, Seats};
use sqlx::PgPool;

use crate::error::Result;

/// The earlier nights the estimate's [`History`] is measured over.
pub const HISTORY_NIGHTS: i64 = 5;
/// The fewest holds, seats or admissions a share of the history is measured over.
const MIN_SAMPLES: i64 = 20;

/// The seats of one event as the line sees them: the model's [`Seats`] as counted (the
/// buyers still shopping are the locate script's to count, 0 here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Inventory(pub Seats);

/// `inventory.available`, `inventory.held`, ...: the seats' counts.
impl std::ops::Deref for Inventory {
    type Target = Seats;

    fn deref(&self) -> &Seats {
        &self.0
    }
}

impl Inventory {
    /// The hash's fields, in the order of [`Inventory::values`]. The first is the verdict the
    /// locate script reads (`1`: sold out), so that the rule lives here only.
    pub const FIELDS: [&str; 12] = [
        "sold_out",
        "available",
        "held",
        "sold",
        "holds",
        "hold_seats",
        "back_from",
        "back_until",
        // The earlier nights' shares (`app::estimate::History`), counted by [`history`].
        "history_seats_per_hold",
        "history_back",
        "history_came",
        // Written by the admit script itself after its admissions ([`Inventory::values`] has
        // none of it): keep it last and its name as `admit.lua` writes it.
        "admitted",
    ];

    /// Counts the seats of `event_id` in Postgres: one statement of index reads (the seats by
    /// event and status, the event's holds with their seat counts, the holds past their expiry
    /// that the sweep has not reached, the live holds' soonest and latest ends).
    pub async fn count(db: &PgPool, event_id: &str) -> Result<Self> {
        type Row = (i64, i64, i64, i64, i64, i64, Option<i64>, Option<i64>);
        let (available, held, sold, lapsed, holds, hold_seats, back_from, back_until): Row =
            sqlx::query_as(
                "select \
                     (select count(*) from seat where event_id = $1 and status = 'available'), \
                     (select count(*) from seat where event_id = $1 and status = 'held'), \
                     (select count(*) from seat where event_id = $1 and status = 'sold'), \
                     (select count(*) from hold h join seat s on s.hold_id = h.id \
                      where h.event_id = $1 and h.status = 'active' and h.expires_at <= now() \
                        and s.status = 'held'), \
                     (select count(*) from hold where event_id = $1), \
                     (select coalesce(sum(seat_count), 0) from hold where event_id = $1), \
                     ends.soonest, ends.latest \
                 from (select floor(extract(epoch from min(expires_at)))::bigint as soonest, \
                              ceil(extract(epoch from max(expires_at)))::bigint as latest \
                       from hold where event_id = $1 and status = 'active' \
                         and expires_at > now()) ends",
            )
            .bind(event_id)
            .fetch_one(db)
            .await?;
        let u = |n: i64| n.max(0) as u64;
        // A seat held by a hold past its expiry is free: the hold transaction takes it at once.
        Ok(Self(Seats {
            available: u(available + lapsed),
            held: u(held - lapsed),
            sold: u(sold),
            holds: u(holds),
            hold_seats: u(hold_seats),
            back_from: back_from.unwrap_or(0),
            back_until: back_until.unwrap_or(0),
            ..Seats::default()
        }))
    }

    /// What the house's earlier nights measured (`app::estimate::History`): the holds and
    /// admissions of the last [`HISTORY_NIGHTS`] other events with a night kept (closed when
    /// their room was turned off, by the operator, or once their line went quiet). A share
    /// measured over fewer than [`MIN_SAMPLES`] is left out (0).
    ///
    /// The share of admitted buyers who held is counted over each event's admissions before
    /// its first hold ended: until then the ticker admitted only within the free seats, so a
    /// buyer who did not hold chose not to. Later in a sold-out night many are admitted to
    /// seats that others took meanwhile, and would count as buyers who never wanted one
    /// (measured: 0.2 over a whole night of the bench, where 0.9 of the first wave held).
    pub async fn history(db: &PgPool, event_id: &str) -> Result<History> {
        type Row = (i64, i64, i64, i64, i64, i64);
        let (holds, seats, ended, back, admitted, held): Row = sqlx::query_as(
            "with earlier as ( \
                 select event_id from night where event_id <> $1 \
                 group by event_id order by max(ended_at) desc limit $2), \
             holds as (select * from hold where event_id in (select event_id from earlier)), \
             first_end as ( \
                 select event_id, min(case when status = 'expired' then expires_at \
                                          else updated_at end) as t \
                 from holds where status in ('expired', 'released') group by event_id), \
             first_wave as ( \
                 select a.event_id, a.buyer_id from admission a \
                 left join first_end e on e.event_id = a.event_id \
                 where a.event_id in (select event_id from earlier) \
                   and a.buyer_id is not null \
                   and a.admitted_at < coalesce(e.t, 'infinity')), \
             holders as (select distinct event_id, buyer_id from holds) \
             select (select count(*) from holds), \
                    (select coalesce(sum(seat_count), 0)::bigint from holds), \
                    (select coalesce(sum(seat_count), 0)::bigint from holds \
                     where status <> 'active'), \
                    (select coalesce(sum(seat_count), 0)::bigint from holds \
                     where status in ('expired', 'released')), \
                    (select count(*) from first_wave), \
                    (select count(*) from first_wave w \
                     join holders h on h.event_id = w.event_id and h.buyer_id = w.buyer_id)",
        )
        .bind(event_id)
        .bind(HISTORY_NIGHTS)
        .fetch_one(db)
        .await?;
        let share = |part: i64, whole: i64| {
            if whole < MIN_SAMPLES {
                return 0;
            }
            ((part as f64 / whole as f64).min(1.0) * 1000.0)
                .round()
                .max(1.0) as u64
        };
        Ok(History {
            seats_per_hold_milli: if holds < MIN_SAMPLES {
                0
            } else {
                (seats as f64 / holds as f64 * 1000.0).round() as u64
            },
            back_milli: share(back, ended),
            came_milli: share(held, admitted),
        })
    }

    /// The seats as the estimate's model reads them, with the admitted buyers `shopping`.
    pub fn seats(&self, shopping: u64) -> Seats {
        Seats { shopping, ..self.0 }
    }

    /// Whether the ticker may admit: some seat is free. With none free but some held,
    /// admission waits for held seats to come back.
    pub fn admits(&self) -> bool {
        self.available > 0
    }

    /// The seats with the earlier nights' shares.
    pub fn with_history(self, history: History) -> Self {
        Self(Seats { history, ..self.0 })
    }

    /// The values of [`Inventory::FIELDS`] (all but the last, the admit script's own).
    pub fn values(&self) -> [i64; 11] {
        let i = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let history = &self.history;
        [
            i64::from(self.sold_out()),
            i(self.available),
            i(self.held),
            i(self.sold),
            i(self.holds),
            i(self.hold_seats),
            self.back_from,
            self.back_until,
            i(history.seats_per_hold_milli),
            i(history.back_milli),
            i(history.came_milli),
        ]
    }

    /// The inventory from the values of [`Inventory::FIELDS`] as Redis answered them; `None`
    /// when the hash is absent (or not whole: one written before the holds' ends were
    /// counted reads as absent until the next tick writes it whole).
    pub fn from_values(values: &[Option<i64>]) -> Option<Self> {
        let u = |n: &Option<i64>| n.and_then(|n| u64::try_from(n).ok());
        match values {
            [
                _,
                available,
                held,
                sold,
                holds,
                hold_seats,
                Some(back_from),
                Some(back_until),
                seats_per_hold,
                back,
                came,
                admitted,
            ] => Some(Self(Seats {
                available: u(available)?,
                held: u(held)?,
                sold: u(sold)?,
                holds: u(holds)?,
                hold_seats: u(hold_seats)?,
                back_from: *back_from,
                back_until: *back_until,
                admitted: u(admitted).unwrap_or(0),
                shopping: 0,
                history: History {
                    seats_per_hold_milli: u(seats_per_hold).unwrap_or(0),
                    back_milli: u(back).unwrap_or(0),
                    came_milli: u(came).unwrap_or(0),
                },
            })),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_values_read_back_as_the_inventory_they_came_from() {
        let inventory = Inventory(Seats {
            available: 3,
            held: 4,
            sold: 5,
            holds: 6,
            hold_seats: 7,
            back_from: 8,
            back_until: 9,
            ..Seats::default()
        })
        .with_history(History {
            seats_per_hold_milli: 1500,
            back_milli: 330,
            came_milli: 750,
        });
        let mut values: Vec<Option<i64>> = inventory.values().into_iter().map(Some).collect();
        values.push(None);
        assert_eq!(values.len(), Inventory::FIELDS.len());
        assert_eq!(Inventory::from_values(&values), Some(inventory));
        values[11] = Some(10);
        let admitted = Inventory::from_values(&values).map(|i| i.admitted);
        assert_eq!(admitted, Some(10));
        // A hash written before the history was counted reads as a house without one.
        values[8..11].fill(None);
        let history = Inventory::from_values(&values).map(|i| i.history);
        assert_eq!(history, Some(History::default()));
        assert_eq!(Inventory::from_values(&[None; 12]), None);
        assert_eq!(
            Inventory::from_values(&values[..6]),
            None,
            "a hash of before the ends"
        );
    }

    #[test]
    fn sold_out_means_nothing_free_and_nothing_held() {
        let sold = |available, held| {
            Inventory(Seats {
                available,
                held,
                sold: 10,
                ..Seats::default()
            })
        };
        assert!(sold(0, 0).sold_out());
        assert!(!sold(0, 1).sold_out(), "held seats may come back");
        assert!(!sold(0, 1).admits(), "but nobody is admitted meanwhile");
        assert!(!sold(1, 0).sold_out());
        assert!(sold(1, 0).admits());
    }
}
