//! The night kept (issue 18): the per-second series of an event (admissions, holds, checkouts,
//! queue length, from `redis::Counters`, and the admission rate in force) copied to Postgres
//! (`night_second`) as the night goes, since Redis keeps a second only ten minutes; and the
//! nights (`night`: from the end of the last one to the moment it was kept), closed when the
//! room is turned off, on demand by the operator (`POST /api/admin/events/{id}/nights`,
//! audited), or by the ticker's leader once the line has been quiet for
//! `night_idle_seconds` ([`close_if_idle`]), which the panel browses and exports as CSV.
//!
//! Invariants: the ticker's leader keeps each second once it is over ([`keep`], called by its
//! flush every second), at most [`Counters::SERIES_SECONDS`] seconds a call (what Redis still has);
//! writing a second again (a new leader, a repeated flush, closing a night) updates its
//! counts and keeps the rate and the estimate's model first written (the leader writes the
//! model of each second into the series, `Counters::set_model`), so a second is one row whoever wrote it; the rate
//! of a second is the one in force when it was kept (at most a flush after it); a night never
//! overlaps the one before it.

use app::wire::{Night, NightPoint, Room};
use chrono::{DateTime, Utc};
use sqlx::PgConnection;

use crate::{error::Result, queue::state::Line, redis::Counters};

/// Copies the seconds `from..=to` (unix, at most the last [`Counters::SERIES_SECONDS`]) of `event_id`'s
/// series to Postgres, with the rate in force in `room`. Returns the last of the seconds
/// written that had something in it (the four counts of [`ACTIVE`]), if any.
pub async fn keep(
    state: &Line,
    event_id: &str,
    room: &Room,
    from: i64,
    to: i64,
) -> Result<Option<i64>> {
    let from = from.max(to - Counters::SERIES_SECONDS + 1);
    if from > to {
        return Ok(None);
    }
    let mut pipe = ::redis::pipe();
    for t in from..=to {
        let second = Counters::at(&state.keys, event_id, t);
        second.read_series(&mut pipe);
        second.read_model(&mut pipe);
    }
    let read: Vec<([Option<u64>; 5], Option<String>)> = pipe
        .query_async::<Vec<::redis::Value>>(&mut state.redis.clone())
        .await?
        .chunks(2)
        .map(|pair| {
            let (series, model) = (pair[0].clone(), pair.get(1).cloned());
            Ok((
                ::redis::from_redis_value(&series)?,
                model.map_or(Ok(None), |m| ::redis::from_redis_value(&m))?,
            ))
        })
        .collect::<std::result::Result<_, ::redis::RedisError>>()?;
    let (seconds, models): (Vec<[Option<u64>; 5]>, Vec<Option<String>>) = read.into_iter().unzip();
    let column = |i: usize| -> Vec<i64> {
        seconds
            .iter()
            .map(|s| s[i].unwrap_or(0).min(i64::MAX as u64) as i64)
            .collect()
    };
    // The rate each second had (the ticker's leader writes it into the series); a second
    // without it (no leader then) has the rate in force now.
    let now_rate = u64::from(state.rates.in_force(event_id, room));
    let rates: Vec<i64> = seconds
        .iter()
        .map(|s| s[4].unwrap_or(now_rate).min(i64::MAX as u64) as i64)
        .collect();
    let times: Vec<DateTime<Utc>> = (from..=to)
        .filter_map(|t| DateTime::from_timestamp(t, 0))
        .collect();
    sqlx::query(
        "insert into night_second as s (event_id, t, admissions, holds, checkouts, queue_length, \
             admit_rate_per_second, model) \
         select $1, t, a, h, c, q, r, m from unnest($2::timestamptz[], $3::bigint[], \
             $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[]) \
             as x (t, a, h, c, q, r, m) \
         on conflict (event_id, t) do update set admissions = excluded.admissions, \
             holds = excluded.holds, checkouts = excluded.checkouts, \
             queue_length = excluded.queue_length, model = coalesce(s.model, excluded.model)",
    )
    .bind(event_id)
    .bind(&times)
    .bind(column(0))
    .bind(column(1))
    .bind(column(2))
    .bind(column(3))
    .bind(rates)
    .bind(models)
    .execute(&state.db)
    .await?;
    // The series' fields: admissions, holds, checkouts, queue length, then the rate.
    let last_active = (from..=to)
        .zip(&seconds)
        .filter(|(_, s)| s[..4].iter().any(|n| n.unwrap_or(0) > 0))
        .map(|(t, _)| t)
        .last();
    Ok(last_active)
}

/// A second with something in it: a place in line, an admission, a hold or a checkout.
const ACTIVE: &str = "(admissions > 0 or holds > 0 or checkouts > 0 or queue_length > 0)";

