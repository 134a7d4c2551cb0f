//! The night's public report (API.md "The night's report"): `GET /api/events/{id}/report` and
//! the admission log it is computed from (`admission::log`), `GET
//! /api/events/{id}/report/admissions`; `joined` counts the places made in the line (Redis,
//! and the lines retired before, in `event_line`). Public, no
//! session, no buyer ids: an admission is its number, its arrival number and its times.
//!
//! Definitions (the test recomputes them from the paged log): a sample is an admission whose
//! joining the line recorded (the buyer was told an estimate and a band then); its real wait
//! is `admitted_at - joined_at`; its error is `|estimate - real wait|`; it is within the band
//! when the real wait in whole seconds, rounded either way, lies in `[low, high]` (the band
//! speaks in whole seconds); median and p90 are nearest-rank. A FIFO inversion is an admission
//! whose arrival number is smaller than that of an admission before it (someone who came later
//! went first). A buyer back from away (skipped at their turn while their page was gone,
//! admitted ahead on return: `admission::log`) is admitted after later arrivals by design: such
//! an admission is counted in `back_from_away`, and is neither an inversion (FIFO holds among
//! the buyers present) nor an estimate sample (their wait includes the time they were gone).
//!
//! The estimate a minute before admission (`estimate_60s_before`): for an admission whose
//! buyer had joined at least [`LEAD_MS`] before it, the model the ticker's leader kept in the
//! second `admitted_at - LEAD_MS` (`night_second.model`), read at the place the buyer had then
//! (1 + the admissions of earlier arrivals in between, [`places_ahead`]), against that lead; a
//! second without a kept model gives no sample.
//!
//! The outlook's calibration: of the buyers told each outlook at joining (recomputed from the
//! line's record of the joining, `app::estimate::Model`), how many were admitted (the log
//! keeps the outlook and the buyer, who is never published) and how many bought; the places
//! still in line count as told, not admitted.
//!
//! Invariants: the report is computed from Postgres in one ordered read of the event's
//! admissions (a night's worth: tens of bytes a row), at most once per [`FRESH`] per event and instance (one computation at a time;
//! the others wait for it and take its answer), so requests cannot make us scan the log more
//! often; an unknown event is 404 before any query; a page of the log is read at most once per
//! [`PAGE_FRESH`] per instance, through the public reads' share of the pool
//! (`Rooms::public_read`); a page holds at most [`MAX_LIMIT`] entries
//! and bad paging changes nothing: `after` or `limit` that is not a whole number is 400,
//! `limit` outside 1..=10000 is 422.
//!
//! Here, the routes, the state and the pages of the log kept in memory; the report is read
//! from Postgres and Redis in `compute`, and added up in `tally`.

mod compute;
mod tally;

pub use compute::{LEAD_MS, WAITING_READ_MAX, compute, places_ahead};
pub use tally::{Sample, Tally};

