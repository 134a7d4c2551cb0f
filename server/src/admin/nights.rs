//! The nights kept (`admission::archive`), for the operator: keep the night so far on demand
//! (audited, in the same transaction as the night it records), list the nights of an event,
//! and read one night's seconds as JSON or as CSV (`text/csv`, what `onsale --replay` reads).
//! Reads are bounded: at most [`MAX_NIGHTS`] nights and [`MAX_SECONDS`] seconds an answer.

use std::collections::HashMap;

use app::wire::{Night, NightPoint, OperatorAction};
use axum::{
    Json,
    extract::{Path, State},
    http::{StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::json;

use super::audit::{self, Entry};
use crate::{
    admission::archive,
    error::{Error, Result},
    extract::EventId,
    operators::Actor,
    responses::{NoEvent, NoNight},
    state::AppState,
};

/// The most nights one answer lists (newest first).
pub const MAX_NIGHTS: i64 = 100;
/// The most seconds one answer carries: two days.
pub const MAX_SECONDS: i64 = 172_800;

/// `POST /api/admin/events/{id}/nights`: keeps the night so far, now.
#[utoipa::path(
    post,
    path = "/api/admin/events/{event_id}/nights",
    tag = "admin",
    summary = "Keep the night so far (its series and report)",
    params(crate::extract::EventPath),
    request_body(content = Object, description = "{}: a change by an operator carries a JSON body"),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "The night", body = app::wire::Night),
        NoEvent,
    )
)]
pub async fn keep(
    actor: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<(StatusCode, Json<Night>)> {
    let room = state.rooms.get(&state.db, &event_id).await?;
    let mut tx = state.db.begin().await?;
    let night = archive::close(&state, &mut tx, &event_id, &room, "operator").await?;
    let entry = Entry::by(&actor, OperatorAction::KeepNight, Some(&event_id))
        .change(&json!({}))
        .after(&night);
    audit::commit(tx, entry).await?;
    Ok((StatusCode::CREATED, Json(night)))
}

/// `GET /api/admin/events/{id}/nights`: the nights kept, newest first.
#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/nights",
    tag = "admin",
    summary = "The nights kept",
    params(crate::extract::EventPath),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The nights", body = Vec<app::wire::Night>),
        NoEvent,
    )
)]
pub async fn list(
    _: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Vec<Night>>> {
    state.rooms.event(&state.db, &event_id).await?;
    Ok(Json(archive::nights(&state, &event_id, MAX_NIGHTS).await?))
}

/// One night's seconds; 404 for a night the event does not have.
async fn points(
    state: &AppState,
    event_id: &str,
    params: &HashMap<String, String>,
) -> Result<Vec<NightPoint>> {
    let not_found = || Error::NotFound("there is no such night".into());
    let night: i64 = params
        .get("night_id")
        .and_then(|n| n.parse().ok())
        .ok_or_else(not_found)?;
    archive::series(state, event_id, night, MAX_SECONDS)
        .await?
        .ok_or_else(not_found)
}

/// `GET /api/admin/events/{id}/nights/{night_id}/series`.
#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/nights/{night_id}/series",
    tag = "admin",
    summary = "A night's series, one point a second",
    params(crate::extract::EventPath, ("night_id" = String, Path, description = "The night's id")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The points", body = Vec<app::wire::NightPoint>),
        NoNight,
    )
)]
pub async fn series(
    _: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    Path(params): Path<HashMap<String, String>>,
) -> Result<Json<Vec<NightPoint>>> {
    Ok(Json(points(&state, &event_id, &params).await?))
}

/// `GET /api/admin/events/{id}/nights/{night_id}/csv`.
#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/nights/{night_id}/csv",
    tag = "admin",
    summary = "A night's series as CSV",
    params(crate::extract::EventPath, ("night_id" = String, Path, description = "The night's id")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The series", content_type = "text/csv"),
        NoNight,
    )
)]
pub async fn csv(
    _: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    Path(params): Path<HashMap<String, String>>,
) -> Result<Response> {
    let points = points(&state, &event_id, &params).await?;
    Ok((
        [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
        archive::csv(&points),
    )
        .into_response())
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(keep, list, series, csv))]
pub struct Api;
