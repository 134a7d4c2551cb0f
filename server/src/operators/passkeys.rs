//! Operators' passkeys (WebAuthn, through `webauthn-rs`): enrol one from a one-time link, sign
//! in with it, and sign in again with it to step up (API.md "Operators").
//!
//! `POST /api/operator/passkey/register/start {"token"}` and `.../register/finish {"token",
//! "ceremony", "credential"}`; `POST /api/operator/passkey/authenticate/start {"email"}` and
//! `.../authenticate/finish {"ceremony", "credential"}`. A start answers `{"ceremony",
//! "options"}`: the options are what `navigator.credentials.create/get` take (the browser
//! reads them with `PublicKeyCredential.parse*OptionsFromJSON`), and the credential is the
//! browser's `credential.toJSON()`.
//!
//! Invariants: the relying party is this Anteroom's public host (`ANTEROOM_PUBLIC_URL`;
//! `localhost` on any port in `--dev` without one), so a passkey works on no other site (the
//! phishing resistance); user verification is required; a ceremony's state lives in Redis
//! for five minutes and is taken (GETDEL) by its finish, so each challenge is answered once;
//! starts are rate-limited per client address (`ANTEROOM_ADMIN_SIGN_INS_PER_MINUTE`), which
//! bounds both the ceremonies kept and the refused sign-ins audited; the enrolment link is
//! used up in the transaction that stores the passkey; the database keeps public keys only;
//! a sign-in's start does not tell whether an address is an operator's: an unknown address (or
//! one without a passkey) gets a decoy ceremony of the same shape, its credential ids derived
//! from the address under a key of this deployment (the same every time, as a real account's
//! are), whose finish is refused like a passkey that does not verify.

use std::time::Duration;

use app::wire::{OperatorAction, PasskeyStarted};
use axum::{Json, extract::State, http::HeaderMap, response::Response};
use redis::AsyncCommands;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use webauthn_rs::prelude::{
    CredentialID, Passkey, PasskeyAuthentication, PasskeyRegistration, PublicKeyCredential,
    RegisterPublicKeyCredential, Uuid,
};

use super::{people, sessions::Person, signin::signed_in, state::Passkeys};
use crate::{
    admin::audit::{self, Entry},
    client::Client,
    error::{Error, Result},
    extract::ApiJson,
    ids::random_id,
    ratelimit,
    responses::{JsonBody, PasskeyCeremony, RateLimited},
    state::AppState,
};

/// How long a ceremony may take.
const CEREMONY_SECS: u64 = 300;

#[derive(Serialize, Deserialize)]
enum Ceremony {
    Register {
        operator_id: String,
        state: PasskeyRegistration,
    },
    Authenticate {
        operator_id: String,
        state: PasskeyAuthentication,
    },
    /// A sign-in started for an address with no passkey: nothing can finish it.
    Decoy,
}

fn passkeys(state: &AppState) -> Result<&Passkeys> {
    state.staff.passkeys.as_ref().ok_or_else(|| {
        Error::NotFound("passkeys are off here (ANTEROOM_PUBLIC_URL is not on a domain)".into())
    })
}

async fn limited(state: &AppState, client: &Client) -> Result<()> {
    ratelimit::check(
        state,
        "operator-sign-in",
        &client.address(),
        state.config.admin_sign_ins_per_minute,
        Duration::from_secs(60),
    )
    .await
}

async fn keep(state: &AppState, ceremony: &Ceremony) -> Result<String> {
    let id = random_id(16);
    let json = serde_json::to_string(ceremony)
        .map_err(|e| Error::Internal(format!("a ceremony did not serialize: {e}")))?;
    let _: () = state
        .redis
        .clone()
        .set_ex(state.keys.passkey_ceremony(&id), json, CEREMONY_SECS)
        .await?;
    Ok(id)
}

async fn take(state: &AppState, id: &str) -> Result<Ceremony> {
    let json: Option<String> = if id.len() <= 32 {
        redis::cmd("GETDEL")
            .arg(state.keys.passkey_ceremony(id))
            .query_async(&mut state.redis.clone())
            .await?
    } else {
        None
    };
    json.and_then(|j| serde_json::from_str(&j).ok())
        .ok_or_else(|| Error::Unauthorized("that sign-in expired or was used: start again".into()))
}

