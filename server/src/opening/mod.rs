//! The opening of a sale and its draw (DESIGN.md "The opening and the draw"; API.md "Before
//! the sale opens"). A room with `opens_at` gives no place in line before it: from
//! `prequeue_opens_at` a join gets a random ticket instead (the pre-queue, in the join script
//! of `queue`), and once the sale opens the holder of the event's ticker lock makes the draw:
//! every entrant goes into the line at its place in the order of SHA-256(seed ":" ticket)
//! ([`proof`]), ahead of everyone who joined after the opening. `GET /api/events/{id}/draw`
//! publishes it.
//!
//! Invariants:
//! - The commitment (hex SHA-256 of a random 32-byte secret) is made with the first
//!   `opens_at`, kept in Postgres and never changed; the secret is published with the draw,
//!   never before.
//! - Once the pre-queue opened, the opening may be postponed, never brought forward, and the
//!   pre-queue stays open until the draw (a postponement lengthens it); once the sale opened,
//!   the opening no longer changes ([`settle`]).
//! - The draw is made once, fenced like an admission tick (DESIGN.md 4): one script that
//!   checks the lock's owner and that no draw was made writes its record and puts the head of
//!   its order in line; the rest goes in behind it a chunk at a time, each chunk fenced the
//!   same way and placed only right after the record's last place (`placed`). So the first
//!   admissions of a draw of a million come on the tick that makes it, not after a million
//!   writes. A drawer that dies half-way leaves a prefix of the order in line, and the next
//!   leader (which recomputes the same order: it depends only on the seed and the tickets)
//!   goes on from its end.
//! - The draw reads the entrants as this instance's ticks read them ahead ([`prefetch`]) and
//!   the entries since, only when these account for every entrant; else the entrants' hash
//!   whole. The entrants are final once the sale opened (Redis's clock), and the draw's
//!   script checks their count.
//! - Nobody is admitted before the draw, nor past its last place given (the admit script
//!   reads the record); an entrant not yet placed is told the draw is being made, and those
//!   who joined after the opening count them ahead. The draw is published once its order is
//!   all in line.
//! - Who entered is judged by Redis's clock (the join script); whether the draw is due, the
//!   operator's changes and the beacon by Postgres's: the draw reads the beacon under the draw
//!   row's lock once Postgres's clock passed `opens_at`, and setting a beacon takes that lock
//!   and is refused from then on, so the beacon drawn with is the last one accepted.
//! - A paused room draws at its opening too (its ticks run, admitting nobody): the entrants
//!   learn their places, and admission starts when the operator resumes.

pub mod beacon;
pub mod proof;
pub mod published;
pub mod secret;
pub mod verify;

use published::Entered;
pub use published::Published;
pub use secret::{SecretKey, commit};

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use app::wire::{
    BeaconSource, BeaconUpdate, Draw, DrawState, PREQUEUE_SECONDS_RANGE, Room, RoomUpdate,
    prequeue_opens_at,
};
use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::{
    error::{Error, Result},
    events::{room::get_event, state::Catalog},
    extract::EventId,
    redis::{Kept, Lock, scripts},
};

/// Entrants (or pre-queue entries) read per round trip.
const ENTRANTS_BATCH: usize = 10_000;
/// Entrants put in line per script call: the head the draw itself places, then each chunk
/// behind it (a chunk is one short script, so admissions and polls go on between them).
pub const PLACING_CHUNK: usize = 5_000;

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Catalog: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new().route("/api/events/{event_id}/draw", get(draw_handler))
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/draw",
    tag = "queue",
    summary = "The published draw of the pre-queue: its commitment, then its secret, seed and order",
    params(crate::extract::EventPath),
    responses(
        (status = 200, description = "The draw", body = app::wire::Draw),
        (status = 404, description = "No such event, or no draw for it", body = app::wire::ErrorBody),
    )
)]
async fn draw_handler(
    State(state): State<Catalog>,
    EventId(event_id): EventId,
) -> Result<Response> {
    published(&state, &event_id).await
}

