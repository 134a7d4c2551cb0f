//! `GET /api/admin/events/{id}/stats`: cluster-wide numbers of one event. The per-second
//! counters are written to Redis by whichever instance did the work, so every instance reads
//! the same series: one point a second for the last 10 minutes, quiet seconds as zeros. The
//! rate in force, its reason and the signals behind it come from the record the ticker's
//! leader keeps in Redis (`admission::ticker`), so every instance shows the same.

use std::collections::HashMap;

use app::wire::{DeviceRefusals, RateFigures, SeatCounts, Stats, StatsPoint};
use axum::{Json, extract::State};
use chrono::{DateTime, Utc};

use crate::{
    admission::{rate::Limits, ticker},
    error::Result,
    events,
    extract::EventId,
    operators::Actor,
    queue::{self, inventory::Inventory},
    redis::Counters,
    responses::NoEvent,
    state::AppState,
};

/// Queue length, admitted total, ticker holder, the rate's record, the inventory hash's values
/// (its [`Inventory::FIELDS`], then the last tick's `on_map` and `held_back`), and per second
/// the [`Counters::SERIES`]: admissions, holds, checkouts, queue length, rate in force.
type Snapshot = (
    u64,
    Option<u64>,
    Option<String>,
    HashMap<String, String>,
    Vec<Option<i64>>,
    Vec<[Option<u64>; 5]>,
);

/// The rate's `reason`, and when admissions wait for seats, why (issue 64): no seat free while
/// some are held (they come back as their holds end), or the last tick's admissions held back
/// for the buyers on the seat map (`[on_map, held_back]`, as admit.lua left them beside the
/// seats). Only while buyers wait.
fn with_seats(
    reason: String,
    waiting: u64,
    (free, held): (i64, i64),
    tick: [Option<u64>; 2],
) -> String {
    let [on_map, held_back] = tick.map(Option::unwrap_or_default);
    let seats = if waiting == 0 {
        return reason;
    } else if free == 0 && held > 0 {
        format!("admissions wait for seats: none is free, {held} held come back as their holds end")
    } else if held_back > 0 {
        format!(
            "admissions wait for seats: {free} free, taken by the {on_map} buyers on the seat map \
             ({held_back} fewer admitted at the last tick)"
        )
    } else {
        return reason;
    };
    if reason.is_empty() {
        seats
    } else {
        format!("{reason}; {seats}")
    }
}

