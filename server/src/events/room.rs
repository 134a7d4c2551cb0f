//! The one home of a room's settings in Postgres: the `event` table's columns, a row made
//! into an [`Event`], the INSERT of a new event and the UPDATE of an operator's change, each
//! naming every setting once, in the order of `Room`'s fields.
//!
//! Invariant: a setting is read, inserted and updated only here; `events::tests`'s round trip
//! of every field through the database fails when one of them misses it.

use app::wire::{Event, NewEvent, Room, RoomUpdate, Zone, ZoneOffset, prequeue_opens_at};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgExecutor, PgPool};

use crate::{
    error::{Error, Result},
    extract::is_event_id,
};

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

/// How long after its show an event with its room off stays among the events every instance
/// re-reads ([`current`]).
pub const CURRENT_FOR_DAYS: i32 = 30;

/// The events still current: a room on, a show within the last [`CURRENT_FOR_DAYS`] or to
/// come, or made within the last day. Every instance re-reads these twice a second; an older
/// one is read when asked for (`events::rooms`), so the read does not grow with every
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

/// Inserts the event `id` of `new` (absent settings: their defaults) inside the caller's
/// transaction; `None` when an event with this id exists already (nothing is written then).
pub async fn insert(tx: &mut PgConnection, id: &str, new: &NewEvent) -> Result<Option<Event>> {
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
    let row: Option<EventRow> = bind_room(query, &new.room)
        .bind(new.time_zone.as_deref())
        .bind(new.currency.as_deref())
        .fetch_optional(&mut *tx)
        .await?;
    Ok(row.map(Event::from))
}

/// Applies `update` to the room of `event_id` inside the caller's transaction (absent
/// settings: kept; turning the room on or off bumps its epoch).
pub async fn update(tx: &mut PgConnection, event_id: &str, update: &RoomUpdate) -> Result<()> {
    let query = sqlx::query_as(
        "update event set \
            room_enabled = coalesce($2, room_enabled), \
            room_epoch = room_epoch + (coalesce($2, room_enabled) <> room_enabled)::int, \
            room_paused = coalesce($3, room_paused), \
            admit_rate_per_second = coalesce($4, admit_rate_per_second), \
            tick_ms = coalesce($5, tick_ms), \
            hold_ttl_seconds = coalesce($6, hold_ttl_seconds), \
            seats_per_buyer = coalesce($7, seats_per_buyer), \
            hold_sweep_seconds = coalesce($8, hold_sweep_seconds), \
            join_pow_bits = coalesce($9, join_pow_bits), \
            opens_at = case when $10 then $11 else opens_at end, \
            prequeue_seconds = coalesce($12, prequeue_seconds), \
            auto_rate = coalesce($13, auto_rate), \
            min_admit_rate_per_second = coalesce($14, min_admit_rate_per_second), \
            max_admit_rate_per_second = coalesce($15, max_admit_rate_per_second), \
            target_hold_p99_ms = coalesce($16, target_hold_p99_ms), \
            bind_tokens = coalesce($17, bind_tokens), \
            updated_at = now() \
         where id = $1 returning id",
    )
    .bind(event_id);
    let _: (String,) = bind_room(query, update).fetch_one(&mut *tx).await?;
    Ok(())
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
