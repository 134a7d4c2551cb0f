//! Load shedding and request deadlines: a request's body is read in full first (within the
//! body deadline: 408 after it), then the request takes a permit for as long as its handler
//! runs (within the request deadline: 503 after it). A request that finds no free permit is
//! answered at once with 503 `unavailable` and `Retry-After: 1`: it never waits, so the excess
//! of a storm costs one quick answer, not a timeout.
//!
//! Invariants:
//! - A permit is never held by a client that is still sending: a thousand slow uploads cost
//!   memory up to their deadline, never the budget of joins.
//! - Two outer budgets per instance: the admitted one (seat map, holds, checkout) and the
//!   general one (the line and everything else). A storm of joins and polls fills only the
//!   general budget, so buyers who are already in keep theirs.
//! - Inside its outer budget each hot path (join, poll, seat map, hold, checkout) has its own
//!   bound, so one path cannot take a whole budget.
//! - Operator traffic (`/api/admin`, `/admin`) is never shed by the public budgets: the
//!   operator can pause the room in the middle of the storm. It has a small bound of its own,
//!   taken only by a request that carries the operator's credential (checked first, from the
//!   headers alone); anonymous requests to those paths, sign-ins included, count as general
//!   traffic, so nobody without the credential can spend the operator's lane. Probes (`/healthz`, `/readyz`) are never shed (`/metrics` is on
//!   its own address).
//! - Only routed requests are counted; static files and unknown paths are cheap and not shed.

use std::{sync::Arc, time::Duration};

use axum::{
    extract::{MatchedPath, Request, State},
    http::Method,
    middleware::Next,
    response::{IntoResponse, Response},
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::{
    config::Config,
    error::Error,
    extract, forms,
    operators::{actor::carries_credential, state::Staff},
    tokens::state::Tokens,
};

/// The hot paths, each with its own bound (`Shed::paths[path as usize]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HotPath {
    Join = 0,
    Poll,
    SeatMap,
    Hold,
    Checkout,
}

impl HotPath {
    const ALL: [HotPath; 5] = [
        HotPath::Join,
        HotPath::Poll,
        HotPath::SeatMap,
        HotPath::Hold,
        HotPath::Checkout,
    ];

    /// Whether this path serves buyers already admitted (and so draws on the admitted budget).
    pub fn admitted(self) -> bool {
        matches!(self, HotPath::SeatMap | HotPath::Hold | HotPath::Checkout)
    }

    pub fn label(self) -> &'static str {
        match self {
            HotPath::Join => "join",
            HotPath::Poll => "poll",
            HotPath::SeatMap => "seatmap",
            HotPath::Hold => "hold",
            HotPath::Checkout => "checkout",
        }
    }
}

/// Which budget a request draws on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Probes: never shed.
    Exempt,
    /// The operator's API and pages: their own bound only.
    Operator,
    /// Anything else of the public API and pages: the general budget only.
    General,
    Hot(HotPath),
}

impl Lane {
    /// The lane of a request, from its method and route template.
    pub fn of(method: &Method, route: &str) -> Lane {
        if matches!(route, "/healthz" | "/readyz") {
            return Lane::Exempt;
        }
        if route.starts_with("/api/admin") || route == "/admin" || route.starts_with("/admin/") {
            return Lane::Operator;
        }
        let hot = match (method.as_str(), route) {
            ("POST", "/api/events/{event_id}/queue") => HotPath::Join,
            ("GET", "/api/events/{event_id}/queue") => HotPath::Poll,
            ("GET", "/api/events/{event_id}/seats") => HotPath::SeatMap,
            (_, "/api/events/{event_id}/holds" | "/api/holds/{hold_id}") => HotPath::Hold,
            ("POST", "/api/holds/{hold_id}/checkout") => HotPath::Checkout,
            _ => return Lane::General,
        };
        Lane::Hot(hot)
    }

    fn label(self) -> &'static str {
        match self {
            Lane::Exempt => "exempt",
            Lane::Operator => "operator",
            Lane::General => "general",
            Lane::Hot(path) => path.label(),
        }
    }
}

