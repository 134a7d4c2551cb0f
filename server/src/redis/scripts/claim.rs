//! The one Rust call of `claim.lua`, which moves a buyer's place to the device that claims its
//! code. Its fields follow the order of the script's header.

use ::redis::ScriptInvocation;
use chrono::{DateTime, Utc};

use super::{Scripts, millis};
use crate::redis::keys::Keys;

/// `buyer` claims the place whose move code is `code` in the line of `event_id`.
pub struct Claim<'a> {
    /// The event whose line it is: `KEYS[2..13]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]`: the code claimed, in its canonical form.
    pub code: &'a str,
    /// `ARGV[1]`: the claiming buyer.
    pub buyer: &'a str,
    /// `ARGV[2]`: in a room that binds tokens, the thumbprint of the claimer's device key; `None`
    /// (sent as '') elsewhere.
    pub device: Option<&'a str>,
    /// `ARGV[3]`: when the sale opens, sent in epoch ms; `None` (sent as '') for a sale without
    /// an opening time.
    pub opens_at: Option<DateTime<Utc>>,
}

impl Claim<'_> {
    /// The script's call: the code's key and the line's keys, then the buyer, the device and
    /// the opening.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let mut call = scripts.claim.prepare_invoke();
        call.key(keys.move_code(event_id, self.code))
            .key(keys.moving(event_id))
            .key(keys.moved(event_id))
            .key(keys.moved_in(event_id))
            .key(keys.queue(event_id))
            .key(keys.admitted(event_id))
            .key(keys.shopping(event_id))
            .key(keys.seen(event_id))
            .key(keys.away(event_id))
            .key(keys.joins(event_id))
            .key(keys.entrants(event_id))
            .key(keys.bound(event_id))
            .key(keys.draw(event_id))
            .key(keys.entered(event_id))
            .arg(self.buyer)
            .arg(self.device.unwrap_or(""))
            .arg(millis(self.opens_at));
        call
    }
}
