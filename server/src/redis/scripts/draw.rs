//! The one Rust call of `draw.lua`, which makes an event's staged draw visible, all at once.
//! Its fields follow the order of the script's header.

use ::redis::ScriptInvocation;
use chrono::{DateTime, Utc};

use super::Scripts;
use crate::redis::{Lock, keys::Keys};

/// Swaps in the draw of `event_id` that the holder of `lock` staged.
pub struct Draw<'a> {
    /// The event whose draw it is: `KEYS[2..7]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]` and `ARGV[1]`: the ticker lock and its owner token, whose staging keys
    /// (`Keys::draw_staging`) are `KEYS[5]` and `KEYS[6]`.
    pub lock: &'a Lock,
    /// `ARGV[2]`: the entrants drawn.
    pub entrants: usize,
    /// `ARGV[3]`: when the sale opens, sent in epoch ms.
    pub opens_at: DateTime<Utc>,
    /// `ARGV[4]`: the draw's seed.
    pub seed: &'a str,
    /// `ARGV[5]`: the randomness beacon the seed was made from.
    pub beacon: &'a str,
}

impl Draw<'_> {
    /// The script's call: the lock, the entrants, the record, the line, the staging and the
    /// published tickets, then the owner, the count, the opening, the seed and the beacon.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let (line, tickets) = keys.draw_staging(event_id, self.lock.owner());
        let mut call = scripts.draw.prepare_invoke();
        call.key(self.lock.key())
            .key(keys.entrants(event_id))
            .key(keys.draw(event_id))
            .key(keys.queue(event_id))
            .key(line)
            .key(tickets)
            .key(keys.drawn_tickets(event_id))
            .arg(self.lock.owner())
            .arg(self.entrants)
            .arg(self.opens_at.timestamp_millis())
            .arg(self.seed)
            .arg(self.beacon);
        call
    }
}
