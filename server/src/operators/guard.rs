//! The one check every `/api/admin/*` route passes: [`guard`], layered on each route by
//! `admin::routes` with the route's one [`Permission`]. Invariants (with `actor`'s): the
//! credential is read before anything else, and one without a valid tag costs no query; a
//! write's body type and origin are checked before the handler; out of role, scope or
//! events, 403 and the handler never runs; every use of the break-glass token is logged at
//! `warn`.

use axum::{
    extract::{FromRequestParts, RawPathParams, Request, State},
    http::{HeaderMap, Method, request::Parts},
    middleware::Next,
    response::{IntoResponse, Response},
};

use super::{
    actor::{Actor, Who, is_admin_body, same_origin},
    keys,
    roles::Permission,
    secret::{self, Kind},
    sessions,
};
use crate::{
    client::Client,
    error::{Error, Result},
    state::AppState,
    tokens::{
        bearer,
        cookies::{self, OPERATOR_COOKIE},
    },
};

/// Who `headers` authenticate, or 401.
pub async fn authenticate(state: &AppState, headers: &HeaderMap, client: Client) -> Result<Actor> {
    if let Some(given) = bearer(headers) {
        if given.starts_with(Kind::ApiKey.prefix()) {
            return match keys::find(&state.db, &state.sessions, given).await? {
                Some(key) => Ok(Actor::new(Who::Key(key), client)),
                None => Err(Error::Unauthorized(
                    "that API key is unknown, revoked or expired".into(),
                )),
            };
        }
        if state.staff.is_break_glass(given) {
            tracing::warn!(%client, "the break-glass admin token was used");
            return Ok(Actor::new(Who::BreakGlass, client));
        }
        return Err(Error::Unauthorized(
            "the admin API takes an operator's session or an API key (Bearer ak_...)".into(),
        ));
    }
    if let Some(session) = session_of(state, headers).await? {
        return Ok(Actor::new(Who::Person { session }, client));
    }
    Err(Error::Unauthorized(
        "sign in (a passkey or the company's sign-in), or send an API key".into(),
    ))
}

/// The valid session whose cookie `headers` carry, if any (no query for a cookie whose tag
/// does not verify).
pub async fn session_of(state: &AppState, headers: &HeaderMap) -> Result<Option<sessions::Found>> {
    let Some(hash) = cookies::read(&state.config, headers, OPERATOR_COOKIE)
        .and_then(|value| secret::check(&state.sessions, Kind::Session, value))
    else {
        return Ok(None);
    };
    sessions::find(&state.db, &hash).await
}

/// Middleware on each admin route: authenticates, checks the write's body type and origin,
/// then `permission` on the route's event, and hands the [`Actor`] to the handler.
pub async fn guard(
    State((state, permission)): State<(AppState, Permission)>,
    req: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = req.into_parts();
    match check(&state, permission, &mut parts).await {
        Ok(actor) => {
            parts.extensions.insert(actor);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(e) => e.into_response(),
    }
}

async fn check(state: &AppState, permission: Permission, parts: &mut Parts) -> Result<Actor> {
    let write = !matches!(parts.method, Method::GET | Method::HEAD);
    let client = Client::from_request(&parts.extensions, &parts.headers, &state.config)?;
    let actor = authenticate(state, &parts.headers, client).await?;
    if write && matches!(actor.who, Who::Person { .. }) && !same_origin(&parts.headers) {
        return Err(Error::Forbidden(
            "a change made with an operator's cookie must come from the dashboard's own page"
                .into(),
        ));
    }
    // A DELETE has no body (and no form of another site can send one).
    if write && parts.method != Method::DELETE && !is_admin_body(&parts.headers) {
        return Err(Error::UnsupportedMediaType(
            "admin changes take a JSON body with Content-Type: application/json (a list: \
             text/csv)"
                .into(),
        ));
    }
    let event = RawPathParams::from_request_parts(parts, state)
        .await
        .ok()
        .and_then(|params| {
            params
                .iter()
                .find(|(name, _)| *name == "event_id")
                .map(|(_, value)| value.to_owned())
        });
    if !actor.allows(permission, event.as_deref()) {
        return Err(Error::Forbidden(format!(
            "{} may not {}{}",
            match &actor.who {
                Who::Person { session } => format!("the role {}", session.person.role.as_str()),
                _ => "this key".to_owned(),
            },
            permission.as_str(),
            event.map_or(String::new(), |e| format!(" on event {e}"))
        )));
    }
    Ok(actor)
}
