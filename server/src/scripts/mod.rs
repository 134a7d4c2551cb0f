//! The Lua scripts, one `.lua` file each, compiled into the binary. `redis::Script` sends
//! EVALSHA and loads the script only when Redis answers NOSCRIPT (after a restart, on a new
//! node), so each script crosses the network once per Redis, not once per call. Every script
//! touches the keys of one event only, all with the event's hash tag.

use redis::Script;

/// Every script the server runs, built once at start.
pub struct Scripts {
    pub rate_limit: Script,
    pub locate: Script,
    pub ticker_lock: Script,
    pub release_lock: Script,
    pub admit: Script,
    pub set_if_generation: Script,
}

impl Scripts {
    pub fn new() -> Self {
        Self {
            rate_limit: Script::new(include_str!("rate_limit.lua")),
            locate: Script::new(include_str!("locate.lua")),
            ticker_lock: Script::new(include_str!("ticker_lock.lua")),
            release_lock: Script::new(include_str!("release_lock.lua")),
            admit: Script::new(include_str!("admit.lua")),
            set_if_generation: Script::new(include_str!("set_if_generation.lua")),
        }
    }
}

impl Default for Scripts {
    fn default() -> Self {
        Self::new()
    }
}
