//! The one Rust call of `admit.lua`, one fenced admission tick of one event. Its fields follow
//! the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::{Scripts, flag};
use crate::redis::{
    Counter, Counters, Lock,
    keys::{ADMISSION_LOG_CAPACITY, Keys},
};

/// One admission tick of `event_id` by the holder of `lock`.
pub struct Admit<'a> {
    /// The event whose line it is: `KEYS[2..4]` and `KEYS[6..14]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]` and `ARGV[1]`: the ticker lock and its owner token; only its holder admits.
    pub lock: &'a Lock,
    /// `KEYS[5]`: the unix second whose stats hash counts this tick.
    pub second: i64,
    /// `ARGV[2]`: the credit earned this tick, in milli-admissions (N * tick_ms; 0 while
    /// admission waits).
    pub credit: u64,
    /// `ARGV[3]`: an admission's life, sent in ms (`ARGV[4..6]` come from `counters.rs`, where
    /// the stats hash is defined).
    pub admission_ttl: Duration,
    /// `ARGV[7]`: the sale has an opening time (its draw must be made before anyone is
    /// admitted).
    pub has_opening: bool,
    /// `ARGV[9]`: the last admission number of the lines retired before.
    pub logged_through: u64,
    /// `ARGV[10]`: the seat-map deadline, sent in ms.
    pub seatmap_deadline: Duration,
    /// `ARGV[11]` and `ARGV[12]`: the free seats and the seats a buyer on the seat map is
    /// counted to take, in thousandths (`app::estimate::Seats::taken_by_a_shopper_milli`): the
    /// tick admits no more than the free seats less those of the buyers on the map; `None`
    /// (sent as '' and '') while the seats are not known.
    pub hold_back: Option<(u64, u64)>,
    /// `ARGV[13..]`, with `inventory_values`: the seats as the leader just counted them, sent as
    /// field and value pairs; these are the fields.
    pub inventory_fields: &'a [&'a str],
    /// `ARGV[13..]`: the value of each of `inventory_fields`, in the same order.
    pub inventory_values: &'a [i64],
}

impl Admit<'_> {
    /// The script's call: the lock, the line's keys and the second's stats hash, then the
    /// owner, the tick's numbers and the inventory's pairs.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let mut call = scripts.admit.prepare_invoke();
        call.key(self.lock.key())
            .key(keys.queue(event_id))
            .key(keys.admitted(event_id))
            .key(keys.credit(event_id))
            .key(Counters::at(keys, event_id, self.second).key())
            .key(keys.admitted_total(event_id))
            .key(keys.head(event_id))
            .key(keys.inventory(event_id))
            .key(keys.shopping(event_id))
            .key(keys.draw(event_id))
            .key(keys.joins(event_id))
            .key(keys.admission_log(event_id))
            .key(keys.admission_seq(event_id))
            .key(keys.away(event_id))
            .arg(self.lock.owner())
            .arg(self.credit)
            .arg(self.admission_ttl.as_millis() as u64)
            .arg(Counters::TTL_SECS)
            .arg(Counter::Admissions.field())
            .arg(Counter::QueueLength.field())
            .arg(flag(self.has_opening))
            .arg(ADMISSION_LOG_CAPACITY) // ARGV[8]: the log's bound
            .arg(self.logged_through)
            .arg(self.seatmap_deadline.as_millis() as u64)
            .arg(
                self.hold_back
                    .map(|(free, _)| free.to_string())
                    .unwrap_or_default(),
            )
            .arg(
                self.hold_back
                    .map(|(_, milli)| milli.to_string())
                    .unwrap_or_default(),
            );
        for (field, value) in self.inventory_fields.iter().zip(self.inventory_values) {
            call.arg(field).arg(value);
        }
        call
    }
}
