//! Who makes an admin request, and whether they may: the [`Actor`] that the one check every
//! `/api/admin/*` route passes (`operators::guard`, layered on each route by `admin::routes`
//! with the route's one [`Permission`]) finds and hands to the handler.
//!
//! Invariants:
//! - The credential is an operator's session cookie (`__Host-anteroom-op`), an API key
//!   (`Authorization: Bearer ak_...`) or, only when configured, the break-glass token. A
//!   buyer's session is none of them (401).
//! - A request with no credential, or one whose tag does not verify (`secret::check`), is
//!   refused from its headers alone: no query, so a flood of anonymous requests costs nothing
//!   a signed-in operator needs ([`carries_credential`] is the same check, for load shedding).
//! - A write (any method but GET and HEAD) carries a JSON body (or an eligibility list's CSV):
//!   415 otherwise, so no HTML form of another site can send one; a write made with the cookie
//!   also comes from the dashboard's own origin (`Sec-Fetch-Site: same-origin`, or an `Origin`
//!   naming the request's host): 403 otherwise.
//! - Out of role, scope or events: 403 `forbidden`, and the handler never runs.
//! - Every use of the break-glass token is logged at `warn` and audited as such.

use app::wire::{Events, Role, Scope, Whoami};
use axum::{
    extract::FromRequestParts,
    http::{HeaderMap, HeaderValue, header, request::Parts},
};
use chrono::{DateTime, Duration, Utc};

use super::{
    keys,
    roles::Permission,
    secret::{self, Kind},
    sessions,
    state::Staff,
};
use crate::{
    client::Client,
    config::Config,
    error::{Error, Result},
    tokens::{
        Sessions, bearer,
        cookies::{self, OPERATOR_COOKIE},
    },
};

/// How recent a sign-in the dangerous changes need (API.md "Step-up").
pub const STEP_UP_SECS: i64 = 300;

/// Who an admin request comes from.
#[derive(Clone, Debug)]
pub enum Who {
    /// A person, signed in: their session.
    Person { session: sessions::Found },
    /// An API key.
    Key(keys::Found),
    /// The break-glass token (`ANTEROOM_ADMIN_TOKEN`, off by default).
    BreakGlass,
}

/// The asker of an admin request that passed the [`guard`].
#[derive(Clone, Debug)]
pub struct Actor {
    pub who: Who,
    pub client: Client,
    /// The audit's words for them: `Ada Lovelace <ada@example.org> (admin) from 10.0.0.7`.
    pub label: String,
}

impl Actor {
    pub fn new(who: Who, client: Client) -> Self {
        let label = match &who {
            Who::Person { session } => session.person.label(&session.via, client),
            Who::Key(key) => format!("key \"{}\" ({}) from {client}", key.name, key.id),
            Who::BreakGlass => format!("break-glass admin token from {client}"),
        };
        Actor { who, client, label }
    }

    /// The operator's or key's id (for filtering the audit).
    pub fn id(&self) -> Option<&str> {
        match &self.who {
            Who::Person { session } => Some(&session.person.id),
            Who::Key(key) => Some(&key.id),
            Who::BreakGlass => None,
        }
    }

    /// The asker's session id, if they are a person.
    pub fn session_id(&self) -> Option<&str> {
        match &self.who {
            Who::Person { session } => Some(&session.id),
            _ => None,
        }
    }

    /// Whether they may do what `permission` guards, on `event` when the route names one.
    pub fn allows(&self, permission: Permission, event: Option<&str>) -> bool {
        // Without an event in the path, a permission over every event (a new event) is for
        // those who may touch them all: a key or person limited to some is out of scope.
        let in_scope = |events: &Events| match event {
            Some(e) => events.covers(e),
            None => !permission.spans_events() || *events == Events::All,
        };
        match &self.who {
            Who::Person { session } => {
                let person = &session.person;
                permission.granted_to_role(person.role)
                    && (person.role == Role::Admin || in_scope(&person.events))
            }
            Who::Key(key) => permission.granted_to_scopes(&key.scopes) && in_scope(&key.events),
            Who::BreakGlass => true,
        }
    }

