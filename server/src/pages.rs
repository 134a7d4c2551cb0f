//! Server rendering of the `app` pages: the Leptos routes, the [`Backend`] they read through
//! (the same functions as the JSON API), the middleware that gives a first-time visitor
//! a session cookie before the page renders, and the page's Content-Security-Policy.
//!
//! Invariant: every page says which scripts may run: its own files (the hydration bundle) and
//! the inline scripts Leptos writes (hydration, resolved data), which carry this response's
//! nonce. A script that an operator's text smuggled into the HTML carries none and never runs.

use std::{sync::Arc, time::Duration};

use app::{
    App,
    backend::{Backend, BoxFuture, PageBuyer, SessionRefused, SharedBackend},
    shell,
    wire::{BuyerId, ErrorBody, Event, EventEntry, EventId, QueueStatus},
};
use axum::{
    Router,
    extract::{Request, State},
    http::{HeaderValue, header},
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use leptos::{
    nonce::Nonce,
    prelude::{provide_context, use_context},
};
use leptos_axum::{LeptosRoutes, generate_route_list};

use crate::{
    client::Client,
    error::{Error, Result},
    queue,
    redis::ratelimit,
    seatmap,
    state::AppState,
    tokens::cookies::Cookie,
};

/// The data source of server rendering.
struct PageBackend(AppState);

impl Backend for PageBackend {
    fn events(&self) -> BoxFuture<'_, Result<Vec<Event>, ErrorBody>> {
        Box::pin(async move { Ok(self.0.rooms.events()) })
    }

    fn event(&self, id: String) -> BoxFuture<'_, Result<Event, ErrorBody>> {
        Box::pin(async move {
            self.0
                .rooms
                .event(&self.0.db, &id)
                .await
                .map_err(|e| e.body())
        })
    }

    fn enter(
        &self,
        buyer: String,
        event_id: String,
    ) -> BoxFuture<'_, Result<(EventEntry, Option<String>), ErrorBody>> {
        // The request's headers and client, read now (they are context of the render, not of
        // the future): the headers carry the buyer's proof of a place the line may have lost,
        // the client (named by the session middleware) is whom the join counts against.
        let parts = leptos::prelude::use_context::<http::request::Parts>();
        let client = parts
            .as_ref()
            .and_then(|p| p.extensions.get::<Client>().copied());
        let headers = parts.map(|p| p.headers).unwrap_or_default();
        Box::pin(async move {
            let client = client
                .ok_or_else(|| Error::Internal("a page rendered without its client".into()))
                .map_err(|e| e.body())?;
            self.enter_event(&buyer.into(), &event_id.into(), &headers, client)
                .await
                .map_err(|e| e.body())
        })
    }
}

impl PageBackend {
    async fn enter_event(
        &self,
        buyer: &BuyerId,
        event_id: &EventId,
        headers: &http::HeaderMap,
        client: Client,
    ) -> Result<(EventEntry, Option<String>)> {
        let state = &self.0;
        let event = state.rooms.event(&state.db, event_id).await?;
        // The page's own join brings no proof of work: where the room asks one, the page
        // answers `proof_required` and the browser makes it.
        let joiner = queue::Joiner { client, work: None };
        let answer = match queue::join(state, buyer, event_id, headers, &joiner).await {
            Ok(answer) => Some(answer),
            // Before the pre-queue opens the page counts down; nothing was stored.
            Err(Error::NotOpen { .. }) => None,
            Err(e) => return Err(e),
        };
        // An admitted buyer's browser gets the token as a cookie so that its next calls pass
        // the gate; a waiting one its place receipt.
        let cookie = answer
            .as_ref()
            .and_then(|a| queue::answer_cookie(event_id, a))
            .and_then(|c| c.header(&state.config).to_str().ok().map(str::to_owned));
        let seats = match answer.as_ref().map(|a| &a.status) {
            // The line itself says this buyer is in: show the map.
            Some(QueueStatus::Admitted { .. }) => {
                let json = seatmap::read(state, event_id).await?;
                let map = serde_json::from_str(&json)
                    .map_err(|e| Error::Internal(format!("seat map JSON: {e}")))?;
                Some(map)
            }
            _ => None,
        };
        Ok((
            EventEntry {
                event,
                queue: answer.map(|a| a.status),
                seats,
                now: chrono::Utc::now(),
            },
            cookie,
        ))
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
            move || {
                provide_context(backend.clone());
                // The nonce of the response's policy (`csp`), for Leptos's inline scripts.
                if let Some(nonce) = use_context::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<CspNonce>().cloned())
                {
                    provide_context(Nonce::from_value(nonce.0));
                }
            },
            move || shell(options.clone()),
        )
        .layer(middleware::from_fn_with_state(state.clone(), page_session))
        .layer(middleware::from_fn(csp))
}

/// The nonce of one page's Content-Security-Policy.
#[derive(Clone)]
struct CspNonce(String);

/// Middleware: a fresh nonce for the page's inline scripts and the policy that allows only
/// those and the site's own files. `wasm-unsafe-eval` lets the hydration bundle compile its
/// WebAssembly; inline style attributes stay allowed (the progress bar's width).
async fn csp(mut req: Request, next: Next) -> Response {
    let nonce = crate::ids::random_id(16);
    req.extensions_mut().insert(CspNonce(nonce.clone()));
    let mut response = next.run(req).await;
    let policy = format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
         style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
         object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
    );
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_str(&policy).expect("base64url and ASCII"),
    );
    response
}

/// Middleware: names the page's client and buyer, issuing a session cookie on the first
/// visit. New sessions count against the same per-address limit as `POST /api/session`; above
/// it the page renders without one and says when to come back ([`SessionRefused`]).
async fn page_session(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let client = match Client::from_request(req.extensions(), req.headers(), &state.config) {
        Ok(client) => client,
        Err(e) => return e.into_response(),
    };
    req.extensions_mut().insert(client);
    let mut new_token = None;
    let buyer = match state.sessions.buyer_of(&state.config, req.headers()) {
        Some(id) => Some(String::from(id)),
        None => {
            let limited = ratelimit::check(
                &state,
                "session",
                &client.address(),
                state.config.sessions_per_minute,
                Duration::from_secs(60),
            )
            .await;
            match limited {
                Ok(()) => {
                    let created = state.sessions.issue();
                    new_token = Some(created.token);
                    Some(created.buyer_id)
                }
                Err(Error::RateLimited { retry_after_secs }) => {
                    req.extensions_mut()
                        .insert(SessionRefused { retry_after_secs });
                    None
                }
                Err(e) => return e.into_response(),
            }
        }
    };
    if let Some(id) = buyer {
        req.extensions_mut().insert(PageBuyer(id));
    }
    let mut response = next.run(req).await;
    if let Some(token) = new_token {
        Cookie::Session { token: &token }.set(&state.config, response.headers_mut());
    }
    response
}
