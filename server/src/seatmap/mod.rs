//! The seat map, `GET /api/events/{id}/seats`, behind the admission gate, served from a Redis
//! cache. Invariants: every commit that changes a seat (hold, release, expiry sweep, sale)
//! calls [`invalidate`], which bumps the event's generation and deletes the copy, so the next
//! read shows the change; a rebuild stores its copy only if the generation did not move while
//! it ran (no stale copy outlives a change); a miss is rebuilt by the one request that takes
//! the rebuild lock while the others wait for its copy (no stampede of identical queries); a
//! copy within 5 s of its logical expiry is served while one background rebuild refreshes it.
//! The map is kept in both its forms (`app::wire::SeatMap`, API.md's, and `SeatRuns`, which
//! the buyer's page reads: `?form=runs`), built from one query and stored together, so the two
//! never tell different states.

use std::time::Duration;

use app::wire::{Seat, SeatRuns, SeatStatus};
use axum::{
    Router,
    extract::{Query, State, rejection::QueryRejection},
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::Utc;
use serde::Deserialize;

use crate::{
    error::{Error, Result},
    redis::{Keys, Lock, scripts::SetIfGeneration},
    responses::{Admitted, NoEvent},
    tokens::gate::AdmittedBuyer,
    tokens::state::Tokens,
};

/// How long a copy is fresh.
const LOGICAL_TTL: Duration = Duration::from_secs(30);
/// A copy this close to its expiry is refreshed in the background.
const EARLY_REFRESH: Duration = Duration::from_secs(5);
/// Redis keeps a copy this much longer than its logical life, to serve while refreshing.
const GRACE: Duration = Duration::from_secs(30);
/// Longest a rebuild may hold the lock (a crashed rebuilder frees it by then).
const REBUILD_LOCK: Duration = Duration::from_secs(5);
/// How long the generation outlives the last change of a seat: far longer than any rebuild
/// (which compares it), and not forever (an event's seats stop changing after its sale).
const GENERATION_TTL: Duration = Duration::from_secs(24 * 3600);
/// How long a request waits for another's rebuild before querying itself.
const WAIT_FOR_REBUILD: Duration = Duration::from_secs(2);

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new().route("/api/events/{event_id}/seats", get(seats))
}

/// Which form of the map a reader asks for (`?form=`): API.md's (the default) or the runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Form {
    #[default]
    Full,
    Runs,
}

impl Form {
    fn key(self, keys: &Keys, event_id: &str) -> String {
        match self {
            Self::Full => keys.seatmap(event_id),
            Self::Runs => keys.seatmap_runs(event_id),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SeatsQuery {
    #[serde(default)]
    form: Form,
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/seats",
    tag = "seats",
    summary = "The seat map (admitted buyers only)",
    params(crate::extract::EventPath, ("DPoP" = Option<String>, Header, description = "A fresh proof from the bound key, in a room that binds tokens"), ("form" = Option<String>, Query, description = "full (the default) or runs: the compact form of the map")),
    security(("session" = [], "admission" = [])),
    responses(
        (status = 200, description = "The seat map", body = app::wire::SeatMap),
        (status = 400, description = "A malformed query", body = app::wire::ErrorBody),
        (status = 422, description = "unprocessable: a form other than full or runs", body = app::wire::ErrorBody),
        Admitted, NoEvent,
    )
)]
async fn seats(
    State(state): State<Tokens>,
    admitted: AdmittedBuyer,
    query: std::result::Result<Query<SeatsQuery>, QueryRejection>,
) -> Result<Response> {
    let Query(SeatsQuery { form }) = query.map_err(|_| {
        Error::Unprocessable("the seat map's only parameter is form=full or form=runs".into())
    })?;
    if let Some(claims) = &admitted.claims {
        shops(
            &state,
            &admitted.event_id,
            admitted.buyer.id.as_str(),
            claims.exp,
        )
        .await;
    }
    let json = read(&state, &admitted.event_id, form).await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], json).into_response())
}

/// An admitted buyer opened the seat map: if they still count as shopping (within the seat-map
/// deadline, no hold yet), they are on the map for `seatmap_window_seconds` more (and the deadline), or
/// until their admission ends at `exp` (epoch s) if sooner; each reading of the map renews it.
/// Only a buyer on the map holds admissions back (admit.lua: a mark beyond now + the
/// deadline), and only while free seats are short of them; one who looked and left stops
/// counting soon after. Only raises a mark that exists, so a buyer who held or lapsed is not
/// counted again. Best effort: a failure lets one more buyer in, it never stalls the line.
async fn shops(state: &Tokens, event_id: &str, buyer: &str, exp: i64) {
    let deadline = i64::from(state.config.seatmap_deadline_seconds) * 1000;
    let window = deadline + i64::from(state.config.seatmap_window_seconds) * 1000;
    let until = exp
        .saturating_mul(1000)
        .min(chrono::Utc::now().timestamp_millis() + window);
    let marked: redis::RedisResult<()> = redis::cmd("ZADD")
        .arg(state.keys.shopping(event_id))
        .arg("XX")
        .arg("GT")
        .arg(until)
        .arg(buyer)
        .query_async(&mut state.redis.clone())
        .await;
    if let Err(e) = marked {
        tracing::warn!(event = %event_id, error = %e, "could not mark a buyer shopping");
    }
}

