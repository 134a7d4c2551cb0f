//! The operator API: every `/api/admin/*` endpoint, in this one table ([`routes`]).
//! Invariants: every route has exactly one required permission (`operators::Permission`),
//! checked by `operators::guard` before its handler runs (a buyer's session is never an
//! operator's credential), and the table is the router, so a route cannot exist without its
//! permission and the role matrix test walks the same table; every operator write (creating an
//! event, changing a room, setting a draw's beacon, keeping a night, the operators, sessions
//! and keys) is recorded in the audit ([`audit`]) with who, when, and the state before and
//! after, in the same transaction as the write, so a change that committed is always in the
//! audit and a refused one never is.

pub mod audit;
mod draw;
mod eligible;
pub mod events;
mod nights;
mod room;
pub mod stats;

use axum::{
    Router,
    handler::Handler,
    http::Method,
    middleware,
    routing::{MethodRouter, delete, get, post, put},
};

use crate::{
    operators::{Permission, guard, routes as people},
    state::AppState,
};

/// One admin route: its method and path, the one permission it needs, and its handler.
pub struct AdminRoute {
    pub method: Method,
    pub path: &'static str,
    pub permission: Permission,
    handler: MethodRouter<AppState>,
}

fn at<H, T>(method: Method, path: &'static str, permission: Permission, handler: H) -> AdminRoute
where
    H: Handler<T, AppState>,
    T: 'static,
{
    let handler = match method {
        Method::GET => get(handler),
        Method::POST => post(handler),
        Method::PUT => put(handler),
        Method::DELETE => delete(handler),
        _ => unreachable!("the admin API uses GET, POST, PUT and DELETE"),
    };
    AdminRoute {
        method,
        path,
        permission,
        handler,
    }
}

/// Every admin route (the table in docs/operating.md, "Operators", lists them). Over 120
/// lines, for a reason: one line a route, its method, path, permission and handler, so the
/// whole operator API's permissions read as one table.
pub fn routes() -> Vec<AdminRoute> {
    use Method as M;
    use Permission as P;
    vec![
        // Who am I.
        at(M::GET, "/api/admin/session", P::SignedIn, people::whoami),
        // Events and their rooms.
        at(
            M::POST,
            "/api/admin/events",
            P::ManageEvents,
            events::create,
        ),
        at(
            M::PUT,
            "/api/admin/events/{event_id}/room",
            P::ControlRoom,
            room::update,
        ),
        at(
            M::PUT,
            "/api/admin/events/{event_id}/draw",
            P::ControlRoom,
            draw::set_beacon,
        ),
        at(
            M::PUT,
            "/api/admin/events/{event_id}/eligible",
            P::ManageEvents,
            eligible::put_list,
        ),
        // Reading: the panel's numbers, the payments and the audit.
        at(
            M::GET,
            "/api/admin/events/{event_id}/stats",
            P::ReadEvent,
            stats::stats,
        ),
        at(
            M::GET,
            "/api/admin/events/{event_id}/payments",
            P::ReadPayments,
            crate::checkout::payments::admin_payments,
        ),
        at(
            M::GET,
            "/api/admin/events/{event_id}/audit",
            P::ReadEvent,
            audit::room_changes,
        ),
        at(M::GET, "/api/admin/audit", P::ReadAudit, audit::recent),
        // The ticketer's site: a buyer it was handed is done (server to server).
        at(
            M::POST,
            "/api/events/{event_id}/admissions/done",
            P::ReportDone,
            crate::origin::done::done,
        ),
        // The nights kept: keep one now, list them, read one (JSON or CSV).
        at(
            M::POST,
            "/api/admin/events/{event_id}/nights",
            P::ControlRoom,
            nights::keep,
        ),
        at(
            M::GET,
            "/api/admin/events/{event_id}/nights",
            P::ReadEvent,
            nights::list,
        ),
        at(
            M::GET,
            "/api/admin/events/{event_id}/nights/{night_id}/series",
            P::ReadEvent,
            nights::series,
        ),
        at(
            M::GET,
            "/api/admin/events/{event_id}/nights/{night_id}/csv",
            P::ReadEvent,
            nights::csv,
        ),
        // Operators, their sessions, and the API keys.
        at(
            M::GET,
            "/api/admin/operators",
            P::ManageOperators,
            people::list,
        ),
        at(
            M::POST,
            "/api/admin/operators",
            P::ManageOperators,
            people::add,
        ),
        at(
            M::PUT,
            "/api/admin/operators/{operator_id}",
            P::ManageOperators,
            people::update,
        ),
        at(
            M::DELETE,
            "/api/admin/operators/{operator_id}",
            P::ManageOperators,
            people::remove,
        ),
        at(
            M::POST,
            "/api/admin/operators/{operator_id}/enrolment",
            P::ManageOperators,
            people::enrolment,
        ),
        at(
            M::GET,
            "/api/admin/sessions",
            P::ManageOperators,
            people::list_sessions,
        ),
        at(
            M::DELETE,
            "/api/admin/sessions/{session_id}",
            P::ManageOperators,
            people::end_session,
        ),
        at(
            M::GET,
            "/api/admin/keys",
            P::ManageOperators,
            people::list_keys,
        ),
        at(
            M::POST,
            "/api/admin/keys",
            P::ManageOperators,
            people::add_key,
        ),
        at(
            M::DELETE,
            "/api/admin/keys/{key_id}",
            P::ManageOperators,
            people::revoke_key,
        ),
    ]
}

/// The operator API's operations, for the OpenAPI document (`crate::openapi`): the handlers of
/// [`routes`] that live in this folder (the others are in their capability's own `Api`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa::OpenApi;
    let mut document = events::Api::openapi();
    for part in [
        room::Api::openapi(),
        draw::Api::openapi(),
        eligible::Api::openapi(),
        stats::Api::openapi(),
        audit::Api::openapi(),
        nights::Api::openapi(),
    ] {
        document.merge(part);
    }
    document
}

/// The operator API's router: each route of [`routes`] behind the guard of its permission.
pub fn router(state: &AppState) -> Router<AppState> {
    routes().into_iter().fold(Router::new(), |router, route| {
        let guarded = route.handler.route_layer(middleware::from_fn_with_state(
            (state.clone(), route.permission),
            guard::guard,
        ));
        router.route(route.path, guarded)
    })
}
