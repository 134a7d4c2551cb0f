//! The operator's audit: one row in `operator_action` for every operator write, with who
//! (`actor`), when, what was asked (`change`), and the state before and after. Invariant: an
//! entry is written by [`record`] inside the write's own transaction, so the audit and the
//! data never disagree. Read back newest first: `GET /api/admin/audit` (every action, or one
//! event's) and `GET /api/admin/events/{id}/audit` (one event's room changes, as the dashboard
//! shows them).

use app::wire::{AuditEntry, OperatorAction};
use axum::{
    Json,
    extract::{Query, State},
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, PgPool};

use crate::{
    error::{Error, Result},
    extract::EventId,
    sql::Text,
    state::AppState,
    tokens::Admin,
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
    /// Who: [`super::Operator::actor`].
    pub actor: &'a str,
    /// What was asked.
    pub change: Value,
    /// The state before the write (none for a creation or a sign-in).
    pub before: Option<Value>,
    /// The state after the write.
    pub after: Option<Value>,
}

/// Writes `entry` in the caller's transaction `tx` (commit it with the write it describes).
pub async fn record(tx: &mut PgConnection, entry: Entry<'_>) -> Result<()> {
    sqlx::query(
        "insert into operator_action (action, event_id, actor, change, before, after) \
         values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(Text(entry.action))
    .bind(entry.event_id)
    .bind(entry.actor)
    .bind(&entry.change)
    .bind(&entry.before)
    .bind(&entry.after)
    .execute(tx)
    .await?;
    Ok(())
}

/// Any serializable state as the audit's JSON.
pub fn json(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

type Row = (
    Text<OperatorAction>,
    Option<String>,
    String,
    Option<Value>,
    Option<Value>,
    Option<Value>,
    DateTime<Utc>,
);

/// Entries newest first, of one event or of all (`event_id` None), of one action or of all.
async fn read(
    db: &PgPool,
    event_id: Option<&str>,
    action: Option<OperatorAction>,
    limit: i64,
) -> Result<Vec<AuditEntry>> {
    let rows: Vec<Row> = sqlx::query_as(
        "select action, event_id, actor, change, before, after, created_at \
         from operator_action \
         where ($1::text is null or event_id = $1) and ($2::text is null or action = $2) \
         order by created_at desc, id desc limit $3",
    )
    .bind(event_id)
    .bind(action.map(Text))
    .bind(limit)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(Text(action), event_id, actor, change, before, after, at)| AuditEntry {
                action,
                event_id,
                actor,
                change: change.unwrap_or(Value::Null),
                before,
                after,
                at,
            },
        )
        .collect())
}

/// `GET /api/admin/events/{id}/audit`: the event's room changes, newest first (the last 100).
pub async fn room_changes(
    _: Admin,
    State(state): State<AppState>,
    EventId(event_id): EventId,
) -> Result<Json<Vec<AuditEntry>>> {
    let entries = read(
        &state.db,
        Some(&event_id),
        Some(OperatorAction::ChangeRoom),
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
    /// At most this many (1 to 1,000; default 100).
    limit: Option<i64>,
}

/// `GET /api/admin/audit[?event_id=..&limit=..]`: every operator action, newest first.
pub async fn recent(
    _: Admin,
    State(state): State<AppState>,
    Query(query): Query<RecentQuery>,
) -> Result<Json<Vec<AuditEntry>>> {
    let limit = query.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::Unprocessable(format!(
            "limit is 1 to {MAX_LIMIT}, not {limit}"
        )));
    }
    let entries = read(&state.db, query.event_id.as_deref(), None, limit).await?;
    Ok(Json(entries))
}
