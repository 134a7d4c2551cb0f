//! The Lua scripts, one `.lua` file each, compiled into the binary, and one Rust call each,
//! in the `.rs` file of the same name: a struct of the script's inputs (domain values, no key
//! names) whose one method lists the keys, built by [`Keys`](super::Keys), and the arguments
//! in the order of the script's header, so that order is written once, next to the script.
//! [`Scripts`] keeps its scripts private to this folder: nothing else calls a script but
//! through its typed call.
//!
//! `redis::Script` sends EVALSHA and loads the script only when Redis answers NOSCRIPT (after
//! a restart, on a new node), so each script crosses the network once per Redis, not once per
//! call. Every script touches one key, or the keys of one event only, all with the event's
//! hash tag; DESIGN.md's invariants 1-5 rest on each script running as one step. The lock's
//! two scripts (`renew_lock.lua`, `release_lock.lua`) are private to `Lock`, so that no caller
//! renews or releases without comparing the token.

mod admit;
mod claim;
mod consume;
mod draw;
mod locate;
mod offer_move;
mod progress;
mod rate_limit;
mod retire;
mod set_if_generation;
mod trim_log;

use ::redis::Script;
use chrono::{DateTime, Utc};

pub use admit::Admit;
pub use claim::Claim;
pub use consume::Consume;
pub use draw::{Draw, Place};
pub use locate::Locate;
pub use offer_move::OfferMove;
pub use progress::Progress;
pub use rate_limit::RateLimit;
pub use retire::Retire;
pub use set_if_generation::SetIfGeneration;
pub use trim_log::TrimLog;

/// Every script the server runs (but the lock's), built once at start.
pub struct Scripts {
    rate_limit: Script,
    locate: Script,
    admit: Script,
    consume: Script,
    retire: Script,
    set_if_generation: Script,
    draw: Script,
    place: Script,
    trim_log: Script,
    offer_move: Script,
    claim: Script,
    progress: Script,
}

impl Scripts {
    pub fn new() -> Self {
        Self {
            rate_limit: Script::new(include_str!("rate_limit.lua")),
            locate: Script::new(concat!(
                include_str!("joining.lua"),
                include_str!("locate.lua")
            )),
            admit: Script::new(concat!(
                include_str!("joining.lua"),
                include_str!("admit.lua")
            )),
            consume: Script::new(concat!(
                include_str!("joining.lua"),
                include_str!("consume.lua")
            )),
            retire: Script::new(include_str!("retire.lua")),
            set_if_generation: Script::new(include_str!("set_if_generation.lua")),
            draw: Script::new(include_str!("draw.lua")),
            place: Script::new(include_str!("place.lua")),
            trim_log: Script::new(include_str!("trim_log.lua")),
            offer_move: Script::new(include_str!("offer_move.lua")),
            claim: Script::new(include_str!("claim.lua")),
            progress: Script::new(include_str!("progress.lua")),
        }
    }
}

impl Default for Scripts {
    fn default() -> Self {
        Self::new()
    }
}

/// A yes or no as the scripts read it: `'1'` or `'0'`.
fn flag(yes: bool) -> &'static str {
    if yes { "1" } else { "0" }
}

/// A time as the scripts read it: epoch ms, or `''` for none.
fn millis(at: Option<DateTime<Utc>>) -> String {
    at.map(|t| t.timestamp_millis().to_string())
        .unwrap_or_default()
}
