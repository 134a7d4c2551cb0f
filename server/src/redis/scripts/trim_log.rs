//! The one Rust call of `trim_log.lua`, which drops from an admission log the entries now in
//! Postgres. Its fields follow the order of the script's header.

use ::redis::ScriptInvocation;

use super::Scripts;
use crate::redis::keys::Keys;

/// Drops the entries of `event_id`'s admission log numbered up to `through`.
pub struct TrimLog<'a> {
    /// The event whose admission log (`KEYS[1]`) it is.
    pub event_id: &'a str,
    /// `ARGV[1]`: the greatest entry number written to Postgres.
    pub through: i64,
}

impl TrimLog<'_> {
    /// The script's call: the log, then the number.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let mut call = scripts.trim_log.prepare_invoke();
        call.key(keys.admission_log(self.event_id))
            .arg(self.through);
        call
    }
}
