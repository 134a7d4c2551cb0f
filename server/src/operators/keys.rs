//! API keys for automation (API.md "Operators"): `Authorization: Bearer ak_...`, scoped
//! (`app::wire::Scope`), limited to all events or a list, with an expiry.
//!
//! Invariants: the secret is shown once, in the answer that creates it, and kept only as its
//! SHA-256; a key made up or copied from another deployment is refused before any query
//! (`secret::check`); a revoked or expired key is refused like an unknown one; a use writes
//! `last_used_at` at most once a minute; a key never manages operators, sessions or keys; the
//! keys a person made are revoked when the person is removed ([`revoke_made_by`]).

use app::wire::{ApiKey, ApiKeyCreated, Events, NewApiKey, Scope};
use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, PgPool};

use super::secret::{self, Kind};
use crate::{error::Result, ids::random_id, tokens::Sessions};

/// A valid key, as the guard needs it.
#[derive(Clone, Debug)]
pub struct Found {
    pub id: String,
    pub name: String,
    pub scopes: Vec<Scope>,
    pub events: Events,
}

/// Creates a key as `new` asks, on behalf of `created_by` (the audit's words for the asker),
/// made by the operator `made_by` when a person asks (removing them revokes it).
pub async fn create(
    db: &mut PgConnection,
    sessions: &Sessions,
    new: &NewApiKey,
    created_by: &str,
    made_by: Option<&str>,
) -> Result<ApiKeyCreated> {
    let minted = secret::mint(sessions, Kind::ApiKey);
    let id = format!("key_{}", random_id(9));
    let mut scopes = new.scopes.clone();
    scopes.sort();
    scopes.dedup();
    let words: Vec<&str> = scopes.iter().map(|s| s.as_str()).collect();
    let expires_at = Utc::now() + Duration::days(i64::from(new.days()));
    let created_at: DateTime<Utc> = sqlx::query_scalar(
        "insert into api_key \
           (id, secret_hash, name, scopes, events, created_by, expires_at, made_by) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning created_at",
    )
    .bind(&id)
    .bind(&minted.hash)
    .bind(new.name.trim())
    .bind(&words)
    .bind(new.events.as_list())
    .bind(created_by)
    .bind(expires_at)
    .bind(made_by)
    .fetch_one(db)
    .await?;
    Ok(ApiKeyCreated {
        key: ApiKey {
            id,
            name: new.name.trim().to_owned(),
            scopes,
            events: new.events.clone(),
            created_by: created_by.to_owned(),
            created_at,
            expires_at: Some(expires_at),
            last_used_at: None,
            revoked_at: None,
        },
        secret: minted.value,
    })
}

type FoundRow = (
    String,
    String,
    Vec<String>,
    Option<Vec<String>>,
    Option<DateTime<Utc>>,
);

/// The valid key `value`, if it is one (no query at all for a value this deployment did not
/// make).
pub async fn find(db: &PgPool, sessions: &Sessions, value: &str) -> Result<Option<Found>> {
    let Some(hash) = secret::check(sessions, Kind::ApiKey, value) else {
        return Ok(None);
    };
    let row: Option<FoundRow> = sqlx::query_as(
        "select id, name, scopes, events, last_used_at from api_key \
             where secret_hash = $1 and revoked_at is null \
               and (expires_at is null or expires_at > now())",
    )
    .bind(&hash)
    .fetch_optional(db)
    .await?;
    let Some((id, name, scopes, events, last_used)) = row else {
        return Ok(None);
    };
    if last_used.is_none_or(|t| (Utc::now() - t).num_seconds() >= 60) {
        sqlx::query("update api_key set last_used_at = now() where id = $1")
            .bind(&id)
            .execute(db)
            .await?;
    }
    Ok(Some(Found {
        id,
        name,
        scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        events: Events::from_list(events),
    }))
}

type Row = (
    String,
    String,
    Vec<String>,
    Option<Vec<String>>,
    String,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

/// Every key, newest first (revoked and expired ones included, for the record).
pub async fn list(db: &PgPool) -> Result<Vec<ApiKey>> {
    let rows: Vec<Row> = sqlx::query_as(
        "select id, name, scopes, events, created_by, created_at, expires_at, last_used_at, \
                revoked_at \
         from api_key order by created_at desc, id limit 1000",
    )
    .fetch_all(db)
    .await?;
    Ok(rows.into_iter().map(from_row).collect())
}

fn from_row(
    (id, name, scopes, events, created_by, created_at, expires_at, last_used_at, revoked_at): Row,
) -> ApiKey {
    ApiKey {
        id,
        name,
        scopes: scopes.iter().filter_map(|s| Scope::parse(s)).collect(),
        events: Events::from_list(events),
        created_by,
        created_at,
        expires_at,
        last_used_at,
        revoked_at,
    }
}

/// Revokes key `id`; the key as it was before, if it existed and was not revoked yet.
pub async fn revoke(db: &mut PgConnection, id: &str) -> Result<Option<ApiKey>> {
    let row: Option<Row> = sqlx::query_as(
        "update api_key set revoked_at = now() where id = $1 and revoked_at is null \
         returning id, name, scopes, events, created_by, created_at, expires_at, \
                   last_used_at, null::timestamptz",
    )
    .bind(id)
    .fetch_optional(db)
    .await?;
    Ok(row.map(from_row))
}

/// Revokes every live key operator `id` made; their ids.
pub async fn revoke_made_by(db: &mut PgConnection, id: &str) -> Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "update api_key set revoked_at = now() where made_by = $1 and revoked_at is null \
         returning id",
    )
    .bind(id)
    .fetch_all(db)
    .await?)
}