    /// The events they may touch: a person's (all, for an admin), a key's, or all for the
    /// break-glass token. Routes without an event in the path read it (a key limited to some
    /// events sees only their audit, and creates none).
    pub fn events(&self) -> Events {
        match &self.who {
            Who::Person { session } if session.person.role != Role::Admin => {
                session.person.events.clone()
            }
            Who::Key(key) => key.events.clone(),
            _ => Events::All,
        }
    }

    /// Refuses a dangerous change (401, reason `step_up`) unless the person signed in within
    /// the last [`STEP_UP_SECS`]. A key or the break-glass token has no sign-in to repeat:
    /// its scopes (or its being configured at all) are the whole decision.
    pub fn step_up(&self) -> Result<()> {
        match self.step_up_until() {
            Some(until) if until <= Utc::now() => Err(Error::StepUp),
            _ => Ok(()),
        }
    }

    fn step_up_until(&self) -> Option<DateTime<Utc>> {
        match &self.who {
            Who::Person { session } => {
                Some(session.authenticated_at + Duration::seconds(STEP_UP_SECS))
            }
            _ => None,
        }
    }

    /// `GET /api/admin/session`'s answer.
    pub fn whoami(&self) -> Whoami {
        match &self.who {
            Who::Person { session } => Whoami {
                id: Some(session.person.id.clone()),
                name: session.person.name.clone(),
                email: Some(session.person.email.clone()),
                role: session.person.role,
                events: session.person.events.clone(),
                via: session.via.clone(),
                step_up_until: self.step_up_until(),
            },
            Who::Key(key) => Whoami {
                id: Some(key.id.clone()),
                name: key.name.clone(),
                email: None,
                role: key_role(&key.scopes),
                events: key.events.clone(),
                via: "key".into(),
                step_up_until: None,
            },
            Who::BreakGlass => Whoami {
                id: None,
                name: "break-glass admin token".into(),
                email: None,
                role: Role::Admin,
                events: Events::All,
                via: "break-glass".into(),
                step_up_until: None,
            },
        }
    }
}

/// The role a key's scopes amount to, for the dashboard's display only (the guard reads the
/// scopes themselves).
fn key_role(scopes: &[Scope]) -> Role {
    if Permission::ALL
        .iter()
        .filter(|p| p.role() == Role::Admin)
        .any(|p| p.granted_to_scopes(scopes))
    {
        Role::Admin
    } else if Permission::ControlRoom.granted_to_scopes(scopes) {
        Role::Operator
    } else {
        Role::Viewer
    }
}

/// Whether `headers` carry what could be an operator's credential, judged from the headers
/// alone (a tag that verifies, or the break-glass token): load shedding lets only these into
/// the operator's lane.
pub fn carries_credential(
    sessions: &Sessions,
    staff: &Staff,
    config: &Config,
    headers: &HeaderMap,
) -> bool {
    if let Some(given) = bearer(headers) {
        return secret::check(sessions, Kind::ApiKey, given).is_some()
            || staff.is_break_glass(given);
    }
    cookies::read(config, headers, OPERATOR_COOKIE)
        .is_some_and(|v| secret::check(sessions, Kind::Session, v).is_some())
}

/// The handler's side: the [`Actor`] the [`guard`] let through. A route without the guard
/// has none, and answers 500 rather than run unguarded.
/// (`guard` inserts it.)
impl<S: Send + Sync> FromRequestParts<S> for Actor {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self> {
        parts
            .extensions
            .remove::<Actor>()
            .ok_or_else(|| Error::Internal("an admin route without its guard".into()))
    }
}

/// Whether an admin change's body is JSON, or CSV (an eligibility list): neither is a type a
/// form of another site can send without the browser asking first (CORS), unlike
/// `text/plain` or a form's own types.
pub fn is_admin_body(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim();
            v.eq_ignore_ascii_case("application/json") || v.eq_ignore_ascii_case("text/csv")
        })
}

/// Whether the browser says the request comes from a page of this site: `Sec-Fetch-Site`
/// when it sends one, else an `Origin` whose host is the request's `Host`. Neither: no.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let text = |name| {
        headers
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    if let Some(site) = text(header::HeaderName::from_static("sec-fetch-site")) {
        return site == "same-origin";
    }
    match (text(header::ORIGIN), text(header::HOST)) {
        (Some(origin), Some(host)) => origin
            .split_once("://")
            .is_some_and(|(_, origin_host)| origin_host.eq_ignore_ascii_case(host)),
        _ => false,
    }
}
