//! Bootstrap from a shell, without any shared secret (API.md "Operators"):
//! `anteroom operators add --email ... --role admin` prints a one-time enrolment link (15
//! minutes), `anteroom keys add --scope ... --events all|<ids> [--expires-in 30d]` prints a
//! new API key once. Whoever runs them holds the deployment's database and session secret
//! already. Each write is audited as the command line's, like the API's.

use app::wire::{
    ApiKeyCreated, Enrolment, Events, NewApiKey, NewOperator, OperatorAccount, OperatorAction,
    Role, Scope,
};
use serde_json::json;
use sqlx::PgPool;

use super::{keys, people};
use crate::{
    admin::audit::{self, Entry},
    config::Config,
    error::{Error, Result},
    tokens::Sessions,
};

/// The audit's words for a change made from the command line.
fn actor(command: &str) -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "this host".into());
    format!("command line (anteroom {command}) on {host}")
}

/// Reads `all` or a comma-separated list of event ids.
pub fn parse_events(text: &str) -> std::result::Result<Events, String> {
    if text == "all" {
        return Ok(Events::All);
    }
    let events = Events::Only(text.split(',').map(|s| s.trim().to_owned()).collect());
    events.validate().map_err(|e| e.message)?;
    Ok(events)
}

/// Reads a role's word.
pub fn parse_role(text: &str) -> std::result::Result<Role, String> {
    Role::parse(text).ok_or_else(|| format!("a role is viewer, operator or admin, not {text}"))
}

/// Reads a scope's word.
pub fn parse_scope(text: &str) -> std::result::Result<Scope, String> {
    Scope::parse(text).ok_or_else(|| {
        let all: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
        format!("a scope is one of {}, not {text}", all.join(", "))
    })
}

/// Reads `30d` (or a bare number of days).
pub fn parse_days(text: &str) -> std::result::Result<u32, String> {
    text.trim_end_matches('d')
        .parse()
        .map_err(|_| format!("an expiry is a number of days like 30d, not {text}"))
}

/// `anteroom operators add`: the account (made now, or found with that address) and a new
/// enrolment link for it; whether it was made now.
pub async fn add_operator(
    db: &PgPool,
    sessions: &Sessions,
    config: &Config,
    mut new: NewOperator,
) -> Result<(OperatorAccount, Enrolment, bool)> {
    new.validate()?;
    let label = actor("operators add");
    let mut tx = db.begin().await?;
    let (account, created) = match people::add(&mut tx, &new).await {
        Ok(account) => (account, true),
        Err(Error::Conflict(_)) => {
            let found = people::by_email(&mut tx, &new.email)
                .await?
                .ok_or_else(|| Error::Internal("an operator vanished".into()))?;
            let account = people::get(&mut tx, &found.id)
                .await?
                .ok_or_else(|| Error::Internal("an operator vanished".into()))?;
            (account, false)
        }
        Err(e) => return Err(e),
    };
    let link = people::enrolment(&mut tx, sessions, &account.id, &config.public_base(None)).await?;
    if created {
        let entry = Entry {
            action: OperatorAction::AddOperator,
            event_id: None,
            actor: &label,
            actor_id: None,
            change: audit::json(&new),
            before: None,
            after: Some(audit::json(&account)),
        };
        audit::record(&mut tx, entry).await?;
    }
    let entry = Entry {
        action: OperatorAction::Enrol,
        event_id: None,
        actor: &label,
        actor_id: None,
        change: json!({"operator_id": account.id, "link_expires_at": link.expires_at}),
        before: None,
        after: None,
    };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok((account, link, created))
}

/// `anteroom keys add`: a new key, its secret shown this once.
pub async fn add_key(db: &PgPool, sessions: &Sessions, new: NewApiKey) -> Result<ApiKeyCreated> {
    new.validate()?;
    let label = actor("keys add");
    let mut tx = db.begin().await?;
    let created = keys::create(&mut tx, sessions, &new, &label).await?;
    let entry = Entry {
        action: OperatorAction::AddKey,
        event_id: None,
        actor: &label,
        actor_id: None,
        change: audit::json(&new),
        before: None,
        after: Some(audit::json(&created.key)),
    };
    audit::record(&mut tx, entry).await?;
    tx.commit().await?;
    Ok(created)
}
