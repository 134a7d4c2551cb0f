//! Server rendering of the `app` pages: the Leptos routes, the [`Backend`] they read through
//! (the same functions as the JSON API), the middleware that gives a first-time visitor
//! a session cookie before the page renders, and the page's Content-Security-Policy.
//!
//! Invariant: rendering a page joins the line only for a browser that came back with its
//! session cookie and does not say it is prefetching. A first visit (a link previewer, a
//! crawler, a prefetcher, or a buyer's first request) and a request with `Sec-Purpose` or
//! `Purpose: prefetch` only look: the page shows the place the session already has, or
//! "getting your place", and the browser joins by script, or without script by the reload
//! that brings its new cookie back.
//!
//! Invariant: every page says which scripts may run: its own files (the hydration bundle) and
//! the inline scripts Leptos writes (hydration, resolved data), which carry this response's
//! nonce. A script that an operator's text smuggled into the HTML carries none and never runs.

use std::{sync::Arc, time::Duration};

use app::{
    App,
    backend::{Backend, BoxFuture, PageBuyer, SessionRefused, SharedBackend},
    lang::{self, Lang, Words},
    shell,
    wire::{BuyerId, Deferred, ErrorBody, Event, EventEntry, EventId, HoldStatus, QueueStatus},
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
    accounts::eligible,
    checkout,
    client::Client,
    error::{Error, Result},
    forms, holds, queue, ratelimit, seatmap,
    state::AppState,
    tokens::{Buyer, cookies::Cookie},
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
        let look_only = parts
            .as_ref()
            .is_none_or(|p| p.extensions.get::<LookOnly>().is_some());
        let headers = parts.map(|p| p.headers).unwrap_or_default();
        Box::pin(async move {
            let client = client
                .ok_or_else(|| Error::Internal("a page rendered without its client".into()))
                .map_err(|e| e.body())?;
            self.enter_event(&buyer.into(), &event_id.into(), &headers, client, look_only)
                .await
                .map_err(|e| e.body())
        })
    }
}

