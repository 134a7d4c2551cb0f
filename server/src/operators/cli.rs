//! Bootstrap from a shell, without any shared secret (API.md "Operators"):
//! `anteroom operators add --email ... --role admin` prints a one-time enrolment link (15
//! minutes), `anteroom keys add --scope ... --events all|<ids> [--expires-in 30d]` prints a
//! new API key once. Whoever runs them holds the deployment's database and session secret
//! already. Each write is audited as the command line's, like the API's.

use app::wire::{
    ApiKeyCreated, Enrolment, NewApiKey, NewOperator, OperatorAccount, OperatorAction,
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
    let (account, created) = match people::add(&mut tx, &new, false).await {
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
        let entry = Entry::labelled(&label, None, OperatorAction::AddOperator)
            .change(&new)
            .after(&account);
        audit::record(&mut tx, entry).await?;
    }
    let entry = Entry::labelled(&label, None, OperatorAction::Enrol)
        .change(&json!({"operator_id": account.id, "link_expires_at": link.expires_at}));
    audit::commit(tx, entry).await?;
    Ok((account, link, created))
}

/// `anteroom keys add`: a new key, its secret shown this once.
pub async fn add_key(db: &PgPool, sessions: &Sessions, new: NewApiKey) -> Result<ApiKeyCreated> {
    new.validate()?;
    let label = actor("keys add");
    let mut tx = db.begin().await?;
    let created = keys::create(&mut tx, sessions, &new, &label, None).await?;
    let entry = Entry::labelled(&label, None, OperatorAction::AddKey)
        .change(&new)
        .after(&created.key);
    audit::commit(tx, entry).await?;
    Ok(created)
}