fn options(value: &impl Serialize) -> Result<Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::Internal(format!("passkey options did not serialize: {e}")))
}

/// The passkeys stored for operator `id`.
async fn stored(state: &AppState, id: &str) -> Result<Vec<Passkey>> {
    let rows: Vec<Value> =
        sqlx::query_scalar("select passkey from operator_passkey where operator_id = $1")
            .bind(id)
            .fetch_all(&state.db)
            .await?;
    Ok(rows
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect())
}

/// A credential's id as the table keys it (its base64url, as webauthn-rs writes it).
fn credential_id(id: &CredentialID) -> String {
    serde_json::to_value(id)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// A stable WebAuthn user handle for operator `id` (not their address).
fn user_handle(id: &str) -> Uuid {
    let digest = ring::digest::digest(
        &ring::digest::SHA256,
        format!("anteroom-operator:{id}").as_bytes(),
    );
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest.as_ref()[..16]);
    Uuid::from_bytes(bytes)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterStart {
    token: String,
}

/// `POST /api/operator/passkey/register/start {"token"}`: the enrolment link's token.
#[utoipa::path(
    post,
    path = "/api/operator/passkey/register/start",
    tag = "operators",
    summary = "Start enrolling a passkey (with an enrolment link's token)",
    request_body = RegisterStart,
    responses(
        (status = 200, description = "The WebAuthn creation options", body = app::wire::PasskeyStarted),
        JsonBody, PasskeyCeremony, RateLimited,
    )
)]
pub async fn register_start(
    State(state): State<AppState>,
    client: Client,
    ApiJson(body): ApiJson<RegisterStart>,
) -> Result<Json<PasskeyStarted>> {
    let passkeys = passkeys(&state)?;
    limited(&state, &client).await?;
    let mut db = state.db.acquire().await?;
    let person = people::enrolling(&mut db, &state.sessions, &body.token, false)
        .await?
        .ok_or_else(bad_link)?;
    let exclude = stored(&state, &person.id)
        .await?
        .iter()
        .map(|p| p.cred_id().clone())
        .collect();
    let (challenge, registration) = passkeys
        .webauthn
        .start_passkey_registration(
            user_handle(&person.id),
            &person.email,
            &person.name,
            Some(exclude),
        )
        .map_err(|e| Error::Internal(format!("passkey registration did not start: {e}")))?;
    let ceremony = keep(
        &state,
        &Ceremony::Register {
            operator_id: person.id,
            state: registration,
        },
    )
    .await?;
    Ok(Json(PasskeyStarted {
        ceremony,
        options: options(&challenge)?,
    }))
}

