//! Server rendering of the `app` pages: the Leptos routes, the [`Backend`] they read through
//! (the same functions as the JSON API), and the middleware that gives a first-time visitor
//! a session cookie before the page renders.

use std::{net::SocketAddr, sync::Arc, time::Duration};

use app::{
    App,
    backend::{Backend, BoxFuture, PageBuyer, SharedBackend},
    shell,
    wire::{ErrorBody, Event},
};
use axum::{
    Router,
    extract::{ConnectInfo, Request, State},
    http::header,
    middleware::{self, Next},
    response::Response,
};
use leptos::prelude::provide_context;
use leptos_axum::{LeptosRoutes, generate_route_list};

use crate::{events, ratelimit, state::AppState};

/// The data source of server rendering.
struct PageBackend(AppState);

impl Backend for PageBackend {
    fn events(&self) -> BoxFuture<'_, Result<Vec<Event>, ErrorBody>> {
        Box::pin(async move { events::list(&self.0.db).await.map_err(|e| e.body()) })
    }

    fn event(&self, id: String) -> BoxFuture<'_, Result<Event, ErrorBody>> {
        Box::pin(async move {
            events::get_event(&self.0.db, &id)
                .await
                .map_err(|e| e.body())
        })
    }
}

/// The page routes, with their session middleware.
pub fn router(state: &AppState) -> Router<AppState> {
    let backend: SharedBackend = Arc::new(PageBackend(state.clone()));
    let options = state.leptos.clone();
    Router::new()
        .leptos_routes_with_context(
            state,
            generate_route_list(App),
            move || provide_context(backend.clone()),
            move || shell(options.clone()),
        )
        .layer(middleware::from_fn_with_state(state.clone(), page_session))
}

/// Middleware: names the page's buyer, issuing a session cookie on the first visit. New
/// sessions count against the same per-address limit as `POST /api/session`; above it the page
/// renders without one.
async fn page_session(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let mut new_cookie = None;
    let buyer = match state.sessions.buyer_of(req.headers()) {
        Some(id) => Some(id),
        None => {
            let peer = req
                .extensions()
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip().to_string())
                .unwrap_or_default();
            let allowed = ratelimit::check(
                &state,
                "session",
                &peer,
                state.config.sessions_per_minute,
                Duration::from_secs(60),
            )
            .await
            .is_ok();
            allowed.then(|| {
                let created = state.sessions.issue();
                new_cookie = Some(state.sessions.cookie(&created.token));
                created.buyer_id
            })
        }
    };
    if let Some(id) = buyer {
        req.extensions_mut().insert(PageBuyer(id));
    }
    let mut response = next.run(req).await;
    if let Some(cookie) = new_cookie {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response
}