/// `update` of the room `before` at `now`, under the rules of an opening: refused (409) when
/// it changes an opening that passed or brings an open pre-queue's opening forward (or
/// clears it); a postponement that would close the open pre-queue again lengthens it
/// instead (its `prequeue_seconds` grows, up to a day).
pub fn settle(before: &Room, update: &RoomUpdate, now: DateTime<Utc>) -> Result<RoomUpdate> {
    let mut update = update.clone();
    let (Some(opens_at), Some(prequeue_opened_at)) = (before.opens_at, before.prequeue_opens_at)
    else {
        return Ok(update);
    };
    if prequeue_opened_at > now {
        return Ok(update);
    }
    let new_opens_at = update.opens_at.unwrap_or(before.opens_at);
    if opens_at <= now {
        if new_opens_at != Some(opens_at) {
            return Err(Error::Conflict(format!(
                "the sale opened at {opens_at}: its opening can no longer change"
            )));
        }
        return Ok(update);
    }
    let Some(new_opens_at) = new_opens_at.filter(|t| *t >= opens_at) else {
        return Err(Error::Conflict(format!(
            "the pre-queue is open: the opening at {opens_at} may be postponed, not brought forward"
        )));
    };
    let prequeue_seconds = update.prequeue_seconds.unwrap_or(before.prequeue_seconds);
    if prequeue_opens_at(Some(new_opens_at), prequeue_seconds) > Some(now) {
        if update.prequeue_seconds.is_some() {
            return Err(Error::Conflict(format!(
                "the pre-queue is open since {prequeue_opened_at}: it stays open until the draw"
            )));
        }
        let needed = u64::try_from((new_opens_at - prequeue_opened_at).num_milliseconds())
            .map(|ms| ms.div_ceil(1000))
            .ok()
            .and_then(|s| u32::try_from(s).ok())
            .filter(|s| PREQUEUE_SECONDS_RANGE.contains(s))
            .ok_or_else(|| {
                Error::Conflict(format!(
                    "postponing the opening to {new_opens_at} would close the pre-queue open \
                     since {prequeue_opened_at} (a pre-queue lasts a day at most)"
                ))
            })?;
        update.prequeue_seconds = Some(needed);
    }
    Ok(update)
}

/// What [`draw`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawn {
    /// Made now, of this many entrants, in this long (from reading them to the head of the
    /// order in line), of which `read` reading them and `ordered` sorting them.
    Made {
        entrants: u64,
        took: Duration,
        read: Duration,
        ordered: Duration,
    },
    /// Made before, by this ticker or another.
    Already,
    /// Not yet: by Postgres's or Redis's clock the sale has not opened.
    NotDue,
    /// The ticker lost its lock on the way, or an entrant came in after the entrants were
    /// read: nothing visible changed, and the next tick draws again.
    Interrupted,
}

/// What the draw is made of, read once the sale opened: from then on neither changes.
struct Sealed {
    opens_at: DateTime<Utc>,
    secret: String,
    beacon: String,
}