fn bad_link() -> Error {
    Error::Unauthorized(
        "that enrolment link is not valid: it was used, it expired (15 minutes), or it was \
         never made; ask an admin for a new one"
            .into(),
    )
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterFinish {
    token: String,
    ceremony: String,
    #[schema(value_type = Object)]
    credential: RegisterPublicKeyCredential,
}

/// `POST /api/operator/passkey/register/finish`: stores the passkey, uses up the link, and
/// signs the person in.
#[utoipa::path(
    post,
    path = "/api/operator/passkey/register/finish",
    tag = "operators",
    summary = "Finish enrolling: stores the passkey and signs in",
    request_body = RegisterFinish,
    responses(
        (status = 200, description = "Signed in (a Set-Cookie)"),
        JsonBody, PasskeyCeremony, RateLimited,
    )
)]
pub async fn register_finish(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    ApiJson(body): ApiJson<RegisterFinish>,
) -> Result<Response> {
    let passkeys = passkeys(&state)?;
    let Ceremony::Register {
        operator_id,
        state: registration,
    } = take(&state, &body.ceremony).await?
    else {
        return Err(Error::Unauthorized(
            "that is not an enrolment under way".into(),
        ));
    };
    let passkey = passkeys
        .webauthn
        .finish_passkey_registration(&body.credential, &registration)
        .map_err(|e| Error::Unauthorized(format!("the passkey did not verify: {e}")))?;
    let mut tx = state.db.begin().await?;
    let person = people::enrolling(&mut tx, &state.sessions, &body.token, true)
        .await?
        .filter(|p| p.id == operator_id)
        .ok_or_else(bad_link)?;
    let credential_id = credential_id(passkey.cred_id());
    sqlx::query(
        "insert into operator_passkey (credential_id, operator_id, passkey) values ($1, $2, $3)",
    )
    .bind(&credential_id)
    .bind(&person.id)
    .bind(serde_json::to_value(&passkey).unwrap_or(Value::Null))
    .execute(&mut *tx)
    .await?;
    let label = person.label("passkey", client);
    let entry = Entry::labelled(&label, Some(&person.id), OperatorAction::Enrol)
        .change(&serde_json::json!({"passkey": credential_id}));
    audit::commit(tx, entry).await?;
    signed_in(&state, client, &headers, person, "passkey").await
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthenticateStart {
    email: String,
}

/// `POST /api/operator/passkey/authenticate/start {"email"}`.
#[utoipa::path(
    post,
    path = "/api/operator/passkey/authenticate/start",
    tag = "operators",
    summary = "Start signing in with a passkey",
    request_body = AuthenticateStart,
    responses(
        (status = 200, description = "The WebAuthn request options", body = app::wire::PasskeyStarted),
        JsonBody, PasskeyCeremony, RateLimited,
    )
)]
pub async fn authenticate_start(
    State(state): State<AppState>,
    client: Client,
    ApiJson(body): ApiJson<AuthenticateStart>,
) -> Result<Json<PasskeyStarted>> {
    let passkeys = passkeys(&state)?;
    limited(&state, &client).await?;
    let email = app::wire::checked_email(&body.email)?;
    let mut db = state.db.acquire().await?;
    let person = people::by_email(&mut db, &email).await?;
    drop(db);
    let keys = match &person {
        Some(p) => stored(&state, &p.id).await?,
        None => Vec::new(),
    };
    let (Some(person), false) = (person, keys.is_empty()) else {
        let ceremony = keep(&state, &Ceremony::Decoy).await?;
        return Ok(Json(PasskeyStarted {
            ceremony,
            options: decoy(&state, passkeys, &email)?,
        }));
    };
    let (challenge, authentication) = passkeys
        .webauthn
        .start_passkey_authentication(&keys)
        .map_err(|e| Error::Internal(format!("passkey sign-in did not start: {e}")))?;
    let ceremony = keep(
        &state,
        &Ceremony::Authenticate {
            operator_id: person.id,
            state: authentication,
        },
    )
    .await?;
    let mut options = options(&challenge)?;
    // The transports are a hint the browser does without; a decoy could not know them.
    if let Some(allowed) = options["publicKey"]["allowCredentials"].as_array_mut() {
        for credential in allowed {
            if let Some(credential) = credential.as_object_mut() {
                credential.remove("transports");
            }
        }
    }
    Ok(Json(PasskeyStarted { ceremony, options }))
}

