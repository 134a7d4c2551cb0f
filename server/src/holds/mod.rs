//! Holds: `POST /api/events/{id}/holds` (behind the admission gate), `GET
//! /api/events/{id}/holds` (the session's own, newest first, at most [`LISTED`]), `GET` and
//! `DELETE /api/holds/{id}` (owner only), and the expiry sweep.
//!
//! Invariants (DESIGN.md 8-10): a seat is never held or sold twice: the hold transaction
//! locks the seat rows (FOR UPDATE in id order; best-available with SKIP LOCKED), checks them,
//! updates them with version + 1 and inserts the hold, with nothing outside Postgres inside the
//! transaction, and a seat row names its one hold (a column, checked by the database). A hold
//! past its expiry frees its seats at once for the next hold transaction, and the sweep marks
//! it expired within one interval. The same buyer with the same Idempotency-Key gets the same
//! hold back. Per buyer: at most `seats_per_buyer` seats held and bought per event, at most
//! `hold_attempts_per_minute` attempts (across instances). A refused request changes nothing.
//! In a room that binds tokens, releasing a hold needs a proof from the place's device.

pub mod expiry;
pub mod state;
mod transaction;

use crate::extract::{EventId, HoldId};
use std::time::Duration;

use app::wire::{self, BuyerId, HeldSeat, Hold, HoldChoice, HoldRequest, HoldStatus};
use axum::{
    Json, Router,
    extract::State,
    http::{HeaderMap, Method, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use chrono::{DateTime, Utc};
use sqlx::PgPool;

use crate::{
    error::{Error, Result},
    extract::ApiJson,
    holds::state::HoldPath,
    ratelimit,
    redis::{Counter, Counters},
    responses::{Admitted, NoEvent, NoHold, RateLimited, Session},
    seatmap,
    sql::Text,
    tokens::{Buyer, gate::AdmittedBuyer},
};

pub use transaction::create;

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    HoldPath: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route(
            "/api/events/{event_id}/holds",
            post(create_handler).get(list_handler),
        )
        .route(
            "/api/holds/{hold_id}",
            get(get_handler).delete(release_handler),
        )
}

/// The `Idempotency-Key` header: required, 1 to 200 visible ASCII characters.
pub fn idempotency_key(headers: &HeaderMap) -> Result<String> {
    let key = headers
        .get("idempotency-key")
        .ok_or_else(|| Error::BadRequest("send an Idempotency-Key header".into()))?
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| (1..=200).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| {
            Error::BadRequest("Idempotency-Key must be 1 to 200 visible ASCII characters".into())
        })?;
    Ok(key.to_owned())
}

#[utoipa::path(
    post,
    path = "/api/events/{event_id}/holds",
    tag = "holds",
    summary = "Hold seats (admitted buyers only)",
    params(crate::extract::EventPath, ("Idempotency-Key" = String, Header, description = "The client's key for this attempt"), ("DPoP" = Option<String>, Header, description = "A fresh proof from the bound key, in a room that binds tokens")),
    request_body = app::wire::HoldRequest,
    security(("session" = [], "admission" = [])),
    responses(
        (status = 201, description = "Held", body = app::wire::Hold),
        (status = 400, description = "A malformed body, or no Idempotency-Key", body = app::wire::ErrorBody),
        (status = 409, description = "seat_unavailable, with seat_ids: nothing is held", body = app::wire::ErrorBody),
        (status = 422, description = "unprocessable: more seats than the limit, or none", body = app::wire::ErrorBody),
        Admitted, NoEvent, RateLimited,
    )
)]
async fn create_handler(
    State(state): State<HoldPath>,
    admitted: AdmittedBuyer,
    headers: HeaderMap,
    ApiJson(request): ApiJson<HoldRequest>,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let hold = hold(&state, &admitted, &key, &request).await?;
    Ok((StatusCode::CREATED, Json(hold)).into_response())
}

