//! The admission ticker. Every instance runs one; for each event whose room is on, once a tick
//! (the event's `tick_ms`) the instance that holds the event's ticker lock counts the event's
//! seats for the line (`queue::inventory`) and, unless the room is paused or no seat is free,
//! admits the next `N * tick` buyers, carrying fractions in Redis so that N is exact over time
//! (N = 7 with 100 ms ticks admits 7 a second).
//!
//! Invariants (DESIGN.md 3-5): the lock is a `Lock` (taken with a lease under an owner token
//! that names this process, renewed each tick); the admit script checks that token before it
//! pops (fencing), so a leader that stalled past its lease admits nothing; the pop and the
//! mark are one script. Sold out, or no seat free but some held: nobody is admitted until a
//! count finds a free seat again (a hold expired or was released). A tick that cannot count
//! the seats (Postgres down) admits nobody: the next one tries again. A sale with an opening
//! time admits nobody before its draw: once it opens, the lock holder makes the draw
//! (`crate::opening`, fenced the same way), then admits.
//!
//! The head (the greatest arrival number admitted) also goes to Postgres (`event_line`), at
//! most [`FLUSH_EVERY`] after the tick that moved it, in one statement for every event: a
//! Redis failover that takes the head back cannot make a used place's receipt put it back in
//! line (the line consults the greater of the two). With the heads, the same flush moves the
//! admission log of each event this ticker led since the last flush to Postgres
//! (`admission::log`, idempotent: a leader killed mid-flush leaves the rest to its successor),
//! and the seconds of its series that ended (`admission::archive`).

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use app::{
    estimate::{History, Model},
    wire::Room,
};
use tokio_util::sync::CancellationToken;

use crate::{
    admission::{
        archive, log,
        rate::{self, InForce, Limits, OriginHealth, Signals},
        rest::{Phase, Seen},
        signals::{self, Measured},
    },
    error::Result,
    ids,
    opening::{self, Drawn},
    queue::inventory::Inventory,
    queue::state::Line,
    redis::{Counter, Counters, Lock, scripts::Admit},
};

/// How often the loop looks for due ticks; bounds how late a tick can be.
const RESOLUTION: Duration = Duration::from_millis(20);
/// How often the heads that ticks moved are written to Postgres.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// How often every instance publishes its measurements and the leader steers the rate.
pub const STEER_EVERY: Duration = Duration::from_secs(1);
/// How long the rate's record outlives its last write (a line nobody ticks forgets it).
const RATE_KEEP_SECS: i64 = 3600;
/// The reason shown while the operator's N is in force.
pub const SET_BY_OPERATOR: &str = "set by the operator";

/// What one tick did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// Another instance holds the lock (or this one lost it): nothing admitted here.
    NotLeader,
    Admitted {
        count: u64,
        queue_length: u64,
    },
    /// The sale has not opened, or its draw is still to be made: nobody admitted.
    BeforeOpening,
}

/// An owner token that says which process holds a lock (for the operator) and cannot collide.
fn owner_token() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "host".to_owned());
    format!("{host}/{}/{}", std::process::id(), ids::random_id(9))
}

/// What one steering step reads: (the report's write, its expiry), every instance's report,
/// the buyers shopping, the ticker lock's holder, the rate's record, the seats as the last
/// tick counted them (the values of `Inventory::FIELDS`).
type Steering = (
    (),
    (),
    HashMap<String, String>,
    u64,
    Option<String>,
    HashMap<String, String>,
    Vec<Option<i64>>,
);

/// A figure for the rate's record: whole ms, or empty when nothing was measured.
fn figure(ms: Option<f64>) -> String {
    ms.map(|ms| format!("{ms:.1}")).unwrap_or_default()
}

