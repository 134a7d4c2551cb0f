//! The operator's audit: one row in `operator_action` for every operator write, with who
//! (`actor`), when, what was asked (`change`), and the state before and after. Invariant: an
//! entry is written by [`record`] inside the write's own transaction (and [`commit`] writes it
//! and commits the write), so the audit and the data never disagree. Read back newest first:
//! `GET /api/admin/audit` (every action, or one event's) and `GET /api/admin/events/{id}/audit`
//! (one event's room changes, as the dashboard shows them).

use app::wire::{AuditEntry, Events, OperatorAction};
use axum::{
    Json,
    extract::{Query, State},
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgPool, Postgres, Transaction};

use crate::{
    error::{Error, Result},
    extract::EventId,
    operators::Actor,
    responses::NoEvent,
    sql::Text,
    state::AppState,
};

/// Entries answered when the request names no `limit`.
const DEFAULT_LIMIT: i64 = 100;
/// The most entries one answer carries.
const MAX_LIMIT: i64 = 1000;

/// One operator write, as [`record`] stores it.
pub struct Entry<'a> {
    pub action: OperatorAction,
    /// The event acted on, if the action has one.
    pub event_id: Option<&'a str>,
    /// Who: `operators::Actor::label`.
    pub actor: &'a str,
    /// The operator's or key's id, if any.
    pub actor_id: Option<&'a str>,
    /// What was asked.
    pub change: Value,
    /// The state before the write (none for a creation or a sign-in).
    pub before: Option<Value>,
    /// The state after the write.
    pub after: Option<Value>,
}

impl<'a> Entry<'a> {
    /// An entry of `actor` doing `action` (on `event_id`), to fill in with what changed.
    pub fn by(actor: &'a Actor, action: OperatorAction, event_id: Option<&'a str>) -> Self {
        let mut entry = Entry::labelled(&actor.label, actor.id(), action);
        entry.event_id = event_id;
        entry
    }

    /// An entry of someone who is no signed-in actor (the command line, the company's
    /// sign-in, a refused sign-in), named by `label`.
    pub fn labelled(label: &'a str, actor_id: Option<&'a str>, action: OperatorAction) -> Self {
        Entry {
            action,
            event_id: None,
            actor: label,
            actor_id,
            change: Value::Null,
            before: None,
            after: None,
        }
    }

    /// The entry with what was asked, as the audit's JSON.
    pub fn change(mut self, change: &impl Serialize) -> Self {
        self.change = json(change);
        self
    }

    /// The entry with the state before the write, as the audit's JSON.
    pub fn before(mut self, before: &impl Serialize) -> Self {
        self.before = Some(json(before));
        self
    }

    /// The entry with the state after the write, as the audit's JSON.
    pub fn after(mut self, after: &impl Serialize) -> Self {
        self.after = Some(json(after));
        self
    }
}

