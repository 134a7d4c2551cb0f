//! The one Rust call of `set_if_generation.lua`, which stores a rebuilt seat map (both its
//! forms) only if no seat changed while it was being built. Its fields follow the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;

use super::Scripts;
use crate::redis::keys::Keys;

/// Stores `full` and `runs` as `event_id`'s seat map if its generation is still `generation`.
pub struct SetIfGeneration<'a> {
    /// The event whose seat map it is: `KEYS[1]` its cached copy, `KEYS[2]` its generation,
    /// `KEYS[3]` its cached copy in runs.
    pub event_id: &'a str,
    /// `ARGV[1]`: the generation read before the build; `None` when there was none, sent as
    /// `'0'`, which is what the script reads for an absent one.
    pub generation: Option<&'a str>,
    /// `ARGV[2]`: the copy to store.
    pub full: &'a str,
    /// `ARGV[3]`: the copies' physical time to live, sent in ms.
    pub ttl: Duration,
    /// `ARGV[4]`: the copy in runs to store.
    pub runs: &'a str,
}

impl SetIfGeneration<'_> {
    /// The script's call: the cache, the generation and the runs' cache, then the generation
    /// read, the copy, the time to live and the copy in runs.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let mut call = scripts.set_if_generation.prepare_invoke();
        call.key(keys.seatmap(self.event_id))
            .key(keys.seatmap_generation(self.event_id))
            .key(keys.seatmap_runs(self.event_id))
            .arg(self.generation.unwrap_or("0"))
            .arg(self.full)
            .arg(self.ttl.as_millis() as u64)
            .arg(self.runs);
        call
    }
}
