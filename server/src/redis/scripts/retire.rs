//! The one Rust call of `retire.lua`, which gives the keys of a line whose room is off a time
//! to live. Its fields follow the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::Scripts;
use crate::redis::keys::Keys;

/// Retires the line of `event_id`, unless it moved on since the caller archived it.
pub struct Retire<'a> {
    /// The event whose line it is: `KEYS[1..21]` are the line's keys.
    pub event_id: &'a str,
    /// `ARGV[1]`: the head the caller archived, if any.
    pub head: Option<u64>,
    /// `ARGV[2]`: the admissions count it archived, if any.
    pub admissions: Option<u64>,
    /// `ARGV[3]`: the keys' time to live, sent in ms.
    pub ttl: Duration,
}

impl Retire<'_> {
    /// The script's call: the queue, the head, the admitted total, then the line's other keys,
    /// then the head, the count ('' for none) and the time to live.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let text = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
        let mut call = scripts.retire.prepare_invoke();
        call.key(keys.queue(event_id))
            .key(keys.head(event_id))
            .key(keys.admitted_total(event_id))
            .key(keys.seq(event_id))
            .key(keys.admitted(event_id))
            .key(keys.credit(event_id))
            .key(keys.inventory(event_id))
            .key(keys.shopping(event_id))
            .key(keys.places_by_network(event_id))
            .key(keys.joins(event_id))
            .key(keys.admission_seq(event_id))
            .key(keys.joined(event_id))
            .key(keys.seen(event_id))
            .key(keys.away(event_id))
            .key(keys.moving(event_id))
            .key(keys.moved(event_id))
            .key(keys.moved_in(event_id))
            .key(keys.rate(event_id))
            .key(keys.health(event_id))
            .key(keys.bound(event_id))
            .key(keys.refusals(event_id))
            .key(keys.no_script_seen(event_id))
            .arg(text(self.head))
            .arg(text(self.admissions))
            .arg(self.ttl.as_millis() as u64);
        call
    }
}