/// The rate in force as the leader's record says (the room's N when it is off, or when the
/// record is missing or from before `auto_rate` was turned on).
pub fn read_in_force(room: &Room, record: &HashMap<String, String>) -> InForce {
    let number = |field: &str| record.get(field).and_then(|v| v.parse::<u32>().ok());
    let auto = record.get("auto").is_some_and(|a| a == "1");
    let proposal = number("proposal").unwrap_or(room.admit_rate_per_second);
    match number("rate") {
        Some(rate) if room.auto_rate && auto => InForce {
            rate,
            reason: record.get("reason").cloned().unwrap_or_default(),
            proposal,
        },
        _ => InForce {
            rate: room.admit_rate_per_second,
            reason: SET_BY_OPERATOR.into(),
            proposal,
        },
    }
}

/// One instance's ticker, with its own owner token.
pub struct Ticker {
    state: Line,
    owner: String,
    /// Heads moved by this ticker's ticks and not yet in Postgres, by event. A std Mutex: held
    /// to insert or take, never across an await.
    heads: Mutex<HashMap<String, u64>>,
    /// Events this ticker led since the last flush (with their room then), whose admission
    /// logs and seconds it moves. Same lock discipline as `heads`.
    led: Mutex<HashMap<String, Room>>,
    /// The last second of each event's series this ticker kept in Postgres.
    kept: Mutex<HashMap<String, i64>>,
    /// When this ticker last cut each event's rate for the hold path (the rule's cool-down).
    /// A std Mutex, like `heads`.
    cuts: Mutex<HashMap<String, Instant>>,
    /// Events whose made draw this ticker saw archived in Postgres (`opening::archive`), so
    /// that it asks once, not each tick. A std Mutex, like `heads`.
    archived: Mutex<std::collections::HashSet<String>>,
    /// Events whose night this ticker last found kept (nothing open): a room may rest then.
    settled: Mutex<std::collections::HashSet<String>>,
    /// What the house's earlier nights measured, by event, and when it was counted (again
    /// after [`HISTORY_FRESH`]). A std Mutex, like `heads`.
    histories: Mutex<HashMap<String, (Instant, History)>>,
}

/// How long the earlier nights' shares are kept before they are counted again: they change
/// only when another night ends.
const HISTORY_FRESH: Duration = Duration::from_secs(600);

impl Ticker {
    pub fn new(state: Line) -> Self {
        Self {
            state,
            owner: owner_token(),
            heads: Mutex::default(),
            led: Mutex::default(),
            archived: Mutex::default(),
            kept: Mutex::default(),
            cuts: Mutex::default(),
            settled: Mutex::default(),
            histories: Mutex::default(),
        }
    }

    /// The earlier nights' shares for `event_id`, counted in Postgres at most every
    /// [`HISTORY_FRESH`]; what was counted before (or none) if counting fails.
    async fn history(&self, event_id: &str) -> History {
        let kept = self
            .histories
            .lock()
            .expect("not poisoned")
            .get(event_id)
            .copied();
        if let Some((at, history)) = kept
            && at.elapsed() < HISTORY_FRESH
        {
            return history;
        }
        match Inventory::history(&self.state.db, event_id).await {
            Ok(history) => {
                (self.histories.lock().expect("not poisoned"))
                    .insert(event_id.to_owned(), (Instant::now(), history));
                history
            }
            Err(e) => {
                tracing::warn!(event = %event_id, error = %e, "could not count the earlier nights");
                kept.map(|(_, h)| h).unwrap_or_default()
            }
        }
    }

    /// Writes the heads this ticker moved since the last flush to Postgres, in one statement
    /// (greatest wins, so a late or repeated write never takes a head back). On failure they
    /// are kept for the next flush.
    pub async fn flush(&self) -> Result<()> {
        let led = std::mem::take(&mut *self.led.lock().expect("not poisoned"));
        let mut failed = None;
        for (event_id, room) in led {
            let moved = log::flush(&self.state, &event_id).await;
            let kept = self.keep_seconds(&event_id, &room).await;
            if let Err(e) = moved.and(kept) {
                self.led
                    .lock()
                    .expect("not poisoned")
                    .insert(event_id, room);
                failed = Some(e);
            }
        }
        self.flush_heads().await?;
        failed.map_or(Ok(()), Err)
    }

