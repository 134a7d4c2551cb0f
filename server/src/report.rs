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

use std::{
    collections::HashMap,
    ops::Deref,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use app::{
    estimate::Model,
    wire::{AdmissionEntry, AdmissionLog, EstimateReport, OutlookReport, Report, Told},
};
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
    admission::log::Waiting,
    error::{Error, Result},
    events::state::Catalog,
    extract::EventId,
    fresh::Fresh,
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

type Row = (
    i64,
    bool,
    DateTime<Utc>,
    Option<DateTime<Utc>>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

/// The report of `event_id`, from its admission log in Postgres and its join count in Redis.
pub async fn compute(state: &Public, event_id: &str) -> Result<Report> {
    let joined: Option<u64> = ::redis::cmd("GET")
        .arg(state.keys.joined(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    // The places made in the lines retired before (their count left Redis with them).
    let joined_before: i64 =
        sqlx::query_scalar("select joined_before from event_line where event_id = $1")
            .bind(event_id)
            .fetch_optional(&state.db)
            .await?
            .unwrap_or(0);
    let rows = sqlx::query_as::<_, Row>(
        "select arrival, back_from_away, admitted_at, joined_at, estimate_seconds, \
             estimate_low_seconds, estimate_high_seconds \
         from admission where event_id = $1 order by n",
    )
    .bind(event_id)
    .fetch_all(&state.db)
    .await?;
    let mut tally = Tally::default();
    let times: Vec<(i64, i64)> = rows.iter().map(|r| (r.0, r.2.timestamp_millis())).collect();
    let ahead = places_ahead(&times, LEAD_MS);
    let models = models(state, event_id, &rows).await?;
    for (i, (arrival, back_from_away, admitted_at, joined_at, estimate, low, high)) in
        rows.into_iter().enumerate()
    {
        let told = joined_at.zip(estimate).zip(low.zip(high));
        let admitted_ms = admitted_at.timestamp_millis();
        // A minute before the admission, for a buyer who had joined by then.
        let before = joined_at
            .filter(|j| admitted_ms - j.timestamp_millis() >= LEAD_MS)
            .and_then(|_| {
                let then_ms = admitted_ms - LEAD_MS;
                let record = models.get(&then_ms.div_euclid(1000))?;
                let (band, seats) = Model::from_record(record)?;
                let model = Model {
                    band,
                    seats,
                    now_ms: then_ms,
                };
                let (estimate, [low, high]) = model.wait(ahead[i]);
                Some(Sample {
                    real_seconds: LEAD_MS as f64 / 1000.0,
                    estimate: estimate as f64,
                    range: [low as f64, high as f64],
                })
            });
        tally.add(
            arrival,
            back_from_away,
            told.map(|((joined_at, estimate), (low, high))| Sample {
                real_seconds: (admitted_at - joined_at).num_milliseconds() as f64 / 1000.0,
                estimate: estimate as f64,
                range: [low as f64, high as f64],
            }),
            before,
        );
    }
    let mut report = tally.report(joined.unwrap_or(0) + joined_before.max(0) as u64, event_id);
    report.outlook = calibration(state, event_id).await?;
    Ok(report)
}

/// How long before an admission the second estimate the report checks was given.
pub const LEAD_MS: i64 = 60_000;

/// The models the ticker's leader kept each second of the night (`night_second.model`), by
/// unix second, over the seconds a lead before the admissions of `rows`.
async fn models(state: &Public, event_id: &str, rows: &[Row]) -> Result<HashMap<i64, String>> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Ok(HashMap::new());
    };
    let lead = chrono::Duration::milliseconds(LEAD_MS + 1000);
    let seconds: Vec<(i64, String)> = sqlx::query_as(
        "select floor(extract(epoch from t))::bigint, model from night_second \
         where event_id = $1 and model is not null and t between $2 and $3",
    )
    .bind(event_id)
    .bind(first.2 - lead)
    .bind(last.2)
    .fetch_all(&state.db)
    .await?;
    Ok(seconds.into_iter().collect())
}

/// For each admission of `admissions` (`(arrival, admitted_ms)` in log order), the place its
/// buyer had `lead_ms` before it: 1 + the admissions of earlier arrivals in between (a buyer
/// ahead who left the line in that time is not counted: the log does not know them). One pass,
/// counting the arrivals in the window in a Fenwick tree over their ranks.
pub fn places_ahead(admissions: &[(i64, i64)], lead_ms: i64) -> Vec<u64> {
    let mut ranks: Vec<i64> = admissions.iter().map(|a| a.0).collect();
    ranks.sort_unstable();
    ranks.dedup();
    let rank = |arrival: i64| ranks.partition_point(|&r| r < arrival);
    let mut tree = vec![0i64; ranks.len() + 1];
    let add = |tree: &mut Vec<i64>, at: usize, by: i64| {
        let mut i = at + 1;
        while i < tree.len() {
            tree[i] += by;
            i += i & i.wrapping_neg();
        }
    };
    // The count of arrivals in the window with a rank below `at`.
    let below = |tree: &Vec<i64>, at: usize| {
        let (mut i, mut sum) = (at, 0);
        while i > 0 {
            sum += tree[i];
            i -= i & i.wrapping_neg();
        }
        sum
    };
    let mut from = 0;
    admissions
        .iter()
        .enumerate()
        .map(|(i, &(arrival, admitted_ms))| {
            while from < i && admissions[from].1 <= admitted_ms - lead_ms {
                add(&mut tree, rank(admissions[from].0), -1);
                from += 1;
            }
            let ahead = below(&tree, rank(arrival)).max(0) as u64 + 1;
            add(&mut tree, rank(arrival), 1);
            ahead
        })
        .collect()
}

/// The most places still in line whose outlook a report reads (a line longer than this is
/// counted in its first [`WAITING_READ_MAX`]).
pub const WAITING_READ_MAX: usize = 100_000;

/// Of the buyers told each outlook at joining, how many were admitted and bought (the
/// admission log in Postgres) and how many were not admitted (the joinings the line still
/// keeps, read in pages of a thousand, at most [`WAITING_READ_MAX`]).
async fn calibration(state: &Public, event_id: &str) -> Result<OutlookReport> {
    let mut report = OutlookReport::default();
    fn slot<'a>(report: &'a mut OutlookReport, name: &str) -> Option<&'a mut Told> {
        match name {
            "likely" => Some(&mut report.likely),
            "uncertain" => Some(&mut report.uncertain),
            "unlikely" => Some(&mut report.unlikely),
            _ => None,
        }
    }
    let admitted: Vec<(String, i64, i64)> = sqlx::query_as(
        "select a.outlook, count(*), count(*) filter (where exists ( \
             select 1 from hold h where h.event_id = a.event_id and h.buyer_id = a.buyer_id \
               and h.status = 'purchased')) \
         from admission a where a.event_id = $1 and a.outlook is not null group by a.outlook",
    )
    .bind(event_id)
    .fetch_all(&state.db)
    .await?;
    for (name, count, bought) in admitted {
        if let Some(told) = slot(&mut report, &name) {
            let count = count.max(0) as u64;
            told.told += count;
            told.admitted += count;
            told.bought += bought.max(0) as u64;
        }
    }
    let mut redis = state.redis.clone();
    let (mut cursor, mut read) = (0u64, 0usize);
    let mut models: HashMap<String, String> = HashMap::new();
    loop {
        let (next, page): (u64, Vec<(String, String)>) = ::redis::cmd("HSCAN")
            .arg(state.keys.joins(event_id))
            .arg(cursor)
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut redis)
            .await?;
        // The page's buyers (the hash keeps the models beside them, under `#id`) and the
        // models they name that no earlier page read, in one HMGET.
        let waiting: Vec<Waiting> = page
            .iter()
            .filter(|(field, _)| !field.starts_with('#'))
            .map(|(_, record)| Waiting::parse(record))
            .collect();
        let mut wanted: Vec<&str> = waiting
            .iter()
            .filter_map(|w| w.model_id)
            .filter(|id| !models.contains_key(*id))
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        if !wanted.is_empty() {
            let found: Vec<Option<String>> = ::redis::cmd("HMGET")
                .arg(state.keys.joins(event_id))
                .arg(&wanted)
                .query_async(&mut redis)
                .await?;
            // A model gone (never, but for a hash cut short) is remembered as none, not asked
            // again on every page.
            models.extend(
                wanted
                    .into_iter()
                    .zip(found)
                    .map(|(id, model)| (id.to_owned(), model.unwrap_or_default())),
            );
        }
        read += waiting.len();
        for told in waiting.iter().filter_map(|w| w.joined(&models)?.outlook) {
            if let Some(told) = slot(&mut report, told.name()) {
                told.told += 1;
            }
        }
        cursor = next;
        if cursor == 0 || read >= WAITING_READ_MAX {
            break;
        }
    }
    Ok(report)
}

