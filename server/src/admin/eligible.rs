//! `PUT /api/admin/events/{id}/eligible`: the operator uploads the accounts a room with
//! `eligible: {"list": true}` admits, as CSV (API.md "Accounts"): one account a line, its
//! subject, or `issuer,subject`. A bare subject is taken only where one issuer is configured
//! (the OpenID provider or a ticketer): with several, it could name two people (422). Invariants: the list is stored hashed (account ids,
//! never the subjects), replaces the one before whole, and commits with its audit entry; a
//! list that does not read changes nothing.

use app::wire::{EventId as Event, OperatorAction};
use axum::{Json, body::Bytes, extract::State};
use serde_json::{Value, json};

use super::audit::{self, Entry};
use crate::{
    accounts::eligible::{MAX_LIST, copy_list, replace_list},
    error::{Error, Result},
    extract::EventId,
    operators::Actor,
    responses::{CheckedBody, NoEvent},
    state::AppState,
};

#[utoipa::path(
    put,
    path = "/api/admin/events/{event_id}/eligible",
    tag = "admin",
    summary = "Replace the list of eligible accounts (a CSV of subjects, stored hashed)",
    params(crate::extract::EventPath),
    request_body(content = String, content_type = "text/csv", description = "The eligible accounts' subjects, one a line"),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "How many were stored", body = Object),
        CheckedBody, NoEvent,
    )
)]
pub async fn put_list(
    actor: Actor,
    State(state): State<AppState>,
    EventId(event_id): EventId,
    body: Bytes,
) -> Result<Json<Value>> {
    let text = std::str::from_utf8(&body)
        .map_err(|_| Error::Unprocessable("the list must be UTF-8 text (CSV)".into()))?;
    let issuers = state.config.account_issuers();
    if issuers.is_empty() {
        return Err(Error::Unprocessable(
            "no sign-in is configured (ANTEROOM_OIDC_ISSUER or ANTEROOM_TICKETERS): no account \
             could ever be on the list"
                .into(),
        ));
    }
    let mut accounts = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || (n == 0 && line.eq_ignore_ascii_case("subject")) {
            continue;
        }
        let (named, subject) = match line.split_once(',') {
            Some((issuer, subject)) => (Some(issuer.trim()), subject.trim()),
            None => (None, line),
        };
        if subject.is_empty() || subject.len() > 255 || subject.contains(',') {
            return Err(Error::Unprocessable(format!(
                "line {}: a subject, or issuer,subject (at most 255 bytes)",
                n + 1
            )));
        }
        match named {
            Some(issuer) if issuers.contains(&issuer) => {
                accounts.push(state.sessions.account_id(issuer, subject));
            }
            Some(issuer) => {
                return Err(Error::Unprocessable(format!(
                    "line {}: {issuer:?} is not a configured issuer",
                    n + 1
                )));
            }
            // A bare subject is one account only where one issuer is configured: "alice" at a
            // ticketer and "alice" at the provider may be two people.
            None => match issuers.as_slice() {
                [only] => accounts.push(state.sessions.account_id(only, subject)),
                _ => {
                    return Err(Error::Unprocessable(format!(
                        "line {}: several issuers are configured ({}): write issuer,subject",
                        n + 1,
                        issuers.join(", ")
                    )));
                }
            },
        }
        if accounts.len() > MAX_LIST {
            return Err(Error::Unprocessable(format!(
                "a list names at most {MAX_LIST} accounts"
            )));
        }
    }
    accounts.sort_unstable_by(|a, b| a.as_str().cmp(b.as_str()));
    accounts.dedup();
    let mut tx = state.db.begin().await?;
    crate::events::room::lock_event(&mut tx, &event_id).await?;
    replace_list(&mut tx, &event_id, &accounts).await?;
    let count = json!({ "accounts": accounts.len() });
    let entry = Entry::by(&actor, OperatorAction::SetEligible, Some(&event_id)).change(&count);
    audit::commit(tx, entry).await?;
    if let Err(e) = copy_list(&state.base, &event_id, &accounts).await {
        // The join's check reads Postgres when Redis does not name an account.
        tracing::warn!(event = %Event::from(event_id.clone()), error = %e, "could not copy the eligible list to Redis");
    }
    Ok(Json(count))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(put_list))]
pub struct Api;
