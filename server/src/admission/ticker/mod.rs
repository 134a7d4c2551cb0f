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
//!
//! Here, the leader loop ([`Ticker::run`]) and the lock; one tick's draw and admission are in
//! `admit`, the flush to Postgres in `flush`, the rate's steering in `steer`.

mod admit;
mod flush;
mod steer;

pub use steer::{SET_BY_OPERATOR, read_in_force};

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use app::{estimate::History, wire::Room};
use tokio_util::sync::CancellationToken;

use crate::{
    admission::{
        probe::Probes,
        rest::{Phase, Seen},
    },
    error::Result,
    ids, opening,
    queue::state::Line,
    redis::Lock,
};

/// How often the loop looks for due ticks; bounds how late a tick can be.
const RESOLUTION: Duration = Duration::from_millis(20);
/// How often the heads that ticks moved are written to Postgres.
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);
/// How often every instance publishes its measurements and the leader steers the rate.
pub const STEER_EVERY: Duration = Duration::from_secs(1);

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
    /// The leader's probes of the ticketer's sites (the automatic rate of rooms in front of
    /// one): this ticker's own.
    probes: Arc<Probes>,
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
            probes: Arc::default(),
        }
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
            if let Err(e) = opening::prefetch(&self.state.opening(), event_id).await {
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
