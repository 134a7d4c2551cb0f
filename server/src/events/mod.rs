//! Events and their seat layouts: the public `GET /api/events` and `GET /api/events/{id}`, and
//! the creation the operator API calls (`crate::admin`). Invariants: an event and all its seats
//! are created in one transaction (a failed creation leaves nothing); room settings live here,
//! in Postgres, the durable source of truth that every instance re-reads; the public reads are
//! answered from the instance's copy (`admission::rooms`), never by a query per request.

use crate::extract::EventId;
use app::wire::{
    Event, NewEvent, NewSection, Room, RoomUpdate, Zone, ZoneOffset, prequeue_opens_at,
};
use axum::{Json, Router, extract::State, routing::get};
use chrono::{DateTime, TimeZone, Utc};
use rand::Rng;
use sqlx::{PgConnection, PgExecutor, PgPool};

use crate::{
    error::{Error, Result},
    opening,
    state::AppState,
};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/events", get(list_handler))
        .route("/api/events/{event_id}", get(get_handler))
}

async fn list_handler(State(state): State<AppState>) -> Json<Vec<Event>> {
    Json(state.rooms.events())
}

async fn get_handler(
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Event>> {
    Ok(Json(state.rooms.event(&state.db, &event_id).await?))
}

#[derive(sqlx::FromRow)]
struct EventRow {
    id: String,
    name: String,
    starts_at: DateTime<Utc>,
    room_enabled: bool,
    room_paused: bool,
    admit_rate_per_second: i32,
    tick_ms: i32,
    hold_ttl_seconds: i32,
    seats_per_buyer: i32,
    hold_sweep_seconds: i32,
    room_epoch: i32,
    join_pow_bits: i32,
    opens_at: Option<DateTime<Utc>>,
    prequeue_seconds: i32,
    auto_rate: bool,
    min_admit_rate_per_second: i32,
    max_admit_rate_per_second: i32,
    target_hold_p99_ms: i32,
    bind_tokens: bool,
    time_zone: String,
    currency: String,
}

/// The rules of the IANA zone `name`, if there is such a zone.
pub fn zone_rules(name: &str) -> Option<chrono_tz::Tz> {
    name.parse().ok()
}

/// The zone `name` as a page needs it: its offsets at the moments `at` (sorted, the
/// repeated dropped). An unknown name (none is stored: creation checks it) reads as UTC.
fn zone(name: &str, mut at: Vec<DateTime<Utc>>) -> Zone {
    use chrono::Offset;
    let Some(rules) = zone_rules(name) else {
        return Zone::default();
    };
    at.sort();
    at.dedup();
    Zone {
        name: name.to_owned(),
        offsets: at
            .into_iter()
            .map(|from| ZoneOffset {
                from,
                seconds: from.with_timezone(&rules).offset().fix().local_minus_utc(),
            })
            .collect(),
    }
}

impl From<EventRow> for Event {
    fn from(r: EventRow) -> Self {
        // The table's check constraints keep these positive.
        let u = |v: i32| v.max(0) as u32;
        let prequeue_opens_at = prequeue_opens_at(r.opens_at, u(r.prequeue_seconds));
        let moments = [
            Some(r.starts_at),
            r.opens_at,
            prequeue_opens_at,
            Some(Utc::now()),
        ];
        Event {
            zone: zone(&r.time_zone, moments.into_iter().flatten().collect()),
            currency: r.currency,
            id: r.id,
            name: r.name,
            starts_at: r.starts_at,
            room: Room {
                enabled: r.room_enabled,
                paused: r.room_paused,
                admit_rate_per_second: u(r.admit_rate_per_second),
                tick_ms: u(r.tick_ms),
                hold_ttl_seconds: u(r.hold_ttl_seconds),
                seats_per_buyer: u(r.seats_per_buyer),
                hold_sweep_seconds: u(r.hold_sweep_seconds),
                epoch: u(r.room_epoch),
                join_pow_bits: u(r.join_pow_bits),
                opens_at: r.opens_at,
                prequeue_seconds: u(r.prequeue_seconds),
                prequeue_opens_at,
                auto_rate: r.auto_rate,
                min_admit_rate_per_second: u(r.min_admit_rate_per_second),
                max_admit_rate_per_second: u(r.max_admit_rate_per_second),
                target_hold_p99_ms: u(r.target_hold_p99_ms),
                bind_tokens: r.bind_tokens,
            },
        }
    }
}

const EVENT_COLUMNS: &str = "id, name, starts_at, room_enabled, room_paused, \
    admit_rate_per_second, tick_ms, hold_ttl_seconds, seats_per_buyer, hold_sweep_seconds, \
    room_epoch, join_pow_bits, opens_at, prequeue_seconds, auto_rate, min_admit_rate_per_second, \
    max_admit_rate_per_second, target_hold_p99_ms, bind_tokens, time_zone, currency";

/// Whether `id` can name an event at all; anything else is answered 404 without a query.
pub fn is_event_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A new random event id: 12 characters of [a-z0-9].
pub fn new_event_id() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::thread_rng();
    (0..12)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())] as char)
        .collect()
}

/// How long after its show an event with its room off stays among the events every instance
/// re-reads ([`current`]).
pub const CURRENT_FOR_DAYS: i32 = 30;

/// The events still current: a room on, a show within the last [`CURRENT_FOR_DAYS`] or to
/// come, or made within the last day. Every instance re-reads these twice a second; an older
/// one is read when asked for (`admission::rooms`), so the read does not grow with every
/// event ever sold.
pub async fn current(db: &PgPool) -> Result<Vec<Event>> {
    let rows: Vec<EventRow> = sqlx::query_as(&format!(
        "select {EVENT_COLUMNS} from event \
         where room_enabled or starts_at > now() - make_interval(days => $1) \
            or created_at > now() - interval '1 day' \
         order by starts_at, id"
    ))
    .bind(CURRENT_FOR_DAYS)
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(Event::from).collect())
}