use std::{
    collections::HashMap,
    ops::Deref,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use app::wire::{AdmissionEntry, AdmissionLog, Report};
use axum::{
    Json, Router,
    body::Bytes,
    extract::{Query, State, rejection::QueryRejection},
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use chrono::{DateTime, Utc};

use crate::{
    error::{Error, Result},
    events::state::Catalog,
    extract::EventId,
    fresh::Fresh,
    responses::NoEvent,
};

/// How long a computed report is answered before it is computed again.
pub const FRESH: Duration = Duration::from_secs(5);
/// Entries in a page when the request names no `limit`.
pub const DEFAULT_LIMIT: u64 = 1000;
/// The most entries a page holds.
pub const MAX_LIMIT: u64 = 10_000;

/// The public report's state: the [`Catalog`] and the reports computed lately.
#[derive(Clone)]
pub struct Public {
    pub catalog: Catalog,
    pub reports: Arc<Reports>,
}

/// The report's state extends the [`Catalog`]: `public.rooms`, `public.db`, ...
impl Deref for Public {
    type Target = Catalog;

    fn deref(&self) -> &Catalog {
        &self.catalog
    }
}

pub fn router<S>() -> axum::Router<S>
where
    S: Clone + Send + Sync + 'static,
    Public: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/api/events/{event_id}/report", get(report))
        .route("/api/events/{event_id}/report/admissions", get(admissions))
}

/// The reports computed lately, by event (at most one computation at a time, each answered
/// for [`FRESH`]: `crate::fresh`).
pub struct Reports {
    reports: Fresh<Report>,
    /// Pages of the admission log lately read, by (event, after, limit), as the JSON answered:
    /// each is read from Postgres and written out at most once per [`PAGE_FRESH`] (a crowd
    /// asking for it costs neither a query nor a serialization each).
    pages: Mutex<Pages>,
}

/// The pages kept, and their bytes: stale pages are dropped on every insert, and the oldest
/// ones while the bytes would pass [`PAGES_BYTES_MAX`] (a crawl of every `after` with the
/// largest `limit` cannot grow an instance's memory past it); a page larger than the bound
/// alone is answered and not kept.
#[derive(Default)]
struct Pages {
    kept: HashMap<PageKey, (Instant, Bytes)>,
    bytes: usize,
}

impl Pages {
    fn get(&self, key: &PageKey) -> Option<Bytes> {
        (self.kept.get(key))
            .filter(|(at, _)| at.elapsed() < PAGE_FRESH)
            .map(|(_, page)| page.clone())
    }

    fn keep(&mut self, key: PageKey, page: Bytes) {
        if page.len() > PAGES_BYTES_MAX {
            return;
        }
        if let Some((_, old)) = self.kept.remove(&key) {
            self.bytes -= old.len();
        }
        let mut stale = 0;
        self.kept.retain(|_, (at, page)| {
            let keep = at.elapsed() < PAGE_FRESH;
            if !keep {
                stale += page.len();
            }
            keep
        });
        self.bytes -= stale;
        while self.bytes + page.len() > PAGES_BYTES_MAX {
            let Some(oldest) = (self.kept.iter())
                .min_by_key(|(_, (at, _))| *at)
                .map(|(key, _)| key.clone())
            else {
                break;
            };
            if let Some((_, old)) = self.kept.remove(&oldest) {
                self.bytes -= old.len();
            }
        }
        self.bytes += page.len();
        self.kept.insert(key, (Instant::now(), page));
    }
}

/// A page of an event's admission log: (event, after, limit).
type PageKey = (String, u64, u64);

/// How long a page of the admission log is answered from memory.
pub const PAGE_FRESH: Duration = Duration::from_secs(1);
/// The most bytes of pages kept (a page of 10,000 entries is about 2 MB).
pub const PAGES_BYTES_MAX: usize = 16 << 20;

impl Default for Reports {
    fn default() -> Self {
        Self {
            reports: Fresh::new(FRESH),
            pages: Mutex::default(),
        }
    }
}

impl Reports {
    /// A page of `event_id`'s admission log read within [`PAGE_FRESH`], if any.
    fn page(&self, key: &PageKey) -> Option<Bytes> {
        self.pages.lock().expect("not poisoned").get(key)
    }

    fn keep_page(&self, key: PageKey, page: Bytes) {
        self.pages.lock().expect("not poisoned").keep(key, page);
    }

    /// The report of `event_id` (an event that exists), at most [`FRESH`] old.
    pub async fn get(&self, state: &Public, event_id: &str) -> Result<Report> {
        (self.reports)
            .get(event_id, async || compute(state, event_id).await)
            .await
    }
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/report",
    tag = "report",
    summary = "The night's report: estimates against real waits, admissions out of order",
    params(crate::extract::EventPath),
    responses(
        (status = 200, description = "The report", body = app::wire::Report),
        NoEvent,
    )
)]
async fn report(State(state): State<Public>, EventId(event_id): EventId) -> Result<Json<Report>> {
    state.rooms.event(&state.db, &event_id).await?;
    Ok(Json(state.reports.get(&state, &event_id).await?))
}