/// The seat map of `event_id` as JSON in `form`, from the cache when it can.
pub async fn read(state: &Tokens, event_id: &str, form: Form) -> Result<String> {
    let mut redis = state.redis.clone();
    let key = form.key(&state.keys, event_id);
    let started = tokio::time::Instant::now();
    loop {
        let cached: Option<String> = redis::cmd("GET").arg(&key).query_async(&mut redis).await?;
        if let Some((expires_ms, json)) = cached.as_deref().and_then(parse_entry) {
            let left = expires_ms - Utc::now().timestamp_millis();
            if left < EARLY_REFRESH.as_millis() as i64 {
                let state = state.clone();
                let event_id = event_id.to_owned();
                tokio::spawn(async move {
                    if let Err(e) = rebuild_if_first(&state, &event_id, form).await {
                        tracing::warn!(event = %event_id, error = %e, "seat map refresh failed");
                    }
                });
            }
            return Ok(json.to_owned());
        }
        if let Some(json) = rebuild_if_first(state, event_id, form).await? {
            return Ok(json);
        }
        if started.elapsed() > WAIT_FOR_REBUILD {
            // The rebuilder is stuck or gone; answer from Postgres rather than fail.
            return Ok(build(state, event_id).await?.of(form));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn parse_entry(entry: &str) -> Option<(i64, &str)> {
    let (expires, json) = entry.split_once('\n')?;
    Some((expires.parse().ok()?, json))
}

/// Rebuilds and stores the copies if this call takes the rebuild lock, and answers the one in
/// `form`; `None` if another holds the lock.
async fn rebuild_if_first(state: &Tokens, event_id: &str, form: Form) -> Result<Option<String>> {
    let mut redis = state.redis.clone();
    let keys = &state.keys;
    let lock = Lock::new(keys.seatmap_lock(event_id));
    if !lock.acquire(&redis, REBUILD_LOCK).await? {
        return Ok(None);
    }
    let generation: Option<String> = redis::cmd("GET")
        .arg(keys.seatmap_generation(event_id))
        .query_async(&mut redis)
        .await?;
    let built = build(state, event_id).await;
    if let Ok(copies) = &built {
        let expires = Utc::now().timestamp_millis() + LOGICAL_TTL.as_millis() as i64;
        let _: i64 = SetIfGeneration {
            event_id,
            generation: generation.as_deref(),
            full: &format!("{expires}\n{}", copies.full),
            runs: &format!("{expires}\n{}", copies.runs),
            ttl: LOGICAL_TTL + GRACE,
        }
        .invocation(&state.scripts, keys)
        .invoke_async(&mut redis)
        .await?;
    }
    lock.release(&redis).await?;
    built.map(|copies| Some(copies.of(form)))
}

/// Adds to `pipe` what forgets the cached copy after a commit that changed seats of
/// `event_id` (the caller sends it, with whatever else it has to say to Redis).
pub fn invalidate(pipe: &mut redis::Pipeline, keys: &Keys, event_id: &str) {
    let generation = keys.seatmap_generation(event_id);
    pipe.incr(&generation, 1)
        .ignore()
        .pexpire(&generation, GENERATION_TTL.as_millis() as i64)
        .ignore()
        .del(keys.seatmap(event_id))
        .ignore()
        .del(keys.seatmap_runs(event_id))
        .ignore();
}

#[derive(sqlx::FromRow)]
struct SeatRow {
    id: i64,
    section: String,
    row_label: String,
    number: i32,
    price_cents: i64,
    status: String,
    hold_expired: bool,
}

/// The map of one build, in both forms.
struct Copies {
    full: String,
    runs: String,
}

impl Copies {
    fn of(self, form: Form) -> String {
        match form {
            Form::Full => self.full,
            Form::Runs => self.runs,
        }
    }
}

/// The seat map from Postgres: sections in layout order, rows and seats by number. A seat
/// whose hold expired shows as available (a new hold may take it at once).
async fn build(state: &Tokens, event_id: &str) -> Result<Copies> {
    state.metrics.seatmap_builds.inc();
    let rows: Vec<SeatRow> = sqlx::query_as(
        "select s.id, s.section, s.row_label, s.number, s.price_cents, s.status, \
                coalesce(h.expires_at <= now(), false) as hold_expired \
         from seat s left join hold h on h.id = s.hold_id and s.status = 'held' \
         where s.event_id = $1 \
         order by s.id",
    )
    .bind(event_id)
    .fetch_all(&state.db)
    .await?;
    let mut runs = SeatRuns::new(event_id);
    for r in rows {
        let status = match r.status.as_str() {
            "sold" => SeatStatus::Sold,
            "held" if !r.hold_expired => SeatStatus::Held,
            _ => SeatStatus::Available,
        };
        let seat = Seat {
            id: r.id,
            number: r.number.max(0) as u32,
            price_cents: r.price_cents,
            status,
        };
        runs.push(&r.section, &r.row_label, seat);
    }
    let json = |e: serde_json::Error| Error::Internal(format!("seat map JSON: {e}"));
    Ok(Copies {
        full: serde_json::to_string(&runs.map()).map_err(json)?,
        runs: serde_json::to_string(&runs).map_err(json)?,
    })
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(seats))]
pub struct Api;
