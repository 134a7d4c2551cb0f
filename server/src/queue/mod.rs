//! The line: `POST /api/events/{id}/queue` joins, `GET` polls, each one Redis round trip (one
//! script). Invariants (DESIGN.md 1, 2, 6): a buyer has at most one place per event and joining
//! again never moves them (ZADD NX on the buyer id); arrival order is a per-event sequence
//! incremented inside the script, never an instance's clock; positions are 1-based; the
//! estimate is `ceil(position / N)` while the room runs and absent while it is paused; with the
//! room off, every buyer is admitted at once.

use app::wire::{QueueStatus, Room, estimated_wait_seconds};
use axum::{
    Json, Router,
    extract::{Path, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
    routing::post,
};
use chrono::{DateTime, Utc};

use crate::{
    error::{Error, Result},
    state::AppState,
    tokens::{Buyer, admission::admission_cookie},
};

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/events/{event_id}/queue",
        post(join_handler).get(poll_handler),
    )
}

/// Where a buyer stands in an event's line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Admitted { expires_at: DateTime<Utc> },
    Waiting { position: u64, arrival: u64 },
    Absent,
}

/// Joins `buyer` to the line of `event_id` (or finds them where they already are).
pub async fn join(state: &AppState, buyer: &str, event_id: &str) -> Result<QueueStatus> {
    locate(state, buyer, event_id, true).await
}

/// Where `buyer` stands, without joining; 404 `not_in_queue` if nowhere.
pub async fn poll(state: &AppState, buyer: &str, event_id: &str) -> Result<QueueStatus> {
    locate(state, buyer, event_id, false).await
}

/// One round trip to Redis: the join script (which adds the buyer if absent) or the poll
/// script (which only looks).
async fn locate(
    state: &AppState,
    buyer: &str,
    event_id: &str,
    joining: bool,
) -> Result<QueueStatus> {
    state
        .metrics
        .queue_calls
        .with_label_values(&[if joining { "join" } else { "poll" }])
        .inc();
    let room = state.rooms.get(&state.db, event_id).await?;
    if !room.enabled {
        return Ok(admitted_now(state, buyer, event_id));
    }
    let keys = &state.keys;
    let mut invocation = if joining {
        let mut i = state.scripts.join.key(keys.queue(event_id));
        i.key(keys.seq(event_id));
        i
    } else {
        state.scripts.poll.key(keys.queue(event_id))
    };
    let reply: (String, i64, i64) = invocation
        .key(keys.admitted(event_id))
        .arg(buyer)
        .invoke_async(&mut state.redis.clone())
        .await?;
    status(state, &room, buyer, event_id, place(reply)?)
}

fn place((kind, value, arrival): (String, i64, i64)) -> Result<Place> {
    match kind.as_str() {
        "admitted" => DateTime::from_timestamp_millis(value)
            .map(|expires_at| Place::Admitted { expires_at })
            .ok_or_else(|| Error::Internal(format!("admission expiry {value} out of range"))),
        "waiting" => Ok(Place::Waiting {
            position: value.max(1) as u64,
            arrival: arrival.max(1) as u64,
        }),
        "absent" => Ok(Place::Absent),
        other => Err(Error::Internal(format!("queue script answered {other:?}"))),
    }
}

fn status(
    state: &AppState,
    room: &Room,
    buyer: &str,
    event_id: &str,
    place: Place,
) -> Result<QueueStatus> {
    match place {
        Place::Admitted { expires_at } => Ok(QueueStatus::Admitted {
            admitted: true,
            admission_token: state.admission.issue(buyer, event_id, expires_at),
            expires_at,
        }),
        Place::Waiting { position, arrival } => Ok(QueueStatus::Waiting {
            position,
            arrival: Some(arrival),
            estimated_wait_seconds: (!room.paused)
                .then(|| estimated_wait_seconds(position, room.admit_rate_per_second)),
            paused: room.paused,
        }),
        Place::Absent => Err(Error::NotInQueue),
    }
}

/// With the room off there is no line: a token at once, for the usual admission time.
fn admitted_now(state: &AppState, buyer: &str, event_id: &str) -> QueueStatus {
    let expires_at =
        Utc::now() + chrono::Duration::seconds(i64::from(state.config.admission_ttl_seconds));
    QueueStatus::Admitted {
        admitted: true,
        admission_token: state.admission.issue(buyer, event_id, expires_at),
        expires_at,
    }
}

/// The HTTP answer: 202 for a waiting join, 200 otherwise; an admission also sets the
/// event's admission cookie so that browsers carry the token without script.
fn respond(state: &AppState, event_id: &str, status: QueueStatus, joining: bool) -> Response {
    let cookie = match &status {
        QueueStatus::Admitted {
            admission_token,
            expires_at,
            ..
        } => Some(admission_cookie(
            event_id,
            admission_token,
            *expires_at,
            state.config.secure_cookies,
        )),
        QueueStatus::Waiting { .. } => None,
    };
    let code = if joining && cookie.is_none() {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    let mut response = (code, Json(status)).into_response();
    if let Some(cookie) = cookie {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}

async fn join_handler(
    State(state): State<AppState>,
    buyer: Buyer,
    Path(event_id): Path<String>,
) -> Result<Response> {
    let status = join(&state, &buyer.id, &event_id).await?;
    Ok(respond(&state, &event_id, status, true))
}

async fn poll_handler(
    State(state): State<AppState>,
    buyer: Buyer,
    Path(event_id): Path<String>,
) -> Result<Response> {
    let status = poll(&state, &buyer.id, &event_id).await?;
    Ok(respond(&state, &event_id, status, false))
}
