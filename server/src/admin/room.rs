//! `PUT /api/admin/events/{id}/room`: the operator changes a room's settings. The change and
//! its audit entry commit together; this instance applies the new room at once, the others at
//! their next refresh (within `room_refresh_ms`). Stopping a room that takes buyers, or any
//! change that lowers a defence (more seats per buyer, the gate, who may come in, the device
//! binding, the proof of work, a longer hold), needs a step-up (`Actor::step_up`); a probe of
//! a loopback or private address is refused outside `--dev`. Turning a room off keeps its
//! night (`admission::archive`).

use app::wire::{Event, Gate, Identity, OperatorAction, Room, RoomUpdate};
use axum::{Json, extract::State};
use sqlx::PgConnection;

use super::audit::{self, Entry};
use crate::{
    admission::archive,
    error::{Error, Result},
    events,
    extract::{ApiJson, EventId},
    opening,
    operators::{Actor, Permission},
    responses::{CheckedBody, NoEvent},
    state::AppState,
};

/// Whether `actor` may give `event_id` (`None`: an event being created) the gate settings
/// `gate` (issue 63): one event's operator or key cannot open another event's gate
/// (protecting a prefix on a host where another event's room protects an overlapping one
/// needs the right to change that event too: 403 naming it), and the probe is no internal
/// address outside `--dev` (422).
pub fn gate_allowed(
    state: &AppState,
    actor: &Actor,
    event_id: Option<&str>,
    gate: &Gate,
) -> Result<()> {
    crate::admission::probe::check_target(gate.origin_probe_url.as_deref(), state.config.dev)?;
    for other in state.rooms.overlapping(event_id, gate) {
        if !actor.allows(Permission::ControlRoom, Some(&other)) {
            return Err(Error::Forbidden(format!(
                "event {other} protects an overlapping path on this host, and you may not change it"
            )));
        }
    }
    Ok(())
}

/// Whether a room change needs a step-up (API.md "Operators"): a room turned off or paused
/// while it takes buyers, or any change that lowers a defence.
fn dangerous(before: &Room, after: &Room) -> bool {
    let stops = before.enabled && !before.paused && (!after.enabled || after.paused);
    // The gate (where admitted buyers are sent, what the proxy protects, what the leader
    // probes): any change of it is the room's most valuable setting to an attacker.
    let gate = after.gate != before.gate;
    // Every setting that lowers a defence (issue 63): who may come in, the device binding,
    // the proof of work, how long a hold keeps seats from others.
    let opened = (after.identity != before.identity && after.identity == Identity::Anonymous)
        || (before.eligible.is_some() && after.eligible != before.eligible);
    let weaker = (before.bind_tokens && !after.bind_tokens)
        || after.join_pow_bits < before.join_pow_bits
        || after.hold_ttl_seconds > before.hold_ttl_seconds;
    stops || gate || opened || weaker || after.seats_per_buyer > before.seats_per_buyer
}

#[utoipa::path(
    put,
    path = "/api/admin/events/{event_id}/room",
    tag = "admin",
    summary = "Change the room's settings (within one second)",
    params(crate::extract::EventPath),
    request_body = app::wire::RoomUpdate,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The room", body = app::wire::Room),
        (status = 401, description = "unauthorized: not signed in, or a change that lowers a defence without a recent sign-in (reason step_up)", body = app::wire::ErrorBody),
        (status = 403, description = "forbidden: out of role or scope, or a protected path of an event the actor may not change", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: opens_at brought forward after the pre-queue opened", body = app::wire::ErrorBody),
        CheckedBody, NoEvent,
    )
)]
pub async fn update(
    actor: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    ApiJson(update): ApiJson<RoomUpdate>,
) -> Result<Json<Room>> {
    let mut tx = state.db.begin().await?;
    let (before, after) = apply(&mut tx, &event_id, &update, state.draws.key()).await?;
    if dangerous(&before, &after.room) {
        // Refused here, the transaction rolls back: nothing changed.
        actor.step_up()?;
    }
    if after.room.gate != before.gate {
        gate_allowed(&state, &actor, Some(&event_id), &after.room.gate)?;
    }
    if after.room.eligible != before.eligible {
        crate::accounts::eligible::known(&state.config, &after.room)?;
    }
    let entry = Entry::by(&actor, OperatorAction::ChangeRoom, Some(&event_id))
        .change(&update)
        .before(&before)
        .after(&after.room);
    audit::commit(tx, entry).await?;
    state.rooms.remember(&after);
    if before.enabled && !after.room.enabled {
        // The night is over: keep it. Best effort (the room is off either way); the operator
        // can keep it again on demand.
        let kept = match state.db.acquire().await {
            Ok(mut db) => archive::close(&state, &mut db, &event_id, &after.room, "room_off")
                .await
                .map(|_| ()),
            Err(e) => Err(e.into()),
        };
        if let Err(e) = kept {
            tracing::warn!(event = %event_id, error = %e, "could not keep the night of a room turned off");
        }
    }
    tracing::info!(event = %event_id, actor = %actor.label, ?update, "room settings changed");
    Ok(Json(after.room))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(update))]
pub struct Api;

/// Applies `update` in Postgres inside the caller's transaction `tx` (under the rules of an
/// opening, `opening::settle`, by Postgres's clock; the first opening makes the draw's
/// commitment), and answers the room before and the event after. The caller records the
/// change in the audit before committing, then remembers the new room (`Rooms::remember`);
/// other instances see it at their next refresh.
pub async fn apply(
    tx: &mut PgConnection,
    event_id: &str,
    update: &RoomUpdate,
    key: &opening::SecretKey,
) -> Result<(Room, Event)> {
    update
        .validate()
        .map_err(|e| Error::Unprocessable(e.message))?;
    let before = events::room::lock_event(tx, event_id).await?.room;
    update
        .validate_bounds(
            before.min_admit_rate_per_second,
            before.max_admit_rate_per_second,
        )
        .map_err(|e| Error::Unprocessable(e.message))?;
    let now = sqlx::query_scalar("select clock_timestamp()")
        .fetch_one(&mut *tx)
        .await?;
    let update = opening::settle(&before, update, now)?;
    let room = update.apply_to(&before);
    room.gate
        .validate()
        .map_err(|e| Error::Unprocessable(e.message))?;
    events::room::update(&mut *tx, event_id, &room).await?;
    let after = events::room::get_event(&mut *tx, event_id).await?;
    if let Some(opens_at) = after.room.opens_at {
        opening::secret::commit(&mut *tx, event_id, key).await?;
        opening::check_round_after(&mut *tx, event_id, opens_at).await?;
    }
    Ok((before, after))
}
