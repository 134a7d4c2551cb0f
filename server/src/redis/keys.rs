//! Every Redis key name, in one place: no key is built anywhere else. Invariants: every key
//! starts with the deployment's prefix (tests and benchmarks use their own, so they never see
//! each other's data, and [`Keys::everything`] finds all of a deployment's keys); keys of one
//! event carry the event's hash tag (`{E}`), so all of them live in one slot of a Redis
//! Cluster and one script or pipeline can touch them together.

/// The most entries an event's admission log holds in Redis while Postgres is away (about 100
/// bytes each): beyond, an admission keeps its number and loses its entry (the scripts that
/// admit, `admit.lua` and `consume.lua`, are given it).
pub const ADMISSION_LOG_CAPACITY: u64 = 1_000_000;

/// Key names under this deployment's prefix (tests use a prefix of their own).
#[derive(Clone, Debug)]
pub struct Keys {
    prefix: String,
}

impl Keys {
    pub fn new(prefix: impl Into<String>) -> Self {
        Self {
            prefix: prefix.into(),
        }
    }

    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The deployment's wake channel (Pub/Sub, not a key): an event's id published on it wakes
    /// every ticker's resting room (`admission::rest`).
    pub fn wake_channel(&self) -> String {
        format!("{}:wake", self.prefix)
    }

    /// A key of one event: `<prefix>:{<event>}:<name>`.
    pub fn event(&self, event_id: &str, name: &str) -> String {
        format!("{}:{{{}}}:{}", self.prefix, event_id, name)
    }

    /// The accounts on an event's eligibility list (a set of account ids; Postgres keeps the
    /// list, this is its copy for the join's check).
    pub fn eligible(&self, event_id: &str) -> String {
        self.event(event_id, "eligible")
    }

    /// A passkey ceremony under way (`operators::passkeys`): its state, for five minutes.
    pub fn passkey_ceremony(&self, id: &str) -> String {
        format!("{}:passkey:{id}", self.prefix)
    }

    /// A used hand-over assertion (`accounts::assertion`), kept until it expires: its
    /// issuer and `jti`, hashed so that the key stays short whatever they are.
    pub fn used_assertion(&self, issuer: &str, jti: &str) -> String {
        let digest =
            ring::digest::digest(&ring::digest::SHA256, format!("{issuer}\n{jti}").as_bytes());
        format!(
            "{}:assertion:{}",
            self.prefix,
            hex::encode(&digest.as_ref()[..16])
        )
    }

    /// A hand-over redeemed (`origin::handoff`): the buyer it handed over, until the
    /// admission behind it ends.
    pub fn handoff(&self, event_id: &str, jti: &str) -> String {
        self.event(event_id, &format!("handoff:{jti}"))
    }

    /// The buyers the ticketer's site reported done (`origin::done`): a sorted set of buyer
    /// ids scored by the end of their admission (unix seconds); the proxy's gate lets them
    /// pass no more.
    pub fn revoked(&self, event_id: &str) -> String {
        self.event(event_id, "revoked")
    }

    /// The line: a sorted set of buyer ids scored by arrival order.
    pub fn queue(&self, event_id: &str) -> String {
        self.event(event_id, "queue")
    }

    /// The last arrival number given, which scores the line.
    pub fn seq(&self, event_id: &str) -> String {
        self.event(event_id, "seq")
    }

    /// The greatest arrival number ever admitted: a receipt for a place behind it proves a
    /// place the line lost (a failover), one at or before it a place already used.
    pub fn head(&self, event_id: &str) -> String {
        self.event(event_id, "head")
    }

    /// Admitted buyers, scored by the epoch ms at which their admission ends.
    pub fn admitted(&self, event_id: &str) -> String {
        self.event(event_id, "admitted")
    }

    /// Admitted buyers who have not held yet, scored by the epoch ms at which their
    /// admission ends (see `queue::inventory`).
    pub fn shopping(&self, event_id: &str) -> String {
        self.event(event_id, "shopping")
    }

    /// Buyers admitted at once while the room is off, scored by when that admission ends: each
    /// is counted once in the admissions series (`consume.lua`).
    pub fn admitted_while_off(&self, event_id: &str) -> String {
        self.event(event_id, "admitted_while_off")
    }

    /// Until when each waiting buyer's last answer kept them present, as a sorted set of buyer
    /// -> epoch ms: how a line kept presence before it moved into each buyer's record in
    /// [`Keys::joins`] (`joining.lua`). Nothing writes it now; a claim still moves a buyer's
    /// and the line's retirement expires it, for a line live across the upgrade.
    pub fn seen(&self, event_id: &str) -> String {
        self.event(event_id, "seen")
    }

    /// The line's progress as the last instance to read it wrote it (its JSON), kept a second
    /// (`queue::progress`): the other instances serve it rather than read the line again.
    pub fn progress(&self, event_id: &str) -> String {
        self.event(event_id, "progress")
    }

