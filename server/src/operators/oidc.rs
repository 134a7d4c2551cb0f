//! The company's sign-in for operators (OpenID Connect): `GET /operator/sign-in` sends the
//! browser to the provider (`ANTEROOM_OPERATOR_OIDC_ISSUER`; authorization code with PKCE and
//! a nonce, through `accounts::oidc::Provider`, the buyers' relying party), `GET
//! /operator/callback` signs the person in and goes on to `/admin`.
//!
//! Who gets in: the person whose (verified) address an admin added as an operator, with that
//! account's role and events; else a person whose role claim
//! (`ANTEROOM_OPERATOR_ROLE_CLAIM`) carries a value `ANTEROOM_OPERATOR_ROLES` maps to a role,
//! who is added as an operator of every event with the highest such role; else nobody (403,
//! and the refusal is audited). Invariants: only an address the provider says is verified
//! (`email_verified: true`) is matched; an account the company's sign-in made takes its role
//! from the claim at every sign-in (a person out of the group is refused and their sessions
//! end); every sign-in here is a fresh authentication (`accounts::oidc::Provider::fresh`), so
//! it counts as a step-up; the state, nonce and PKCE verifier travel in a signed cookie of the
//! operators' own; starts are rate-limited per address.

use app::wire::{Events, NewOperator, OperatorAction, OperatorUpdate, Role};
use axum::{
    extract::{RawQuery, State},
    http::{HeaderMap, StatusCode, header},
    response::{IntoResponse, Response},
};

use super::{
    people,
    sessions::{self, Person},
    signin::signed_in,
    state::CompanySignIn,
};
use crate::{
    accounts::routes::{Pending, page},
    admin::audit::{self, Entry},
    client::Client,
    error::{Error, Result},
    ratelimit,
    responses::{SignInCallback, SignInStart},
    state::AppState,
    tokens::{
        cookies::{self, Cookie, OPERATOR_SIGN_IN_COOKIE},
        session::Account,
    },
};

/// What the signed cookie is for (no other sign-in's cookie passes as one).
const PURPOSE: &str = "anteroom-operator-sign-in";

/// The value of the kept claim `name` of `account`.
fn claim<'a>(account: &'a Account, name: &str) -> Option<&'a str> {
    account
        .claims
        .0
        .iter()
        .find_map(|kept| kept.strip_prefix(name)?.strip_prefix('='))
}

fn company(state: &AppState) -> Option<&CompanySignIn> {
    state.staff.company.as_ref()
}

fn callback_url(state: &AppState, headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    format!("{}/operator/callback", state.config.public_base(host))
}

/// `GET /operator/sign-in`.
#[utoipa::path(
    get,
    path = "/operator/sign-in",
    tag = "operators",
    summary = "Start an operator's OpenID Connect sign-in (a redirect)",
    responses(
        (status = 303, description = "To the provider"),
        SignInStart,
    )
)]
pub async fn start(State(state): State<AppState>, client: Client, headers: HeaderMap) -> Response {
    let Some(company) = company(&state) else {
        return page(
            &operators_words(),
            StatusCode::NOT_FOUND,
            (
                "The company's sign-in is not set up here",
                "This Anteroom has no operators' sign-in provider configured: sign in with a \
                 passkey.",
            ),
            "/admin",
            None,
        );
    };
    if let Err(e) = ratelimit::check(
        &state,
        "operator-sign-in",
        &client.address(),
        state.config.admin_sign_ins_per_minute,
        std::time::Duration::from_secs(60),
    )
    .await
    {
        return e.into_response();
    }
    let redirect = callback_url(&state, &headers);
    let started = match company.provider.start(&redirect).await {
        Ok(started) => started,
        Err(e) => return e.into_response(),
    };
    let url = started.url.clone();
    Pending::new(started, redirect, "/admin".into()).send(
        &url,
        &state.sessions,
        &state.config,
        PURPOSE,
        |state| Cookie::OperatorSignIn { state },
    )
}

/// `GET /operator/callback?code=..&state=..`.
#[utoipa::path(
    get,
    path = "/operator/callback",
    tag = "operators",
    summary = "End an operator's OpenID Connect sign-in (a redirect)",
    responses(
        (status = 303, description = "Signed in, to the panel"),
        SignInCallback,
        (status = 403, description = "forbidden: not an operator", content_type = "text/html"),
    )
)]
pub async fn callback(
    State(state): State<AppState>,
    client: Client,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let pending = Pending::matching(
        &state.sessions,
        PURPOSE,
        cookies::read(&state.config, &headers, OPERATOR_SIGN_IN_COOKIE),
        &raw,
    );
    let mut response = match pending {
        None => page(
            &operators_words(),
            StatusCode::BAD_REQUEST,
            (
                "This sign-in was not started here",
                "The sign-in could not be matched to one this browser started (or it took \
                 longer than 10 minutes). Start it again.",
            ),
            "/admin",
            None,
        ),
        Some(pending) => match finish(&state, client, &headers, &pending, &raw).await {
            Ok(response) => response,
            Err(Error::Forbidden(why)) => page(
                &operators_words(),
                StatusCode::FORBIDDEN,
                ("You are not an operator here", &why),
                "/admin",
                None,
            ),
            Err(e) => e.into_response(),
        },
    };
    Cookie::OperatorSignedIn.set(&state.config, response.headers_mut());
    response
}

