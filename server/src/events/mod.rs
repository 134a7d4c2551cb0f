//! Events and their seat layouts: the public `GET /api/events` and `GET /api/events/{id}`, and
//! the creation the operator API calls (`crate::admin`). Invariants: an event and all its seats
//! are created in one transaction (a failed creation leaves nothing); room settings live here,
//! in Postgres, the durable source of truth that every instance re-reads; the public reads are
//! answered from the instance's copy ([`rooms`]), never by a query per request.

pub mod room;
pub mod rooms;
pub mod state;

use app::wire::{Event, NewEvent, NewSection, RoomUpdate};
use axum::{Json, Router, extract::State, routing::get};
use chrono::{DateTime, TimeZone, Utc};
use rand::Rng;
use tokio_util::sync::CancellationToken;

use crate::{error::Result, events::state::Catalog, extract::EventId, responses::NoEvent};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Catalog: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/api/events", get(list_handler))
        .route("/api/events/{event_id}", get(get_handler))
}

#[utoipa::path(
    get,
    path = "/api/events",
    tag = "events",
    summary = "Every event and its room",
    responses(
        (status = 200, description = "The events", body = Vec<app::wire::Event>),
    )
)]
async fn list_handler(State(state): State<Catalog>) -> Json<Vec<Event>> {
    Json(state.rooms.events())
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}",
    tag = "events",
    summary = "One event and its room",
    params(crate::extract::EventPath),
    responses(
        (status = 200, description = "The event", body = app::wire::Event),
        NoEvent,
    )
)]
async fn get_handler(
    State(state): State<Catalog>,
    EventId(event_id): EventId,
) -> Result<Json<Event>> {
    Ok(Json(state.rooms.event(&state.db, &event_id).await?))
}

/// A new random event id: 12 characters of [a-z0-9].
pub fn new_event_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::thread_rng();
    (0..12)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// Re-reads every room from Postgres every `room_refresh_ms` until `shutdown`.
pub async fn refresh_rooms(catalog: Catalog, shutdown: CancellationToken) {
    let period = std::time::Duration::from_millis(u64::from(catalog.config.room_refresh_ms));
    loop {
        if let Err(e) = catalog.rooms.refresh(&catalog.db).await {
            tracing::warn!(error = %e, "could not re-read the room settings");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(period) => {}
        }
    }
}

/// The demo event of `anteroom demo`: 3 sections of 10 rows of 20 seats, room on, N = 50.
pub fn demo_event() -> NewEvent {
    demo_hall("Anteroom Demo Night", RoomUpdate::default())
}

pub const DEMO_EVENT_ID: &str = "demo";

/// The second demo event: the same hall, its sale opening five minutes after `now`, with a
/// pre-queue from two minutes after it, so that a newcomer sees the countdown, the pre-queue
/// and the draw happen.
pub fn demo_opening_event(now: DateTime<Utc>) -> NewEvent {
    demo_hall(
        "Anteroom Demo Opening",
        RoomUpdate {
            opens_at: Some(Some(now + chrono::Duration::minutes(5))),
            prequeue_seconds: Some(180),
            ..RoomUpdate::default()
        },
    )
}

pub const DEMO_OPENING_ID: &str = "demo-opening";

/// 3 sections of 10 rows of 20 seats tonight at 19:00 Berlin time, room on, N = 50, and `room`'s settings.
fn demo_hall(name: &str, room: RoomUpdate) -> NewEvent {
    let section = |name: &str, price_cents| NewSection {
        name: name.into(),
        rows: 10,
        seats_per_row: 20,
        price_cents,
    };
    // Tonight at 19:00 in Berlin, the demo hall's city.
    let berlin = chrono_tz::Europe::Berlin;
    let tonight = Utc::now()
        .with_timezone(&berlin)
        .date_naive()
        .and_hms_opt(19, 0, 0)
        .expect("a valid time");
    let tonight = berlin
        .from_local_datetime(&tonight)
        .earliest()
        .map_or_else(|| tonight.and_utc(), |t| t.with_timezone(&Utc));
    NewEvent {
        name: name.into(),
        starts_at: tonight,
        time_zone: Some("Europe/Berlin".into()),
        currency: Some("EUR".into()),
        language: None,
        sections: vec![
            section("Stalls", 8500),
            section("Circle", 6500),
            section("Balcony", 4000),
        ],
        room: RoomUpdate {
            enabled: Some(true),
            paused: Some(false),
            admit_rate_per_second: Some(50),
            ..room
        },
    }
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(list_handler, get_handler))]
pub struct Api;
