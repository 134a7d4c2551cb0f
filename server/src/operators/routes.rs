//! The operator-management endpoints (API.md "Operators"): who am I, the accounts and their
//! enrolment links, the sessions, the API keys, and signing out. Each admin one is guarded by
//! its permission in `admin::routes`; each write commits with its audit entry; adding an
//! operator, a key or an enrolment link needs a step-up (a sign-in in the last 300 s).

use app::wire::{
    ApiKey, ApiKeyCreated, Enrolment, NewApiKey, NewOperator, OperatorAccount, OperatorAction,
    OperatorSession, OperatorUpdate, SignInMethods, Whoami,
};
use axum::{
    Json, Router,
    extract::{Path, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
    routing::{get, post},
};
use serde_json::json;

use super::{Actor, keys, passkeys, people, sessions};
use crate::{
    admin::audit::{self, Entry},
    client::Client,
    error::{Error, Result},
    extract::ApiJson,
    responses::{CheckedBody, NoOperator},
    state::AppState,
    tokens::cookies::Cookie,
};

/// The operator's own routes outside `/api/admin`: passkey ceremonies and signing out (each
/// checks what it needs itself: an enrolment link, a passkey, the session's cookie).
pub fn router() -> Router<AppState> {
    Router::new()
        .route(
            "/api/operator/passkey/register/start",
            post(passkeys::register_start),
        )
        .route(
            "/api/operator/passkey/register/finish",
            post(passkeys::register_finish),
        )
        .route(
            "/api/operator/passkey/authenticate/start",
            post(passkeys::authenticate_start),
        )
        .route(
            "/api/operator/passkey/authenticate/finish",
            post(passkeys::authenticate_finish),
        )
        .route("/api/operator/sign-out", post(sign_out))
        .route("/api/operator/sign-in-methods", get(methods))
        .route("/operator/sign-in", get(super::oidc::start))
        .route("/operator/callback", get(super::oidc::callback))
}

/// `GET /api/operator/sign-in-methods`: which sign-ins this Anteroom offers (the dashboard
/// shows those).
#[utoipa::path(
    get,
    path = "/api/operator/sign-in-methods",
    tag = "operators",
    summary = "How operators may sign in here",
    responses(
        (status = 200, description = "The methods", body = app::wire::SignInMethods),
    )
)]
async fn methods(State(state): State<AppState>) -> Json<SignInMethods> {
    Json(SignInMethods {
        passkeys: state.staff.passkeys.is_some(),
        company: state.staff.company.is_some(),
    })
}

/// `GET /api/admin/session`.
#[utoipa::path(
    get,
    path = "/api/admin/session",
    tag = "operators",
    summary = "Who is signed in, with what role and scope",
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The operator or key", body = app::wire::Whoami),
    )
)]
pub async fn whoami(actor: Actor) -> Json<Whoami> {
    Json(actor.whoami())
}

/// `GET /api/admin/operators`.
#[utoipa::path(
    get,
    path = "/api/admin/operators",
    tag = "operators",
    summary = "Every operator",
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The operators", body = Vec<app::wire::OperatorAccount>),
    )
)]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<OperatorAccount>>> {
    Ok(Json(people::list(&state.db).await?))
}

/// `POST /api/admin/operators`.
#[utoipa::path(
    post,
    path = "/api/admin/operators",
    tag = "operators",
    summary = "Add an operator",
    request_body = app::wire::NewOperator,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "Added", body = app::wire::OperatorAccount),
        (status = 409, description = "conflict: that email is taken", body = app::wire::ErrorBody),
        CheckedBody,
    )
)]
pub async fn add(
    actor: Actor,
    State(state): State<AppState>,
    ApiJson(mut new): ApiJson<NewOperator>,
) -> Result<(StatusCode, Json<OperatorAccount>)> {
    new.validate()?;
    actor.step_up()?;
    let mut tx = state.db.begin().await?;
    let added = people::add(&mut tx, &new, false).await?;
    let entry = Entry::by(&actor, OperatorAction::AddOperator, None)
        .change(&new)
        .after(&added);
    audit::commit(tx, entry).await?;
    Ok((StatusCode::CREATED, Json(added)))
}

