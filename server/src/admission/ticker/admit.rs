//! One tick's work for an event this ticker leads: the draw once the sale opened, then the
//! fenced admission (the seats counted, with the earlier nights' shares, and the admit script
//! that checks the lock's owner before it pops). A tick that cannot count the seats admits
//! nobody; a leader that lost its lock admits nobody.

use std::time::{Duration, Instant};

use app::{estimate::History, wire::Room};

use super::{HISTORY_FRESH, Tick, Ticker};
use crate::{
    error::Result,
    opening::{self, Drawn},
    queue::inventory::Inventory,
    redis::scripts::Admit,
};

impl Ticker {
    /// The earlier nights' shares for `event_id`, counted in Postgres at most every
    /// [`HISTORY_FRESH`]; what was counted before (or none) if counting fails.
    async fn history(&self, event_id: &str) -> History {
        let kept = self
            .histories
            .lock()
            .expect("not poisoned")
            .get(event_id)
            .copied();
        if let Some((at, history)) = kept
            && at.elapsed() < HISTORY_FRESH
        {
            return history;
        }
        match Inventory::history(&self.state.db, event_id).await {
            Ok(history) => {
                (self.histories.lock().expect("not poisoned"))
                    .insert(event_id.to_owned(), (Instant::now(), history));
                history
            }
            Err(e) => {
                tracing::warn!(event = %event_id, error = %e, "could not count the earlier nights");
                kept.map(|(_, h)| h).unwrap_or_default()
            }
        }
    }

    /// Makes the event's draw as this ticker; true once it is made (now or before).
    pub async fn draw(&self, event_id: &str) -> Result<bool> {
        let lease = Duration::from_millis(u64::from(self.state.config.ticker_lease_ms));
        let drawn =
            opening::draw(&self.state.opening(), &self.lock(event_id), lease, event_id).await?;
        if let Drawn::Made {
            entrants,
            took,
            read,
            ordered,
        } = drawn
        {
            tracing::info!(
                event = %event_id,
                entrants,
                took_ms = took.as_millis() as u64,
                read_ms = read.as_millis() as u64,
                ordered_ms = ordered.as_millis() as u64,
                "the draw is made"
            );
        }
        let made = matches!(drawn, Drawn::Made { .. } | Drawn::Already);
        // Kept in Postgres once made (again by the next tick if this fails or this leader
        // dies first): the published draw must outlive Redis.
        let seen = self
            .archived
            .lock()
            .expect("not poisoned")
            .contains(event_id);
        if made && !seen {
            match opening::archive(&self.state.opening(), event_id).await {
                Ok(true) => {
                    self.archived
                        .lock()
                        .expect("not poisoned")
                        .insert(event_id.to_owned());
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(event = %event_id, error = %e, "could not archive the draw")
                }
            }
        }
        Ok(made)
    }

    /// The fenced admission step: counts the seats and, if this ticker still holds the lock,
    /// stores the count and admits `N * tick_ms / 1000` buyers (plus carried fractions), or
    /// nobody while the room is paused or no seat is free.
    pub async fn admit(&self, event_id: &str, room: &Room, now_unix: i64) -> Result<Tick> {
        let keys = &self.state.keys;
        let lock = self.lock(event_id);
        let inventory = Inventory::count(&self.state.db, event_id)
            .await?
            .with_history(self.history(event_id).await.or_expected(room));
        let credit = if room.paused || !inventory.admits() {
            0
        } else {
            u64::from(self.state.rates.in_force(event_id, room)) * u64::from(room.tick_ms)
        };
        // The free seats bound the admissions only by what is measured: the seats of the buyers
        // really on the seat map (the script counts them), each taking what this night's holds
        // took (before the first hold, what the operator expects: 1 unless set; a guess never
        // holds free seats back from the line: DESIGN "N a second").
        let config = &self.state.config;
        let hold_back = config.seat_hold_back.then(|| {
            (
                inventory.available,
                inventory.taken_by_a_shopper_milli(u64::from(room.expected_seats()) * 1000),
            )
        });
        let (count, queue_length, head): (i64, i64, u64) = Admit {
            event_id,
            lock: &lock,
            second: now_unix,
            credit,
            admission_ttl: Duration::from_secs(config.admission_ttl_seconds.into()),
            has_opening: room.opens_at.is_some(),
            logged_through: self.state.rooms.logged_through(event_id),
            seatmap_deadline: Duration::from_secs(config.seatmap_deadline_seconds.into()),
            inventory_fields: &Inventory::FIELDS,
            inventory_values: &inventory.values(),
            hold_back,
        }
        .invocation(&self.state.scripts, keys)
        .invoke_async(&mut self.state.redis.clone())
        .await?;
        match count {
            -1 => return Ok(Tick::NotLeader),
            -2 => return Ok(Tick::BeforeOpening),
            _ => {}
        }
        if count > 0 {
            self.remember_head(event_id.to_owned(), head);
        }
        Ok(Tick::Admitted {
            count: count as u64,
            queue_length: queue_length as u64,
        })
    }
}
