//! The draw: once the sale opened, the holder of the event's ticker lock reads every entrant,
//! orders them under the seed ([`proof`]) and puts the head of the order in line in one fenced
//! script, then the rest a chunk at a time in a task of its own. A drawer that dies half-way is
//! taken over from where it stopped; the order depends only on the seed and the tickets, so
//! every drawer computes the same one (the invariants are in the module's root).

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use app::wire::BeaconSource;
use chrono::{DateTime, Utc};

use super::{beacon, proof, published::Entered};
use crate::{
    error::{Error, Result},
    opening::Opening,
    redis::{Kept, Lock, scripts},
};

/// Entrants (or pre-queue entries) read per round trip.
const ENTRANTS_BATCH: usize = 10_000;
/// Entrants put in line per script call: the head the draw itself places, then each chunk
/// behind it (a chunk is one short script, so admissions and polls go on between them).
pub const PLACING_CHUNK: usize = 5_000;

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
    state: &Opening,
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
pub async fn draw(state: &Opening, lock: &Lock, lease: Duration, event_id: &str) -> Result<Drawn> {
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
    state: &Opening,
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
    state: &Opening,
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
pub async fn prefetch(state: &Opening, event_id: &str) -> Result<()> {
    let entered = state.draws.entered(event_id);
    let mut entered = entered.lock().await;
    read_entered(state, event_id, &mut entered).await
}

/// Reads and folds the entries after the first `entered.read` (a ticket with a buyer enters
/// or moves to that buyer; a ticket with none was given up).
async fn read_entered(state: &Opening, event_id: &str, entered: &mut Entered) -> Result<()> {
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
    state: &Opening,
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
    state: &Opening,
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

/// How often an instance asks the drand relays for a round that is due and not in yet.
const ROUND_ASKED_EVERY: Duration = Duration::from_secs(3);

/// The signature of `source`'s round from the configured relays, asked at most once per
/// [`ROUND_ASKED_EVERY`] per event (a relay that hangs must not hold up every tick), each
/// call within 2 s.
async fn fetch_round(state: &Opening, source: &BeaconSource) -> Option<String> {
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