/// The request options of a decoy sign-in for `email`: a fresh challenge, and credential ids
/// as a real account's would look (webauthn-rs's generator, keyed by this deployment's
/// operator key), the same for the address every time.
fn decoy(state: &AppState, passkeys: &Passkeys, email: &str) -> Result<Value> {
    use webauthn_rs::fake::{FakePasskeyDistribution, WebauthnFakeCredentialGenerator};
    let key = state.sessions.operator_tag(b"anteroom-passkey-decoy");
    let generator = WebauthnFakeCredentialGenerator::<FakePasskeyDistribution>::new(key.as_ref())
        .map_err(|e| Error::Internal(format!("a decoy sign-in did not start: {e}")))?;
    // An enrolled operator has a passkey at least: a draw of none is drawn again (from the
    // address and a counter, so still the same ids for the address every time).
    let mut ids = Vec::new();
    for round in 0u8..16 {
        let mut seed = email.as_bytes().to_vec();
        if round > 0 {
            seed.push(round);
        }
        ids = generator
            .generate(&seed)
            .map_err(|e| Error::Internal(format!("a decoy sign-in did not start: {e}")))?;
        if !ids.is_empty() {
            break;
        }
    }
    let challenge = random_id(32);
    Ok(serde_json::json!({
        "publicKey": {
            "challenge": challenge,
            "timeout": webauthn_rs::DEFAULT_AUTHENTICATOR_TIMEOUT.as_millis() as u64,
            "rpId": passkeys.rp_id,
            "allowCredentials": ids
                .iter()
                .map(|id| serde_json::json!({"type": "public-key", "id": id}))
                .collect::<Vec<_>>(),
            "userVerification": "required",
        }
    }))
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthenticateFinish {
    ceremony: String,
    #[schema(value_type = Object)]
    credential: PublicKeyCredential,
}

/// `POST /api/operator/passkey/authenticate/finish`: signs the person in (or, signed in
/// already as them, steps their session up). A passkey that does not verify is audited.
#[utoipa::path(
    post,
    path = "/api/operator/passkey/authenticate/finish",
    tag = "operators",
    summary = "Finish signing in with a passkey",
    request_body = AuthenticateFinish,
    responses(
        (status = 200, description = "Signed in (a Set-Cookie)"),
        JsonBody, PasskeyCeremony, RateLimited,
    )
)]
pub async fn authenticate_finish(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    ApiJson(body): ApiJson<AuthenticateFinish>,
) -> Result<Response> {
    let passkeys = passkeys(&state)?;
    let (operator_id, authentication) = match take(&state, &body.ceremony).await? {
        Ceremony::Authenticate {
            operator_id,
            state: authentication,
        } => (operator_id, authentication),
        // No passkey of this deployment answers a decoy's ids: refused as one that did not.
        Ceremony::Decoy => return Err(did_not_verify()),
        Ceremony::Register { .. } => {
            return Err(Error::Unauthorized(
                "that is not a sign-in under way".into(),
            ));
        }
    };
    let person = person_by_id(&state, &operator_id).await?;
    let result = match passkeys
        .webauthn
        .finish_passkey_authentication(&body.credential, &authentication)
    {
        Ok(result) => result,
        Err(e) => {
            refused(&state, client, &person, &e.to_string()).await?;
            return Err(did_not_verify());
        }
    };
    // Keep the authenticator's counter (a cloned authenticator shows as a counter going back).
    let mut stored_keys = stored(&state, &person.id).await?;
    if let Some(key) = stored_keys
        .iter_mut()
        .find(|k| k.cred_id() == result.cred_id())
        && key.update_credential(&result) == Some(true)
    {
        let credential_id = credential_id(key.cred_id());
        sqlx::query(
            "update operator_passkey set passkey = $2, last_used_at = now() \
             where credential_id = $1",
        )
        .bind(&credential_id)
        .bind(serde_json::to_value(&*key).unwrap_or(Value::Null))
        .execute(&state.db)
        .await?;
    }
    signed_in(&state, client, &headers, person, "passkey").await
}

/// The answer to a passkey that did not verify (the why is in the audit, not the answer: a
/// decoy's finish answers the same).
fn did_not_verify() -> Error {
    Error::Unauthorized("the passkey did not verify".into())
}

async fn person_by_id(state: &AppState, id: &str) -> Result<Person> {
    let mut db = state.db.acquire().await?;
    people::by_id(&mut db, id)
        .await?
        .ok_or_else(|| Error::Unauthorized("that operator was removed".into()))
}

/// Audits a refused sign-in of `person` (bounded by the rate limit on starts).
async fn refused(state: &AppState, client: Client, person: &Person, why: &str) -> Result<()> {
    tracing::warn!(%client, operator = %person.id, why, "refused an operator's passkey");
    let mut db = state.db.acquire().await?;
    let label = person.label("passkey", client);
    let mut entry = Entry::labelled(&label, Some(&person.id), OperatorAction::RefusedSignIn);
    entry.change = serde_json::json!({"via": "passkey", "why": why});
    audit::record(&mut db, entry).await
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(
    register_start,
    register_finish,
    authenticate_start,
    authenticate_finish
))]
pub struct Api;
