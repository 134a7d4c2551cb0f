//! Operators' sessions, kept on the server (Postgres): a random secret in the `__Host-` cookie
//! (`secret::Kind::Session`), the row under its hash.
//!
//! Invariants: a session is valid while it is not ended, was created less than [`ABSOLUTE`]
//! ago and was used less than [`IDLE`] ago; every instance reads the same rows, so signing
//! out (or an admin ending a session, or a change of the person's role or events) ends it on
//! every instance at once; a use writes `last_seen_at` at most once per [`TOUCH_EVERY`], so a
//! panel polling each second costs one read, not a write; `authenticated_at` moves only when
//! the person proves themselves again (a passkey or the company's sign-in), which is what a
//! step-up asks for.

use app::wire::{Events, OperatorSession, Role};
use chrono::{DateTime, Utc};
use sqlx::{PgConnection, PgPool};

use super::secret::{self, Kind};
use crate::{error::Result, sql::Text, tokens::Sessions};

/// A session unused this long has ended.
pub const IDLE_MINUTES: i64 = 30;
/// A session this old has ended, however busy.
pub const ABSOLUTE_HOURS: i64 = 12;
/// How seldom a use is written down.
const TOUCH_EVERY_SECS: i64 = 60;

/// The person a valid session belongs to, as the guard needs them.
#[derive(Clone, Debug)]
pub struct Person {
    pub id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub events: Events,
}

impl Person {
    /// The audit's words for them, signed in `via` from `client`:
    /// `Ada <ada@example.org> (admin, passkey) from 10.0.0.7`.
    pub fn label(&self, via: &str, client: impl std::fmt::Display) -> String {
        format!(
            "{} <{}> ({}, {via}) from {client}",
            self.name,
            self.email,
            self.role.as_str()
        )
    }
}

/// A valid session.
#[derive(Clone, Debug)]
pub struct Found {
    /// The session's public id (the SHA-256 of the cookie, base64url).
    pub id: String,
    pub person: Person,
    /// `passkey` or `oidc`.
    pub via: String,
    pub authenticated_at: DateTime<Utc>,
}

/// Starts a session for operator `operator_id`: the cookie's value to hand over, and the
/// session's public id.
pub async fn start(
    db: &mut PgConnection,
    sessions: &Sessions,
    operator_id: &str,
    via: &str,
    address: &str,
) -> Result<(String, String)> {
    let minted = secret::mint(sessions, Kind::Session);
    let id = secret::public_id(&minted.hash);
    sqlx::query(
        "insert into operator_session (id, operator_id, via, address) values ($1, $2, $3, $4)",
    )
    .bind(&id)
    .bind(operator_id)
    .bind(via)
    .bind(address)
    .execute(db)
    .await?;
    Ok((minted.value, id))
}

type FoundRow = (
    String,
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    String,
    String,
    String,
    Text<Role>,
    Option<Vec<String>>,
);

/// The valid session whose cookie hashes to `hash`, if any.
pub async fn find(db: &PgPool, hash: &[u8]) -> Result<Option<Found>> {
    let id = secret::public_id(hash);
    let row: Option<FoundRow> = sqlx::query_as(
        "select s.id, s.via, s.authenticated_at, s.last_seen_at, \
                o.id, o.email, o.name, o.role, o.events \
         from operator_session s join operator o on o.id = s.operator_id \
         where s.id = $1 and s.ended_at is null \
           and s.created_at > now() - make_interval(hours => $2) \
           and s.last_seen_at > now() - make_interval(mins => $3)",
    )
    .bind(&id)
    .bind(ABSOLUTE_HOURS as i32)
    .bind(IDLE_MINUTES as i32)
    .fetch_optional(db)
    .await?;
    let Some((id, via, authenticated_at, last_seen, op_id, email, name, Text(role), events)) = row
    else {
        return Ok(None);
    };
    if (Utc::now() - last_seen).num_seconds() >= TOUCH_EVERY_SECS {
        sqlx::query("update operator_session set last_seen_at = now() where id = $1")
            .bind(&id)
            .execute(db)
            .await?;
    }
    Ok(Some(Found {
        id,
        person: Person {
            id: op_id,
            email,
            name,
            role,
            events: Events::from_list(events),
        },
        via,
        authenticated_at,
    }))
}

/// The person proved themselves again in session `id` (a step-up).
pub async fn stepped_up(db: &mut PgConnection, id: &str) -> Result<()> {
    sqlx::query(
        "update operator_session set authenticated_at = now(), last_seen_at = now() \
         where id = $1 and ended_at is null",
    )
    .bind(id)
    .execute(db)
    .await?;
    Ok(())
}

/// Ends session `id`; whether it was running.
pub async fn end(db: &mut PgConnection, id: &str) -> Result<bool> {
    let done = sqlx::query(
        "update operator_session set ended_at = now() where id = $1 and ended_at is null",
    )
    .bind(id)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Ends every session of operator `operator_id` (their role or events changed, or they were
/// removed); how many were running.
pub async fn end_all_of(db: &mut PgConnection, operator_id: &str) -> Result<u64> {
    let done = sqlx::query(
        "update operator_session set ended_at = now() \
         where operator_id = $1 and ended_at is null",
    )
    .bind(operator_id)
    .execute(db)
    .await?;
    Ok(done.rows_affected())
}

type ListRow = (
    String,
    String,
    String,
    String,
    String,
    String,
    DateTime<Utc>,
    DateTime<Utc>,
    DateTime<Utc>,
);

/// Every valid session, most recently used first; `current` is the asker's.
pub async fn list(db: &PgPool, current: Option<&str>) -> Result<Vec<OperatorSession>> {
    let rows: Vec<ListRow> = sqlx::query_as(
        "select s.id, o.id, o.email, o.name, s.via, s.address, \
                s.created_at, s.last_seen_at, s.authenticated_at \
         from operator_session s join operator o on o.id = s.operator_id \
         where s.ended_at is null \
           and s.created_at > now() - make_interval(hours => $1) \
           and s.last_seen_at > now() - make_interval(mins => $2) \
         order by s.last_seen_at desc limit 1000",
    )
    .bind(ABSOLUTE_HOURS as i32)
    .bind(IDLE_MINUTES as i32)
    .fetch_all(db)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(id, operator_id, email, name, via, address, created_at, last_seen_at, auth)| {
                OperatorSession {
                    current: current == Some(id.as_str()),
                    id,
                    operator_id,
                    email,
                    name,
                    via,
                    address,
                    created_at,
                    last_seen_at,
                    authenticated_at: auth,
                }
            },
        )
        .collect())
}