impl PageBackend {
    /// Over 120 lines, for a reason: a page's entry to an event is the JSON API's join and
    /// poll in one sequence (eligibility, the proof of work, the place, the answer), with a
    /// refusal's page at each step; split, each step would pass the whole request along.
    async fn enter_event(
        &self,
        buyer: &BuyerId,
        event_id: &EventId,
        headers: &http::HeaderMap,
        client: Client,
        look_only: bool,
    ) -> Result<(EventEntry, Option<String>)> {
        let state = &self.0;
        let event = state.rooms.event(&state.db, event_id).await?;
        // A room that binds tokens takes places only from a page that can prove its device
        // key (a navigation carries no proof): the browser joins by script, and asks for the
        // seat map with a proof.
        let bound = event.room.enabled && event.room.bind_tokens;
        // The session as it is signed (with its account, if signed in): the page names only
        // its buyer id.
        let who = state
            .sessions
            .buyer_of(&state.config, headers)
            .filter(|b| b.id == *buyer)
            .unwrap_or_else(|| Buyer {
                id: buyer.clone(),
                account: None,
            });
        // The page's own join brings no proof of work: where the room asks one, the page
        // answers `proof_required` and the browser makes it.
        // Where the buyer stands, without joining yet (one round trip to Redis, as a join).
        let mut found = queue::poll(state, &who, event_id, headers).await;
        // A buyer who holds seats, or bought them, comes back to them on a reload, whatever
        // their admission says by now. Only a returning browser that is not waiting can have
        // any: the buyers in line (the many, refreshing) cost Postgres nothing here.
        let in_line = matches!(
            &found,
            Ok(queue::Answer {
                status: QueueStatus::Waiting { .. } | QueueStatus::PreQueue { .. },
                ..
            }) | Err(Error::NotOpen { .. })
        );
        if !look_only
            && !in_line
            && let Some(hold) = holds::to_resume(&state.db, buyer, event_id).await?
        {
            let order = match hold.status {
                HoldStatus::Purchased => {
                    checkout::find_order(&state.db, &hold.hold_id, buyer.as_str()).await?
                }
                _ => None,
            };
            return Ok((
                EventEntry {
                    event,
                    queue: None,
                    seats: None,
                    now: chrono::Utc::now(),
                    arriving: false,
                    hold: Some(Deferred::Ready(hold)),
                    order: order.map(Deferred::Ready),
                    forms: Some(forms::page_forms(&state.sessions, buyer, event_id)),
                    moved_at: None,
                },
                None,
            ));
        }
        if !look_only && !bound && matches!(found, Err(Error::NotInQueue)) {
            let joiner = queue::Joiner { client, work: None };
            found = queue::join(state, &who, event_id, headers, &joiner).await;
        }
        let (mut arriving, mut moved_at) = (false, None);
        let answer = match found {
            Ok(answer) => Some(answer),
            // Before the pre-queue opens the page counts down; nothing was stored.
            Err(Error::NotOpen { .. }) => None,
            // Only looking, and not in line: the browser joins next, unless the pre-queue is
            // still to open (the page counts down to it, as a join would have said).
            Err(Error::NotInQueue) if look_only || bound => {
                // A sale for accounts this session is not: the page says how to get in (sign
                // in), not "getting your place".
                eligible::check(&state.base, &event.room, &who, event_id).await?;
                let now = chrono::Utc::now();
                let closed = event.room.prequeue_opens_at.is_some_and(|at| at > now);
                let bits = event.room.join_pow_bits;
                if !closed && bits > 0 {
                    // The place will cost a proof of work: the page gets its challenge now
                    // (nothing is stored), as a join would have answered.
                    let challenge =
                        queue::proof::challenge(&state.sessions, buyer, event_id, bits, now);
                    return Err(Error::ProofRequired(challenge));
                }
                arriving = !closed;
                None
            }
            // The place went to another device: the page says where, and takes no new one.
            Err(Error::Moved { at }) => {
                moved_at = Some(at);
                None
            }
            Err(e) => return Err(e),
        };
        // An admitted buyer's browser gets the token as a cookie so that its next calls pass
        // the gate; a waiting one its place receipt.
        let cookie = answer
            .as_ref()
            .and_then(|a| queue::answer_cookie(event_id, a))
            .and_then(|c| c.header(&state.config).to_str().ok().map(str::to_owned));
        let seats = match answer.as_ref().map(|a| &a.status) {
            // The line itself says this buyer is in: show the map (in a bound room, the
            // page asks for it with its proof).
            Some(QueueStatus::Admitted { .. }) if !bound => {
                // As the cache holds it: the page reads it where it shows it, and the data it
                // hydrates from carries the text as it is (not read, then written again).
                let json = seatmap::read(state, event_id, seatmap::Form::Runs).await?;
                let map = serde_json::value::RawValue::from_string(json)
                    .map_err(|e| Error::Internal(format!("seat map JSON: {e}")))?;
                Some(Deferred::Raw(map))
            }
            _ => None,
        };
        Ok((
            EventEntry {
                event,
                queue: answer.map(|a| a.status),
                seats,
                now: chrono::Utc::now(),
                arriving,
                hold: None,
                order: None,
                forms: Some(forms::page_forms(&state.sessions, buyer, event_id)),
                moved_at,
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
                // The page's language, as the `language` middleware chose it.
                let lang = use_context::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<Lang>().copied())
                    .unwrap_or_default();
                provide_context(Words::of(lang));
                // The nonce of the response's policy (`csp`), for Leptos's inline scripts.
                if let Some(nonce) = use_context::<http::request::Parts>()
                    .and_then(|parts| parts.extensions.get::<CspNonce>().cloned())
                {
                    provide_context(Nonce::from_value(nonce.0));
                }
            },
            move || shell(options.clone()),
        )
        .layer(middleware::from_fn_with_state(
            state.tokens.clone(),
            crate::origin::handoff::send_on,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), page_session))
        .layer(middleware::from_fn_with_state(state.clone(), language))
        .layer(middleware::from_fn(csp))
}