/// The permits one request holds; released when dropped.
pub struct Permits {
    _outer: Option<OwnedSemaphorePermit>,
    _path: Option<OwnedSemaphorePermit>,
}

/// The budgets of one instance.
pub struct Shed {
    general: Arc<Semaphore>,
    admitted: Arc<Semaphore>,
    operator: Arc<Semaphore>,
    paths: [Arc<Semaphore>; 5],
    /// How long a client may take to send a body.
    body_deadline: Duration,
    /// How long a request may run once its body is read (checkout: `checkout_deadline`).
    request_deadline: Duration,
    checkout_deadline: Duration,
}

impl Shed {
    pub fn new(config: &Config) -> Self {
        let bound = |n: u32| Arc::new(Semaphore::new(n as usize));
        Self {
            general: bound(config.in_flight_general),
            admitted: bound(config.in_flight_admitted),
            operator: bound(config.in_flight_operator),
            body_deadline: Duration::from_millis(config.body_read_timeout_ms),
            request_deadline: Duration::from_millis(config.request_timeout_ms),
            checkout_deadline: Duration::from_millis(config.checkout_timeout_ms),
            paths: HotPath::ALL.map(|path| {
                bound(match path {
                    HotPath::Join => config.in_flight_join,
                    HotPath::Poll => config.in_flight_poll,
                    HotPath::SeatMap => config.in_flight_seatmap,
                    HotPath::Hold => config.in_flight_hold,
                    HotPath::Checkout => config.in_flight_checkout,
                })
            }),
        }
    }

    /// Takes the permits of `lane` without waiting, or `None` when a budget is spent.
    pub fn try_enter(&self, lane: Lane) -> Option<Permits> {
        let take = |s: &Arc<Semaphore>| s.clone().try_acquire_owned().ok();
        match lane {
            Lane::Exempt => Some(Permits {
                _outer: None,
                _path: None,
            }),
            Lane::General => Some(Permits {
                _outer: Some(take(&self.general)?),
                _path: None,
            }),
            Lane::Operator => Some(Permits {
                _outer: Some(take(&self.operator)?),
                _path: None,
            }),
            Lane::Hot(path) => {
                let outer = if path.admitted() {
                    &self.admitted
                } else {
                    &self.general
                };
                Some(Permits {
                    _outer: Some(take(outer)?),
                    _path: Some(take(&self.paths[path as usize])?),
                })
            }
        }
    }

    /// How long a request of `lane` may run once its body is read.
    pub fn deadline(&self, lane: Lane) -> Duration {
        match lane {
            Lane::Hot(HotPath::Checkout) => self.checkout_deadline,
            _ => self.request_deadline,
        }
    }
}

/// The state of [`gate`]: who asks (the operator's lane needs the operator's credential) and
/// this instance's budgets.
#[derive(Clone)]
pub struct Shedding {
    pub tokens: Tokens,
    pub shed: Arc<Shed>,
    pub staff: Arc<Staff>,
}

