//! The one Rust call of `offer_move.lua`, which gives a code that moves a buyer's place to
//! another device. Its fields follow the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::{Scripts, flag};
use crate::redis::keys::Keys;

/// A move code for `buyer` in the line of `event_id`: `code`, or the one given before while it
/// lives.
pub struct OfferMove<'a> {
    /// The event whose line it is: `KEYS[2..10]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[1]` and `ARGV[2]`: the new code.
    pub code: &'a str,
    /// `KEYS[11]` and `ARGV[5]`: the buyer's record in `moving` (`code:expiry_ms`) as the caller
    /// read it; `KEYS[11]` is its code's key, or `KEYS[1]` again when there is none.
    pub given: Option<&'a str>,
    /// `ARGV[1]`: the buyer.
    pub buyer: &'a str,
    /// `ARGV[3]`: the new code's life, sent in ms.
    pub life: Duration,
    /// `ARGV[4]`: the inventory's sold-out field.
    pub sold_out_field: &'a str,
    /// `ARGV[6]`: the room binds tokens (an admitted place then stays on its device).
    pub binds_tokens: bool,
}

impl OfferMove<'_> {
    /// The script's call: the new code's key, the line's keys and the given code's key, then
    /// the buyer, the code, its life, the sold-out field, the record read and the binding.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let given_code = self
            .given
            .and_then(|g| g.split_once(':'))
            .map_or(self.code, |(code, _)| code);
        let mut call = scripts.offer_move.prepare_invoke();
        call.key(keys.move_code(event_id, self.code))
            .key(keys.moving(event_id))
            .key(keys.moved(event_id))
            .key(keys.moved_in(event_id))
            .key(keys.queue(event_id))
            .key(keys.admitted(event_id))
            .key(keys.away(event_id))
            .key(keys.entrants(event_id))
            .key(keys.draw(event_id))
            .key(keys.inventory(event_id))
            .key(keys.move_code(event_id, given_code))
            .arg(self.buyer)
            .arg(self.code)
            .arg(self.life.as_millis() as u64)
            .arg(self.sold_out_field)
            .arg(self.given.unwrap_or(""))
            .arg(flag(self.binds_tokens));
        call
    }
}
