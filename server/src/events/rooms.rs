//! The events and their room settings as this instance knows them. Postgres is the source of
//! truth; every instance re-reads the current events (`room::current`: a room on, a show
//! not long past) every `room_refresh_ms` (default 500 ms), so an
//! operator's change applies everywhere within a second. With each event comes what Postgres
//! keeps of its line (`event_line`: the greatest arrival number ever admitted), which the line
//! consults when Redis forgot it.
//!
//! Invariants: the unauthenticated reads (the event list, an event's page and answer, the room
//! behind join, poll and the gate) are served from this memory, never from Postgres for an
//! event known here; an unknown id is looked up in Postgres (an event created on another
//! instance since the last refresh) at most once per [`MISSING_FOR`], remembered as missing in
//! a map of at most [`MISSING_MAX`] ids; and those look-ups, like every public read's query
//! ([`Rooms::public_read`]), hold at most `db_public_connections` of the pool at once (beyond: 503 after the pool's own wait), so a
//! flood of them leaves the rest to holds, checkout and the operator.

use std::{
    collections::HashMap,
    sync::{
        Mutex, RwLock,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use app::wire::{Event, Room};
use sqlx::PgPool;
use tokio::sync::Semaphore;

use crate::{
    config::Config,
    error::{Error, Result},
    events::room,
    extract::is_event_id,
};

/// How long an id Postgres does not know is answered 404 from memory.
pub const MISSING_FOR: Duration = Duration::from_secs(1);
/// The most ids remembered as missing: a flood of made-up ids cannot grow the map beyond it.
pub const MISSING_MAX: usize = 10_000;

/// Event id -> what this instance knows of it. Std locks: held for a map lookup only, never
/// across `.await`.
pub struct Rooms {
    map: RwLock<HashMap<String, Known>>,
    /// Counts [`Rooms::remember`] calls: a refresh keeps what was remembered after its read
    /// began (its rows may predate that write), so a change made here never flickers back.
    remembered: AtomicU64,
    /// Ids Postgres did not know, and when it was asked.
    missing: Mutex<HashMap<String, Instant>>,
    /// Connections the look-ups of unknown ids may hold at once (`db_public_connections`).
    lookups: Semaphore,
    /// How long a look-up waits for one of them (the pool's own acquire timeout).
    lookup_wait: Duration,
}

/// One event, and its line as Postgres keeps it.
#[derive(Clone)]
struct Known {
    event: Event,
    /// The greatest arrival number ever admitted to the event, as Postgres knows it.
    admitted_through: u64,
    /// The last admission number of the lines retired so far (`admission::log`): a line made
    /// again numbers its admissions after it.
    logged_through: u64,
    /// The `remembered` count when this came from [`Rooms::remember`] (0 from a refresh).
    remembered_at: u64,
}

impl Rooms {
    pub fn new(config: &Config) -> Self {
        Self {
            map: RwLock::default(),
            remembered: AtomicU64::new(0),
            missing: Mutex::default(),
            lookups: Semaphore::new(config.db_public_connections as usize),
            lookup_wait: Duration::from_millis(config.db_acquire_timeout_ms),
        }
    }

    /// Re-reads every event and what Postgres keeps of its line.
    pub async fn refresh(&self, db: &PgPool) -> Result<()> {
        let began = self.remembered.load(Ordering::SeqCst);
        let all = room::current(db).await?;
        let lines: HashMap<String, (i64, i64)> = sqlx::query_as::<_, (String, i64, i64)>(
            "select event_id, admitted_through, logged_through from event_line",
        )
        .fetch_all(db)
        .await?
        .into_iter()
        .map(|(event, admitted, logged)| (event, (admitted, logged)))
        .collect();
        let mut fresh: HashMap<String, Known> = all
            .into_iter()
            .map(|event| {
                let (admitted, logged) = lines.get(&event.id).copied().unwrap_or_default();
                let known = Known {
                    event,
                    admitted_through: admitted.max(0) as u64,
                    logged_through: logged.max(0) as u64,
                    remembered_at: 0,
                };
                (known.event.id.clone(), known)
            })
            .collect();
        self.missing
            .lock()
            .expect("not poisoned")
            .retain(|id, _| !fresh.contains_key(id));
        let mut map = self.map.write().expect("not poisoned");
        for (id, known) in map.iter() {
            if known.remembered_at > began {
                let mut kept = known.clone();
                if let Some(read) = fresh.get(id) {
                    kept.admitted_through = kept.admitted_through.max(read.admitted_through);
                    kept.logged_through = kept.logged_through.max(read.logged_through);
                }
                fresh.insert(id.clone(), kept);
            }
        }
        *map = fresh;
        Ok(())
    }

    /// Every event, by start then id (`GET /api/events`).
    pub fn events(&self) -> Vec<Event> {
        let mut all: Vec<Event> = self
            .map
            .read()
            .expect("not poisoned")
            .values()
            .map(|k| k.event.clone())
            .collect();
        all.sort_by(|a, b| a.starts_at.cmp(&b.starts_at).then(a.id.cmp(&b.id)));
        all
    }

    /// The event `event_id`: from memory, else (unless Postgres said it is missing less than
    /// [`MISSING_FOR`] ago) from Postgres, else 404.
    pub async fn event(&self, db: &PgPool, event_id: &str) -> Result<Event> {
        if let Some(known) = self.map.read().expect("not poisoned").get(event_id) {
            return Ok(known.event.clone());
        }
        let not_found = || Error::NotFound(format!("there is no event {event_id:?}"));
        if !is_event_id(event_id) || self.known_missing(event_id) {
            return Err(not_found());
        }
        let _lookup = self.public_read().await?;
        match room::get_event(db, event_id).await {
            Ok(event) => {
                self.remember(&event);
                Ok(event)
            }
            Err(Error::NotFound(_)) => {
                self.remember_missing(event_id);
                Err(not_found())
            }
            Err(e) => Err(e),
        }
    }

    /// One of the `db_public_connections` that unauthenticated reads may hold at once (the
    /// look-ups of unknown events, the public report's pages, the draw): every query of a
    /// public read holds one, so a flood of them waits here, never in the pool that holds and
    /// checkout share. 503 after the pool's own wait.
    pub async fn public_read(&self) -> Result<tokio::sync::SemaphorePermit<'_>> {
        tokio::time::timeout(self.lookup_wait, self.lookups.acquire())
            .await
            .map_err(|_| Error::Unavailable {
                message: "too many public reads at once; try again in a moment".into(),
                retry_after_secs: 1,
            })
            .map(|permit| permit.expect("the semaphore is never closed"))
    }

    /// The room of `event_id` (as [`Rooms::event`] finds the event).
    pub async fn get(&self, db: &PgPool, event_id: &str) -> Result<Room> {
        Ok(self.event(db, event_id).await?.room)
    }

    fn known_missing(&self, event_id: &str) -> bool {
        self.missing
            .lock()
            .expect("not poisoned")
            .get(event_id)
            .is_some_and(|asked| asked.elapsed() < MISSING_FOR)
    }

    fn remember_missing(&self, event_id: &str) {
        let mut missing = self.missing.lock().expect("not poisoned");
        if missing.len() >= MISSING_MAX {
            missing.retain(|_, asked| asked.elapsed() < MISSING_FOR);
            if missing.len() >= MISSING_MAX {
                // All fresh: a flood of made-up ids. Forgetting them costs a look-up each,
                // within the look-ups' share of the pool.
                missing.clear();
            }
        }
        missing.insert(event_id.to_owned(), Instant::now());
    }

    /// The language of `event_id`'s buyer pages as this instance knows it (English for an
    /// event it has not read: a page of one renders its "not found" in the buyer's choice).
    pub fn language(&self, event_id: &str) -> app::lang::Lang {
        self.map
            .read()
            .expect("not poisoned")
            .get(event_id)
            .map(|k| k.event.language)
            .unwrap_or_default()
    }

    /// Keeps `event` as this instance's copy (a new event, or one just changed here).
    pub fn remember(&self, event: &Event) {
        let mut map = self.map.write().expect("not poisoned");
        let remembered_at = self.remembered.fetch_add(1, Ordering::SeqCst) + 1;
        let (admitted_through, logged_through) = map
            .get(&event.id)
            .map_or((0, 0), |k| (k.admitted_through, k.logged_through));
        map.insert(
            event.id.clone(),
            Known {
                event: event.clone(),
                admitted_through,
                logged_through,
                remembered_at,
            },
        );
        drop(map);
        self.missing.lock().expect("not poisoned").remove(&event.id);
    }

    /// The greatest arrival number admitted to `event_id` as Postgres knows it (0: none, or
    /// an event this instance has not read yet).
    pub fn admitted_through(&self, event_id: &str) -> u64 {
        self.map
            .read()
            .expect("not poisoned")
            .get(event_id)
            .map_or(0, |k| k.admitted_through)
    }

    /// The last admission number of `event_id`'s retired lines as Postgres knows it (0: none).
    pub fn logged_through(&self, event_id: &str) -> u64 {
        self.map
            .read()
            .expect("not poisoned")
            .get(event_id)
            .map_or(0, |k| k.logged_through)
    }

    /// Events whose room is on: the ones the ticker ticks (and admits for unless paused).
    pub fn ticking(&self) -> Vec<(String, Room)> {
        self.matching(|r| r.enabled)
    }

    /// Events whose room is off: the ones whose line may be retired.
    pub fn off(&self) -> Vec<String> {
        self.matching(|r| !r.enabled)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// The events whose rooms protect `path` on `host` (API.md "The gate": their target's
    /// host and one of their `protect` prefixes), with their rooms: those of the longest such
    /// prefix, rooms that are on first, then by id. From memory only: the proxy's gate asks
    /// before every request of the protected site.
    pub fn protecting(&self, host: &str, path: &str) -> Vec<(String, Room)> {
        let map = self.map.read().expect("not poisoned");
        let mut found: Vec<(usize, &String, &Room)> = map
            .iter()
            .filter_map(|(id, k)| {
                let room = &k.event.room;
                // The path first: a room without `protect` is passed over without parsing its
                // target's address.
                let longest = room.gate.covers(path)?;
                let target = room.gate.target_url.as_deref()?;
                (app::wire::target_host(target)? == host).then_some((longest, id, room))
            })
            .collect();
        let longest = found.iter().map(|(len, _, _)| *len).max().unwrap_or(0);
        found.retain(|(len, _, _)| *len == longest);
        found.sort_by_key(|(_, id, room)| (!room.enabled, id.as_str()));
        found
            .into_iter()
            .map(|(_, id, room)| (id.clone(), room.clone()))
            .collect()
    }

    /// The events other than `event_id` whose rooms protect a prefix on `gate`'s target host
    /// that overlaps one of `gate`'s (either covers the other): whose paths `gate` would
    /// claim, or that would claim its.
    pub fn overlapping(&self, event_id: Option<&str>, gate: &app::wire::Gate) -> Vec<String> {
        let Some(host) = gate.target_url.as_deref().and_then(app::wire::target_host) else {
            return Vec::new();
        };
        let covers = |prefix: &str, path: &str| {
            let one = app::wire::Gate {
                protect: vec![prefix.to_owned()],
                ..app::wire::Gate::default()
            };
            one.covers(path).is_some()
        };
        let map = self.map.read().expect("not poisoned");
        let mut found: Vec<String> = (map.iter())
            .filter(|(id, _)| Some(id.as_str()) != event_id)
            .filter(|(_, k)| {
                let theirs = &k.event.room.gate;
                let target = theirs
                    .target_url
                    .as_deref()
                    .and_then(app::wire::target_host);
                target.as_deref() == Some(host.as_str())
                    && gate.protect.iter().any(|mine| {
                        (theirs.protect.iter()).any(|p| covers(mine, p) || covers(p, mine))
                    })
            })
            .map(|(id, _)| id.clone())
            .collect();
        found.sort();
        found
    }

    /// The event whose room's target is on `host` (as [`app::wire::target_host`] spells it),
    /// rooms that are on first, then by id: where the gate sends a request no room covers.
    pub fn on_host(&self, host: &str) -> Option<String> {
        let map = self.map.read().expect("not poisoned");
        map.iter()
            .filter(|(_, k)| {
                let target = k.event.room.gate.target_url.as_deref();
                target.and_then(app::wire::target_host).as_deref() == Some(host)
            })
            .map(|(id, k)| (!k.event.room.enabled, id))
            .min()
            .map(|(_, id)| id.clone())
    }

    fn matching(&self, wanted: impl Fn(&Room) -> bool) -> Vec<(String, Room)> {
        self.map
            .read()
            .expect("not poisoned")
            .iter()
            .filter(|(_, k)| wanted(&k.event.room))
            .map(|(id, k)| (id.clone(), k.event.room.clone()))
            .collect()
    }

    /// How often the expiry sweep should run: the shortest interval among the events whose
    /// room is on, or `default` when none is.
    pub fn sweep_interval(&self, default: u32) -> u32 {
        self.map
            .read()
            .expect("not poisoned")
            .values()
            .filter(|k| k.event.room.enabled)
            .map(|k| k.event.room.hold_sweep_seconds)
            .min()
            .unwrap_or(default)
    }
}