/// Keeps the night of `event_id` so far: the last seconds Redis has, then (in `tx`, the
/// caller's transaction) a night from its first second with something in it after the last
/// night kept (none: now) to now.
pub async fn close(
    state: &Line,
    tx: &mut PgConnection,
    event_id: &str,
    room: &Room,
    reason: &str,
) -> Result<Night> {
    let now = Utc::now();
    keep(
        state,
        event_id,
        room,
        now.timestamp() - Counters::SERIES_SECONDS,
        now.timestamp(),
    )
    .await?;
    let (id, started_at, ended_at): (i64, DateTime<Utc>, DateTime<Utc>) = sqlx::query_as(&format!(
        "with last as (select max(ended_at) as ended_at from night where event_id = $1) \
         insert into night (event_id, started_at, ended_at, reason) \
         select $1, least($2, coalesce((select min(t) from night_second, last \
             where event_id = $1 and t > coalesce(last.ended_at, '-infinity') and {ACTIVE}), \
             $2)), $2, $3 \
         returning id, started_at, ended_at"
    ))
    .bind(event_id)
    .bind(now)
    .bind(reason)
    .fetch_one(tx)
    .await?;
    Ok(Night {
        id,
        started_at,
        ended_at,
        reason: reason.to_owned(),
    })
}

/// Closes `event_id`'s night (reason `line_empty`) when it has a second with something in it
/// (see [`ACTIVE`]) after the last night kept, and none in the last `idle_seconds`. Returns the
/// night closed. A second call (another leader, the next second) finds nothing left to close.
/// The caller asks only when the seconds it has just kept were quiet for `idle_seconds`, so a
/// busy night costs no query; this one reads the event's seconds backwards along their key and stops at the first
/// with something in it.
pub async fn close_if_idle(
    state: &Line,
    event_id: &str,
    room: &Room,
    idle_seconds: u32,
) -> Result<Idle> {
    let last_active: Option<DateTime<Utc>> = sqlx::query_scalar(&format!(
        "select t from night_second where event_id = $1 and {ACTIVE} \
         and t > coalesce((select max(ended_at) from night where event_id = $1), '-infinity') \
         order by t desc limit 1"
    ))
    .bind(event_id)
    .fetch_optional(&state.db)
    .await?;
    let quiet_since = Utc::now() - chrono::Duration::seconds(i64::from(idle_seconds));
    // A second is over at its end: quiet since then.
    match last_active {
        Some(t) if t + chrono::Duration::seconds(1) <= quiet_since => {
            let mut db = state.db.acquire().await?;
            Ok(Idle::Closed(
                close(state, &mut db, event_id, room, "line_empty").await?,
            ))
        }
        Some(_) => Ok(Idle::Open),
        None => Ok(Idle::Nothing),
    }
}

/// What [`close_if_idle`] found.
#[derive(Debug)]
pub enum Idle {
    /// Something happened within the idle time: the night goes on.
    Open,
    /// The line was quiet for the idle time: its night is kept now.
    Closed(Night),
    /// Nothing happened since the last night kept.
    Nothing,
}

/// The nights kept of `event_id`, newest first (at most `limit`).
pub async fn nights(state: &Line, event_id: &str, limit: i64) -> Result<Vec<Night>> {
    let rows: Vec<(i64, DateTime<Utc>, DateTime<Utc>, String)> = sqlx::query_as(
        "select id, started_at, ended_at, reason from night where event_id = $1 \
         order by ended_at desc, id desc limit $2",
    )
    .bind(event_id)
    .bind(limit)
    .fetch_all(&state.db)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(id, started_at, ended_at, reason)| Night {
            id,
            started_at,
            ended_at,
            reason,
        })
        .collect())
}

/// The seconds of night `night_id` of `event_id`, in time order, at most `limit`; `None` if
/// the event has no such night.
pub async fn series(
    state: &Line,
    event_id: &str,
    night_id: i64,
    limit: i64,
) -> Result<Option<Vec<NightPoint>>> {
    let night: Option<(DateTime<Utc>, DateTime<Utc>)> =
        sqlx::query_as("select started_at, ended_at from night where id = $1 and event_id = $2")
            .bind(night_id)
            .bind(event_id)
            .fetch_optional(&state.db)
            .await?;
    let Some((from, to)) = night else {
        return Ok(None);
    };
    let rows: Vec<(DateTime<Utc>, i64, i64, i64, i64, i64)> = sqlx::query_as(
        "select t, admissions, holds, checkouts, queue_length, admit_rate_per_second \
         from night_second where event_id = $1 and t >= $2 and t <= $3 order by t limit $4",
    )
    .bind(event_id)
    .bind(from)
    .bind(to)
    .bind(limit)
    .fetch_all(&state.db)
    .await?;
    let count = |v: i64| v.max(0) as u64;
    Ok(Some(
        rows.into_iter()
            .map(|(t, a, h, c, q, r)| NightPoint {
                t,
                admissions: count(a),
                holds: count(h),
                checkouts: count(c),
                queue_length: count(q),
                admit_rate_per_second: count(r),
            })
            .collect(),
    ))
}

/// A night's seconds as CSV, one line a second after the header (the format `onsale --replay`
/// reads).
pub fn csv(points: &[NightPoint]) -> String {
    let mut out = String::from("t,admissions,holds,checkouts,queue_length,admit_rate_per_second\n");
    for p in points {
        out.push_str(&format!(
            "{},{},{},{},{},{}\n",
            p.t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            p.admissions,
            p.holds,
            p.checkouts,
            p.queue_length,
            p.admit_rate_per_second
        ));
    }
    out
}
