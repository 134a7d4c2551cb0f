//! `POST /api/admin/events`: a new event and its seats, created and audited in one transaction.

use app::wire::{Event, Gate, NewEvent, OperatorAction};
use axum::{Json, extract::State, http::StatusCode};

use super::audit::{self, Entry};
use crate::{
    error::{Error, Result},
    events,
    extract::ApiJson,
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
    let event = events::create_in(&mut tx, &events::new_event_id(), &new, state.draws.key())
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