/// Writes `entry` in the caller's transaction `tx` (commit it with the write it describes).
pub async fn record(tx: &mut PgConnection, entry: Entry<'_>) -> Result<()> {
    sqlx::query(
        "insert into operator_action (action, event_id, actor, actor_id, change, before, after) \
         values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Text(entry.action))
    .bind(entry.event_id)
    .bind(entry.actor)
    .bind(entry.actor_id)
    .bind(&entry.change)
    .bind(&entry.before)
    .bind(&entry.after)
    .execute(tx)
    .await?;
    Ok(())
}

/// Writes `entry` in `tx` ([`record`]), then commits `tx`: the write it describes and the entry
/// stand together or not at all.
pub async fn commit(mut tx: Transaction<'_, Postgres>, entry: Entry<'_>) -> Result<()> {
    record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok(())
}

/// Any serializable state as the audit's JSON.
fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

type Row = (
    Text<OperatorAction>,
    Option<String>,
    String,
    Option<String>,
    Option<Value>,
    Option<Value>,
    Option<Value>,
    DateTime<Utc>,
);

/// Entries newest first, of one event or of all (`event_id` None), of one action or of all,
/// of one person or key or of all, and (`within`) only about some events.
async fn read(
    db: &PgPool,
    event_id: Option<&str>,
    action: Option<OperatorAction>,
    actor_id: Option<&str>,
    within: Option<&[String]>,
    limit: i64,
) -> Result<Vec<AuditEntry>> {
    let rows: Vec<Row> = sqlx::query_as(
        "select action, event_id, actor, actor_id, change, before, after, created_at \
         from operator_action \
         where ($1::text is null or event_id = $1) and ($2::text is null or action = $2) \
           and ($4::text is null or actor_id = $4) \
           and ($5::text[] is null or event_id = any($5)) \
         order by created_at desc, id desc limit $3",
    )
    .bind(event_id)
    .bind(action.map(Text))
    .bind(limit)
    .bind(actor_id)
    .bind(within)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(Text(action), event_id, actor, actor_id, change, before, after, at)| AuditEntry {
                action,
                event_id,
                actor,
                actor_id,
                change: change.unwrap_or(Value::Null),
                before,
                after,
                at,
            },
        )
        .collect())
}

/// `GET /api/admin/events/{id}/audit`: the event's room changes, newest first (the last 100).
#[utoipa::path(
    get,
    path = "/api/admin/events/{event_id}/audit",
    tag = "admin",
    summary = "Who changed this event's room, and what",
    params(crate::extract::EventPath),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The entries, newest first", body = Vec<app::wire::AuditEntry>),
        NoEvent,
    )
)]
pub async fn room_changes(
    _: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Vec<AuditEntry>>> {
    let entries = read(
        &state.db,
        Some(&event_id),
        Some(OperatorAction::ChangeRoom),
        None,
        None,
        DEFAULT_LIMIT,
    )
    .await?;
    Ok(Json(entries))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecentQuery {
    /// Only this event's entries.
    event_id: Option<String>,
    /// Only this operator's or key's entries (their id).
    actor_id: Option<String>,
    /// At most this many (1 to 1,000; default 100).
    limit: Option<i64>,
}

/// `GET /api/admin/audit[?event_id=..&actor_id=..&limit=..]`: every operator action, newest
/// first.
#[utoipa::path(
    get,
    path = "/api/admin/audit",
    tag = "admin",
    summary = "Every write by any operator or key, newest first",
    params(("limit" = Option<u32>, Query, description = "How many entries, 1 to 1,000")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The entries (for a credential limited to some events, only theirs)", body = Vec<app::wire::AuditEntry>),
        (status = 400, description = "A limit that is not a number", body = app::wire::ErrorBody),
        (status = 403, description = "forbidden: out of role or scope, or an event_id outside a limited credential's events", body = app::wire::ErrorBody),
        (status = 422, description = "unprocessable: a limit out of 1 to 1,000", body = app::wire::ErrorBody),
    )
)]
pub async fn recent(
    actor: Actor,
    State(state): State<AppState>,
    Query(query): Query<RecentQuery>,
) -> Result<Json<Vec<AuditEntry>>> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::Unprocessable(format!(
            "limit is 1 to {MAX_LIMIT}, not {limit}"
        )));
    }
    // An asker limited to some events reads theirs only: a named event must be one of them,
    // and without one, only entries about their events (none of the deployment's own).
    let events = match actor.events() {
        Events::All => None,
        Events::Only(ids) => {
            if let Some(id) = &query.event_id
                && !ids.contains(id)
            {
                return Err(Error::Forbidden(format!(
                    "this credential may not read event {id}'s audit"
                )));
            }
            Some(ids)
        }
    };
    let entries = read(
        &state.db,
        query.event_id.as_deref(),
        None,
        query.actor_id.as_deref(),
        events.as_deref(),
        limit,
    )
    .await?;
    Ok(Json(entries))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(room_changes, recent))]
pub struct Api;