/// Holds what `request` asks for, for the buyer the gate let through, once per `key`: the
/// one path of `POST /api/events/{id}/holds` and of the event page's hold form.
pub async fn hold(
    state: &HoldPath,
    admitted: &AdmittedBuyer,
    key: &str,
    request: &HoldRequest,
) -> Result<Hold> {
    let choice = request
        .choice()
        .map_err(|e| Error::Unprocessable(e.message))?;
    let buyer = &admitted.buyer.id;
    let event_id = &admitted.event_id;
    let room = &admitted.room;
    if HoldRequest::seat_count(&choice) > room.seats_per_buyer as usize {
        return Err(Error::Unprocessable(format!(
            "you may hold at most {} seats for this event",
            room.seats_per_buyer
        )));
    }
    // A replay is answered before the rate limit: retrying a lost answer costs no attempt.
    let replay = Replay::new(key, &choice);
    if let Some(hold) = find_replay(&state.db, buyer, event_id, &replay).await? {
        return Ok(hold);
    }
    if room.enabled {
        crate::queue::moving::not_moved_away(state, buyer, event_id).await?;
    }
    let limited = ratelimit::check(
        state,
        "hold",
        buyer,
        state.config.hold_attempts_per_minute,
        Duration::from_secs(60),
    )
    .await;
    if let Err(e) = limited {
        state.metrics.holds.with_label_values(&["limited"]).inc();
        return Err(e);
    }
    let outcome = create(state, buyer, event_id, room, &replay, &choice).await;
    let label = match &outcome {
        Ok(_) => "ok",
        Err(Error::SeatUnavailable(_)) => "conflict",
        Err(_) => "invalid",
    };
    state.metrics.holds.with_label_values(&[label]).inc();
    let (hold, created) = outcome?;
    if created {
        // The buyer is no longer one of the admitted who have not held yet (the outlook's
        // buyers ahead), in the same round trip.
        let mut pipe = redis::pipe();
        pipe.zrem(state.keys.shopping(event_id), buyer.as_str())
            .ignore();
        send_after_change(state, event_id, Counter::Holds, pipe).await;
    }
    Ok(hold)
}

/// After a commit that changed seats: forget the cached seat map and count the change in this
/// second's dashboard counters. Failures are logged, not answered: the commit stands, and the
/// cached copy expires by itself within its logical life.
pub async fn after_seat_change(state: &HoldPath, event_id: &str, counter: Counter) {
    send_after_change(state, event_id, counter, redis::pipe()).await;
}

/// [`after_seat_change`], sent with what `pipe` already holds.
async fn send_after_change(
    state: &HoldPath,
    event_id: &str,
    counter: Counter,
    mut pipe: redis::Pipeline,
) {
    seatmap::invalidate(&mut pipe, &state.keys, event_id);
    Counters::at(&state.keys, event_id, Utc::now().timestamp()).count(&mut pipe, counter);
    // One round trip for all of it.
    let sent: redis::RedisResult<()> = pipe.query_async(&mut state.redis.clone()).await;
    if let Err(e) = sent {
        tracing::warn!(
            event = %event_id,
            error = %e,
            "could not invalidate the seat map or count {}",
            counter.field()
        );
    }
}

#[utoipa::path(
    get,
    path = "/api/holds/{hold_id}",
    tag = "holds",
    summary = "A hold, its seats and status (its owner only)",
    params(("hold_id" = String, Path, description = "The hold's id")),
    security(("session" = [])),
    responses(
        (status = 200, description = "The hold", body = app::wire::Hold),
        Session, NoHold,
    )
)]
async fn get_handler(
    State(state): State<HoldPath>,
    buyer: Buyer,
    HoldId(hold_id): HoldId,
) -> Result<Json<Hold>> {
    Ok(Json(load(&state.db, &hold_id, &buyer.id).await?))
}

/// How many of a buyer's holds of one event `GET /api/events/{id}/holds` lists: a reloaded
/// page needs the newest, and a buyer who held and released all night must not make one
/// request read them all.
pub const LISTED: i64 = 20;

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/holds",
    tag = "holds",
    summary = "The session's holds of this event, newest first",
    params(crate::extract::EventPath),
    security(("session" = [])),
    responses(
        (status = 200, description = "The holds", body = Vec<app::wire::Hold>),
        Session, NoEvent,
    )
)]
async fn list_handler(
    State(state): State<HoldPath>,
    buyer: Buyer,
    EventId(event_id): EventId,
) -> Result<Json<Vec<Hold>>> {
    Ok(Json(list(&state.db, &buyer.id, &event_id).await?))
}

