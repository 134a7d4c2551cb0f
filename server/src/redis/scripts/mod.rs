//! The Lua scripts, one `.lua` file each, compiled into the binary. `redis::Script` sends
//! EVALSHA and loads the script only when Redis answers NOSCRIPT (after a restart, on a new
//! node), so each script crosses the network once per Redis, not once per call. Every script
//! touches one key, or the keys of one event only, all with the event's hash tag; DESIGN.md's
//! invariants 1-5 rest on each script running as one step. The lock's two scripts
//! (`renew_lock.lua`, `release_lock.lua`) are private to `Lock`, so that no caller renews or
//! releases without comparing the token.

use ::redis::Script;

/// Every script the server runs (but the lock's), built once at start.
pub struct Scripts {
    pub rate_limit: Script,
    pub locate: Script,
    pub admit: Script,
    pub consume: Script,
    pub retire: Script,
    pub set_if_generation: Script,
    pub draw: Script,
    pub trim_log: Script,
    pub offer_move: Script,
    pub claim: Script,
}

impl Scripts {
    pub fn new() -> Self {
        Self {
            rate_limit: Script::new(include_str!("rate_limit.lua")),
            locate: Script::new(include_str!("locate.lua")),
            admit: Script::new(include_str!("admit.lua")),
            consume: Script::new(include_str!("consume.lua")),
            retire: Script::new(include_str!("retire.lua")),
            set_if_generation: Script::new(include_str!("set_if_generation.lua")),
            draw: Script::new(include_str!("draw.lua")),
            trim_log: Script::new(include_str!("trim_log.lua")),
            offer_move: Script::new(include_str!("offer_move.lua")),
            claim: Script::new(include_str!("claim.lua")),
        }
    }
}

impl Default for Scripts {
    fn default() -> Self {
        Self::new()
    }
}
