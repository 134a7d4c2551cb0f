//! The hold transaction and the release, each one short Postgres transaction with nothing
//! outside Postgres inside it (no Redis, no provider: a slow network never holds a row lock).
//!
//! Invariant 8 (DESIGN.md): a seat is never held or sold twice. The hold transaction locks the
//! seat rows it takes (`FOR UPDATE` in id order, so two holds never deadlock; best-available
//! with `SKIP LOCKED`, so it passes over seats another hold is taking), checks that they are
//! free, marks them held with `version + 1` and inserts the hold with its expiry, then commits;
//! the table's check keeps a seat's status and its owning hold together. A buyer's seats per
//! event (`seats_per_buyer`) are the seats they hold plus the seats they bought, so one
//! admission cannot buy past the limit by holding again after paying. Invariant 9: a seat
//! whose hold is past its expiry is free here at once, without waiting for the sweep. A buyer's
//! limit and Idempotency-Key are checked under a per-buyer advisory lock, so two tabs of one
//! buyer cannot both pass the limit or both create a hold for one key.

use std::time::{Duration, Instant};

use app::wire::{
    BuyerId, EventId, HeldSeat, Hold, HoldChoice, HoldId, HoldRequest, HoldStatus, Room,
};
use chrono::{DateTime, Utc};
use sqlx::{Acquire, PgConnection, PgPool};

use crate::{
    error::{Error, Result},
    holds::state::HoldPath,
    ids,
    sql::Text,
};

/// Records a hold transaction's duration and connection wait when dropped, at whichever
/// return the transaction ends.
struct Timing<'a> {
    state: &'a HoldPath,
    waited: Duration,
    started: Instant,
}

impl Drop for Timing<'_> {
    fn drop(&mut self) {
        let took = self.started.elapsed();
        self.state.health.record(took, self.waited);
        let metrics = &self.state.metrics;
        metrics.hold_transaction.observe(took.as_secs_f64());
        metrics.db_acquire_wait.observe(self.waited.as_secs_f64());
    }
}

/// How many free seats best-available locks at most to find an adjacent run.
const BEST_AVAILABLE_WINDOW: i64 = 24;

#[derive(sqlx::FromRow)]
struct LockedSeat {
    id: i64,
    section: String,
    row_label: String,
    number: i32,
    price_cents: i64,
    status: String,
    hold_id: Option<String>,
}

