//! The one Rust call of `progress.lua`, which reads the line's progress in one step. Its fields
//! follow the order of the script's header.

use ::redis::ScriptInvocation;

use super::{Scripts, flag};
use crate::redis::keys::Keys;

/// Reads `event_id`'s progress.
pub struct Progress<'a> {
    /// The event whose line (`KEYS[1..=7]`) it is.
    pub event_id: &'a str,
    /// `ARGV[1]`: the greatest share one sampled rank lies past the one before.
    pub step: f64,
    /// `ARGV[2]`: the most ranks sampled.
    pub most: usize,
    /// `ARGV[3]`: the sale has an opening time (and may have a draw to make).
    pub has_opening: bool,
    /// `ARGV[4..]`: the inventory's fields.
    pub inventory_fields: &'a [&'a str],
}

impl Progress<'_> {
    /// The script's call: the line's keys, then the step, the most ranks, the opening and
    /// the inventory's fields.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let e = self.event_id;
        let mut call = scripts.progress.prepare_invoke();
        call.key(keys.queue(e))
            .key(keys.seq(e))
            .key(keys.head(e))
            .key(keys.inventory(e))
            .key(keys.shopping(e))
            .key(keys.entrants(e))
            .key(keys.draw(e))
            .arg(self.step)
            .arg(self.most)
            .arg(flag(self.has_opening));
        for field in self.inventory_fields {
            call.arg(*field);
        }
        call
    }
}