    /// Keeps the seconds of `event_id`'s series that ended since this ticker last kept them
    /// (on its first time, the last ten minutes).
    async fn keep_seconds(&self, event_id: &str, room: &Room) -> Result<()> {
        let last = chrono::Utc::now().timestamp() - 1;
        let from = self
            .kept
            .lock()
            .expect("not poisoned")
            .get(event_id)
            .map_or(i64::MIN, |k| k + 1);
        let active = archive::keep(&self.state, event_id, room, from, last).await?;
        self.kept
            .lock()
            .expect("not poisoned")
            .insert(event_id.to_owned(), last);
        let idle = self.state.config.night_idle_seconds;
        let settled = |ticker: &Self, settled: bool| {
            let mut events = ticker.settled.lock().expect("not poisoned");
            match settled {
                true => events.insert(event_id.to_owned()),
                false => events.remove(event_id),
            };
        };
        if active.is_some_and(|t| last - t < i64::from(idle)) {
            // Something happened within the idle time in the seconds just kept (the seconds
            // after it, up to `last`, are fewer than the idle time): the night goes on, no
            // need to ask Postgres.
            settled(self, false);
            return Ok(());
        }
        match archive::close_if_idle(&self.state, event_id, room, idle).await? {
            archive::Idle::Open => settled(self, false),
            archive::Idle::Nothing => settled(self, true),
            archive::Idle::Closed(night) => {
                settled(self, true);
                tracing::info!(event = %event_id, night = night.id, "the line was quiet: the night is kept");
            }
        }
        Ok(())
    }

    /// The heads part of [`Ticker::flush`].
    async fn flush_heads(&self) -> Result<()> {
        let heads = std::mem::take(&mut *self.heads.lock().expect("not poisoned"));
        if heads.is_empty() {
            return Ok(());
        }
        let (events, values): (Vec<&str>, Vec<i64>) = heads
            .iter()
            .map(|(event, head)| (event.as_str(), i64::try_from(*head).unwrap_or(i64::MAX)))
            .unzip();
        let written = sqlx::query(
            "insert into event_line as l (event_id, admitted_through) \
             select * from unnest($1::text[], $2::bigint[]) \
             on conflict (event_id) do update set \
                 admitted_through = greatest(l.admitted_through, excluded.admitted_through), \
                 updated_at = now()",
        )
        .bind(&events)
        .bind(&values)
        .execute(&self.state.db)
        .await;
        if let Err(e) = written {
            for (event, head) in heads {
                self.remember_head(event, head);
            }
            return Err(e.into());
        }
        Ok(())
    }