type EntryRow = (
    i64,
    i64,
    bool,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// `after` and `limit` of a page, parsed as API.md says.
fn paging(query: &HashMap<String, String>) -> Result<(u64, u64)> {
    let whole = |name: &str, default: u64| -> Result<u64> {
        query.get(name).map_or(Ok(default), |v| {
            v.parse()
                .map_err(|_| Error::BadRequest(format!("{name} must be a whole number")))
        })
    };
    let after = whole("after", 0)?;
    let limit = whole("limit", DEFAULT_LIMIT)?;
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(Error::Unprocessable(format!(
            "limit must be from 1 to {MAX_LIMIT}"
        )));
    }
    if i64::try_from(after).is_err() {
        return Err(Error::Unprocessable("after is too large".into()));
    }
    Ok((after, limit))
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/report/admissions",
    tag = "report",
    summary = "Every admission in order, with its arrival number",
    params(crate::extract::EventPath, ("after" = Option<u64>, Query, description = "Entries after this n"), ("limit" = Option<u32>, Query, description = "1 to 10,000")),
    responses(
        (status = 200, description = "A page of the log", body = app::wire::AdmissionLog),
        (status = 400, description = "An after or limit that is not a number", body = app::wire::ErrorBody),
        (status = 422, description = "unprocessable: a limit out of 1 to 10,000", body = app::wire::ErrorBody),
        NoEvent,
    )
)]
async fn admissions(
    State(state): State<Public>,
    EventId(event_id): EventId,
    query: std::result::Result<Query<HashMap<String, String>>, QueryRejection>,
) -> Result<Response> {
    let Query(query) = query.map_err(|e| Error::BadRequest(e.body_text()))?;
    let (after, limit) = paging(&query)?;
    state.rooms.event(&state.db, &event_id).await?;
    let key = (event_id.clone(), after, limit);
    let answer = |json: Bytes| ([(header::CONTENT_TYPE, "application/json")], json).into_response();
    if let Some(page) = state.reports.page(&key) {
        return Ok(answer(page));
    }
    let _public = state.rooms.public_read().await?;
    let mut rows: Vec<EntryRow> = sqlx::query_as(
        "select n, arrival, back_from_away, admitted_at, joined_at, estimate_seconds, \
             estimate_low_seconds, estimate_high_seconds \
         from admission where event_id = $1 and n > $2 order by n limit $3",
    )
    .bind(&event_id)
    .bind(after as i64)
    .bind(limit as i64 + 1)
    .fetch_all(&state.db)
    .await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let seconds = |s: Option<i64>| s.map(|s| s.max(0) as u64);
    let entries: Vec<AdmissionEntry> = rows
        .into_iter()
        .map(
            |(n, arrival, back_from_away, admitted_at, joined_at, estimate, low, high)| {
                AdmissionEntry {
                    n: n as u64,
                    arrival: arrival.max(0) as u64,
                    back_from_away,
                    admitted_at,
                    joined_at,
                    estimated_wait_seconds: seconds(estimate),
                    estimate_range_seconds: seconds(low).zip(seconds(high)).map(|(l, h)| [l, h]),
                }
            },
        )
        .collect();
    let next = more.then(|| entries.last().map(|e| e.n)).flatten();
    let page = serde_json::to_vec(&AdmissionLog { entries, next })
        .map(Bytes::from)
        .map_err(|e| Error::Internal(format!("a page of the admission log as JSON: {e}")))?;
    state.reports.keep_page(key, page.clone());
    Ok(answer(page))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(report, admissions))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    /// Review finding (issue 63): a crawl of a thousand distinct pages of the largest limit
    /// kept every page for its second, a gigabyte or two; the kept bytes stay under the bound.
    #[test]
    fn the_pages_kept_are_bounded_by_bytes() {
        let mut pages = Pages::default();
        let page = Bytes::from(vec![b'x'; 2 << 20]);
        for after in 0..1000 {
            pages.keep(("ev".into(), after, 10_000), page.clone());
            assert!(pages.bytes <= PAGES_BYTES_MAX, "{} bytes", pages.bytes);
            let total: usize = pages.kept.values().map(|(_, p)| p.len()).sum();
            assert_eq!(total, pages.bytes);
        }
        assert_eq!(pages.kept.len(), PAGES_BYTES_MAX / (2 << 20));
        // The newest is kept, and answered; one page over the bound alone is not kept.
        assert!(pages.get(&("ev".into(), 999, 10_000)).is_some());
        pages.keep(
            ("ev".into(), 1, 1),
            Bytes::from(vec![b'x'; PAGES_BYTES_MAX + 1]),
        );
        assert!(pages.get(&("ev".into(), 1, 1)).is_none());
    }

    #[test]
    fn paging_refuses_what_is_not_a_page() {
        let q = |pairs: &[(&str, &str)]| -> HashMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(paging(&q(&[])).unwrap(), (0, DEFAULT_LIMIT));
        assert_eq!(
            paging(&q(&[("after", "5"), ("limit", "10000")])).unwrap(),
            (5, 10_000)
        );
        // Out of range: 422; not a number at all: 400.
        for limit in ["0", "10001"] {
            let refused = paging(&q(&[("limit", limit)]));
            assert!(matches!(refused, Err(Error::Unprocessable(_))), "{limit}");
        }
        for (name, value) in [("after", "-1"), ("limit", "x")] {
            let refused = paging(&q(&[(name, value)]));
            assert!(
                matches!(refused, Err(Error::BadRequest(_))),
                "{name}={value}"
            );
        }
    }
}