/// `PUT /api/admin/operators/{id}`: a new role or new events end their sessions.
#[utoipa::path(
    put,
    path = "/api/admin/operators/{operator_id}",
    tag = "operators",
    summary = "Change an operator's name, role or events",
    params(("operator_id" = String, Path, description = "The operator's id")),
    request_body = app::wire::OperatorUpdate,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Changed", body = app::wire::OperatorAccount),
        (status = 409, description = "conflict: the last admin stays admin", body = app::wire::ErrorBody),
        CheckedBody, NoOperator,
    )
)]
pub async fn update(
    actor: Actor,
    State(state): State<AppState>,
    Path(id): Path<String>,
    ApiJson(update): ApiJson<OperatorUpdate>,
) -> Result<Json<OperatorAccount>> {
    update.validate()?;
    if update.role.is_some() {
        actor.step_up()?;
    }
    let mut tx = state.db.begin().await?;
    let (before, after) = people::update(&mut tx, &id, &update)
        .await?
        .ok_or_else(|| no_operator(&id))?;
    let entry = Entry::by(&actor, OperatorAction::ChangeOperator, None)
        .change(&update)
        .before(&before)
        .after(&after);
    audit::commit(tx, entry).await?;
    Ok(Json(after))
}

/// `DELETE /api/admin/operators/{id}`: the account, its passkeys and its sessions go.
#[utoipa::path(
    delete,
    path = "/api/admin/operators/{operator_id}",
    tag = "operators",
    summary = "Remove an operator (their sessions end)",
    params(("operator_id" = String, Path, description = "The operator's id")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 204, description = "Removed"),
        (status = 409, description = "conflict: the last admin stays", body = app::wire::ErrorBody),
        NoOperator,
    )
)]
pub async fn remove(
    actor: Actor,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    if actor.id() == Some(id.as_str()) {
        return Err(Error::Conflict("you cannot remove yourself".into()));
    }
    let mut tx = state.db.begin().await?;
    let before = people::remove(&mut tx, &id)
        .await?
        .ok_or_else(|| no_operator(&id))?;
    // The keys they made go with them: automation set up by someone who left stops.
    let revoked = keys::revoke_made_by(&mut tx, &id).await?;
    let entry = Entry::by(&actor, OperatorAction::RemoveOperator, None)
        .change(&json!({ "keys_revoked": revoked }))
        .before(&before);
    audit::commit(tx, entry).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/admin/operators/{id}/enrolment`: a one-time link (15 minutes) that enrols a
/// passkey for them.
#[utoipa::path(
    post,
    path = "/api/admin/operators/{operator_id}/enrolment",
    tag = "operators",
    summary = "A one-time link (15 minutes) to enrol a passkey",
    params(("operator_id" = String, Path, description = "The operator's id")),
    request_body(content = Object, description = "{}: a change by an operator carries a JSON body"),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "The link", body = app::wire::Enrolment),
        NoOperator,
    )
)]
pub async fn enrolment(
    actor: Actor,
    State(state): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<(StatusCode, Json<Enrolment>)> {
    actor.step_up()?;
    let mut tx = state.db.begin().await?;
    people::get(&mut tx, &id)
        .await?
        .ok_or_else(|| no_operator(&id))?;
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let base = state.config.public_base(host);
    let link = people::enrolment(&mut tx, &state.sessions, &id, &base).await?;
    let entry = Entry::by(&actor, OperatorAction::Enrol, None)
        .change(&json!({"operator_id": id, "link_expires_at": link.expires_at}));
    audit::commit(tx, entry).await?;
    Ok((StatusCode::CREATED, Json(link)))
}

fn no_operator(id: &str) -> Error {
    Error::NotFound(format!(
        "no operator {}",
        id.chars().take(64).collect::<String>()
    ))
}

/// `GET /api/admin/sessions`: every session signed in now.
#[utoipa::path(
    get,
    path = "/api/admin/sessions",
    tag = "operators",
    summary = "Operators' sessions",
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The sessions", body = Vec<app::wire::OperatorSession>),
    )
)]
pub async fn list_sessions(
    actor: Actor,
    State(state): State<AppState>,
) -> Result<Json<Vec<OperatorSession>>> {
    Ok(Json(sessions::list(&state.db, actor.session_id()).await?))
}

/// `DELETE /api/admin/sessions/{id}`: ends anyone's session, on every instance.
#[utoipa::path(
    delete,
    path = "/api/admin/sessions/{session_id}",
    tag = "operators",
    summary = "End a session",
    params(("session_id" = String, Path, description = "The session's id")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 204, description = "Ended"),
        (status = 404, description = "No such session", body = app::wire::ErrorBody),
    )
)]
pub async fn end_session(
    actor: Actor,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    if !sessions::end(&mut tx, &id).await? {
        return Err(Error::NotFound("no such session is running".into()));
    }
    let entry =
        Entry::by(&actor, OperatorAction::EndSession, None).change(&json!({"session_id": id}));
    audit::commit(tx, entry).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/admin/keys`.
#[utoipa::path(
    get,
    path = "/api/admin/keys",
    tag = "operators",
    summary = "API keys (never their secrets)",
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The keys", body = Vec<app::wire::ApiKey>),
    )
)]
pub async fn list_keys(State(state): State<AppState>) -> Result<Json<Vec<ApiKey>>> {
    Ok(Json(keys::list(&state.db).await?))
}

