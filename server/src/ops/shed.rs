//! Load shedding: every request holds a permit while its handler runs, and a request that finds
//! no free permit is answered at once with 503 `unavailable` and `Retry-After: 1`: it never
//! waits, so the excess of a storm costs one quick answer, not a timeout.
//!
//! Invariants:
//! - Two outer budgets per instance: the admitted one (seat map, holds, checkout) and the
//!   general one (the line and everything else). A storm of joins and polls fills only the
//!   general budget, so buyers who are already in keep theirs.
//! - Inside its outer budget each hot path (join, poll, seat map, hold, checkout) has its own
//!   bound, so one path cannot take a whole budget.
//! - Operator traffic (`/api/admin`, `/admin`, `/healthz`, `/readyz`, `/metrics`) is never
//!   shed: the operator can pause the room in the middle of the storm.
//! - Only routed requests are counted; static files and unknown paths are cheap and not shed.

use std::sync::Arc;

use axum::{
    extract::{MatchedPath, Request, State},
    http::Method,
    middleware::Next,
    response::{IntoResponse, Response},
};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::{config::Config, error::Error, state::AppState};

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
    /// Operator traffic: never shed.
    Exempt,
    /// Anything else of the public API and pages: the general budget only.
    General,
    Hot(HotPath),
}

impl Lane {
    /// The lane of a request, from its method and route template.
    pub fn of(method: &Method, route: &str) -> Lane {
        let operator = route.starts_with("/api/admin")
            || route == "/admin"
            || route.starts_with("/admin/")
            || matches!(route, "/healthz" | "/readyz" | "/metrics");
        if operator {
            return Lane::Exempt;
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
    paths: [Arc<Semaphore>; 5],
}

impl Shed {
    pub fn new(config: &Config) -> Self {
        let bound = |n: u32| Arc::new(Semaphore::new(n as usize));
        Self {
            general: bound(config.in_flight_general),
            admitted: bound(config.in_flight_admitted),
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
}

/// Middleware (a route layer, so the route template is known): sheds what finds no permit.
pub async fn gate(
    State(state): State<AppState>,
    route: Option<MatchedPath>,
    req: Request,
    next: Next,
) -> Response {
    let lane = route
        .map(|r| Lane::of(req.method(), r.as_str()))
        .unwrap_or(Lane::General);
    let Some(permits) = state.shed.try_enter(lane) else {
        state.metrics.shed.with_label_values(&[lane.label()]).inc();
        return Error::Unavailable {
            message: "Anteroom is at capacity this instant; try again in a second".into(),
            retry_after_secs: 1,
        }
        .into_response();
    };
    let response = next.run(req).await;
    drop(permits);
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
        assert_eq!(Lane::of(&Method::POST, "/api/admin/events"), Lane::Exempt);
        assert_eq!(Lane::of(&Method::GET, "/admin/events/{id}"), Lane::Exempt);
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
