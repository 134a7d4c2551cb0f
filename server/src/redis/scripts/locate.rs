//! The one Rust call of `locate.lua`: where a buyer stands in an event's line, joining them if
//! asked. Its fields follow the order of the script's header.

use std::time::Duration;

use ::redis::ScriptInvocation;
use app::presence::Schedule;
use chrono::{DateTime, Utc};

use super::{Scripts, flag, millis};
use crate::{client::Network, redis::keys::Keys};

/// Where `buyer` stands in the line of `event_id`, and the place to make when they have none.
pub struct Locate<'a> {
    /// The event whose line it is: `KEYS[1..6]` and `KEYS[8..=15]` are its keys.
    pub event_id: &'a str,
    /// `KEYS[7]`: the id of the join's proof of work, whose used-once mark the script sets;
    /// `None` for a call without one.
    pub proof_id: Option<&'a str>,
    /// `ARGV[1]`: the buyer.
    pub buyer: &'a str,
    /// `ARGV[2]`: join when absent.
    pub join: bool,
    /// `ARGV[3]`: the arrival number of the buyer's place receipt, if they brought one.
    pub receipt_arrival: Option<u64>,
    /// `ARGV[4]`: when the buyer's admission token expires, sent in epoch ms, if they brought
    /// one.
    pub admitted_until: Option<DateTime<Utc>>,
    /// `ARGV[5]`: the greatest arrival number ever admitted, as Postgres keeps it.
    pub admitted_through: u64,
    /// `ARGV[6]`: the joiner's networks (`Client::networks`), sent separated by spaces; none
    /// when the call makes no place.
    pub networks: &'a [Network],
    /// `ARGV[7]`: the places one network may be given, of which each of `networks` gets its
    /// share (`Network::limit`), sent in the same order.
    pub places_per_network: u32,
    /// `ARGV[8]`: when the join's proof of work expires, sent as the ms from now.
    pub proof_expires_at: Option<DateTime<Utc>>,
    /// `ARGV[9]`: when the pre-queue opens, sent in epoch ms; `None` for a sale without an
    /// opening time.
    pub prequeue_opens_at: Option<DateTime<Utc>>,
    /// `ARGV[10]`: when the sale opens, sent in epoch ms.
    pub opens_at: Option<DateTime<Utc>>,
    /// `ARGV[11]`: a fresh random ticket, for a new entrant; empty where nobody can enter the
    /// pre-queue (a poll, a sale without an opening time).
    pub ticket: &'a str,
    /// `ARGV[12]`: the estimate's band in force (`Band::record`), kept with a new place.
    pub band: &'a str,
    /// `KEYS[16..]`: the joiner's networks, whose joins to this line the script counts (one
    /// counter each); none for a poll.
    pub join_networks: &'a [Network],
    /// `ARGV[13]`: the joins one network may make a window, of which each of `join_networks`
    /// gets its share (`Network::limit`), sent in the same order.
    pub joins_per_network: u32,
    /// `ARGV[14]`: the window of the join counters.
    pub join_window: Duration,
    /// `ARGV[15]`, `ARGV[16]` and `ARGV[17]`: the presence window's floor (ms), divisor and cap
    /// (`app::presence::Schedule`, `WINDOW_MAX_MS`): a waiting answer keeps its buyer present
    /// until now plus `max(floor, min((position - 1) * 1000 / divisor, cap))`. A buyer skipped
    /// while away is back at their place only within the floor of being skipped.
    pub presence: Schedule,
    /// `ARGV[18..]`: the inventory's fields, the first of them '1' when sold out.
    pub inventory_fields: &'a [&'a str],
}

impl Locate<'_> {
    /// The script's call: the line's keys, the proof's mark and the join's counters, then the
    /// buyer, the join, the proofs of their place, the join's limits, the sale's times, the
    /// ticket, the band, the joins' shares and the inventory's fields. A call, not a run: the line benchmark pipelines it.
    pub fn invocation<'s>(&self, scripts: &'s Scripts, keys: &Keys) -> ScriptInvocation<'s> {
        let event_id = self.event_id;
        let cidrs: Vec<&str> = self.networks.iter().map(|n| n.cidr.as_str()).collect();
        let shares: Vec<String> = self
            .networks
            .iter()
            .map(|n| n.limit(self.places_per_network).to_string())
            .collect();
        let mut call = scripts.locate.prepare_invoke();
        call.key(keys.queue(event_id))
            .key(keys.seq(event_id))
            .key(keys.admitted(event_id))
            .key(keys.head(event_id))
            .key(keys.inventory(event_id))
            .key(keys.shopping(event_id))
            .key(keys.join_proof(event_id, self.proof_id.unwrap_or("")))
            .key(keys.places_by_network(event_id))
            .key(keys.entrants(event_id))
            .key(keys.draw(event_id))
            .key(keys.joins(event_id))
            .key(keys.joined(event_id))
            .key(keys.away(event_id))
            .key(keys.moved(event_id))
            .key(keys.entered(event_id));
        for network in self.join_networks {
            call.key(keys.join_limit(event_id, &network.cidr));
        }
        let join_shares: Vec<String> = self
            .join_networks
            .iter()
            .map(|n| n.limit(self.joins_per_network).to_string())
            .collect();
        call.arg(self.buyer)
            .arg(flag(self.join))
            .arg(
                self.receipt_arrival
                    .map(|a| a.to_string())
                    .unwrap_or_default(),
            )
            .arg(millis(self.admitted_until))
            .arg(self.admitted_through)
            .arg(cidrs.join(" "))
            .arg(shares.join(" "))
            .arg(
                self.proof_expires_at
                    .map(|at| (at - Utc::now()).num_milliseconds().max(1).to_string())
                    .unwrap_or_default(),
            )
            .arg(millis(self.prequeue_opens_at))
            .arg(millis(self.opens_at))
            .arg(self.ticket)
            .arg(self.band)
            .arg(join_shares.join(" "))
            .arg(self.join_window.as_millis() as u64)
            .arg(self.presence.floor_ms)
            .arg(self.presence.divisor())
            .arg(app::presence::WINDOW_MAX_MS)
            .arg(self.inventory_fields);
        call
    }
}
