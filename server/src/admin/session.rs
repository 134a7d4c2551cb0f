//! `/api/admin/session`: the dashboard signs in with the admin token and gets a signed,
//! HttpOnly cookie (the credential and its cookie are `tokens::admin`'s). A sign-in and a
//! signed-in sign-out are audited; a refused sign-in is only logged, so that nobody without
//! the token can make the audit grow.

use app::wire::OperatorAction;
use axum::{Json, extract::State, http::HeaderMap, response::Response};
use serde::Deserialize;
use serde_json::Value;
use std::time::Duration;

use super::{
    Operator,
    audit::{self, Entry},
};
use crate::{
    client::Client,
    error::{Error, Result},
    extract::ApiJson,
    redis::ratelimit,
    state::AppState,
    tokens::{Admin, admin},
};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignIn {
    token: String,
}

/// `POST /api/admin/session {"token"}`: the dashboard's cookie for the admin token.
pub async fn sign_in(
    State(state): State<AppState>,
    client: Client,
    ApiJson(body): ApiJson<SignIn>,
) -> Result<Response> {
    ratelimit::check(
        &state,
        "admin-sign-in",
        &client.address(),
        state.config.admin_sign_ins_per_minute,
        Duration::from_secs(60),
    )
    .await?;
    if !admin::is_admin_token(&state, body.token.trim()) {
        tracing::warn!(%client, "refused an admin sign-in");
        return Err(Error::Unauthorized("that is not the admin token".into()));
    }
    let operator = Operator::new("dashboard", client);
    audit_session(&state, &operator, OperatorAction::SignIn).await?;
    Ok(admin::signed_in(&state))
}

/// `GET /api/admin/session`: 200 for the operator, 401 otherwise.
pub async fn whoami(admin: Admin) -> Json<Value> {
    Json(serde_json::json!({"admin": true, "via": admin.via}))
}

/// `DELETE /api/admin/session`: clears the cookie (for anyone; audited for the operator).
pub async fn sign_out(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
) -> Result<Response> {
    if let Some(via) = admin::admin_via(&state, &headers) {
        let operator = Operator::new(via, client);
        audit_session(&state, &operator, OperatorAction::SignOut).await?;
    }
    Ok(admin::signed_out(&state))
}

async fn audit_session(
    state: &AppState,
    operator: &Operator,
    action: OperatorAction,
) -> Result<()> {
    let mut conn = state.db.acquire().await?;
    let entry = Entry {
        action,
        event_id: None,
        actor: &operator.actor,
        change: Value::Null,
        before: None,
        after: None,
    };
    audit::record(&mut conn, entry).await
}