/// One event, or 404 `not_found`.
pub async fn get_event<'e>(db: impl PgExecutor<'e>, event_id: &str) -> Result<Event> {
    read_event(db, event_id, "").await
}

/// One event, its row locked until the end of the transaction `tx` (so that what a change
/// records as "before" is what it changed), or 404 `not_found`.
pub async fn lock_event(tx: &mut PgConnection, event_id: &str) -> Result<Event> {
    read_event(tx, event_id, " for update").await
}

async fn read_event<'e>(db: impl PgExecutor<'e>, event_id: &str, lock: &str) -> Result<Event> {
    let not_found = || Error::NotFound(format!("there is no event {event_id:?}"));
    if !is_event_id(event_id) {
        return Err(not_found());
    }
    let row: Option<EventRow> = sqlx::query_as(&format!(
        "select {EVENT_COLUMNS} from event where id = $1{lock}"
    ))
    .bind(event_id)
    .fetch_optional(db)
    .await?;
    row.map(Event::from).ok_or_else(not_found)
}

/// Creates the event `id` and every seat of its layout in one transaction. `None` when an
/// event with this id exists already (nothing is written then). `new` must be validated.
pub async fn create(
    db: &PgPool,
    id: &str,
    new: &NewEvent,
    key: &opening::SecretKey,
) -> Result<Option<Event>> {
    let mut tx = db.begin().await?;
    let event = create_in(&mut tx, id, new, key).await?;
    tx.commit().await?;
    Ok(event)
}

/// [`create`] inside the caller's transaction `tx` (the operator API records the creation in
/// the same one). Commits nothing.
pub async fn create_in(
    tx: &mut PgConnection,
    id: &str,
    new: &NewEvent,
    key: &opening::SecretKey,
) -> Result<Option<Event>> {
    let room = &new.room;
    let sql = format!(
        "insert into event (id, name, starts_at, room_enabled, room_paused, \
             admit_rate_per_second, tick_ms, hold_ttl_seconds, seats_per_buyer, \
             hold_sweep_seconds, join_pow_bits, opens_at, prequeue_seconds, auto_rate, \
             min_admit_rate_per_second, max_admit_rate_per_second, target_hold_p99_ms, \
             bind_tokens, time_zone, currency) \
         values ($1, $2, $3, coalesce($4, true), coalesce($5, false), coalesce($6, 50), \
             coalesce($7, 1000), coalesce($8, 600), coalesce($9, 6), coalesce($10, 30), \
             coalesce($11, 0), case when $12 then $13 end, coalesce($14, 900), \
             coalesce($15, false), coalesce($16, 1), coalesce($17, 1000), coalesce($18, 50), \
             coalesce($19, false), coalesce($20, 'UTC'), coalesce($21, 'EUR')) \
         on conflict (id) do nothing \
         returning {EVENT_COLUMNS}"
    );
    let query = sqlx::query_as(&sql)
        .bind(id)
        .bind(new.name.trim())
        .bind(new.starts_at);
    let row: Option<EventRow> = bind_room(query, room)
        .bind(new.time_zone.as_deref())
        .bind(new.currency.as_deref())
        .fetch_optional(&mut *tx)
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    if row.opens_at.is_some() {
        opening::commit(&mut *tx, id, key).await?;
    }
    for section in &new.sections {
        // Rows then numbers, so seat ids ascend along a row: neighbours have neighbouring ids,
        // and rows come in their real order (the seat map lists seats by id). The label has
        // its own name: `order by r` would otherwise sort by the text, row 10 before row 2.
        sqlx::query(
            "insert into seat (event_id, section, row_label, number, price_cents) \
             select $1, $2, r::text as row_label, n, $5 \
             from generate_series(1, $3) r cross join generate_series(1, $4) n \
             order by r, n",
        )
        .bind(id)
        .bind(section.name.trim())
        .bind(section.rows as i32)
        .bind(section.seats_per_row as i32)
        .bind(section.price_cents)
        .execute(&mut *tx)
        .await?;
    }
    Ok(Some(row.into()))
}

/// Binds the room settings of `room`, in the order of `Room`'s fields (absent: NULL, which the
/// statements turn into "keep" or "default" with coalesce); `opens_at`, which may be set to
/// NULL, takes two: whether it is set, and to what.
pub fn bind_room<'q, O>(
    query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
    room: &RoomUpdate,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
    query
        .bind(room.enabled)
        .bind(room.paused)
        .bind(room.admit_rate_per_second.map(|v| v as i32))
        .bind(room.tick_ms.map(|v| v as i32))
        .bind(room.hold_ttl_seconds.map(|v| v as i32))
        .bind(room.seats_per_buyer.map(|v| v as i32))
        .bind(room.hold_sweep_seconds.map(|v| v as i32))
        .bind(room.join_pow_bits.map(|v| v as i32))
        .bind(room.opens_at.is_some())
        .bind(room.opens_at.flatten())
        .bind(room.prequeue_seconds.map(|v| v as i32))
        .bind(room.auto_rate)
        .bind(room.min_admit_rate_per_second.map(|v| v as i32))
        .bind(room.max_admit_rate_per_second.map(|v| v as i32))
        .bind(room.target_hold_p99_ms.map(|v| v as i32))
        .bind(room.bind_tokens)
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
