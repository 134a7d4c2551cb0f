//! `GET /api/events/{id}/draw`: the draw as published, its commitment before the draw, then
//! its secret, seed and order once the order is all in line. A made draw never changes, so its
//! answer is made once and kept in memory ([`super::Published`]); a pending one is read each
//! time, within the public reads' share of Postgres.

use std::collections::HashMap;

use app::wire::{BeaconSource, Draw, DrawState};
use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::{DateTime, Utc};

use super::archive::{all_placed, drawn_tickets};
use crate::{
    error::{Error, Result},
    extract::EventId,
    opening::Opening,
};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Opening: axum::extract::FromRef<S>,
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
    State(state): State<Opening>,
    EventId(event_id): EventId,
) -> Result<Response> {
    published(&state, &event_id).await
}

/// The most made draws an instance keeps in memory.
const MADE_KEPT: usize = 64;

/// `GET /api/events/{id}/draw`'s answer (JSON): 404 for an event without a draw.
pub async fn published(state: &Opening, event_id: &str) -> Result<Response> {
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

async fn published_json(state: &Opening, event_id: &str) -> Result<Bytes> {
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

fn to_json(draw: &Draw) -> Result<Bytes> {
    serde_json::to_vec(draw)
        .map(Bytes::from)
        .map_err(|e| Error::Internal(format!("the draw as JSON: {e}")))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(draw_handler))]
pub struct Api;
