//! Everything Anteroom says to Redis goes through this folder: the one handle ([`store`]), the
//! name of every key ([`keys`]), the Lua scripts with one typed call each ([`scripts`]), the
//! lock with a lease ([`lock`]) and the per-second dashboard counters ([`counters`]). The
//! shared rate limits count through a script of this folder from `crate::ratelimit`.
//!
//! Invariants: no key name is built outside [`keys`], and every key of an event carries the
//! event's hash tag, so each command, pipeline and script touches one slot of a Redis Cluster;
//! a script is called only through its typed call in [`scripts`], which lists its keys and
//! arguments in the order of its header, so no caller writes a script's key list by hand;
//! mutual exclusion between instances (the ticker, a seat map rebuild, the expiry sweep, a
//! payment) is only ever a [`Lock`]: taken with `SET NX PX` under an owner token, renewed and
//! released only by that owner (DESIGN.md 3, 4).
//!
//! Inside this folder the `redis` crate is written `::redis`, so that no reader mistakes it
//! for this module.

pub mod counters;
pub mod keys;
pub mod lock;
pub mod scripts;
pub mod store;

pub use counters::{Counter, Counters};
pub use keys::Keys;
pub use lock::{Kept, Lock};
pub use scripts::Scripts;
pub use store::{Redis, masters};
