//! The one Rust call of `rate_limit.lua`, a fixed-window counter. Its fields follow the order
//! of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::Scripts;
use crate::redis::keys::Keys;

/// One attempt of `subject` counted against the limit `name`.
pub struct RateLimit<'a> {
    /// `KEYS[1]`, the counter, is the key of `name` and `subject`: the limit's name.
    pub name: &'a str,
    /// `KEYS[1]` too: who is counted (a buyer, a network).
    pub subject: &'a str,
    /// `ARGV[1]`: the window, sent in ms.
    pub window: Duration,
}

impl RateLimit<'_> {
    /// The script's call: the counter, then the window.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let mut call = scripts.rate_limit.prepare_invoke();
        call.key(keys.rate_limit(self.name, self.subject))
            .arg(self.window.as_millis() as u64);
        call
    }
}
