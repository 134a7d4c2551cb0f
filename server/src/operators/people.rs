//! Operator accounts (Postgres `operator`): an address, a name, a role and the events they may
//! touch; and the one-time links that enrol a passkey. The deployment keeps one admin at least.
//!
//! Invariants: one account per address (lower case; 409 otherwise); changing a person's role
//! or events, or removing them, ends every session they have, in the same transaction; an
//! enrolment link is a tagged secret kept as its hash, valid for [`ENROLMENT_MINUTES`] and
//! used at most once (the row is marked in the transaction that stores the passkey).

use app::wire::{Enrolment, Events, NewOperator, OperatorAccount, OperatorUpdate, Role};
use chrono::{DateTime, Duration, Utc};
use sqlx::{PgConnection, PgPool};

use super::{
    secret::{self, Kind},
    sessions::{self, Person},
};
use crate::{
    error::{Error, Result},
    ids::random_id,
    sql::Text,
    tokens::Sessions,
};

/// How long an enrolment link is valid.
pub const ENROLMENT_MINUTES: i64 = 15;

type Row = (
    String,
    String,
    String,
    Text<Role>,
    Option<Vec<String>>,
    DateTime<Utc>,
    i64,
    i64,
);

const SELECT: &str = "select o.id, o.email, o.name, o.role, o.events, o.created_at, \
       (select count(*) from operator_passkey p where p.operator_id = o.id), \
       (select count(*) from operator_session s where s.operator_id = o.id \
          and s.ended_at is null and s.last_seen_at > now() - interval '30 minutes' \
          and s.created_at > now() - interval '12 hours') \
     from operator o";

fn from_row(
    (id, email, name, Text(role), events, created_at, passkeys, sessions): Row,
) -> OperatorAccount {
    OperatorAccount {
        id,
        email,
        name,
        role,
        events: Events::from_list(events),
        created_at,
        passkeys,
        sessions,
    }
}

/// Adds an account (`new` already validated); `from_company` when the company's sign-in makes
/// it (its role then follows the provider's claim at every sign-in).
pub async fn add(
    db: &mut PgConnection,
    new: &NewOperator,
    from_company: bool,
) -> Result<OperatorAccount> {
    let id = format!("op_{}", random_id(9));
    let added = sqlx::query(
        "insert into operator (id, email, name, role, events, from_company) \
         values ($1, $2, $3, $4, $5, $6) on conflict (email) do nothing",
    )
    .bind(&id)
    .bind(&new.email)
    .bind(new.name.trim())
    .bind(Text(new.role))
    .bind(new.events.as_list())
    .bind(from_company)
    .execute(&mut *db)
    .await?;
    if added.rows_affected() == 0 {
        return Err(Error::Conflict(format!(
            "an operator with the address {} exists",
            new.email
        )));
    }
    get(db, &id)
        .await?
        .ok_or_else(|| Error::Internal("an operator just added is gone".into()))
}

/// Every account, by address.
pub async fn list(db: &PgPool) -> Result<Vec<OperatorAccount>> {
    let rows: Vec<Row> = sqlx::query_as(&format!("{SELECT} order by o.email limit 10000"))
        .fetch_all(db)
        .await?;
    Ok(rows.into_iter().map(from_row).collect())
}