async fn finish(
    state: &AppState,
    client: Client,
    headers: &HeaderMap,
    pending: &Pending,
    raw: &Option<String>,
) -> Result<Response> {
    let company = company(state).ok_or_else(|| Error::NotFound("no provider".into()))?;
    let code = form_urlencoded::parse(raw.as_deref().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| Error::Unauthorized("the provider did not sign you in".into()))?;
    let account = company
        .provider
        .finish(&code, &pending.redirect, &pending.nonce, &pending.verifier)
        .await?;
    let person = match person_of(state, company, &account).await? {
        Some(person) => person,
        None => {
            let label = format!(
                "{} at the company's sign-in from {client}",
                claim(&account, "email").unwrap_or(account.subject.as_str())
            );
            let mut db = state.db.acquire().await?;
            let mut entry = Entry::labelled(&label, None, OperatorAction::RefusedSignIn);
            entry.change = serde_json::json!({
                "via": "oidc",
                "why": "no operator account or role",
                "claims": account.claims.0,
            });
            audit::record(&mut db, entry).await?;
            return Err(Error::Forbidden(
                "Your company account has no operator role here. Ask an admin to add you.".into(),
            ));
        }
    };
    let mut response = signed_in(state, client, headers, person, "oidc").await?;
    *response.status_mut() = StatusCode::SEE_OTHER;
    response.headers_mut().insert(
        header::LOCATION,
        header::HeaderValue::from_str(&pending.back)
            .map_err(|_| Error::Internal("an unwritable return address".into()))?,
    );
    Ok(response)
}

/// The operator `account` signs in as: the account for its verified address (an admin's, with
/// the role the admin gave; the company's, with the role its claim gives now, or none when it
/// gives none any more), else one made now for a role its claims map to, else none.
async fn person_of(
    state: &AppState,
    company: &CompanySignIn,
    account: &Account,
) -> Result<Option<Person>> {
    // Verified means said so: a provider that does not say is not trusted with the address.
    let verified = claim(account, "email_verified") == Some("true");
    let email = claim(account, "email")
        .filter(|_| verified)
        .and_then(|e| app::wire::checked_email(e).ok());
    let Some(email) = email else {
        return Ok(None);
    };
    let label = |role: Role| {
        format!(
            "the company's sign-in ({} = {})",
            company.role_claim,
            role.as_str()
        )
    };
    let role = company.role_of(account);
    let mut tx = state.db.begin().await?;
    if let Some(person) = people::by_email(&mut tx, &email).await? {
        if !people::from_company(&mut tx, &person.id).await? || role == Some(person.role) {
            return Ok(Some(person));
        }
        // The claim no longer gives this role: a new one (their sessions end), or none, and
        // then the sign-in is refused and every session of theirs ends.
        let Some(role) = role else {
            sessions::end_all_of(&mut tx, &person.id).await?;
            tx.commit().await?;
            return Ok(None);
        };
        let update = OperatorUpdate {
            role: Some(role),
            ..OperatorUpdate::default()
        };
        let (before, after) = people::update(&mut tx, &person.id, &update)
            .await?
            .ok_or_else(|| Error::Internal("an operator just read is gone".into()))?;
        let by = label(role);
        let entry = Entry::labelled(&by, None, OperatorAction::ChangeOperator)
            .change(&update)
            .before(&before)
            .after(&after);
        audit::record(&mut tx, entry).await?;
        let person = people::by_id(&mut tx, &person.id).await?;
        tx.commit().await?;
        return Ok(person);
    }
    let Some(role) = role else {
        return Ok(None);
    };
    let mut new = NewOperator {
        name: claim(account, "name").unwrap_or(&email).to_owned(),
        email,
        role,
        events: Events::All,
    };
    new.validate()?;
    let added = people::add(&mut tx, &new, true).await?;
    let by = label(role);
    let entry = Entry::labelled(&by, None, OperatorAction::AddOperator)
        .change(&new)
        .after(&added);
    audit::record(&mut tx, entry).await?;
    let person = people::by_id(&mut tx, &added.id).await?;
    tx.commit().await?;
    Ok(person)
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(start, callback))]
pub struct Api;

/// The operators' pages are in English (docs/operating.md, "Languages"): the sign-in's pages too.
fn operators_words() -> app::lang::Words {
    app::lang::Words::of(app::lang::Lang::En)
}
