//! Who may take a place in a room's line (API.md "Accounts"): the room's `identity` and
//! `eligible` settings, checked at each join before anything is stored. Invariants: in a room
//! with `identity: account`, or with any eligibility rule, a session without an account gets
//! 401 with where to sign in; an account the rule does not admit gets 403 `not_eligible`; the
//! check never calls the identity provider (an account's claims travel in its session), and a
//! list is read from Redis, else from Postgres (the list's durable home), so a Redis that lost
//! the list refuses no one wrongly. A claim counts only from the rule's issuer ([`known`]
//! refuses a rule whose issuer is not configured, or that names none where several are).

use app::wire::{BuyerId, Eligible, EventId, Identity, Room};

use crate::{
    base::Base,
    error::{Error, Result},
    tokens::session::Buyer,
};

/// Whether `buyer` may take a place in the line of `event_id`, whose room is `room`.
pub async fn check(base: &Base, room: &Room, buyer: &Buyer, event_id: &EventId) -> Result<()> {
    if room.identity == Identity::Anonymous && room.eligible.is_none() {
        return Ok(());
    }
    let Some(account) = &buyer.account else {
        return Err(Error::SignInRequired {
            event_id: event_id.to_string(),
        });
    };
    match &room.eligible {
        None => Ok(()),
        Some(Eligible::Claim {
            claim,
            value,
            issuer,
        }) if issuer
            .as_deref()
            .or(base.config.default_issuer())
            .is_some_and(|issuer| account.has("iss", issuer))
            && account.has(claim, value) =>
        {
            Ok(())
        }
        Some(Eligible::Claim { .. }) => Err(Error::NotEligible(
            "this sale is for a group your account is not in (a presale or a fan club)".into(),
        )),
        Some(Eligible::List { .. }) if on_list(base, event_id, buyer).await? => Ok(()),
        Some(Eligible::List { .. }) => Err(Error::NotEligible(
            "this sale is for the accounts on its list, and yours is not on it".into(),
        )),
    }
}

/// Refuses (422) a room whose eligibility rule names an issuer this Anteroom does not take
/// accounts from, or names none where the default is not one issuer (several ticketers, no
/// OpenID provider).
pub fn known(config: &crate::config::Config, room: &Room) -> Result<()> {
    let Some(Eligible::Claim { issuer, .. }) = &room.eligible else {
        return Ok(());
    };
    let issuers = config.account_issuers();
    match issuer {
        Some(named) if issuers.contains(&named.as_str()) => Ok(()),
        Some(named) => Err(Error::Unprocessable(format!(
            "eligible.issuer {named:?} is not a configured issuer ({})",
            issuers.join(", ")
        ))),
        // None configured: no account can match yet (the check refuses all), as with a list.
        None if config.default_issuer().is_some() || issuers.is_empty() => Ok(()),
        None => Err(Error::Unprocessable(format!(
            "several issuers are configured ({}): eligible.issuer must name one",
            issuers.join(", ")
        ))),
    }
}

/// Whether the account `buyer` is on the list of `event_id`.
async fn on_list(base: &Base, event_id: &EventId, buyer: &Buyer) -> Result<bool> {
    let listed: bool = redis::cmd("SISMEMBER")
        .arg(base.keys.eligible(event_id.as_str()))
        .arg(buyer.id.as_str())
        .query_async(&mut base.redis.clone())
        .await?;
    if listed {
        return Ok(true);
    }
    Ok(sqlx::query_scalar::<_, i32>(
        "select 1 from eligible_account where event_id = $1 and account = $2",
    )
    .bind(event_id.as_str())
    .bind(buyer.id.as_str())
    .fetch_optional(&base.db)
    .await?
    .is_some())
}

/// The most accounts one list may name (a 1 MiB upload holds about 50,000 subjects).
pub const MAX_LIST: usize = 200_000;

/// Replaces the list of `event_id` with `accounts` (account ids) inside the caller's
/// transaction; [`copy_list`] then refreshes Redis's copy once it committed.
pub async fn replace_list(
    tx: &mut sqlx::PgConnection,
    event_id: &str,
    accounts: &[BuyerId],
) -> Result<()> {
    sqlx::query("delete from eligible_account where event_id = $1")
        .bind(event_id)
        .execute(&mut *tx)
        .await?;
    for chunk in accounts.chunks(10_000) {
        let ids: Vec<&str> = chunk.iter().map(BuyerId::as_str).collect();
        sqlx::query(
            "insert into eligible_account (event_id, account) \
             select $1, unnest($2::text[]) on conflict do nothing",
        )
        .bind(event_id)
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// Redis's copy of the list: made anew under a staging key and renamed over the old one, so
/// the join's check never sees half a list (and a failure here leaves the check to Postgres).
pub async fn copy_list(base: &Base, event_id: &str, accounts: &[BuyerId]) -> Result<()> {
    let key = base.keys.eligible(event_id);
    let staging = format!("{key}:staging");
    let mut redis = base.redis.clone();
    redis::cmd("DEL")
        .arg(&staging)
        .query_async::<()>(&mut redis)
        .await?;
    for chunk in accounts.chunks(10_000) {
        redis::cmd("SADD")
            .arg(&staging)
            .arg(chunk.iter().map(BuyerId::as_str).collect::<Vec<_>>())
            .query_async::<()>(&mut redis)
            .await?;
    }
    if accounts.is_empty() {
        redis::cmd("DEL")
            .arg(&key)
            .query_async::<()>(&mut redis)
            .await?;
    } else {
        redis::cmd("RENAME")
            .arg(&staging)
            .arg(&key)
            .query_async::<()>(&mut redis)
            .await?;
    }
    Ok(())
}