/// Holds `choice` for `buyer`. Returns the hold and whether it is new (`false`: the same
/// Idempotency-Key was used before for this event and request, and that hold is returned
/// unchanged; with another request: 422).
///
/// The transaction's own duration and its wait for a connection are recorded however it ends
/// (`state.health`, the automatic rate's signal, and the metrics).
#[tracing::instrument(name = "postgres hold", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "hold"))]
pub async fn create(
    state: &HoldPath,
    buyer: &BuyerId,
    event_id: &EventId,
    room: &Room,
    replay: &super::Replay,
    choice: &HoldChoice,
) -> Result<(Hold, bool)> {
    let wanted = HoldRequest::seat_count(choice);
    let db = &state.db;
    let asked = Instant::now();
    let mut conn = db.acquire().await?;
    let _timing = Timing {
        state,
        waited: asked.elapsed(),
        started: Instant::now(),
    };
    let mut tx = conn.begin().await?;
    // One hold transaction per buyer and event at a time: the limit check and the replay check
    // below cannot race the buyer's own other tab.
    sqlx::query("select pg_advisory_xact_lock(hashtextextended($1, 0))")
        .bind(format!("{buyer}\n{event_id}"))
        .execute(&mut *tx)
        .await?;
    if let Some(id) = replay.find(&mut tx, buyer, event_id).await? {
        tx.rollback().await?;
        return Ok((super::load(db, &HoldId::from(id), buyer).await?, false));
    }
    // The limit is per buyer and event over the whole sale: seats held now plus seats bought.
    // Counting only active holds let one admission hold, pay and hold again without end.
    let (held, bought): (i64, i64) = sqlx::query_as(
        "select coalesce(sum(seat_count) filter (where status = 'active'), 0)::bigint, \
                coalesce(sum(seat_count) filter (where status = 'purchased'), 0)::bigint \
         from hold where event_id = $1 and buyer_id = $2 \
           and (status = 'purchased' or (status = 'active' and expires_at > now()))",
    )
    .bind(event_id.as_str())
    .bind(buyer.as_str())
    .fetch_one(&mut *tx)
    .await?;
    if (held + bought) as usize + wanted > room.seats_per_buyer as usize {
        return Err(Error::Unprocessable(format!(
            "you already hold {held} and bought {bought} seats; at most {} per buyer for this \
             event",
            room.seats_per_buyer
        )));
    }
    let seats = match choice {
        HoldChoice::Seats(ids) => lock_chosen(&mut tx, event_id, ids).await?,
        HoldChoice::BestAvailable { section, quantity } => {
            lock_best(&mut tx, event_id, section, *quantity as usize).await?
        }
    };
    let hold_id = ids::random_id(12);
    let total_cents: i64 = seats.iter().map(|s| s.price_cents).sum();
    let ids: Vec<i64> = seats.iter().map(|s| s.id).collect();
    // The expiry on Postgres's clock, which every comparison with it uses (the sweep, the
    // hold transaction's "expired is free", the sale), never the instance's.
    let expires_at: DateTime<Utc> = sqlx::query_scalar(
        "insert into hold (id, event_id, buyer_id, idempotency_key, request_digest, \
             expires_at, total_cents, seat_count) \
         values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6), $7, $8) \
         returning expires_at",
    )
    .bind(&hold_id)
    .bind(event_id.as_str())
    .bind(buyer.as_str())
    .bind(&replay.key)
    .bind(&replay.digest)
    .bind(f64::from(room.hold_ttl_seconds))
    .bind(total_cents)
    .bind(ids.len() as i32)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query(
        "update seat set status = 'held', hold_id = $1, version = version + 1, updated_at = now() \
         where id = any($2)",
    )
    .bind(&hold_id)
    .bind(&ids)
    .execute(&mut *tx)
    .await?;
    sqlx::query("insert into hold_seat (hold_id, seat_id) select $1, unnest($2::bigint[])")
        .bind(&hold_id)
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    let seats: Vec<HeldSeat> = seats
        .into_iter()
        .map(|s| HeldSeat {
            id: s.id.to_string(),
            section: s.section,
            row: s.row_label,
            number: s.number.max(0) as u32,
            price_cents: s.price_cents,
        })
        .collect();
    Ok((
        Hold {
            hold_id,
            event_id: event_id.to_string(),
            seat_ids: seats.iter().map(|s| s.id.clone()).collect(),
            expires_at,
            total_cents,
            status: HoldStatus::Active,
            seats,
        },
        true,
    ))
}

/// Locks the chosen seats in id order and checks that each is free.
async fn lock_chosen(
    tx: &mut PgConnection,
    event_id: &str,
    ids: &[i64],
) -> Result<Vec<LockedSeat>> {
    let seats: Vec<LockedSeat> = sqlx::query_as(
        "select id, section, row_label, number, price_cents, status, hold_id from seat \
         where event_id = $1 and id = any($2) order by id for update",
    )
    .bind(event_id)
    .bind(ids)
    .fetch_all(&mut *tx)
    .await?;
    if seats.len() != ids.len() {
        return Err(Error::Unprocessable(
            "seat_ids names a seat this event does not have".into(),
        ));
    }
    let free = free_after_expiry(tx, &seats).await?;
    let taken: Vec<String> = seats
        .iter()
        .zip(&free)
        .filter(|(_, free)| !**free)
        .map(|(s, _)| s.id.to_string())
        .collect();
    if !taken.is_empty() {
        return Err(Error::SeatUnavailable(taken));
    }
    Ok(seats)
}