    fn remember_head(&self, event_id: String, head: u64) {
        let mut heads = self.heads.lock().expect("not poisoned");
        let kept = heads.entry(event_id).or_default();
        *kept = (*kept).max(head);
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// One tick for one event: take or renew the lock, then admit (fenced). `now_unix` names
    /// the second the admissions are counted in.
    pub async fn tick(&self, event_id: &str, room: &Room, now_unix: i64) -> Result<Tick> {
        let metrics = &self.state.metrics;
        if !self.acquire(event_id).await? {
            metrics
                .ticker_lock_held
                .with_label_values(&[event_id])
                .set(0);
            return Ok(Tick::NotLeader);
        }
        let mut tick = self.admit(event_id, room, now_unix).await?;
        let opened = room.opens_at.is_some_and(|t| t <= chrono::Utc::now());
        if tick == Tick::BeforeOpening && !opened {
            // The entrants so far, read ahead of the draw (which then reads only the last).
            if let Err(e) = opening::prefetch(&self.state, event_id).await {
                tracing::warn!(event = %event_id, error = %e, "could not read the pre-queue ahead");
            }
        } else if tick == Tick::BeforeOpening && opened && self.draw(event_id).await? {
            tick = self.admit(event_id, room, now_unix).await?;
        } else if opened
            && !self
                .archived
                .lock()
                .expect("not poisoned")
                .contains(event_id)
        {
            // Made, and until it is archived: its order going into line (taken up again if
            // its drawer died), then kept in Postgres.
            self.draw(event_id).await?;
        }
        let held = tick != Tick::NotLeader;
        if held {
            self.led
                .lock()
                .expect("not poisoned")
                .insert(event_id.to_owned(), room.clone());
        }
        metrics
            .ticker_lock_held
            .with_label_values(&[event_id])
            .set(i64::from(held));
        if let Tick::Admitted {
            count,
            queue_length,
        } = tick
        {
            metrics
                .admissions
                .with_label_values(&[event_id])
                .inc_by(count);
            metrics
                .queue_length
                .with_label_values(&[event_id])
                .set(queue_length as i64);
        }
        Ok(tick)
    }

    /// The event's ticker lock as this ticker's owner token sees it.
    fn lock(&self, event_id: &str) -> Lock {
        Lock::with_owner(self.state.keys.ticker(event_id), self.owner.clone())
    }

    /// Takes or renews the event's ticker lock for one lease.
    pub async fn acquire(&self, event_id: &str) -> Result<bool> {
        let lease = Duration::from_millis(u64::from(self.state.config.ticker_lease_ms));
        Ok(self.lock(event_id).hold(&self.state.redis, lease).await?)
    }

    /// Makes the event's draw as this ticker; true once it is made (now or before).
    pub async fn draw(&self, event_id: &str) -> Result<bool> {
        let lease = Duration::from_millis(u64::from(self.state.config.ticker_lease_ms));
        let drawn = opening::draw(&self.state, &self.lock(event_id), lease, event_id).await?;
        if let Drawn::Made {
            entrants,
            took,
            read,
            ordered,
        } = drawn
        {
            tracing::info!(
                event = %event_id,
                entrants,
                took_ms = took.as_millis() as u64,
                read_ms = read.as_millis() as u64,
                ordered_ms = ordered.as_millis() as u64,
                "the draw is made"
            );
        }
        let made = matches!(drawn, Drawn::Made { .. } | Drawn::Already);
        // Kept in Postgres once made (again by the next tick if this fails or this leader
        // dies first): the published draw must outlive Redis.
        let seen = self
            .archived
            .lock()
            .expect("not poisoned")
            .contains(event_id);
        if made && !seen {
            match opening::archive(&self.state, event_id).await {
                Ok(true) => {
                    self.archived
                        .lock()
                        .expect("not poisoned")
                        .insert(event_id.to_owned());
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(event = %event_id, error = %e, "could not archive the draw")
                }
            }
        }
        Ok(made)
    }

    /// The fenced admission step: counts the seats and, if this ticker still holds the lock,
    /// stores the count and admits `N * tick_ms / 1000` buyers (plus carried fractions), or
    /// nobody while the room is paused or no seat is free.
    pub async fn admit(&self, event_id: &str, room: &Room, now_unix: i64) -> Result<Tick> {
        let keys = &self.state.keys;
        let lock = self.lock(event_id);
        let inventory = Inventory::count(&self.state.db, event_id)
            .await?
            .with_history(self.history(event_id).await.or_expected(room));
        let credit = if room.paused || !inventory.admits() {
            0
        } else {
            u64::from(self.state.rates.in_force(event_id, room)) * u64::from(room.tick_ms)
        };
        // The free seats bound the admissions only by what is measured: the seats of the buyers
        // really on the seat map (the script counts them), each taking what this night's holds
        // took (before the first hold, what the operator expects: 1 unless set; a guess never
        // holds free seats back from the line: DESIGN "N a second").
        let config = &self.state.config;
        let hold_back = config.seat_hold_back.then(|| {
            (
                inventory.available,
                inventory.taken_by_a_shopper_milli(u64::from(room.expected_seats()) * 1000),
            )
        });
        let (count, queue_length, head): (i64, i64, u64) = Admit {
            event_id,
            lock: &lock,
            second: now_unix,
            credit,
            admission_ttl: Duration::from_secs(config.admission_ttl_seconds.into()),
            has_opening: room.opens_at.is_some(),
            log_capacity: log::CAPACITY,
            logged_through: self.state.rooms.logged_through(event_id),
            seatmap_deadline: Duration::from_secs(config.seatmap_deadline_seconds.into()),
            inventory_fields: &Inventory::FIELDS,
            inventory_values: &inventory.values(),
            hold_back,
        }
        .invocation(&self.state.scripts, keys)
        .invoke_async(&mut self.state.redis.clone())
        .await?;
        match count {
            -1 => return Ok(Tick::NotLeader),
            -2 => return Ok(Tick::BeforeOpening),
            _ => {}
        }
        if count > 0 {
            self.remember_head(event_id.to_owned(), head);
        }
        Ok(Tick::Admitted {
            count: count as u64,
            queue_length: queue_length as u64,
        })
    }

    /// Once a second for one event: publishes this instance's `measured` hold path in the
    /// event's `health` hash; if this ticker leads the event, combines every fresh report with
    /// the buyers shopping, steers the rate by `rate::propose` and writes it, its reason and
    /// the signals to the event's `rate` hash; then keeps what that hash says as this
    /// instance's rate in force. The rate's write is not fenced like an admission: a stalled
    /// leader may write one stale rate, which the next leader's step replaces within a second.
    pub async fn steer(&self, event_id: &str, room: &Room, measured: &Measured) -> Result<InForce> {
        let keys = &self.state.keys;
        let now_ms = measured.at_ms;
        let report = serde_json::to_string(measured).expect("numbers serialize");
        let (_, _, reports, shopping, holder, record, seats): Steering = redis::pipe()
            .hset(keys.health(event_id), &self.owner, report)
            .pexpire(keys.health(event_id), signals::KEEP.as_millis() as i64)
            .hgetall(keys.health(event_id))
            .zcount(keys.shopping(event_id), format!("({now_ms}"), "+inf")
            .get(keys.ticker(event_id))
            .hgetall(keys.rate(event_id))
            .hget(keys.inventory(event_id), &Inventory::FIELDS[..])
            .query_async(&mut self.state.redis.clone())
            .await?;
        let inventory = Inventory::from_values(&seats);
        let in_force = if holder.as_deref() == Some(self.owner.as_str()) {
            let fresh_from = now_ms - signals::WINDOW.as_millis() as i64;
            let (fresh, stale): (Vec<_>, Vec<_>) = reports
                .iter()
                .map(|(owner, json)| (owner, serde_json::from_str::<Measured>(json).ok()))
                .partition(|(_, m)| m.is_some_and(|m| m.at_ms >= fresh_from));
            let measured: Vec<Measured> = fresh.into_iter().filter_map(|(_, m)| m).collect();
            let mut signals = Measured::combine(&measured, fresh_from, shopping);
            // A room in front of the ticketer's site follows the site, not the hold path.
            if room.auto_rate
                && room.gate.target_url.is_some()
                && let Some(url) = room.gate.origin_probe_url.as_deref()
            {
                signals.origin = self.state.probes.read_and_probe(event_id, url);
            }
            let limits = self.limits(room, inventory.as_ref());
            let in_force = self.decide(event_id, room, &signals, &record, &limits);
            self.show_limits(&signals, &limits);
            let mut pipe = redis::pipe();
            let fields = [
                ("rate", in_force.rate.to_string()),
                ("reason", in_force.reason.clone()),
                ("proposal", in_force.proposal.to_string()),
                ("auto", u8::from(room.auto_rate).to_string()),
                ("hold_p99_ms", figure(signals.hold_p99_ms)),
                ("acquire_wait_ms", figure(signals.acquire_wait_ms)),
                ("loop_lag_ms", figure(Some(signals.loop_lag_ms))),
                ("shopping", shopping.to_string()),
                (
                    "origin_ms",
                    match signals.origin {
                        Some(OriginHealth::Answered(ms)) => figure(Some(ms)),
                        Some(OriginHealth::Failed) => "failed".to_owned(),
                        None => figure(None),
                    },
                ),
                ("target_shoppers", limits.target_shoppers.to_string()),
            ];
            pipe.hset_multiple(keys.rate(event_id), &fields)
                .ignore()
                .expire(keys.rate(event_id), RATE_KEEP_SECS)
                .ignore();
            let rate = if room.paused { 0 } else { in_force.rate };
            let second = Counters::at(keys, event_id, now_ms.div_euclid(1000));
            second.set(&mut pipe, Counter::Rate, u64::from(rate));
            // The model a buyer polling in this second is told, for the night's report.
            let band = (self.state.bands)
                .get(&self.state, &self.state.rates, event_id, room)
                .await;
            let model = Model {
                band,
                seats: inventory.map(|i| i.seats(shopping)),
                now_ms,
            };
            second.set_model(&mut pipe, &model.record());
            for (owner, _) in stale {
                pipe.hdel(keys.health(event_id), owner).ignore();
            }
            let _: () = pipe.query_async(&mut self.state.redis.clone()).await?;
            in_force
        } else {
            read_in_force(room, &record)
        };
        self.state.rates.set(event_id, in_force.clone());
        Ok(in_force)
    }

    fn limits(&self, room: &Room, inventory: Option<&Inventory>) -> Limits {
        let config = &self.state.config;
        Limits::of(
            room,
            config.db_acquire_timeout_ms,
            config.loop_lag_limit_ms,
            config.admission_ttl_seconds,
            inventory,
        )
    }

    /// The leader's step: the proposal from the rate in force (or, when the operator's N was
    /// in force, from N: turning `auto_rate` on starts there), and what is in force now.
    fn decide(
        &self,
        event_id: &str,
        room: &Room,
        signals: &Signals,
        record: &HashMap<String, String>,
        limits: &Limits,
    ) -> InForce {
        let was_auto = record.get("auto").is_some_and(|a| a == "1");
        let previous = record
            .get("rate")
            .and_then(|r| r.parse().ok())
            .filter(|_| was_auto && room.auto_rate)
            .unwrap_or(room.admit_rate_per_second);
        if room.paused && room.auto_rate {
            return InForce {
                rate: previous,
                reason: "paused by the operator".into(),
                proposal: previous,
            };
        }
        let mut cuts = self.cuts.lock().expect("not poisoned");
        let cooling = cuts
            .get(event_id)
            .is_some_and(|at| at.elapsed() < rate::COOL_DOWN);
        let step = rate::propose(previous, signals, limits, cooling);
        if step.cut && room.auto_rate {
            cuts.insert(event_id.to_owned(), Instant::now());
        }
        if room.auto_rate {
            InForce {
                rate: step.rate,
                reason: step.reason,
                proposal: step.rate,
            }
        } else {
            InForce {
                rate: room.admit_rate_per_second,
                reason: SET_BY_OPERATOR.into(),
                proposal: step.rate,
            }
        }
    }

    /// Sets the metrics of how close each signal is to its limit.
    fn show_limits(&self, signals: &Signals, limits: &Limits) {
        let ratio = &self.state.metrics.limit_ratio;
        ratio
            .with_label_values(&["hold_p99"])
            .set(signals.hold_p99_ms.unwrap_or(0.0) / limits.target_hold_p99_ms);
        ratio
            .with_label_values(&["db_acquire_wait"])
            .set(signals.acquire_wait_ms.unwrap_or(0.0) / limits.acquire_wait_limit_ms);
        ratio
            .with_label_values(&["loop_lag"])
            .set(signals.loop_lag_ms / limits.loop_lag_limit_ms);
    }

    /// Gives up the event's lock if this ticker holds it, so the next instance admits at once.
    pub async fn release(&self, event_id: &str) -> Result<()> {
        self.lock(event_id).release(&self.state.redis).await?;
        Ok(())
    }

    /// Ticks every event whose room is on, on its own schedule, until `shutdown` (a paused
    /// room too: it admits nobody, and its seats are counted for the line), then releases the
    /// locks this instance holds.
    pub async fn run(self, shutdown: CancellationToken) {
        let mut due: HashMap<String, Instant> = HashMap::new();
        let mut phases: HashMap<String, Phase> = HashMap::new();
        let mut flushed = Instant::now();
        let mut steered = Instant::now();
        let wakes = self.state.wakes.clone();
        let listener = {
            let (wakes, config, shutdown) =
                (wakes.clone(), self.state.config.clone(), shutdown.clone());
            tokio::spawn(async move { wakes.listen(&config, shutdown).await })
        };
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = tokio::time::sleep(RESOLUTION) => {}
            }
            let now = Instant::now();
            let rooms = self.state.rooms.ticking();
            due.retain(|id, _| rooms.iter().any(|(r, _)| r == id));
            phases.retain(|id, _| rooms.iter().any(|(r, _)| r == id));
            // Rooms rest only while this instance hears the wakes of the others.
            if wakes.listening() {
                for event_id in wakes.take() {
                    phases.insert(event_id, Phase::AWAKE);
                }
            } else {
                phases.clear();
            }
            let resting = phases.values().filter(|p| !p.ticks(now)).count();
            (self.state.metrics.rooms_resting).set(resting as i64);
            for (event_id, room) in rooms {
                let phase = phases.get(&event_id).copied().unwrap_or(Phase::AWAKE);
                if !phase.ticks(now) {
                    // Due again from the moment it wakes (a rest is not a late tick).
                    due.remove(&event_id);
                    continue;
                }
                let next = due.entry(event_id.clone()).or_insert(now);
                if now < *next {
                    continue;
                }
                (self.state.metrics.ticker_lateness)
                    .observe(now.saturating_duration_since(*next).as_secs_f64());
                let tick = Duration::from_millis(u64::from(room.tick_ms));
                // Keep the cadence; after a stall, start again from now rather than catch up.
                *next = if *next + tick > now {
                    *next + tick
                } else {
                    now + tick
                };
                let unix = chrono::Utc::now().timestamp();
                match self.tick(&event_id, &room, unix).await {
                    Ok(tick) if wakes.listening() => {
                        let settled = self
                            .settled
                            .lock()
                            .expect("not poisoned")
                            .contains(&event_id);
                        let opens_in = room
                            .opens_at
                            .and_then(|t| (t - chrono::Utc::now()).to_std().ok());
                        let quiet =
                            Duration::from_secs(self.state.config.rest_after_seconds.into());
                        let seen = match tick {
                            Tick::Admitted {
                                count: 0,
                                queue_length: 0,
                            } => Seen::Quiet,
                            Tick::Admitted { .. } => Seen::Busy,
                            Tick::NotLeader => Seen::NotLeader,
                            Tick::BeforeOpening => Seen::BeforeOpening,
                        };
                        let after = phase.after(seen, Instant::now(), settled, opens_in, quiet);
                        if matches!(after, Phase::Resting { .. }) {
                            tracing::debug!(event = %event_id, "the room rests");
                        }
                        phases.insert(event_id.clone(), after);
                    }
                    Ok(_) => {}
                    Err(e) => {
                        phases.insert(event_id.clone(), Phase::AWAKE);
                        tracing::warn!(event = %event_id, error = %e, "admission tick failed");
                    }
                }
            }
            if steered.elapsed() >= STEER_EVERY {
                steered = Instant::now();
                let measured = self
                    .state
                    .health
                    .measure(chrono::Utc::now().timestamp_millis());
                let now = Instant::now();
                for (event_id, room) in self.state.rooms.ticking() {
                    if phases.get(&event_id).is_some_and(|p| !p.ticks(now)) {
                        continue;
                    }
                    if let Err(e) = self.steer(&event_id, &room, &measured).await {
                        tracing::warn!(event = %event_id, error = %e, "could not steer the admission rate");
                    }
                }
            }
            if flushed.elapsed() >= FLUSH_EVERY {
                flushed = Instant::now();
                if let Err(e) = self.flush().await {
                    tracing::warn!(error = %e, "could not keep the lines' heads in Postgres");
                }
            }
        }
        listener.abort();
        if let Err(e) = self.flush().await {
            tracing::warn!(error = %e, "could not keep the lines' heads in Postgres");
        }
        for event_id in due.keys() {
            if let Err(e) = self.release(event_id).await {
                tracing::warn!(event = %event_id, error = %e, "could not release the ticker lock");
            }
        }
    }
}
