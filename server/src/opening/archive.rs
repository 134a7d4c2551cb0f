//! A made draw kept in Postgres ([`archive`]), so that its publication outlives Redis, and the
//! readings of its record in Redis that the archive and the publication share. Nothing is
//! archived before the draw's whole order is in line; once archived, it never changes.

use std::collections::HashMap;

use crate::{error::Result, opening::Opening};

/// Keeps a made draw in Postgres (its seed, its entrant count, the beacon drawn with and every
/// ticket in draw order) unless it is kept already, so that a published draw outlives Redis
/// and the draw's keys there may expire. True when nothing of the event's draw lives only in
/// Redis (it is archived now or was, or the event has no draw); false while the draw is not
/// made.
pub async fn archive(state: &Opening, event_id: &str) -> Result<bool> {
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

/// Every ticket of a made draw whose order is all in line, in draw order.
pub(super) async fn drawn_tickets(state: &Opening, event_id: &str) -> Result<Vec<String>> {
    Ok(::redis::cmd("ZRANGE")
        .arg(state.keys.drawn_tickets(event_id))
        .arg(0)
        .arg(-1)
        .query_async(&mut state.redis.clone())
        .await?)
}

/// Whether the draw's `record` (its hash in Redis) says the draw is made and its whole order in
/// line (a record without `placed` placed everything at once).
pub(super) fn all_placed(record: &HashMap<String, String>) -> bool {
    let count = |name: &str| record.get(name).and_then(|n| n.parse::<u64>().ok());
    match (count("entrants"), count("placed")) {
        (Some(entrants), placed) => placed.unwrap_or(entrants) >= entrants,
        (None, _) => false,
    }
}