/// The secret and the beacon, if the sale has opened by Postgres's clock (and, for a draw
/// committed to a randomness round still `waiting` for its signature, once the signature is
/// known: it is asked of the drand relays here once the round's time passed). The row locks make a beacon being set wait for
/// this read, or this read wait for it (see the module's doc).
async fn seal(
    state: &Catalog,
    event_id: &str,
    waiting: Option<BeaconSource>,
) -> Result<Option<Sealed>> {
    let db = &state.db;
    if let Some(source) = waiting {
        if beacon::round_time(&source).is_none_or(|at| at > Utc::now()) {
            return Ok(None);
        }
        let Some(signature) = fetch_round(state, &source).await else {
            return Ok(None);
        };
        let randomness = beacon::verify(&source, &signature).map_err(Error::Internal)?;
        sqlx::query(
            "update draw set beacon = $2, beacon_signature = $3, updated_at = now() \
             where event_id = $1 and beacon_signature is null",
        )
        .bind(event_id)
        .bind(randomness)
        .bind(&signature)
        .execute(db)
        .await?;
        tracing::info!(event = %event_id, round = source.round, "the draw's drand round is in");
    }
    let mut tx = db.begin().await?;
    type Row = (
        Option<DateTime<Utc>>,
        Option<String>,
        Option<String>,
        String,
        String,
        bool,
    );
    let row: Option<Row> = sqlx::query_as(
        "select e.opens_at, d.secret, d.secret_nonce, d.commitment, d.beacon, \
             d.beacon_source is not null and d.beacon_signature is null \
         from event e join draw d on d.event_id = e.id \
         where e.id = $1 for share of e, d",
    )
    .bind(event_id)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((Some(opens_at), stored, nonce, commitment, beacon, false)) = row else {
        return Ok(None);
    };
    let secret = state
        .draws
        .key
        .open(event_id, stored, nonce.as_deref(), &commitment)?;
    // Read after the locks are held, so that a beacon set before this instant is seen.
    let opened: bool = sqlx::query_scalar("select clock_timestamp() >= $1")
        .bind(opens_at)
        .fetch_one(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(opened.then_some(Sealed {
        opens_at,
        secret,
        beacon,
    }))
}

/// Makes the draw of `event_id` as the holder of `lock` (the event's ticker lock, renewed for
/// `lease` as the work goes), unless it is made already or not due. The draw puts the head of
/// its order in line ([`PLACING_CHUNK`] entrants) and answers, so that admission starts on
/// this tick; a task of this instance puts the rest in line behind it ([`place`]). A draw
/// made whose order is not all in line, and that no task of this instance is placing (its
/// drawer died or lost the lock), is taken up again here from where it stopped.
pub async fn draw(state: &Catalog, lock: &Lock, lease: Duration, event_id: &str) -> Result<Drawn> {
    let keys = &state.keys;
    let mut redis = state.redis.clone();
    let (entrants, placed, seed): (Option<usize>, Option<usize>, Option<String>) =
        ::redis::cmd("HMGET")
            .arg(keys.draw(event_id))
            .arg("entrants")
            .arg("placed")
            .arg("seed")
            .query_async(&mut redis)
            .await?;
    if let (Some(entrants), Some(seed)) = (entrants, seed) {
        let placed = placed.unwrap_or(entrants);
        if placed < entrants {
            let (state, lock, event) = (state.clone(), lock.clone(), event_id.to_owned());
            spawn_placing(&state.clone(), event_id, async move {
                let kept = lock.keep(&state.redis, lease);
                let Some(read) = read_entrants(&state, &event, &kept).await? else {
                    return Ok(());
                };
                let order = ordered(&seed, read).await?;
                if order.len() != entrants {
                    return Err(Error::Internal(format!(
                        "the draw of {event} counted {entrants} entrants; {} are in Redis",
                        order.len()
                    )));
                }
                place(&state, &lock, &kept, &event, &order, placed).await
            });
        }
        return Ok(Drawn::Already);
    }
    // What Postgres keeps of it: made and archived (its keys expired since, a retired line:
    // never drawn again), or a randomness round still to come in.
    type Archived = (bool, Option<sqlx::types::Json<BeaconSource>>);
    let archived: Option<Archived> = sqlx::query_as(
        "select drawn_at is not null, \
             case when beacon_signature is null then beacon_source end \
         from draw where event_id = $1",
    )
    .bind(event_id)
    .fetch_optional(&state.db)
    .await?;
    let (archived, waiting) = archived.unwrap_or((false, None));
    if archived {
        return Ok(Drawn::Already);
    }
    let Some(sealed) = seal(state, event_id, waiting.map(|s| s.0)).await? else {
        return Ok(Drawn::NotDue);
    };
    let started = Instant::now();
    // Kept all through (reading and sorting a million entrants takes a while), and then by
    // the task that puts the rest of the order in line.
    let kept = lock.keep(&state.redis, lease);
    let Some(entrants) = all_entrants(state, event_id, &kept).await? else {
        return Ok(Drawn::Interrupted);
    };
    let read = started.elapsed();
    let seed = proof::seed(&sealed.secret, &sealed.beacon);
    let order = ordered(&seed, entrants).await?;
    let ordered = started.elapsed() - read;
    if kept.lost() {
        return Ok(Drawn::Interrupted);
    }
    let head = &order[..order.len().min(PLACING_CHUNK)];
    let swapped: i64 = scripts::Draw {
        event_id,
        lock,
        entrants: order.len(),
        opens_at: sealed.opens_at,
        seed: &seed,
        beacon: &sealed.beacon,
        head,
    }
    .invocation(&state.scripts, keys)
    .invoke_async(&mut redis)
    .await?;
    Ok(match swapped {
        1 => {
            let (placed, entrants) = (head.len(), order.len());
            if placed < entrants {
                let (state, lock, event) = (state.clone(), lock.clone(), event_id.to_owned());
                spawn_placing(&state.clone(), event_id, async move {
                    place(&state, &lock, &kept, &event, &order, placed).await
                });
            }
            Drawn::Made {
                entrants: entrants as u64,
                took: started.elapsed(),
                read,
                ordered,
            }
        }
        2 => Drawn::Already,
        -1 => Drawn::NotDue,
        _ => Drawn::Interrupted,
    })
}

/// `entrants` in draw order under `seed`: a million hashes and a sort, off the async workers.
async fn ordered(seed: &str, entrants: Vec<(String, String)>) -> Result<Vec<(String, String)>> {
    let seed = seed.to_owned();
    tokio::task::spawn_blocking(move || {
        proof::order(&seed, entrants, |(_, t): &(String, String)| t.as_str())
    })
    .await
    .map_err(|e| Error::Internal(format!("the draw's sort failed: {e}")))
}

/// Runs `placing` (the putting in line of `event_id`'s drawn order) in a task of its own,
/// unless a task of this instance places that event's order already.
fn spawn_placing(
    state: &Catalog,
    event_id: &str,
    placing: impl Future<Output = Result<()>> + Send + 'static,
) {
    if !state.draws.placing(event_id) {
        return;
    }
    let (draws, event) = (state.draws.clone(), event_id.to_owned());
    tokio::spawn(async move {
        if let Err(e) = placing.await {
            tracing::warn!(event = %event, error = %e, "could not put the draw's order in line");
        }
        draws.placed(&event);
    });
}

/// Puts `order` in line from place `placed + 1` on, a chunk a call, as the holder of `lock`
/// (kept by `kept`); stops when the lock is lost or another drawer placed (the record no
/// longer stands where this one left it).
async fn place(
    state: &Catalog,
    lock: &Lock,
    kept: &Kept,
    event_id: &str,
    order: &[(String, String)],
    mut placed: usize,
) -> Result<()> {
    let started = Instant::now();
    while placed < order.len() && !kept.lost() {
        let chunk = &order[placed..order.len().min(placed + PLACING_CHUNK)];
        let after: i64 = scripts::Place {
            event_id,
            lock,
            placed,
            chunk,
        }
        .invocation(&state.scripts, &state.keys)
        .invoke_async(&mut state.redis.clone())
        .await?;
        let Ok(after) = usize::try_from(after) else {
            return Ok(());
        };
        if after <= placed {
            return Ok(());
        }
        placed = after;
    }
    if placed == order.len() {
        tracing::info!(
            event = %event_id,
            entrants = placed,
            took_ms = started.elapsed().as_millis() as u64,
            "the draw's order is all in line"
        );
    }
    Ok(())
}

/// Reads the entries of `event_id`'s pre-queue that came since this instance last read them:
/// the ticker's leader does on each tick before the opening, so that at the opening the draw
/// reads only the last second's (the entrants are known before the seed is).
pub async fn prefetch(state: &Catalog, event_id: &str) -> Result<()> {
    let entered = state.draws.entered(event_id);
    let mut entered = entered.lock().await;
    read_entered(state, event_id, &mut entered).await
}

/// Reads and folds the entries after the first `entered.read` (a ticket with a buyer enters
/// or moves to that buyer; a ticket with none was given up).
async fn read_entered(state: &Catalog, event_id: &str, entered: &mut Entered) -> Result<()> {
    let key = state.keys.entered(event_id);
    loop {
        let batch: Vec<String> = ::redis::cmd("LRANGE")
            .arg(&key)
            .arg(entered.read)
            .arg(entered.read + ENTRANTS_BATCH - 1)
            .query_async(&mut state.redis.clone())
            .await?;
        entered.fold(&batch);
        if batch.len() < ENTRANTS_BATCH {
            return Ok(());
        }
    }
}

/// Every entrant (buyer, ticket) at the draw: what this instance read of the pre-queue before
/// the opening and the entries since, when they account for every entrant; else read whole
/// (another instance read them, or the line predates its entries).
async fn all_entrants(
    state: &Catalog,
    event_id: &str,
    kept: &Kept,
) -> Result<Option<Vec<(String, String)>>> {
    let mut entered = match state.draws.take_entered(event_id) {
        Some(cell) => std::mem::take(&mut *cell.lock().await),
        None => Entered::default(),
    };
    read_entered(state, event_id, &mut entered).await?;
    let count: usize = ::redis::cmd("HLEN")
        .arg(state.keys.entrants(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    if entered.buyers.len() == count {
        return Ok(Some(
            entered.buyers.into_iter().map(|(t, b)| (b, t)).collect(),
        ));
    }
    read_entrants(state, event_id, kept).await
}

/// Every entrant (buyer, ticket), read in batches (each reply small, within the Redis call's
/// time limit); `None` once `kept` says the lock may be lost. A scan may return an entrant
/// twice, never miss one present throughout; the entrants are final by now (the draw's swap
/// checks that their count did not change).
async fn read_entrants(
    state: &Catalog,
    event_id: &str,
    kept: &Kept,
) -> Result<Option<Vec<(String, String)>>> {
    let key = state.keys.entrants(event_id);
    let mut entrants = HashMap::new();
    let mut cursor = 0u64;
    loop {
        if kept.lost() {
            return Ok(None);
        }
        let (next, batch): (u64, Vec<(String, String)>) = ::redis::cmd("HSCAN")
            .arg(&key)
            .arg(cursor)
            .arg("COUNT")
            .arg(ENTRANTS_BATCH)
            .query_async(&mut state.redis.clone())
            .await?;
        entrants.extend(batch);
        if next == 0 {
            return Ok(Some(entrants.into_iter().collect()));
        }
        cursor = next;
    }
}

/// Changes `event_id`'s draw in the caller's transaction `tx` as `update` says (exactly one
/// of its fields, `BeaconUpdate::validate`); answers what it was before (for the audit).
/// - a free-text `beacon`: while the sale has not opened by Postgres's clock, and only for a
///   draw with no beacon source (409 otherwise);
/// - a `beacon_source`: while the pre-queue has not opened (nobody has entered), for a round
///   whose time is after the opening (422 otherwise); it replaces a free-text beacon;
/// - the committed round's `round_signature`: checked with the source's public key (422 when it
///   does not verify); its randomness becomes the beacon. Any time before the draw is made.
pub async fn update_draw(
    tx: &mut PgConnection,
    event_id: &str,
    update: &BeaconUpdate,
) -> Result<serde_json::Value> {
    type Row = (
        Option<DateTime<Utc>>,
        i32,
        String,
        Option<sqlx::types::Json<BeaconSource>>,
        Option<DateTime<Utc>>,
    );
    let row: Option<Row> = sqlx::query_as(
        "select e.opens_at, e.prequeue_seconds, d.beacon, d.beacon_source, d.drawn_at \
         from event e join draw d on d.event_id = e.id \
         where e.id = $1 for share of e for update of d",
    )
    .bind(event_id)
    .fetch_optional(&mut *tx)
    .await?;
    let no_opening =
        || Error::Conflict("this sale has no opening time (opens_at), so it has no draw".into());
    let Some((opens_at, prequeue_seconds, before, source, drawn_at)) = row else {
        get_event(&mut *tx, event_id).await?;
        return Err(no_opening());
    };
    let opens_at = opens_at.ok_or_else(no_opening)?;
    let source = source.map(|s| s.0);
    let before_json = serde_json::json!({ "beacon": before, "beacon_source": source });
    // Read after the locks are held: a draw that read the beacon already holds them no more,
    // and found this clock past `opens_at`.
    let now: DateTime<Utc> = sqlx::query_scalar("select clock_timestamp()")
        .fetch_one(&mut *tx)
        .await?;
    let set = |beacon: String, source: Option<BeaconSource>, signature: Option<String>| {
        sqlx::query(
            "update draw set beacon = $2, beacon_source = $3, beacon_signature = $4, \
                 updated_at = now() \
             where event_id = $1",
        )
        .bind(event_id.to_owned())
        .bind(beacon)
        .bind(source.map(sqlx::types::Json))
        .bind(signature)
    };
    if let Some(beacon) = &update.beacon {
        if let Some(source) = &source {
            return Err(Error::Conflict(format!(
                "this draw committed to drand round {}: its beacon is that round's randomness",
                source.round
            )));
        }
        if now >= opens_at {
            return Err(Error::Conflict(format!(
                "the sale opened at {opens_at}: the draw's beacon can no longer change"
            )));
        }
        set(beacon.clone(), None, None).execute(&mut *tx).await?;
    } else if let Some(new) = &update.beacon_source {
        beacon::check(new).map_err(Error::Unprocessable)?;
        let prequeue_opens_at =
            prequeue_opens_at(Some(opens_at), prequeue_seconds.max(0) as u32).unwrap_or(opens_at);
        if now >= prequeue_opens_at {
            return Err(Error::Conflict(format!(
                "the pre-queue opened at {prequeue_opens_at}: the draw's beacon source is fixed \
                 before anyone enters"
            )));
        }
        let round_at = beacon::round_time(new).expect("checked: the round's time is known");
        if round_at <= opens_at {
            return Err(Error::Unprocessable(format!(
                "drand round {} is at {round_at}, not after the opening at {opens_at}: its \
                 randomness could be known while entrants still enter",
                new.round
            )));
        }
        set(String::new(), Some(new.clone()), None)
            .execute(&mut *tx)
            .await?;
    } else if let Some(signature) = &update.round_signature {
        let Some(source) = source else {
            return Err(Error::Conflict(
                "this draw committed to no randomness round: set a beacon_source first".into(),
            ));
        };
        if drawn_at.is_some() {
            return Err(Error::Conflict("the draw is made already".into()));
        }
        let signature = signature.to_ascii_lowercase();
        let randomness = beacon::verify(&source, &signature).map_err(Error::Unprocessable)?;
        set(randomness, Some(source), Some(signature))
            .execute(&mut *tx)
            .await?;
    }
    Ok(before_json)
}

/// Refuses (409) an opening at or after the time of the round `event_id`'s draw committed to:
/// the round's randomness would be public while entrants still enter.
pub async fn check_round_after(
    tx: &mut PgConnection,
    event_id: &str,
    opens_at: DateTime<Utc>,
) -> Result<()> {
    let source: Option<Option<sqlx::types::Json<BeaconSource>>> =
        sqlx::query_scalar("select beacon_source from draw where event_id = $1")
            .bind(event_id)
            .fetch_optional(&mut *tx)
            .await?;
    if let Some(source) = source.flatten().map(|s| s.0)
        && beacon::round_time(&source).is_some_and(|at| at <= opens_at)
    {
        return Err(Error::Conflict(format!(
            "the draw committed to drand round {}, which comes before that opening: the opening \
             stays before the round",
            source.round
        )));
    }
    Ok(())
}

/// The most made draws an instance keeps in memory.
const MADE_KEPT: usize = 64;

/// How often an instance asks the drand relays for a round that is due and not in yet.
const ROUND_ASKED_EVERY: Duration = Duration::from_secs(3);

/// The signature of `source`'s round from the configured relays, asked at most once per
/// [`ROUND_ASKED_EVERY`] per event (a relay that hangs must not hold up every tick), each
/// call within 2 s.
async fn fetch_round(state: &Catalog, source: &BeaconSource) -> Option<String> {
    if state.config.drand_urls.is_empty() {
        return None;
    }
    {
        let key = format!("{}:{}", source.chain_hash, source.round);
        let mut asked = state.draws.rounds_asked.lock().expect("not poisoned");
        if asked
            .get(&key)
            .is_some_and(|at| at.elapsed() < ROUND_ASKED_EVERY)
        {
            return None;
        }
        asked.retain(|_, at| at.elapsed() < ROUND_ASKED_EVERY);
        asked.insert(key, Instant::now());
    }
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(2))
        .build()
        .ok()?;
    beacon::fetch(&http, &state.config.drand_urls, source).await
}

/// Keeps a made draw in Postgres (its seed, its entrant count, the beacon drawn with and every
/// ticket in draw order) unless it is kept already, so that a published draw outlives Redis
/// and the draw's keys there may expire. True when nothing of the event's draw lives only in
/// Redis (it is archived now or was, or the event has no draw); false while the draw is not
/// made.
pub async fn archive(state: &Catalog, event_id: &str) -> Result<bool> {
    type Row = (bool, Option<String>, Option<String>, String);
    let row: Option<Row> = sqlx::query_as(
        "select drawn_at is not null, secret, secret_nonce, commitment from draw \
         where event_id = $1",
    )
    .bind(event_id)
    .fetch_optional(&state.db)
    .await?;
    let (stored, nonce, commitment) = match row {
        None | Some((true, ..)) => return Ok(true),
        Some((false, stored, nonce, commitment)) => (stored, nonce, commitment),
    };
    let keys = &state.keys;
    let record: HashMap<String, String> = ::redis::cmd("HGETALL")
        .arg(keys.draw(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    if !all_placed(&record) {
        return Ok(false);
    }
    let tickets = drawn_tickets(state, event_id).await?;
    let field = |name: &str| record.get(name).cloned().unwrap_or_default();
    let entrants: i64 = field("entrants").parse().unwrap_or(tickets.len() as i64);
    // The secret is published with the draw: kept as it is from now on.
    let secret = state
        .draws
        .key
        .open(event_id, stored, nonce.as_deref(), &commitment)?;
    sqlx::query(
        "update draw set seed = $2, drawn_entrants = $3, tickets = $4, beacon = $5, \
             secret = $6, drawn_at = now(), updated_at = now() \
         where event_id = $1 and drawn_at is null",
    )
    .bind(event_id)
    .bind(field("seed"))
    .bind(entrants)
    .bind(&tickets)
    .bind(field("beacon"))
    .bind(&secret)
    .execute(&state.db)
    .await?;
    // The pre-queue's entries served the draw only.
    ::redis::cmd("UNLINK")
        .arg(keys.entered(event_id))
        .query_async::<()>(&mut state.redis.clone())
        .await?;
    Ok(true)
}

/// `GET /api/events/{id}/draw`'s answer (JSON): 404 for an event without a draw.
pub async fn published(state: &Catalog, event_id: &str) -> Result<Response> {
    let json = published_json(state, event_id).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// An event's draw as Postgres keeps it.
#[derive(sqlx::FromRow)]
struct DrawRow {
    opens_at: Option<DateTime<Utc>>,
    /// Stored once drawn (or committed before secrets were sealed); else made from the nonce.
    secret: Option<String>,
    secret_nonce: Option<String>,
    commitment: String,
    beacon: String,
    committed_at: DateTime<Utc>,
    /// The archive of a made draw (all three, or none before it is archived).
    seed: Option<String>,
    drawn_entrants: Option<i64>,
    tickets: Option<Vec<String>>,
    beacon_source: Option<sqlx::types::Json<BeaconSource>>,
    beacon_signature: Option<String>,
}

async fn published_json(state: &Catalog, event_id: &str) -> Result<Bytes> {
    let cell = state
        .draws
        .made
        .lock()
        .expect("not poisoned")
        .get(event_id)
        .cloned();
    if let Some(json) = cell.as_ref().and_then(|c| c.get()) {
        return Ok(json.clone());
    }
    // An unknown id is 404 from memory (or one public look-up), before any query of its own;
    // a known one's query holds one of the public reads' connections (a pending draw's
    // entrants and beacon move, so it is read each time, within that share).
    state.rooms.event(&state.db, event_id).await?;
    let row: Option<DrawRow> = {
        let _public = state.rooms.public_read().await?;
        sqlx::query_as(
            "select e.opens_at, d.secret, d.secret_nonce, d.commitment, d.beacon, \
                 d.committed_at, d.seed, \
                 d.drawn_entrants, d.tickets, d.beacon_source, d.beacon_signature \
             from draw d join event e on e.id = d.event_id where d.event_id = $1",
        )
        .bind(event_id)
        .fetch_optional(&state.db)
        .await?
    };
    let Some(row) = row else {
        return Err(Error::NotFound(format!(
            "event {event_id:?} has no draw: it has no opening time"
        )));
    };
    let cell = || {
        let mut made = state.draws.made.lock().expect("not poisoned");
        if made.len() >= MADE_KEPT && !made.contains_key(event_id) {
            made.clear();
        }
        made.entry(event_id.to_owned()).or_default().clone()
    };
    if let (Some(seed), Some(entrants), Some(tickets)) =
        (row.seed.clone(), row.drawn_entrants, row.tickets.clone())
    {
        // Archived: from Postgres alone.
        let draw = Draw {
            opens_at: row.opens_at,
            committed_at: row.committed_at,
            commitment: row.commitment.clone(),
            state: DrawState::Drawn,
            entrants: entrants.max(0) as u64,
            secret: Some(state.draws.key.open(
                event_id,
                row.secret.clone(),
                row.secret_nonce.as_deref(),
                &row.commitment,
            )?),
            beacon: row.beacon,
            seed: Some(seed),
            tickets: Some(tickets),
            beacon_source: row.beacon_source.map(|s| s.0),
            beacon_signature: row.beacon_signature,
        };
        let cell = cell();
        let json = cell.get_or_try_init(|| async { to_json(&draw) }).await?;
        return Ok(json.clone());
    }
    let keys = &state.keys;
    let (record, entrants): (HashMap<String, String>, u64) = ::redis::pipe()
        .hgetall(keys.draw(event_id))
        .hlen(keys.entrants(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    let mut draw = Draw {
        opens_at: row.opens_at,
        committed_at: row.committed_at,
        commitment: row.commitment.clone(),
        state: DrawState::Pending,
        entrants,
        secret: None,
        beacon: row.beacon,
        seed: None,
        tickets: None,
        beacon_source: row.beacon_source.map(|s| s.0),
        beacon_signature: row.beacon_signature,
    };
    if !all_placed(&record) {
        // Made, and its order still going into line: published once it is all there (the
        // entrants are final, so their count is too).
        if let Some(n) = record.get("entrants").and_then(|n| n.parse().ok()) {
            draw.entrants = n;
        }
        return to_json(&draw);
    }
    let cell = cell();
    let json = cell
        .get_or_try_init(|| async {
            let tickets = drawn_tickets(state, event_id).await?;
            let field = |name: &str| record.get(name).cloned().unwrap_or_default();
            draw.state = DrawState::Drawn;
            draw.entrants = field("entrants").parse().unwrap_or(tickets.len() as u64);
            draw.secret = Some(state.draws.key.open(
                event_id,
                row.secret.clone(),
                row.secret_nonce.as_deref(),
                &row.commitment,
            )?);
            // The beacon the draw was made with (the last one accepted, see the module's doc).
            draw.beacon = field("beacon");
            draw.seed = Some(field("seed"));
            draw.tickets = Some(tickets);
            to_json(&draw)
        })
        .await?;
    Ok(json.clone())
}

/// Every ticket of a made draw whose order is all in line, in draw order.
async fn drawn_tickets(state: &Catalog, event_id: &str) -> Result<Vec<String>> {
    Ok(::redis::cmd("ZRANGE")
        .arg(state.keys.drawn_tickets(event_id))
        .arg(0)
        .arg(-1)
        .query_async(&mut state.redis.clone())
        .await?)
}

/// Whether the draw's `record` (its hash in Redis) says the draw is made and its whole order in
/// line (a record without `placed` placed everything at once).
fn all_placed(record: &HashMap<String, String>) -> bool {
    let count = |name: &str| record.get(name).and_then(|n| n.parse::<u64>().ok());
    match (count("entrants"), count("placed")) {
        (Some(entrants), placed) => placed.unwrap_or(entrants) >= entrants,
        (None, _) => false,
    }
}

fn to_json(draw: &Draw) -> Result<Bytes> {
    serde_json::to_vec(draw)
        .map(Bytes::from)
        .map_err(|e| Error::Internal(format!("the draw as JSON: {e}")))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(draw_handler))]
pub struct Api;

#[cfg(test)]
mod tests {
    use chrono::Duration as Span;

    use super::*;

    fn room(opens_in: i64, prequeue_seconds: u32, now: DateTime<Utc>) -> Room {
        let opens_at = Some(now + Span::seconds(opens_in));
        Room {
            opens_at,
            prequeue_seconds,
            prequeue_opens_at: prequeue_opens_at(opens_at, prequeue_seconds),
            ..app::wire::DEFAULT_ROOM
        }
    }

    fn opening(at: Option<DateTime<Utc>>) -> RoomUpdate {
        RoomUpdate {
            opens_at: Some(at),
            ..RoomUpdate::default()
        }
    }

    #[test]
    fn before_the_pre_queue_opens_the_opening_may_move_either_way() {
        let now = Utc::now();
        let before = room(3600, 900, now);
        for at in [None, Some(now), Some(now + Span::seconds(7200))] {
            assert_eq!(settle(&before, &opening(at), now).unwrap(), opening(at));
        }
    }

    #[test]
    fn an_open_pre_queue_may_be_postponed_never_brought_forward_and_stays_open() {
        let now = Utc::now();
        // Opens in 10 minutes; the pre-queue opened 5 minutes ago.
        let before = room(600, 900, now);
        for refused in [None, Some(now + Span::seconds(599)), Some(now)] {
            assert!(matches!(
                settle(&before, &opening(refused), now),
                Err(Error::Conflict(_))
            ));
        }
        // Postponed by 5 minutes: the pre-queue still opened in the past, nothing else moves.
        let later = Some(now + Span::seconds(900));
        assert_eq!(
            settle(&before, &opening(later), now).unwrap(),
            opening(later)
        );
        // Postponed by an hour: the pre-queue would open again in the future, so it grows.
        let much_later = Some(now + Span::seconds(4200));
        let settled = settle(&before, &opening(much_later), now).unwrap();
        assert_eq!(settled.prequeue_seconds, Some(4200 + 300));
        // Unless the operator asked for a length that closes it; or it would last over a day.
        let closing = RoomUpdate {
            prequeue_seconds: Some(60),
            ..opening(much_later)
        };
        assert!(settle(&before, &closing, now).is_err());
        let next_week = Some(now + Span::days(7));
        assert!(settle(&before, &opening(next_week), now).is_err());
    }

    #[test]
    fn once_the_sale_opened_its_opening_no_longer_changes() {
        let now = Utc::now();
        let before = room(-1, 900, now);
        assert!(settle(&before, &opening(Some(now + Span::seconds(60))), now).is_err());
        assert!(settle(&before, &opening(None), now).is_err());
        let same = opening(before.opens_at);
        assert_eq!(settle(&before, &same, now).unwrap(), same);
        let rate = RoomUpdate {
            admit_rate_per_second: Some(9),
            ..RoomUpdate::default()
        };
        assert_eq!(settle(&before, &rate, now).unwrap(), rate);
    }
}
