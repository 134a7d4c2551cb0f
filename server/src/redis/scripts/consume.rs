//! The one Rust call of `consume.lua`, which uses up the place of a buyer admitted at once
//! while the room is off. Its fields follow the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::Scripts;
use crate::redis::{
    Counter, Counters,
    keys::{ADMISSION_LOG_CAPACITY, Keys},
};

/// Uses up `buyer`'s place in the line of `event_id`, if they have one, and logs and counts
/// their admission.
pub struct Consume<'a> {
    /// The event whose line it is: `KEYS[1..5]` and `KEYS[7]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[6]`: the unix second whose stats hash counts the admission.
    pub second: i64,
    /// `ARGV[1]`: the buyer admitted.
    pub buyer: &'a str,
    /// `ARGV[3]`: the last admission number of the lines retired before.
    pub logged_through: u64,
    /// `ARGV[6]`: the admission's life, sent in ms (`ARGV[4]` and `ARGV[5]` come from
    /// `counters.rs`, where the stats hash is defined).
    pub life: Duration,
}

impl Consume<'_> {
    /// The script's call: the line's keys and the second's stats hash, then the buyer, the
    /// log's numbers, the counter's field and time to live, and the admission's life.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let mut call = scripts.consume.prepare_invoke();
        call.key(keys.queue(event_id))
            .key(keys.head(event_id))
            .key(keys.joins(event_id))
            .key(keys.admission_log(event_id))
            .key(keys.admission_seq(event_id))
            .key(Counters::at(keys, event_id, self.second).key())
            .key(keys.admitted_while_off(event_id))
            .arg(self.buyer)
            .arg(ADMISSION_LOG_CAPACITY) // ARGV[2]: the log's bound
            .arg(self.logged_through)
            .arg(Counter::Admissions.field())
            .arg(Counters::TTL_SECS)
            .arg(self.life.as_millis() as u64);
        call
    }
}