#[utoipa::path(
    delete,
    path = "/api/holds/{hold_id}",
    tag = "holds",
    summary = "Release a hold: its seats are available again at once",
    params(("hold_id" = String, Path, description = "The hold's id")),
    security(("session" = [])),
    responses(
        (status = 204, description = "Released"),
        (status = 409, description = "conflict: the hold is bought", body = app::wire::ErrorBody),
        Session, NoHold,
    )
)]
async fn release_handler(
    State(state): State<HoldPath>,
    buyer: Buyer,
    HoldId(hold_id): HoldId,
    headers: HeaderMap,
) -> Result<StatusCode> {
    let path = format!("/api/holds/{}", hold_id.as_str());
    release(
        &state,
        &hold_id,
        &buyer.id,
        (&Method::DELETE, &path),
        &headers,
    )
    .await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Releases `buyer`'s hold `hold_id`: the one path of `DELETE /api/holds/{id}` and of the
/// event page's release form. In a room that binds tokens the `request` (method and path, and
/// its `headers`) must prove the place's device (`queue::device::prove_owner`).
pub async fn release(
    state: &HoldPath,
    hold_id: &wire::HoldId,
    buyer: &BuyerId,
    request: (&Method, &str),
    headers: &HeaderMap,
) -> Result<()> {
    let event_id: Option<String> =
        sqlx::query_scalar("select event_id from hold where id = $1 and buyer_id = $2")
            .bind(hold_id.as_str())
            .bind(buyer.as_str())
            .fetch_optional(&state.db)
            .await?;
    let event_id = wire::EventId::from(
        event_id
            .ok_or_else(|| Error::NotFound(format!("you have no hold {:?}", hold_id.as_str())))?,
    );
    let room = state.rooms.get(&state.db, &event_id).await?;
    crate::queue::device::prove_owner(state, &room, buyer, &event_id, request, headers).await?;
    if let Some(event_id) = transaction::release(&state.db, hold_id, buyer).await? {
        after_seat_change(state, &event_id, Counter::Releases).await;
    }
    Ok(())
}

#[derive(sqlx::FromRow)]
struct HoldRow {
    id: String,
    event_id: String,
    status: Text<HoldStatus>,
    expires_at: DateTime<Utc>,
    total_cents: i64,
}

#[derive(sqlx::FromRow)]
struct HeldSeatRow {
    id: i64,
    section: String,
    row_label: String,
    number: i32,
    price_cents: i64,
}

#[derive(sqlx::FromRow)]
struct HeldSeatOfHold {
    hold_id: String,
    #[sqlx(flatten)]
    seat: HeldSeatRow,
}

impl From<&HeldSeatRow> for HeldSeat {
    fn from(r: &HeldSeatRow) -> Self {
        HeldSeat {
            id: r.id.to_string(),
            section: r.section.clone(),
            row: r.row_label.clone(),
            number: r.number.max(0) as u32,
            price_cents: r.price_cents,
        }
    }
}

/// The status a buyer sees: an active hold past its expiry is expired already, before the
/// sweep writes it so (invariant 9).
fn hold_status(stored: HoldStatus, expires_at: DateTime<Utc>) -> HoldStatus {
    match stored {
        HoldStatus::Active if expires_at <= Utc::now() => HoldStatus::Expired,
        stored => stored,
    }
}

fn to_hold(row: HoldRow, seats: Vec<HeldSeat>) -> Hold {
    Hold {
        status: hold_status(row.status.0, row.expires_at),
        hold_id: row.id,
        event_id: row.event_id,
        seat_ids: seats.iter().map(|s| s.id.clone()).collect(),
        expires_at: row.expires_at,
        total_cents: row.total_cents,
        seats,
    }
}

/// The hold `hold_id` of `buyer`; another buyer's hold is 404, as if it did not exist.
pub async fn load(db: &PgPool, hold_id: &wire::HoldId, buyer: &BuyerId) -> Result<Hold> {
    let row: Option<HoldRow> = sqlx::query_as(
        "select id, event_id, status, expires_at, total_cents from hold \
         where id = $1 and buyer_id = $2",
    )
    .bind(hold_id.as_str())
    .bind(buyer.as_str())
    .fetch_optional(db)
    .await?;
    let row =
        row.ok_or_else(|| Error::NotFound(format!("you have no hold {:?}", hold_id.as_str())))?;
    Ok(with_seats(db, vec![row]).await?.remove(0))
}

/// `buyer`'s newest holds of `event_id` (at most [`LISTED`]), newest first.
pub async fn list(db: &PgPool, buyer: &BuyerId, event_id: &str) -> Result<Vec<Hold>> {
    let rows: Vec<HoldRow> = sqlx::query_as(
        "select id, event_id, status, expires_at, total_cents from hold \
         where buyer_id = $1 and event_id = $2 order by created_at desc, id limit $3",
    )
    .bind(buyer.as_str())
    .bind(event_id)
    .bind(LISTED)
    .fetch_all(db)
    .await?;
    with_seats(db, rows).await
}

/// What a reloaded page resumes: `buyer`'s newest hold of `event_id` if it is active or
/// bought (a released or expired one is over: the page goes on from the line).
pub async fn to_resume(db: &PgPool, buyer: &BuyerId, event_id: &str) -> Result<Option<Hold>> {
    let newest: Option<HoldRow> = sqlx::query_as(
        "select id, event_id, status, expires_at, total_cents from hold \
         where buyer_id = $1 and event_id = $2 order by created_at desc, id limit 1",
    )
    .bind(buyer.as_str())
    .bind(event_id)
    .fetch_optional(db)
    .await?;
    let Some(row) = newest else {
        return Ok(None);
    };
    let hold = with_seats(db, vec![row]).await?.remove(0);
    Ok(matches!(hold.status, HoldStatus::Active | HoldStatus::Purchased).then_some(hold))
}

/// The holds of `rows` with their seats, read in one query, in the order of `rows`.
async fn with_seats(db: &PgPool, rows: Vec<HoldRow>) -> Result<Vec<Hold>> {
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    let seats: Vec<(String, HeldSeatRow)> = sqlx::query_as::<_, HeldSeatOfHold>(
        "select hs.hold_id, s.id, s.section, s.row_label, s.number, s.price_cents \
         from hold_seat hs join seat s on s.id = hs.seat_id \
         where hs.hold_id = any($1) order by s.id",
    )
    .bind(&ids)
    .fetch_all(db)
    .await?
    .into_iter()
    .map(|r| (r.hold_id, r.seat))
    .collect();
    Ok(rows
        .into_iter()
        .map(|row| {
            let held = seats
                .iter()
                .filter(|(hold, _)| *hold == row.id)
                .map(|(_, seat)| HeldSeat::from(seat))
                .collect();
            to_hold(row, held)
        })
        .collect())
}

/// A hold request's Idempotency-Key and the digest of what it asks for: the same key with
/// another request is refused (422), never answered with the first request's hold.
pub struct Replay {
    pub key: String,
    pub digest: String,
}

impl Replay {
    pub fn new(key: &str, choice: &HoldChoice) -> Self {
        // `choice` is canonical: seat ids distinct and sorted.
        let asked = match choice {
            HoldChoice::Seats(ids) => format!("seats:{ids:?}"),
            HoldChoice::BestAvailable { section, quantity } => format!("best:{quantity}:{section}"),
        };
        let digest = ring::digest::digest(&ring::digest::SHA256, asked.as_bytes());
        Self {
            key: key.to_owned(),
            digest: digest.as_ref().iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// The hold id of the buyer's earlier request with this key for this event, if any; 422
    /// when that request asked for something else.
    async fn find(
        &self,
        conn: &mut sqlx::PgConnection,
        buyer: &BuyerId,
        event_id: &wire::EventId,
    ) -> Result<Option<String>> {
        let earlier: Option<(String, Option<String>)> = sqlx::query_as(
            "select id, request_digest from hold \
             where buyer_id = $1 and event_id = $2 and idempotency_key = $3",
        )
        .bind(buyer.as_str())
        .bind(event_id.as_str())
        .bind(&self.key)
        .fetch_optional(conn)
        .await?;
        match earlier {
            Some((_, Some(digest))) if digest != self.digest => Err(Error::Unprocessable(
                "this Idempotency-Key was used for a different hold request; use a new key".into(),
            )),
            Some((id, _)) => Ok(Some(id)),
            None => Ok(None),
        }
    }
}

/// The hold the buyer's earlier request with this key made for this event, if any.
pub async fn find_replay(
    db: &PgPool,
    buyer: &BuyerId,
    event_id: &wire::EventId,
    replay: &Replay,
) -> Result<Option<Hold>> {
    let mut conn = db.acquire().await?;
    match replay.find(&mut conn, buyer, event_id).await? {
        Some(id) => Ok(Some(load(db, &id.into(), buyer).await?)),
        None => Ok(None),
    }
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(create_handler, list_handler, get_handler, release_handler))]
pub struct Api;

#[cfg(test)]
mod tests {
    use axum::http::{HeaderMap, HeaderValue};
    use proptest::prelude::*;

    use super::idempotency_key;
    use crate::{error::Error, extract::is_event_id};

    proptest! {
        /// Any header bytes: the trimmed key when it is 1 to 200 visible ASCII characters,
        /// else a 400; never a panic.
        #[test]
        fn idempotency_keys_are_visible_ascii_up_to_200(bytes in proptest::collection::vec(any::<u8>(), 0..260)) {
            let mut headers = HeaderMap::new();
            if let Ok(value) = HeaderValue::from_bytes(&bytes) {
                headers.insert("idempotency-key", value);
            }
            let text = std::str::from_utf8(&bytes).ok().map(str::trim);
            let valid = headers.contains_key("idempotency-key")
                && text.is_some_and(|k| (1..=200).contains(&k.len()) && k.bytes().all(|b| b.is_ascii_graphic()));
            match idempotency_key(&headers) {
                Ok(key) => {
                    prop_assert!(valid);
                    prop_assert_eq!(Some(key.as_str()), text);
                }
                Err(e) => {
                    prop_assert!(!valid);
                    prop_assert!(matches!(e, Error::BadRequest(_)));
                }
            }
        }

        /// Event ids: 1 to 64 of [a-z0-9-]; anything else is refused before any query.
        #[test]
        fn event_ids_are_short_lowercase_words(
            id in prop_oneof!["[a-z0-9-]{1,64}", "[a-z0-9-]{65,70}", "\\PC{0,80}"]
        ) {
            let expected = (1..=64).contains(&id.len())
                && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            prop_assert_eq!(is_event_id(&id), expected);
        }
    }
}