/// One admitted buyer's estimate at joining against their real wait.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    pub real_seconds: f64,
    pub estimate: f64,
    pub range: [f64; 2],
}

impl Sample {
    /// Whether the real wait, in whole seconds rounded either way, lies in the band.
    pub fn within(&self) -> bool {
        let [low, high] = self.range;
        self.real_seconds.ceil() >= low && self.real_seconds.floor() <= high
    }
}

/// The errors of one kind of estimate, sample by sample.
#[derive(Debug, Default)]
struct Errors {
    errors: Vec<f64>,
    within: u64,
}

impl Errors {
    fn add(&mut self, sample: Sample) {
        self.errors
            .push((sample.estimate - sample.real_seconds).abs());
        self.within += u64::from(sample.within());
    }

    fn report(mut self) -> EstimateReport {
        self.errors.sort_by(f64::total_cmp);
        let samples = self.errors.len() as u64;
        let rank = |p: f64| -> Option<f64> {
            let i = ((p * self.errors.len() as f64).ceil() as usize).max(1) - 1;
            self.errors.get(i).map(|e| (e * 1000.0).round() / 1000.0)
        };
        EstimateReport {
            samples,
            median_abs_error_seconds: rank(0.5),
            p90_abs_error_seconds: rank(0.9),
            within_range_share: (samples > 0).then(|| self.within as f64 / samples as f64),
        }
    }
}

