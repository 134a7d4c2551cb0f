//! The Lua scripts, one `.lua` file each, compiled into the binary. `redis::Script` sends
//! EVALSHA and loads the script only when Redis answers NOSCRIPT (after a restart, on a new
//! node), so each script crosses the network once per Redis, not once per call.

use redis::Script;

/// Every script the server runs, built once at start.
pub struct Scripts {
    pub rate_limit: Script,
}

impl Scripts {
    pub fn new() -> Self {
        Self {
            rate_limit: Script::new(include_str!("rate_limit.lua")),
        }
    }
}

impl Default for Scripts {
    fn default() -> Self {
        Self::new()
    }
}