/// Locks up to a window of free seats of the section that no other transaction is locking,
/// then keeps `quantity` of them: adjacent in one row when the window has such a run.
async fn lock_best(
    tx: &mut PgConnection,
    event_id: &str,
    section: &str,
    quantity: usize,
) -> Result<Vec<LockedSeat>> {
    let sections: i64 =
        sqlx::query_scalar("select count(*) from seat where event_id = $1 and section = $2")
            .bind(event_id)
            .bind(section)
            .fetch_one(&mut *tx)
            .await?;
    if sections == 0 {
        return Err(Error::Unprocessable(format!(
            "this event has no section {section:?}"
        )));
    }
    let window = BEST_AVAILABLE_WINDOW.max(quantity as i64 * 3);
    let candidates: Vec<LockedSeat> = sqlx::query_as(
        "select s.id, s.section, s.row_label, s.number, s.price_cents, s.status, s.hold_id \
         from seat s \
         where s.event_id = $1 and s.section = $2 \
           and (s.status = 'available' or (s.status = 'held' and exists \
                (select 1 from hold h where h.id = s.hold_id and h.expires_at <= now()))) \
         order by s.id \
         for update of s skip locked \
         limit $3",
    )
    .bind(event_id)
    .bind(section)
    .bind(window)
    .fetch_all(&mut *tx)
    .await?;
    let free = free_after_expiry(tx, &candidates).await?;
    let mut candidates: Vec<LockedSeat> = candidates
        .into_iter()
        .zip(free)
        .filter_map(|(s, free)| free.then_some(s))
        .collect();
    if candidates.len() < quantity {
        return Err(Error::SeatUnavailable(Vec::new()));
    }
    let start = adjacent_run(&candidates, quantity).unwrap_or(0);
    let chosen: Vec<LockedSeat> = if adjacent_run(&candidates, quantity).is_some() {
        candidates.drain(start..start + quantity).collect()
    } else {
        candidates.drain(..quantity).collect()
    };
    Ok(chosen)
}

/// The index of the first run of `quantity` seats in one row with consecutive numbers
/// (`seats` in id order, which is row then number order).
fn adjacent_run(seats: &[LockedSeat], quantity: usize) -> Option<usize> {
    let mut start = 0;
    for i in 0..seats.len() {
        let continues = i > start
            && seats[i].row_label == seats[i - 1].row_label
            && seats[i].number == seats[i - 1].number + 1;
        if i > start && !continues {
            start = i;
        }
        if i + 1 - start == quantity {
            return Some(start);
        }
    }
    None
}

/// Whether each locked seat is free: available, or held by a hold whose expiry has passed.
async fn free_after_expiry(tx: &mut PgConnection, seats: &[LockedSeat]) -> Result<Vec<bool>> {
    let held_by: Vec<String> = seats
        .iter()
        .filter(|s| s.status == "held")
        .filter_map(|s| s.hold_id.clone())
        .collect();
    let expired: Vec<String> = if held_by.is_empty() {
        Vec::new()
    } else {
        sqlx::query_scalar("select id from hold where id = any($1) and expires_at <= now()")
            .bind(&held_by)
            .fetch_all(&mut *tx)
            .await?
    };
    Ok(seats
        .iter()
        .map(|s| match s.status.as_str() {
            "available" => true,
            "held" => s.hold_id.as_ref().is_some_and(|h| expired.contains(h)),
            _ => false,
        })
        .collect())
}

/// Releases `buyer`'s hold: its seats are available again at once. Returns the event whose
/// seats changed (`None` if nothing changed: the hold had already ended). A purchased hold
/// cannot be released (409); another buyer's hold is 404.
#[tracing::instrument(name = "postgres release", target = "anteroom::trace", level = "debug", skip_all, fields(otel.kind = "client", db.system = "postgresql", db.operation = "release"))]
pub async fn release(db: &PgPool, hold_id: &HoldId, buyer: &BuyerId) -> Result<Option<String>> {
    let mut tx = db.begin().await?;
    let row: Option<(String, Text<HoldStatus>)> = sqlx::query_as(
        "select event_id, status from hold where id = $1 and buyer_id = $2 for update",
    )
    .bind(hold_id.as_str())
    .bind(buyer.as_str())
    .fetch_optional(&mut *tx)
    .await?;
    let (event_id, Text(status)) =
        row.ok_or_else(|| Error::NotFound(format!("you have no hold {:?}", hold_id.as_str())))?;
    match status {
        HoldStatus::Active => {}
        HoldStatus::Purchased => {
            return Err(Error::Conflict(
                "this hold was paid for; it cannot be released".into(),
            ));
        }
        HoldStatus::Expired | HoldStatus::Released => return Ok(None),
    }
    sqlx::query("update hold set status = $2, updated_at = now() where id = $1")
        .bind(hold_id.as_str())
        .bind(Text(HoldStatus::Released))
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "update seat set status = 'available', hold_id = null, version = version + 1, \
             updated_at = now() \
         where hold_id = $1 and status = 'held'",
    )
    .bind(hold_id.as_str())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Some(event_id))
}