/// The report's figures, added up admission by admission in log order.
#[derive(Debug, Default)]
pub struct Tally {
    admitted: u64,
    inversions: u64,
    back_from_away: u64,
    latest_arrival: Option<i64>,
    at_joining: Errors,
    before: Errors,
}

impl Tally {
    /// One admission: `told` the estimate at joining against the real wait, `before` the
    /// estimate a [`LEAD_MS`] before the admission against that lead.
    pub fn add(
        &mut self,
        arrival: i64,
        back_from_away: bool,
        told: Option<Sample>,
        before: Option<Sample>,
    ) {
        self.admitted += 1;
        if back_from_away {
            self.back_from_away += 1;
            return;
        }
        if self.latest_arrival.is_some_and(|a| arrival < a) {
            self.inversions += 1;
        }
        self.latest_arrival = self.latest_arrival.max(Some(arrival));
        if let Some(sample) = told {
            self.at_joining.add(sample);
        }
        if let Some(sample) = before {
            self.before.add(sample);
        }
    }

    pub fn report(self, joined: u64, event_id: &str) -> Report {
        Report {
            joined,
            admitted: self.admitted,
            fifo_inversions: self.inversions,
            back_from_away: self.back_from_away,
            outlook: OutlookReport::default(),
            estimate: self.at_joining.report(),
            estimate_60s_before: self.before.report(),
            admission_log_url: format!("/api/events/{event_id}/report/admissions"),
        }
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
        (status = 404, description = "No such event", body = app::wire::ErrorBody),
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
        (status = 404, description = "No such event", body = app::wire::ErrorBody),
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

    fn sample(real_seconds: f64, estimate: f64, range: [f64; 2]) -> Option<Sample> {
        Some(Sample {
            real_seconds,
            estimate,
            range,
        })
    }

    #[test]
    fn an_admission_behind_a_later_arrival_is_one_inversion() {
        let mut tally = Tally::default();
        for arrival in [1, 2, 5, 3, 4, 6] {
            tally.add(arrival, false, None, None);
        }
        let report = tally.report(6, "e");
        assert_eq!((report.admitted, report.fifo_inversions), (6, 2));
        assert_eq!(report.estimate.samples, 0);
        assert_eq!(report.estimate.median_abs_error_seconds, None);
    }

    #[test]
    fn a_buyer_back_from_away_is_counted_apart_and_others_behind_them_still_invert() {
        let mut tally = Tally::default();
        tally.add(1, false, None, None);
        tally.add(4, false, None, None);
        // Back from away: before 4, by design; and not an estimate sample.
        tally.add(2, true, sample(100.0, 5.0, [4.0, 6.0]), None);
        // Present all along and admitted after 4: still an inversion.
        tally.add(3, false, None, None);
        let report = tally.report(4, "e");
        assert_eq!((report.fifo_inversions, report.back_from_away), (1, 1));
        assert_eq!(report.estimate.samples, 0);
    }

    #[test]
    fn errors_are_ranked_and_the_band_counts_in_whole_seconds() {
        let mut tally = Tally::default();
        tally.add(1, false, sample(9.5, 10.0, [10.0, 10.0]), None);
        tally.add(2, false, sample(12.0, 10.0, [9.0, 11.0]), None);
        tally.add(3, false, sample(10.0, 10.0, [10.0, 12.0]), None);
        tally.add(4, false, sample(7.0, 10.0, [8.0, 12.0]), None);
        let report = tally.report(4, "e");
        assert_eq!(report.estimate.samples, 4);
        assert_eq!(report.estimate.median_abs_error_seconds, Some(0.5));
        assert_eq!(report.estimate.p90_abs_error_seconds, Some(3.0));
        assert_eq!(report.estimate.within_range_share, Some(0.5));
    }

    #[test]
    fn the_estimate_before_is_tallied_apart_from_the_one_at_joining() {
        let mut tally = Tally::default();
        tally.add(
            1,
            false,
            sample(90.0, 30.0, [20.0, 40.0]),
            sample(60.0, 58.0, [50.0, 70.0]),
        );
        tally.add(2, false, sample(5.0, 5.0, [5.0, 5.0]), None);
        let report = tally.report(2, "e");
        assert_eq!(report.estimate.samples, 2);
        assert_eq!(report.estimate_60s_before.samples, 1);
        assert_eq!(
            report.estimate_60s_before.median_abs_error_seconds,
            Some(2.0)
        );
        assert_eq!(report.estimate_60s_before.within_range_share, Some(1.0));
    }

    #[test]
    fn the_place_a_lead_before_counts_the_earlier_arrivals_admitted_since() {
        // (arrival, admitted ms): one a second, then arrival 3 admitted after 5 and 4.
        let log = [
            (1, 0),
            (2, 1_000),
            (5, 2_000),
            (4, 3_000),
            (3, 4_000),
            (6, 5_000),
        ];
        // A lead of 2.5 s: the admissions strictly after `t - 2500` and before this one.
        assert_eq!(places_ahead(&log, 2_500), vec![1, 2, 3, 2, 1, 3]);
        // A lead longer than the night: every earlier arrival admitted before.
        assert_eq!(places_ahead(&log, 60_000), vec![1, 2, 3, 3, 3, 6]);
        // Nothing ahead in a lead of nothing.
        assert_eq!(places_ahead(&log, 0), vec![1; 6]);
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