    /// Waiting buyers skipped at their turn because they had gone away: a sorted set of
    /// buyer -> arrival number, from which their next join or poll puts them back in line.
    pub fn away(&self, event_id: &str) -> String {
        self.event(event_id, "away")
    }

    /// In a room that binds tokens: the device key each place is bound to, a hash of buyer ->
    /// the key's RFC 7638 thumbprint (`tokens::dpop`), written when the place is made or
    /// claimed.
    pub fn bound(&self, event_id: &str) -> String {
        self.event(event_id, "bound")
    }

    /// A code that moves a place to another device (`queue::moving`): the string key
    /// `move:<code>` -> the buyer whose place it moves, living 10 minutes, deleted when claimed.
    pub fn move_code(&self, event_id: &str, code: &str) -> String {
        self.event(event_id, &format!("move:{code}"))
    }

    /// The move code each buyer was given last: a hash buyer -> `code:expiry_ms`, so that asking again
    /// while it lives answers the same code.
    pub fn moving(&self, event_id: &str) -> String {
        self.event(event_id, "moving")
    }

    /// Buyers whose place moved to another device: a hash buyer -> when (epoch ms). Such a
    /// buyer never gets that place back, nor a new one (`locate.lua` answers 'moved').
    pub fn moved(&self, event_id: &str) -> String {
        self.event(event_id, "moved")
    }

    /// Buyers whose place arrived by a claim: a set. A place moves at most once, so these
    /// are given no move code.
    pub fn moved_in(&self, event_id: &str) -> String {
        self.event(event_id, "moved_in")
    }

    /// Buyers refused a place because their browser could not bind it to a device, by kind
    /// (a hash: `queue::device`), for the operator's panel.
    pub fn refusals(&self, event_id: &str) -> String {
        self.event(event_id, "refusals")
    }

    /// Who was counted as a page without script in a bound room (a HyperLogLog of sessions, or
    /// of networks without one: each counted once, in 12 KiB at most, `queue::device`).
    pub fn no_script_seen(&self, event_id: &str) -> String {
        self.event(event_id, "no-script-seen")
    }

    /// The `jti`s of the DPoP proofs made in one minute (`minute` = iat / 60) that passed: a
    /// set, which expires once no proof of that minute can pass (`tokens::dpop`).
    pub fn proofs(&self, event_id: &str, minute: i64) -> String {
        self.event(event_id, &format!("proofs:{minute}"))
    }

    /// The admission rate in force and why (a hash written by the ticker's leader once a
    /// second: `admission::ticker`).
    pub fn rate(&self, event_id: &str) -> String {
        self.event(event_id, "rate")
    }

    /// Each instance's measurements of the hold path (a hash: owner token -> JSON, see
    /// `admission::signals`).
    pub fn health(&self, event_id: &str) -> String {
        self.event(event_id, "health")
    }

    /// What the line knows of the event's seats: a hash of `queue::inventory`'s fields,
    /// written by the ticker's lock holder.
    pub fn inventory(&self, event_id: &str) -> String {
        self.event(event_id, "inventory")
    }

    /// The places each network (`client::Client::network`) was given in the event's line: a
    /// hash, network -> count.
    pub fn places_by_network(&self, event_id: &str) -> String {
        self.event(event_id, "places_by_network")
    }

    /// Marks the join challenge `id` used (it lives until the challenge expires).
    /// The joins one network (`cidr`) made to `event_id`'s line in the current window: a
    /// counter in the event's slot, so the join's limit is counted in the locate script.
    pub fn join_limit(&self, event_id: &str, cidr: &str) -> String {
        self.event(event_id, &format!("rl:join:{cidr}"))
    }

    pub fn join_proof(&self, event_id: &str, id: &str) -> String {
        self.event(event_id, &format!("proof:{id}"))
    }

    /// The ticker lock: the owner token of the instance that admits, with a lease.
    pub fn ticker(&self, event_id: &str) -> String {
        self.event(event_id, "ticker")
    }

    /// Fractions of an admission carried from one tick to the next, in thousandths.
    pub fn credit(&self, event_id: &str) -> String {
        self.event(event_id, "credit")
    }

    /// Admissions ever made for the event.
    pub fn admitted_total(&self, event_id: &str) -> String {
        self.event(event_id, "admitted_total")
    }

    /// The pre-queue's entrants: a hash of buyer id -> ticket (kept after the draw, so that a
    /// drawn entrant's answers carry their ticket).
    pub fn entrants(&self, event_id: &str) -> String {
        self.event(event_id, "entrants")
    }