/// Middleware (a route layer, so the route template is known): reads the body within its
/// deadline, sheds what then finds no permit, and bounds how long the rest may run.
pub async fn gate(
    State(Shedding {
        tokens,
        shed,
        staff,
    }): State<Shedding>,
    route: Option<MatchedPath>,
    req: Request,
    next: Next,
) -> Response {
    let lane = match route.map(|r| Lane::of(req.method(), r.as_str())) {
        // Who asks is checked before the operator's permits are taken: anonymous traffic to
        // the operator's paths (a sign-in, a flood) is shed with the public's, so it can never
        // spend the lane that lets the operator pause a room in the storm.
        Some(Lane::Operator)
            if !carries_credential(&tokens.sessions, &staff, &tokens.config, req.headers()) =>
        {
            Lane::General
        }
        lane => lane.unwrap_or(Lane::General),
    };
    // A page's form (no JavaScript) is answered with its page and a note, never with JSON.
    let form = (req.method() == Method::POST)
        .then(|| forms::form_of(req.uri().path()))
        .flatten();
    // And a page itself (a waiting room refreshing without script) with a page that says so
    // and comes back by itself.
    // Its language is read before the request moves on (pages only: the API's hot paths
    // never pay for it).
    let page = (req.method() == Method::GET && req.uri().path().starts_with("/events/"))
        .then(|| tokens.page_language(req.uri(), req.headers()).0);
    let refuse = |e: Error| match (&form, page) {
        (Some((page, what)), _) => forms::refused(page, *what, &e),
        (None, Some(lang)) => busy_page(lang),
        (None, None) => e.into_response(),
    };
    let req = match extract::buffer_body(req, shed.body_deadline).await {
        Ok(req) => req,
        Err(e) => return refuse(e),
    };
    let Some(permits) = shed.try_enter(lane) else {
        tokens.metrics.shed.with_label_values(&[lane.label()]).inc();
        return refuse(Error::Unavailable {
            message: "Anteroom is at capacity this instant; try again in a second".into(),
            retry_after_secs: 1,
        });
    };
    let response = tokio::time::timeout(shed.deadline(lane), next.run(req)).await;
    drop(permits);
    response.unwrap_or_else(|_| {
        refuse(Error::Unavailable {
            message: "this took longer than it should; try again in a second".into(),
            retry_after_secs: 1,
        })
    })
}

/// The page an instance at capacity answers to a page's request, in the buyer's language
/// (`Tokens::page_language`): a 503 that says the place is kept and reloads itself.
fn busy_page(lang: app::lang::Lang) -> Response {
    const RETRY_SECONDS: u64 = 2;
    let words = app::lang::Words::of(lang);
    let title = app::words::escape_html(&words.t("busy-title"));
    let body = format!(
        "<!DOCTYPE html><html lang=\"{tag}\" dir=\"{dir}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta http-equiv=\"refresh\" content=\"{RETRY_SECONDS}\"><title>{title}</title></head>\
         <body><h1>{title}</h1><p>{kept} {again}</p></body></html>",
        tag = lang.tag(),
        dir = lang.dir(),
        kept = app::words::escape_html(&words.t("busy-place-kept")),
        again = app::words::escape_html(&words.n("page-tries-again-in", RETRY_SECONDS)),
    );
    let mut response = (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        axum::response::Html(body),
    )
        .into_response();
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from(RETRY_SECONDS),
    );
    response.headers_mut().insert(
        axum::http::header::VARY,
        axum::http::HeaderValue::from_static(crate::tokens::state::LANGUAGE_VARY),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_of_routes() {
        let q = "/api/events/{event_id}/queue";
        assert_eq!(Lane::of(&Method::POST, q), Lane::Hot(HotPath::Join));
        assert_eq!(Lane::of(&Method::GET, q), Lane::Hot(HotPath::Poll));
        assert_eq!(
            Lane::of(&Method::DELETE, "/api/holds/{hold_id}"),
            Lane::Hot(HotPath::Hold)
        );
        assert_eq!(Lane::of(&Method::POST, "/api/admin/events"), Lane::Operator);
        assert_eq!(Lane::of(&Method::GET, "/admin/events/{id}"), Lane::Operator);
        assert_eq!(Lane::of(&Method::GET, "/healthz"), Lane::Exempt);
        assert_eq!(Lane::of(&Method::GET, "/administrator"), Lane::General);
        assert_eq!(Lane::of(&Method::POST, "/api/session"), Lane::General);
    }

    #[test]
    fn a_spent_path_bound_returns_the_outer_permit() {
        let mut config = Config::defaults();
        config.in_flight_general = 2;
        config.in_flight_join = 1;
        let shed = Shed::new(&config);
        let first = shed.try_enter(Lane::Hot(HotPath::Join)).expect("room");
        assert!(shed.try_enter(Lane::Hot(HotPath::Join)).is_none());
        // The failed join gave its general permit back: one is still free.
        let other = shed
            .try_enter(Lane::General)
            .expect("the general permit came back");
        assert!(shed.try_enter(Lane::General).is_none());
        assert!(shed.try_enter(Lane::Exempt).is_some());
        drop((first, other));
        assert!(shed.try_enter(Lane::Hot(HotPath::Join)).is_some());
    }
}
