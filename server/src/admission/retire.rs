//! Retiring a line after its night. While an event's room runs, the Redis keys of its line (the
//! arrival sequence, the head, the admitted set, the carried credit, the admissions count,
//! the inventory the line reads, the admitted buyers still shopping, the places per network,
//! the places moved to another device and the move codes given, the device bindings and
//! refusals, and once the draw is archived in Postgres the draw's entrants, record and tickets)
//! have no time to live; once the room is off and nobody is in line they serve nobody, so the
//! line is archived in Postgres (`event_line`: the greatest arrival number it admitted, which
//! the line keeps consulting, its admissions, which the operator's count keeps showing, and
//! for the night's report its last admission number and the places made; its admission log
//! is moved to Postgres first)
//! and then its keys expire after one admission time (the longest any entry in them means
//! something).
//!
//! Invariants: a line is retired only while its room is off and its queue is empty, checked
//! again in the script that sets the expiries (a join or an admission since keeps everything
//! for a later attempt); the archive is written before any key gets a time to live; it counts
//! each line's admissions once (a retirement run again after a crash between archiving and
//! expiring finds that head archived and adds nothing); one instance retires at a time (a
//! `Lock` with a lease), every [`PERIOD`].

use std::{collections::HashSet, time::Duration};

use tokio_util::sync::CancellationToken;

use crate::{
    error::Result,
    queue::state::Line,
    redis::{Lock, scripts::Retire},
};

/// How often the rooms that are off are looked at.
pub const PERIOD: Duration = Duration::from_secs(60);

/// What [`retire`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retired {
    /// Buyers are in line (or joined meanwhile): the line stays as it is.
    Busy,
    /// The line was archived (with this many admissions) and its keys (this many of them)
    /// now expire.
    Expiring { admissions: u64, keys: u64 },
}

/// Archives and expires the line of `event_id`, whose room the caller saw off, unless someone
/// is in it.
pub async fn retire(state: &Line, event_id: &str) -> Result<Retired> {
    let keys = &state.keys;
    // Admissions made with the room off (and any a leader left behind) reach Postgres first.
    crate::admission::log::flush(state, event_id).await?;
    let mut redis = state.redis.clone();
    type Line = (u64, Option<u64>, Option<u64>, Option<u64>, Option<u64>);
    let (queued, head, admissions, logged, joined): Line = redis::pipe()
        .zcard(keys.queue(event_id))
        .get(keys.head(event_id))
        .get(keys.admitted_total(event_id))
        .get(keys.admission_seq(event_id))
        .get(keys.joined(event_id))
        .query_async(&mut redis)
        .await?;
    if queued > 0 {
        return Ok(Retired::Busy);
    }
    if let Some(head) = head {
        // The head is the line's name in the archive: archived once, counted once.
        // With the head, what the report needs of the line: the last admission number and
        // the places made.
        sqlx::query(
            "insert into event_line as l (event_id, admitted_through, admitted_before, \
                 archived_through, logged_through, joined_before) \
             values ($1, $2, $3, $2, $4, $5) \
             on conflict (event_id) do update set \
                 admitted_through = greatest(l.admitted_through, excluded.admitted_through), \
                 admitted_before = l.admitted_before + excluded.admitted_before, \
                 archived_through = excluded.archived_through, \
                 logged_through = greatest(l.logged_through, excluded.logged_through), \
                 joined_before = l.joined_before + excluded.joined_before, updated_at = now() \
             where l.archived_through < excluded.archived_through",
        )
        .bind(event_id)
        .bind(head as i64)
        .bind(admissions.unwrap_or(0) as i64)
        .bind(logged.unwrap_or(0) as i64)
        .bind(joined.unwrap_or(0) as i64)
        .execute(&state.db)
        .await?;
    }
    let ttl = Duration::from_secs(u64::from(state.config.admission_ttl_seconds));
    let touched: i64 = Retire {
        event_id,
        head,
        admissions,
        ttl,
    }
    .invocation(&state.scripts, keys)
    .invoke_async(&mut redis)
    .await?;
    // The draw's keys go too once the draw is kept in Postgres (or there is none); a draw not
    // made yet keeps its entrants for when the room is on again.
    let mut touched = touched;
    if touched >= 0 && crate::opening::archive(&state.opening(), event_id).await? {
        let ms = ttl.as_millis() as u64;
        let (entrants, entered, draw, tickets): (i64, i64, i64, i64) = redis::pipe()
            .pexpire(keys.entrants(event_id), ms as i64)
            .pexpire(keys.entered(event_id), ms as i64)
            .pexpire(keys.draw(event_id), ms as i64)
            .pexpire(keys.drawn_tickets(event_id), ms as i64)
            .query_async(&mut redis)
            .await?;
        touched += entrants + entered + draw + tickets;
    }
    Ok(match u64::try_from(touched) {
        Ok(keys) => Retired::Expiring {
            admissions: admissions.unwrap_or(0),
            keys,
        },
        Err(_) => Retired::Busy,
    })
}

/// Every [`PERIOD`] until `shutdown`, retires the lines of the rooms that are off, one
/// instance at a time. Each instance remembers which lines it retired, until their room is
/// on again, so that the past nights of a long-lived deployment cost nothing each period.
pub async fn run(state: Line, shutdown: CancellationToken) {
    let mut retired: HashSet<String> = HashSet::new();
    let lock = Lock::new(state.keys.retire_lock());
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(PERIOD) => {}
        }
        match lock.hold(&state.redis, PERIOD).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "could not take the retirement lock");
                continue;
            }
        }
        let off: HashSet<String> = state.rooms.off().into_iter().collect();
        retired.retain(|id| off.contains(id));
        for event_id in off {
            if retired.contains(&event_id) {
                continue;
            }
            match retire(&state, &event_id).await {
                Ok(Retired::Busy) => {}
                Ok(Retired::Expiring { admissions, keys }) => {
                    if keys > 0 {
                        tracing::info!(event = %event_id, admissions, keys, "retired the line of a room that is off");
                    }
                    retired.insert(event_id);
                }
                Err(e) => tracing::warn!(event = %event_id, error = %e, "could not retire a line"),
            }
        }
    }
}