    /// The record of the draw once made (a hash: seed, beacon, entrants, placed, drawn_at_ms,
    /// drawn_by); its absence means the draw is still to be made. `placed` counts the
    /// entrants put in line so far (places 1..=placed); absent in records made before it
    /// existed, which placed every entrant at once.
    pub fn draw(&self, event_id: &str) -> String {
        self.event(event_id, "draw")
    }

    /// The pre-queue's entries in the order they came (a list of "ticket buyer"), so that the
    /// ticker's leader reads the entrants as they come, before the seed is known, and at the
    /// opening reads only the last ones: a join that enters pushes one, and a claim that moves
    /// an entrant's place pushes its ticket with the new buyer (or with none, for a ticket given
    /// up). Folded in order, the entries give every entrant's ticket and buyer.
    pub fn entered(&self, event_id: &str) -> String {
        self.event(event_id, "entered")
    }

    /// The published draw: a sorted set of ticket -> place.
    pub fn drawn_tickets(&self, event_id: &str) -> String {
        self.event(event_id, "draw:tickets")
    }

    /// How each waiting buyer joined and until when they are present: a hash buyer ->
    /// `joined_ms:position:#id@present_until_ms` (`joining.lua`), written when a place is made
    /// and at each waiting answer, taken by its admission; and `#id` -> the model told (the
    /// record `app::estimate::Model::from_record` reads), kept once for all the joins told it.
    pub fn joins(&self, event_id: &str) -> String {
        self.event(event_id, "joins")
    }

    /// The count of places (and pre-queue entries) ever made in the event's line.
    pub fn joined(&self, event_id: &str) -> String {
        self.event(event_id, "joined")
    }

    /// The admission log not yet in Postgres: a list of `n:arrival:admitted_ms:join`, in `n`
    /// order (see `admission::log`), of at most [`ADMISSION_LOG_CAPACITY`] entries.
    pub fn admission_log(&self, event_id: &str) -> String {
        self.event(event_id, "admission_log")
    }

    /// The last admission number `n` given in the event (`n` names a row: when a retired
    /// line's key expired, the numbers go on from the one Postgres keeps).
    pub fn admission_seq(&self, event_id: &str) -> String {
        self.event(event_id, "admission_seq")
    }

    /// The per-second counters of one second (unix time) for the dashboard (see `Counters`).
    pub fn second(&self, event_id: &str, unix_second: i64) -> String {
        self.event(event_id, &format!("sec:{unix_second}"))
    }

    /// The cached seat map: `<logical expiry ms>\n<json>`.
    pub fn seatmap(&self, event_id: &str) -> String {
        self.event(event_id, "seatmap")
    }

    /// The cached seat map in runs (`?form=runs`), beside [`Keys::seatmap`] and like it.
    pub fn seatmap_runs(&self, event_id: &str) -> String {
        self.event(event_id, "seatmap:runs")
    }

    /// Bumped by every change of a seat, so a rebuild that raced a change is not stored.
    pub fn seatmap_generation(&self, event_id: &str) -> String {
        self.event(event_id, "seatmap:gen")
    }

    /// Held by the one instance rebuilding the seat map.
    pub fn seatmap_lock(&self, event_id: &str) -> String {
        self.event(event_id, "seatmap:lock")
    }

    /// Held by the one instance sweeping expired holds.
    pub fn sweep_lock(&self) -> String {
        format!("{}:sweep", self.prefix)
    }

    /// What each instance publishes of its admission keys (instance -> when and which kids).
    /// One hash tag for both of the rotation's keys, so one pipeline reaches both on a cluster.
    pub fn jwks_instances(&self) -> String {
        format!("{}:{{jwks}}:instances", self.prefix)
    }

    /// When each admission key was first published by any instance (kid -> epoch ms).
    pub fn jwks_since(&self) -> String {
        format!("{}:{{jwks}}:since", self.prefix)
    }

    /// Held by the one instance retiring the lines of rooms that are off.
    pub fn retire_lock(&self) -> String {
        format!("{}:retire", self.prefix)
    }

    /// Held by the one instance reconciling pending payments.
    pub fn reconcile_lock(&self) -> String {
        format!("{}:payments:reconcile", self.prefix)
    }

    /// Held by the one request paying for a hold (one payment at a time per hold).
    pub fn checkout_lock(&self, event_id: &str, hold_id: &str) -> String {
        self.event(event_id, &format!("checkout:{hold_id}"))
    }

    /// The fixed-window counter of one rate limit for one subject (a client address, a buyer).
    pub fn rate_limit(&self, limit: &str, subject: &str) -> String {
        format!("{}:rl:{}:{}", self.prefix, limit, subject)
    }

    /// The SCAN pattern that matches every key of this deployment.
    pub fn everything(&self) -> String {
        format!("{}:*", self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_keys_carry_the_hash_tag() {
        let k = Keys::new("ar");
        assert_eq!(k.event("8812", "queue"), "ar:{8812}:queue");
    }
}