/// Account `id`.
pub async fn get(db: &mut PgConnection, id: &str) -> Result<Option<OperatorAccount>> {
    let row: Option<Row> = sqlx::query_as(&format!("{SELECT} where o.id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await?;
    Ok(row.map(from_row))
}

/// The person with address `email` (lower case), if any.
pub async fn by_email(db: &mut PgConnection, email: &str) -> Result<Option<Person>> {
    person(db, "email", email).await
}

/// The person with id `id`, if any.
pub async fn by_id(db: &mut PgConnection, id: &str) -> Result<Option<Person>> {
    person(db, "id", id).await
}

type PersonRow = (String, String, String, Text<Role>, Option<Vec<String>>);

/// The person whose `column` (`id` or `email`) is `value`.
async fn person(db: &mut PgConnection, column: &str, value: &str) -> Result<Option<Person>> {
    let row: Option<PersonRow> = sqlx::query_as(&format!(
        "select id, email, name, role, events from operator where {column} = $1"
    ))
    .bind(value)
    .fetch_optional(db)
    .await?;
    Ok(row.map(|(id, email, name, Text(role), events)| Person {
        id,
        email,
        name,
        role,
        events: Events::from_list(events),
    }))
}

/// Whether the company's sign-in made account `id` (its role then follows the claim).
pub async fn from_company(db: &mut PgConnection, id: &str) -> Result<bool> {
    let made: Option<bool> = sqlx::query_scalar("select from_company from operator where id = $1")
        .bind(id)
        .fetch_optional(db)
        .await?;
    Ok(made.unwrap_or(false))
}

/// Refuses (409) to leave the deployment without an admin: `id`, an admin, is about to stop
/// being one. Locks the admins' rows, so two admins cannot demote each other at once.
async fn keep_an_admin(db: &mut PgConnection, id: &str) -> Result<()> {
    let admins: Vec<String> =
        sqlx::query_scalar("select id from operator where role = 'admin' for update")
            .fetch_all(db)
            .await?;
    if admins.iter().all(|a| a == id) && !admins.is_empty() {
        return Err(Error::Conflict(
            "that is the last admin: make another admin first".into(),
        ));
    }
    Ok(())
}

/// Changes account `id` as `update` asks (validated); the account before and after, or
/// `None` when there is no such account. A new role or new events end their sessions; the last
/// admin stays an admin (409).
pub async fn update(
    db: &mut PgConnection,
    id: &str,
    update: &OperatorUpdate,
) -> Result<Option<(OperatorAccount, OperatorAccount)>> {
    let Some(before) = get(db, id).await? else {
        return Ok(None);
    };
    if before.role == Role::Admin && update.role.is_some_and(|r| r != Role::Admin) {
        keep_an_admin(db, id).await?;
    }
    let events = update.events.as_ref().unwrap_or(&before.events);
    sqlx::query("update operator set name = $2, role = $3, events = $4 where id = $1")
        .bind(id)
        .bind(
            update
                .name
                .as_deref()
                .map_or(before.name.as_str(), str::trim),
        )
        .bind(Text(update.role.unwrap_or(before.role)))
        .bind(events.as_list())
        .execute(&mut *db)
        .await?;
    if update.role.is_some_and(|r| r != before.role) || *events != before.events {
        sessions::end_all_of(db, id).await?;
    }
    let after = get(db, id)
        .await?
        .ok_or_else(|| Error::Internal("an operator just changed is gone".into()))?;
    Ok(Some((before, after)))
}

/// Removes account `id` (its passkeys, links and sessions go with it); the account as it was.
/// The last admin stays (409).
pub async fn remove(db: &mut PgConnection, id: &str) -> Result<Option<OperatorAccount>> {
    let Some(before) = get(db, id).await? else {
        return Ok(None);
    };
    if before.role == Role::Admin {
        keep_an_admin(db, id).await?;
    }
    sessions::end_all_of(db, id).await?;
    sqlx::query("delete from operator where id = $1")
        .bind(id)
        .execute(db)
        .await?;
    Ok(Some(before))
}

/// A new one-time link that enrols a passkey for operator `id`, on this Anteroom at `base`.
/// The secret rides in the fragment (`#...`), which browsers never send to a server, so it
/// lands in no access log and no `Referer`.
pub async fn enrolment(
    db: &mut PgConnection,
    sessions: &Sessions,
    id: &str,
    base: &str,
) -> Result<Enrolment> {
    let minted = secret::mint(sessions, Kind::Enrolment);
    let expires_at = Utc::now() + Duration::minutes(ENROLMENT_MINUTES);
    sqlx::query(
        "insert into operator_enrolment (token_hash, operator_id, expires_at) values ($1, $2, $3)",
    )
    .bind(&minted.hash)
    .bind(id)
    .bind(expires_at)
    .execute(db)
    .await?;
    Ok(Enrolment {
        url: format!("{base}/admin/enrol#{}", minted.value),
        expires_at,
    })
}

/// The person an unused, unexpired enrolment link `value` is for; with `take`, the link is
/// used up (call it in the transaction that stores the passkey).
pub async fn enrolling(
    db: &mut PgConnection,
    sessions: &Sessions,
    value: &str,
    take: bool,
) -> Result<Option<Person>> {
    let Some(hash) = secret::check(sessions, Kind::Enrolment, value) else {
        return Ok(None);
    };
    let operator_id: Option<String> = if take {
        sqlx::query_scalar(
            "update operator_enrolment set used_at = now() \
             where token_hash = $1 and used_at is null and expires_at > now() \
             returning operator_id",
        )
        .bind(&hash)
        .fetch_optional(&mut *db)
        .await?
    } else {
        sqlx::query_scalar(
            "select operator_id from operator_enrolment \
             where token_hash = $1 and used_at is null and expires_at > now()",
        )
        .bind(&hash)
        .fetch_optional(&mut *db)
        .await?
    };
    match operator_id {
        Some(id) => person(db, "id", &id).await,
        None => Ok(None),
    }
}