/// Middleware: the page's language (`Tokens::page_language`), and the cookie that keeps a
/// `?lang=` choice.
async fn language(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let (lang, asked) = state.tokens.page_language(req.uri(), req.headers());
    req.extensions_mut().insert(lang);
    let mut response = next.run(req).await;
    let headers = response.headers_mut();
    if let Some(lang) = asked {
        Cookie::Language { lang }.set(&state.config, headers);
    }
    headers.append(
        header::VARY,
        HeaderValue::from_static(crate::tokens::state::LANGUAGE_VARY),
    );
    response
}

/// `GET /words/{tag}.{version}.json`: a language's messages for the pages' script
/// (`app::lang`), cached for a year at the address the pages name (the version is its
/// content's hash), for five minutes at any other version (or none, `/words/{tag}.json`). 404
/// for a language the pages do not speak.
pub fn words_router() -> Router<AppState> {
    Router::new().route("/words/{file}", axum::routing::get(words))
}

async fn words(axum::extract::Path(file): axum::extract::Path<String>) -> Result<Response> {
    let name = file.strip_suffix(".json").unwrap_or_default();
    let (tag, version) = name.split_once('.').unwrap_or((name, ""));
    let lang = Lang::ALL
        .into_iter()
        .find(|l| l.tag() == tag)
        .ok_or_else(|| Error::NotFound(format!("there are no words {file:?}")))?;
    let words = lang::page_words(lang);
    let named = words.version == version;
    let cache = if named {
        "public, max-age=31536000, immutable"
    } else {
        "public, max-age=300"
    };
    Ok((
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, cache),
        ],
        words.json.clone(),
    )
        .into_response())
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

/// Marks a page request that must not join the line: a first visit, a prefetch, or a page
/// that carries a move code ([`carries_claim`]).
#[derive(Clone, Copy)]
struct LookOnly;

/// Whether the request says it is a prefetch (`Sec-Purpose: prefetch`, or the older
/// `Purpose: prefetch`, possibly with more tokens such as `prefetch;prerender`).
fn is_prefetch(headers: &http::HeaderMap) -> bool {
    ["sec-purpose", "purpose"].iter().any(|name| {
        headers.get_all(*name).iter().any(|v| {
            v.to_str()
                .is_ok_and(|v| v.to_ascii_lowercase().contains("prefetch"))
        })
    })
}

/// Whether the page's address carries a move code (`?claim=`): its place comes by the claim
/// (by script, or by the page's claim form), so the page only looks and takes no new one.
fn carries_claim(uri: &http::Uri) -> bool {
    uri.query()
        .is_some_and(|q| form_urlencoded::parse(q.as_bytes()).any(|(name, _)| name == "claim"))
}

/// Middleware: names the page's client and buyer, issuing a session cookie on the first
/// visit (which, like a prefetch, only looks: [`LookOnly`]). New sessions count against the
/// same per-address limit as `POST /api/session`; above it, or when Redis cannot count them,
/// the page renders without one and says why and when to come back ([`SessionRefused`]).
async fn page_session(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let client = match Client::from_request(req.extensions(), req.headers(), &state.config) {
        Ok(client) => client,
        Err(e) => return e.into_response(),
    };
    req.extensions_mut().insert(client);
    let mut new_token = None;
    let buyer = match state.sessions.buyer_of(&state.config, req.headers()) {
        Some(b) => Some(String::from(b.id)),
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
                        .insert(SessionRefused::Limit { retry_after_secs });
                    None
                }
                // Redis did not answer: the page says so, in HTML, and tries again.
                Err(e) => {
                    tracing::warn!(error = %e, "a page could not count a new session");
                    req.extensions_mut().insert(SessionRefused::Unavailable);
                    None
                }
            }
        }
    };
    if let Some(id) = buyer {
        req.extensions_mut().insert(PageBuyer(id));
    }
    if new_token.is_some() || is_prefetch(req.headers()) || carries_claim(req.uri()) {
        req.extensions_mut().insert(LookOnly);
    }
    let mut response = next.run(req).await;
    if let Some(token) = new_token {
        Cookie::Session { token: &token }.set(&state.config, response.headers_mut());
    }
    response
}
