//! The line's progress for everyone (API.md "Progress", issue 35): `GET
//! /api/events/{id}/progress`, public, read by pages far from the front (and any cache in front
//! of Anteroom) instead of each asking for its own place.
//!
//! Invariants: no session is read and no cookie set; an unknown event is 404 before any Redis
//! call; each instance asks Redis for an event's progress at most once per [`FRESH`] (one ask
//! at a time per instance: the requests meanwhile wait for it and take its answer), so the
//! cost of polling the progress does not grow with the buyers asking; and the line itself is
//! read about once per [`FRESH`] for the whole deployment, not once per instance: the instance
//! that reads it keeps its answer in Redis for [`FRESH`] (`Keys::progress`), and the others
//! serve that copy (one GET) while it lasts (so an answer is at most two seconds old); the answer says
//! `Cache-Control: public, max-age=1` and carries an `ETag` of its content but `t` (a
//! conditional request whose tag still matches answers 304 with no body); the map of answers
//! kept holds only events asked about within [`FRESH`] (`crate::fresh`).

use std::time::Duration;

use app::{
    estimate::Model,
    wire::{MAX_RANKS, Progress, ProgressSeats, RANK_STEP, Room},
};
use axum::{
    Router,
    body::Bytes,
    extract::State,
    http::{HeaderMap, HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
    routing::get,
};
use sha2::{Digest, Sha256};

use super::{inventory::Inventory, state::Line};
use crate::{
    error::{Error, Result},
    extract::EventId,
    redis::scripts,
    responses::NoEvent,
};

/// How long one read of an event's progress is answered before it is read again.
pub const FRESH: Duration = Duration::from_secs(1);

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Line: axum::extract::FromRef<S>,
{
    Router::new().route("/api/events/{event_id}/progress", get(progress_handler))
}

/// The answer's tag: a hash of everything but `t`, so that a progress that did not move keeps
/// its tag.
fn tag(progress: &Progress) -> String {
    let still = Progress {
        t: 0,
        ..progress.clone()
    };
    let json = serde_json::to_vec(&still).expect("plain data");
    let hash = Sha256::digest(&json);
    let hex: String = hash[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

type Reply = (u64, u64, u64, Vec<String>, Vec<Option<i64>>, u64, u64, i64);

/// Reads `event_id`'s progress from Redis (one script) and the rate and band of this instance.
pub async fn read(state: &Line, event_id: &str, room: &Room) -> Result<Progress> {
    state
        .metrics
        .queue_calls
        .with_label_values(&["progress"])
        .inc();
    let (in_line, last_arrival, head, ranks, inventory, shopping, ahead, now_ms): Reply =
        scripts::Progress {
            event_id,
            step: RANK_STEP,
            most: MAX_RANKS,
            has_opening: room.opens_at.is_some(),
            inventory_fields: &Inventory::FIELDS,
        }
        .invocation(&state.scripts, &state.keys)
        .invoke_async(&mut state.redis.clone())
        .await?;
    let numbers: Vec<u64> = ranks.iter().filter_map(|n| n.parse().ok()).collect();
    let ranks = numbers
        .chunks_exact(2)
        .map(|pair| [pair[0], pair[1]])
        .collect();
    let inventory = Inventory::from_values(&inventory);
    let band = state.bands.get(state, &state.rates, event_id, room).await;
    let model = Model {
        band,
        seats: inventory.map(|i| i.seats(shopping)),
        now_ms,
    };
    Ok(Progress {
        t: now_ms,
        admitted_through: head,
        last_arrival,
        in_line,
        ahead_of_line: ahead,
        rate: state.rates.in_force(event_id, room),
        paused: room.paused,
        sold_out: inventory.is_some_and(|i| i.sold_out()),
        seats: inventory.map(|i| ProgressSeats {
            available: i.available,
            held: i.held,
            sold: i.sold,
        }),
        ranks,
        model: model.record(),
    })
}

/// The progress of `event_id` and its tag: the copy another instance kept in Redis within the
/// last [`FRESH`], else read now and kept there for the others (a failure to keep it only
/// costs them a read of their own).
async fn shared(state: &Line, event_id: &str, room: &Room) -> Result<(Bytes, String)> {
    let key = state.keys.progress(event_id);
    let mut redis = state.redis.clone();
    let kept: Option<Vec<u8>> = redis::cmd("GET").arg(&key).query_async(&mut redis).await?;
    if let Some(progress) = kept
        .as_deref()
        .and_then(|json| serde_json::from_slice::<Progress>(json).ok())
    {
        let tag = tag(&progress);
        return Ok((Bytes::from(kept.unwrap_or_default()), tag));
    }
    let progress = read(state, event_id, room).await?;
    let body = serde_json::to_vec(&progress)
        .map_err(|e| Error::Internal(format!("the progress as JSON: {e}")))?;
    let kept: std::result::Result<(), _> = redis::cmd("SET")
        .arg(&key)
        .arg(&body)
        .arg("PX")
        .arg(FRESH.as_millis() as u64)
        .query_async(&mut redis)
        .await;
    if let Err(e) = kept {
        tracing::warn!(event = %event_id, error = %e, "could not keep the progress for the other instances");
    }
    Ok((Bytes::from(body), tag(&progress)))
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/progress",
    tag = "queue",
    summary = "The line's progress, cacheable by anyone (Cache-Control: public, max-age=1; ETag)",
    params(crate::extract::EventPath, ("If-None-Match" = Option<String>, Header, description = "An ETag of an earlier answer")),
    responses(
        (status = 200, description = "The progress", body = app::wire::Progress),
        (status = 304, description = "Not modified since the ETag given"),
        NoEvent,
    )
)]
async fn progress_handler(
    State(state): State<Line>,
    EventId(event_id): EventId,
    headers: HeaderMap,
) -> Result<Response> {
    // Unknown events end here, before Redis.
    let room = state.rooms.get(&state.db, &event_id).await?;
    let (body, tag) = state
        .progresses
        .get(&event_id, async || shared(&state, &event_id, &room).await)
        .await?;
    let cache = [
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("public, max-age=1"),
        ),
        (
            header::ETAG,
            HeaderValue::from_str(&tag).expect("a quoted hex tag"),
        ),
    ];
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == tag || t.trim() == "*"));
    if matches {
        return Ok((StatusCode::NOT_MODIFIED, cache).into_response());
    }
    Ok((
        cache,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response())
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(progress_handler))]
pub struct Api;
