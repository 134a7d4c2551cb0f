//! The one Rust call of `draw.lua`, which makes an event's draw and puts the head of its
//! order in line. Its fields follow the order of the script's header.

use ::redis::ScriptInvocation;
use chrono::{DateTime, Utc};

use super::Scripts;
use crate::redis::{Lock, keys::Keys};

/// Makes the draw of `event_id` as the holder of `lock`.
pub struct Draw<'a> {
    /// The event whose draw it is: `KEYS[2..=5]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]` and `ARGV[1]`: the ticker lock and its owner token.
    pub lock: &'a Lock,
    /// `ARGV[2]`: the entrants drawn.
    pub entrants: usize,
    /// `ARGV[3]`: when the sale opens, sent in epoch ms.
    pub opens_at: DateTime<Utc>,
    /// `ARGV[4]`: the draw's seed.
    pub seed: &'a str,
    /// `ARGV[5]`: the randomness beacon the seed was made from.
    pub beacon: &'a str,
    /// `ARGV[6..]`: the head of the order, (buyer, ticket), for places 1, 2, ...
    pub head: &'a [(String, String)],
}

impl Draw<'_> {
    /// The script's call: the lock, the entrants, the record, the line and the published
    /// tickets, then the owner, the count, the opening, the seed, the beacon and the head.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let mut call = scripts.draw.prepare_invoke();
        call.key(self.lock.key())
            .key(keys.entrants(event_id))
            .key(keys.draw(event_id))
            .key(keys.queue(event_id))
            .key(keys.drawn_tickets(event_id))
            .arg(self.lock.owner())
            .arg(self.entrants)
            .arg(self.opens_at.timestamp_millis())
            .arg(self.seed)
            .arg(self.beacon);
        pairs(&mut call, self.head);
        call
    }
}

/// Puts the next chunk of `event_id`'s drawn order in line as the holder of `lock`.
pub struct Place<'a> {
    /// The event whose draw it is: `KEYS[2..=4]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]` and `ARGV[1]`: the ticker lock and its owner token.
    pub lock: &'a Lock,
    /// `ARGV[2]`: the places given before this chunk (the record must stand there).
    pub placed: usize,
    /// `ARGV[3..]`: the chunk, (buyer, ticket), for places `placed + 1`, ...
    pub chunk: &'a [(String, String)],
}

impl Place<'_> {
    /// The script's call: the lock, the record, the line and the published tickets, then the
    /// owner, the places given and the chunk.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let mut call = scripts.place.prepare_invoke();
        call.key(self.lock.key())
            .key(keys.draw(event_id))
            .key(keys.queue(event_id))
            .key(keys.drawn_tickets(event_id))
            .arg(self.lock.owner())
            .arg(self.placed);
        pairs(&mut call, self.chunk);
        call
    }
}

fn pairs(call: &mut ScriptInvocation<'_>, entrants: &[(String, String)]) {
    for (buyer, ticket) in entrants {
        call.arg(buyer).arg(ticket);
    }
}
