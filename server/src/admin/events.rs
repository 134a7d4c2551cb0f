//! `POST /api/admin/events`: a new event and its seats, created and audited in one transaction;
//! [`create_event`] also makes the demo's events at startup. An event with an opening commits
//! its draw's secret in the same transaction (`opening::secret`).

use app::wire::{Event, Gate, NewEvent, OperatorAction};
use axum::{Json, extract::State, http::StatusCode};
use sqlx::{PgConnection, PgPool};

use super::audit::{self, Entry};
use crate::{
    error::{Error, Result},
    events,
    extract::ApiJson,
    opening,
    operators::Actor,
    responses::CheckedBody,
    state::AppState,
};

#[utoipa::path(
    post,
    path = "/api/admin/events",
    tag = "admin",
    summary = "Create an event, its seats and its room",
    request_body = app::wire::NewEvent,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "The event", body = app::wire::Event),
        (status = 401, description = "unauthorized: not signed in, or gate settings without a recent sign-in (reason step_up)", body = app::wire::ErrorBody),
        (status = 403, description = "forbidden: out of role or scope, a credential limited to some events, or a protected path of an event the actor may not change", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: the id is taken", body = app::wire::ErrorBody),
        CheckedBody,
    )
)]
pub async fn create(
    actor: Actor,
    State(state): State<AppState>,
    ApiJson(new): ApiJson<NewEvent>,
) -> Result<(StatusCode, Json<Event>)> {
    new.validate()
        .map_err(|e| Error::Unprocessable(e.message))?;
    if let Some(zone) = &new.time_zone
        && events::room::zone_rules(zone).is_none()
    {
        return Err(Error::Unprocessable(format!(
            "there is no time zone {zone:?}: use an IANA name, like Europe/Berlin"
        )));
    }
    let room = new.room.new_room();
    crate::accounts::eligible::known(&state.config, &room)?;
    let gate = room.gate;
    if gate != Gate::default() {
        // Gate settings at creation: as at a change, a step-up, and the gate's own rules.
        actor.step_up()?;
        super::room::gate_allowed(&state, &actor, None, &gate)?;
    }
    let mut tx = state.db.begin().await?;
    let event = create_event_in(&mut tx, &events::new_event_id(), &new, state.draws.key())
        .await?
        .ok_or_else(|| Error::Internal("a fresh event id collided".into()))?;
    let entry = Entry::by(&actor, OperatorAction::CreateEvent, Some(&event.id))
        .change(&new)
        .after(&event);
    audit::commit(tx, entry).await?;
    state.rooms.remember(&event);
    tracing::info!(event = %event.id, actor = %actor.label, "event created");
    Ok((StatusCode::CREATED, Json(event)))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(create))]
pub struct Api;

/// Creates the event `id` and every seat of its layout in one transaction. `None` when an
/// event with this id exists already (nothing is written then). `new` must be validated.
pub async fn create_event(
    db: &PgPool,
    id: &str,
    new: &NewEvent,
    key: &opening::SecretKey,
) -> Result<Option<Event>> {
    let mut tx = db.begin().await?;
    let event = create_event_in(&mut tx, id, new, key).await?;
    tx.commit().await?;
    Ok(event)
}

/// [`create_event`] inside the caller's transaction `tx` (the operator API records the creation in
/// the same one). Commits nothing.
pub async fn create_event_in(
    tx: &mut PgConnection,
    id: &str,
    new: &NewEvent,
    key: &opening::SecretKey,
) -> Result<Option<Event>> {
    let Some(event) = events::room::insert(&mut *tx, id, new).await? else {
        return Ok(None);
    };
    if event.room.opens_at.is_some() {
        opening::secret::commit(&mut *tx, id, key).await?;
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
    Ok(Some(event))
}