#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/stats",
    tag = "admin",
    summary = "The room's numbers now and each second of the last 10 minutes",
    params(crate::extract::EventPath),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The stats", body = app::wire::Stats),
        NoEvent,
    )
)]
pub async fn stats(
    _: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Stats>> {
    let room = events::room::get_event(&state.db, &event_id).await?.room;
    let keys = &state.keys;
    let now = Utc::now().timestamp();
    let first = now - Counters::SERIES_SECONDS + 1;
    let mut pipe = redis::pipe();
    pipe.zcard(keys.queue(&event_id))
        .get(keys.admitted_total(&event_id))
        .get(keys.ticker(&event_id))
        .hgetall(keys.rate(&event_id))
        .hget(
            keys.inventory(&event_id),
            [&Inventory::FIELDS[..], &["on_map", "held_back"]].concat(),
        );
    for t in first..=now {
        Counters::at(keys, &event_id, t).read_series(&mut pipe);
    }
    let mut redis = state.redis.clone();
    let (queue_length, admitted_total, ticker_holder, record, mut inventory, points): Snapshot = {
        let mut reply: Vec<redis::Value> = pipe.query_async(&mut redis).await?;
        let points = reply
            .split_off(5)
            .into_iter()
            .map(|v| redis::from_redis_value(&v))
            .collect::<redis::RedisResult<Vec<[Option<u64>; 5]>>>()?;
        let queue_length = redis::from_redis_value(&reply[0])?;
        let admitted_total = redis::from_redis_value(&reply[1])?;
        let ticker_holder = redis::from_redis_value(&reply[2])?;
        let record = redis::from_redis_value(&reply[3])?;
        let inventory = redis::from_redis_value(&reply[4])?;
        (
            queue_length,
            admitted_total,
            ticker_holder,
            record,
            inventory,
            points,
        )
    };
    let held = {
        let tick = inventory.split_off(Inventory::FIELDS.len());
        let count = |i: usize| {
            tick.get(i)
                .copied()
                .flatten()
                .and_then(|n| u64::try_from(n).ok())
        };
        [count(0), count(1)]
    };
    let seats: Vec<(String, i64)> =
        sqlx::query_as("select status, count(*) from seat where event_id = $1 group by status")
            .bind(&event_id)
            .fetch_all(&state.db)
            .await?;
    // The admissions of the lines retired so far (their count left Redis with them).
    let admitted_before: i64 =
        sqlx::query_scalar("select admitted_before from event_line where event_id = $1")
            .bind(&event_id)
            .fetch_optional(&state.db)
            .await?
            .unwrap_or(0);
    let holds_active: i64 = sqlx::query_scalar(
        "select count(*) from hold where event_id = $1 and status = 'active' and expires_at > now()",
    )
    .bind(&event_id)
    .fetch_one(&state.db)
    .await?;
    let seat_count = |s: &str| seats.iter().find(|(k, _)| k == s).map_or(0, |(_, n)| *n);
    let series = (first..=now)
        .zip(points)
        .map(
            |(t, [admissions, holds, checkouts, queue, rate])| StatsPoint {
                t: DateTime::<Utc>::from_timestamp(t, 0).unwrap_or_default(),
                admissions: admissions.unwrap_or(0),
                holds: holds.unwrap_or(0),
                checkouts: checkouts.unwrap_or(0),
                queue_length: queue.unwrap_or(0),
                admit_rate_per_second: rate.unwrap_or(0),
            },
        )
        .collect();
    let in_force = ticker::read_in_force(&room, &record);
    let config = &state.config;
    let limits = Limits::of(
        &room,
        config.db_acquire_timeout_ms,
        config.loop_lag_limit_ms,
        config.admission_ttl_seconds,
        None,
    );
    let ms = |field: &str| record.get(field).and_then(|v| v.parse::<f64>().ok());
    let rate = RateFigures {
        auto_rate: room.auto_rate,
        proposal: in_force.proposal,
        min_admit_rate_per_second: room.min_admit_rate_per_second,
        max_admit_rate_per_second: room.max_admit_rate_per_second,
        hold_p99_ms: ms("hold_p99_ms"),
        target_hold_p99_ms: room.target_hold_p99_ms,
        acquire_wait_ms: ms("acquire_wait_ms"),
        acquire_wait_limit_ms: limits.acquire_wait_limit_ms,
        loop_lag_ms: ms("loop_lag_ms"),
        loop_lag_limit_ms: config.loop_lag_limit_ms,
        shopping: ms("shopping").map_or(0, |s| s as u64),
        // The leader's target counts the seats left; before its first step, the room's slots.
        target_shoppers: ms("target_shoppers").map_or(limits.target_shoppers, |t| t as u64),
    };
    let (no_key, no_script) =
        queue::device::refusals(&state, &app::wire::EventId::from(event_id.as_str())).await?;
    // The shares as the last tick left them (before the first tick: the expectations alone).
    let shares = Inventory::from_values(&inventory)
        .map(|i| i.seats(rate.shopping))
        .unwrap_or_else(|| app::estimate::Seats {
            history: app::estimate::History::default().or_expected(&room),
            ..Default::default()
        })
        .shares(&room, in_force.rate);
    Ok(Json(Stats {
        shares,
        device_refusals: DeviceRefusals { no_key, no_script },
        admit_rate_per_second: in_force.rate,
        rate_reason: with_seats(
            in_force.reason,
            queue_length,
            (seat_count("available"), seat_count("held")),
            held,
        ),
        rate,
        queue_length,
        admitted_total: admitted_before.max(0) as u64 + admitted_total.unwrap_or(0),
        holds_active,
        seats: SeatCounts {
            available: seat_count("available"),
            held: seat_count("held"),
            sold: seat_count("sold"),
        },
        ticker_holder,
        series,
    }))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(stats))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::with_seats;

    #[test]
    fn the_reason_says_when_admissions_wait_for_seats() {
        let set = || "set by the operator".to_owned();
        assert_eq!(with_seats(set(), 10, (5, 0), [Some(2), Some(0)]), set());
        assert_eq!(
            with_seats(set(), 0, (0, 4), [None, None]),
            set(),
            "nobody waits"
        );
        assert_eq!(
            with_seats(set(), 10, (0, 4), [None, None]),
            "set by the operator; admissions wait for seats: none is free, 4 held come back as \
             their holds end"
        );
        assert_eq!(
            with_seats(set(), 10, (3, 5), [Some(3), Some(7)]),
            "set by the operator; admissions wait for seats: 3 free, taken by the 3 buyers on the \
             seat map (7 fewer admitted at the last tick)"
        );
    }
}
