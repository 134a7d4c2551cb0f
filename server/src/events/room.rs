//! The one home of a room's settings in Postgres: the `event` table's columns ([`SETTINGS`]),
//! a row made into an [`Event`], the INSERT of a new event and the UPDATE of an operator's
//! change, each writing every setting. The defaults are `app::wire::DEFAULT_ROOM`'s (the table
//! keeps none since migration 20261206100000, so an INSERT that forgot a setting fails), and an
//! update is `RoomUpdate::apply_to` the room it changes.
//!
//! Invariant: a setting is read, inserted and updated only here; the round trip of every field
//! through the database (`server/tests/api/events.rs`) fails when one of them misses it.

use app::lang::Lang;
use app::wire::{
    DEFAULT_CURRENCY, Eligible, Event, Gate, Identity, NewEvent, Room, Zone, ZoneOffset,
    prequeue_opens_at,
};
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
    expected_seats_per_hold: i32,
    expected_holding_percent: i32,
    bind_tokens: bool,
    identity: String,
    eligible: Option<sqlx::types::Json<Eligible>>,
    target_url: Option<String>,
    protect: Vec<String>,
    origin_probe_url: Option<String>,
    time_zone: String,
    currency: String,
    language: String,
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
            // The table's check constraint keeps it one of ours.
            language: Lang::parse(&r.language).unwrap_or_default(),
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
                expected_seats_per_hold: u(r.expected_seats_per_hold),
                expected_holding_percent: u(r.expected_holding_percent),
                bind_tokens: r.bind_tokens,
                // The table's check keeps the names to the two there are.
                identity: Identity::from_name(&r.identity).unwrap_or_default(),
                eligible: r.eligible.map(|e| e.0),
                gate: Gate {
                    target_url: r.target_url,
                    protect: r.protect,
                    origin_probe_url: r.origin_probe_url,
                },
            },
        }
    }
}

/// The venue's zone of an event created without one.
const DEFAULT_TIME_ZONE: &str = "UTC";

/// Every room setting's column, in the order of `Room`'s fields, as [`bind_settings`] binds
/// them: the INSERT and the UPDATE name them from here, the SELECT reads them from here.
const SETTINGS: [&str; 23] = [
    "room_enabled",
    "room_paused",
    "admit_rate_per_second",
    "tick_ms",
    "hold_ttl_seconds",
    "seats_per_buyer",
    "hold_sweep_seconds",
    "room_epoch",
    "join_pow_bits",
    "opens_at",
    "prequeue_seconds",
    "auto_rate",
    "min_admit_rate_per_second",
    "max_admit_rate_per_second",
    "target_hold_p99_ms",
    "expected_seats_per_hold",
    "expected_holding_percent",
    "bind_tokens",
    "identity",
    "eligible",
    "target_url",
    "protect",
    "origin_probe_url",
];

/// Binds every setting of `room`, in the order of [`SETTINGS`] (a column the table checks as
/// non-negative is an `integer`; the settings' ranges keep them within it).
fn bind_settings<'q, O>(
    query: sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments>,
    room: &Room,
) -> sqlx::query::QueryAs<'q, sqlx::Postgres, O, sqlx::postgres::PgArguments> {
    let int = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    query
        .bind(room.enabled)
        .bind(room.paused)
        .bind(int(room.admit_rate_per_second))
        .bind(int(room.tick_ms))
        .bind(int(room.hold_ttl_seconds))
        .bind(int(room.seats_per_buyer))
        .bind(int(room.hold_sweep_seconds))
        .bind(int(room.epoch))
        .bind(int(room.join_pow_bits))
        .bind(room.opens_at)
        .bind(int(room.prequeue_seconds))
        .bind(room.auto_rate)
        .bind(int(room.min_admit_rate_per_second))
        .bind(int(room.max_admit_rate_per_second))
        .bind(int(room.target_hold_p99_ms))
        .bind(int(room.expected_seats_per_hold))
        .bind(int(room.expected_holding_percent))
        .bind(room.bind_tokens)
        .bind(room.identity.name())
        .bind(room.eligible.clone().map(sqlx::types::Json))
        .bind(room.gate.target_url.clone())
        .bind(room.gate.protect.clone())
        .bind(room.gate.origin_probe_url.clone())
}

/// `$first, $first+1, ...`, one a setting.
fn placeholders(first: usize) -> String {
    (first..first + SETTINGS.len())
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The columns an [`EventRow`] reads.
fn event_columns() -> String {
    format!(
        "id, name, starts_at, {}, time_zone, currency, language",
        SETTINGS.join(", ")
    )
}

/// How long after its show an event with its room off stays among the events every instance
/// re-reads ([`current`]).
pub const CURRENT_FOR_DAYS: i32 = 30;

/// The events still current: a room on, a show within the last [`CURRENT_FOR_DAYS`] or to
/// come, or made within the last day. Every instance re-reads these twice a second; an older
/// one is read when asked for (`events::rooms`), so the read does not grow with every
/// event ever sold.
pub async fn current(db: &PgPool) -> Result<Vec<Event>> {
    let rows: Vec<EventRow> = sqlx::query_as(&format!(
        "select {} from event \
         where room_enabled or starts_at > now() - make_interval(days => $1) \
            or created_at > now() - interval '1 day' \
         order by starts_at, id",
        event_columns()
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
        "select {} from event where id = $1{lock}",
        event_columns()
    ))
    .bind(event_id)
    .fetch_optional(db)
    .await?;
    row.map(Event::from).ok_or_else(not_found)
}

/// Inserts the event `id` of `new` inside the caller's transaction, every setting written:
/// the operator's, else `DEFAULT_ROOM`'s (`RoomUpdate::new_room`). `None` when an event with this id exists already
/// (nothing is written then).
pub async fn insert(tx: &mut PgConnection, id: &str, new: &NewEvent) -> Result<Option<Event>> {
    let sql = format!(
        "insert into event (id, name, starts_at, time_zone, currency, language, {}) \
         values ($1, $2, $3, $4, $5, $6, {}) \
         on conflict (id) do nothing \
         returning {}",
        SETTINGS.join(", "),
        placeholders(7),
        event_columns()
    );
    let query = sqlx::query_as(&sql)
        .bind(id)
        .bind(new.name.trim())
        .bind(new.starts_at)
        .bind(new.time_zone.as_deref().unwrap_or(DEFAULT_TIME_ZONE))
        .bind(new.currency.as_deref().unwrap_or(DEFAULT_CURRENCY))
        .bind(new.language.unwrap_or_default().tag());
    let row: Option<EventRow> = bind_settings(query, &new.room.new_room())
        .fetch_optional(&mut *tx)
        .await?;
    Ok(row.map(Event::from))
}

/// Writes every setting of `room` as the room of `event_id`, inside the caller's transaction
/// (which holds the event's row: `lock_event`).
pub async fn update(tx: &mut PgConnection, event_id: &str, room: &Room) -> Result<()> {
    let sql = format!(
        "update event set ({}) = ({}), updated_at = now() where id = $1 returning id",
        SETTINGS.join(", "),
        placeholders(2)
    );
    let query = sqlx::query_as(&sql).bind(event_id);
    let _: (String,) = bind_settings(query, room).fetch_one(&mut *tx).await?;
    Ok(())
}