/// `POST /api/admin/keys`: the key's secret is in this answer and nowhere else, ever.
#[utoipa::path(
    post,
    path = "/api/admin/keys",
    tag = "operators",
    summary = "Make an API key (its secret is shown once)",
    request_body = app::wire::NewApiKey,
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "The key and its secret", body = app::wire::ApiKeyCreated),
        CheckedBody,
    )
)]
pub async fn add_key(
    actor: Actor,
    State(state): State<AppState>,
    ApiJson(new): ApiJson<NewApiKey>,
) -> Result<(StatusCode, Json<ApiKeyCreated>)> {
    new.validate()?;
    actor.step_up()?;
    let mut tx = state.db.begin().await?;
    let created = keys::create(&mut tx, &state.sessions, &new, &actor.label, actor.id()).await?;
    let entry = Entry::by(&actor, OperatorAction::AddKey, None)
        .change(&new)
        .after(&created.key);
    audit::commit(tx, entry).await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// `DELETE /api/admin/keys/{id}`.
#[utoipa::path(
    delete,
    path = "/api/admin/keys/{key_id}",
    tag = "operators",
    summary = "Revoke an API key",
    params(("key_id" = String, Path, description = "The key's id")),
    security(("operator_session" = []), ("api_key" = [])),
    responses(
        (status = 204, description = "Revoked"),
        (status = 404, description = "No such key", body = app::wire::ErrorBody),
    )
)]
pub async fn revoke_key(
    actor: Actor,
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<StatusCode> {
    let mut tx = state.db.begin().await?;
    let before = keys::revoke(&mut tx, &id)
        .await?
        .ok_or_else(|| Error::NotFound("no such key, or it is revoked already".into()))?;
    let entry = Entry::by(&actor, OperatorAction::RevokeKey, None).before(&before);
    audit::commit(tx, entry).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `POST /api/operator/sign-out`: ends this browser's session on every instance (audited) and
/// clears its cookie; answers the same to anyone.
#[utoipa::path(
    post,
    path = "/api/operator/sign-out",
    tag = "operators",
    summary = "End the operator's session",
    responses(
        (status = 200, description = "Signed out"),
        (status = 403, description = "forbidden: a request from another site", body = app::wire::ErrorBody),
    )
)]
pub async fn sign_out(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
) -> Result<Response> {
    if let Some(session) = super::guard::session_of(&state, &headers).await? {
        let actor = Actor::new(super::actor::Who::Person { session }, client);
        let mut tx = state.db.begin().await?;
        sessions::end(&mut tx, actor.session_id().unwrap_or_default()).await?;
        audit::commit(tx, Entry::by(&actor, OperatorAction::SignOut, None)).await?;
    }
    let mut response = Json(json!({"signed_out": true})).into_response();
    Cookie::OperatorSignedOut.set(&state.config, response.headers_mut());
    Ok(response)
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    sign_out,
    methods,
    whoami,
    list,
    add,
    update,
    remove,
    enrolment,
    list_sessions,
    end_session,
    list_keys,
    add_key,
    revoke_key
))]
pub struct Api;
