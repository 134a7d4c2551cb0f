//! The night: what every buyer shares (the client, the event, the in-flight bound, the tallies
//! of answers, the sales), and [`run`], which creates the event and the sessions, lets the
//! buyers loose, watches the operator's stats and reads the result into the report.
//!
//! Invariant: every request of the night goes through [`Night::call`], so each one is counted
//! once in its [`Tally`], and a shed request (503 with Retry-After) is retried after the wait
//! it asked, as a page does.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anteroom::{
    checkout::{
        fake::{self, MoneyAudit},
        reconcile,
    },
    opening::verify,
};
use app::wire::{NewEvent, NewSection, RoomUpdate, Stats, StatsPoint};
use chrono::Utc;
use loadtest::{create_event, sessions};
use reqwest::{RequestBuilder, StatusCode};
use serde::Serialize;
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::{
    buyer::{BuyerLog, buyer},
    cli::{Cli, Plan, Target},
    report::{DrawCheck, Report, bytes_per_buyer, oversold, report},
};

/// S seats as sections of at most 25 rows of 20 (a last short row if S is not a multiple).
fn layout(seats: u32) -> Vec<NewSection> {
    let mut sections = Vec::new();
    let mut left = seats;
    while left > 0 {
        let (rows, per_row) = if left >= 20 {
            ((left / 20).min(25), 20)
        } else {
            (1, left)
        };
        let n = sections.len();
        sections.push(NewSection {
            name: format!("{}{}", (b'A' + (n % 26) as u8) as char, n / 26 + 1),
            rows,
            seats_per_row: per_row,
            price_cents: 5_000,
        });
        left -= rows * per_row;
    }
    sections
}

/// Successes and failures of one kind of request, told apart by who failed.
#[derive(Default)]
pub struct Tally {
    pub ok: AtomicU64,
    /// An answer the buyer did not expect: a 5xx, or a 4xx that is not part of the night.
    pub server_errors: AtomicU64,
    /// No answer: connection refused or reset, timeout (the load generator's side or the
    /// network's, not the server's word).
    pub client_errors: AtomicU64,
    /// 503 `unavailable` with Retry-After: the server shed the excess and the buyer tried
    /// again after the wait it asked (the night's protection at work, not an error).
    pub shed: AtomicU64,
}

#[derive(Serialize)]
pub struct TallyView {
    pub ok: u64,
    pub server_errors: u64,
    pub client_errors: u64,
    pub shed: u64,
}

impl Tally {
    pub fn view(&self) -> TallyView {
        TallyView {
            ok: self.ok.load(Ordering::Relaxed),
            server_errors: self.server_errors.load(Ordering::Relaxed),
            client_errors: self.client_errors.load(Ordering::Relaxed),
            shed: self.shed.load(Ordering::Relaxed),
        }
    }

    pub fn server_error(&self) {
        self.server_errors.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Default)]
pub struct Tallies {
    pub joins: Tally,
    pub polls: Tally,
    pub seat_maps: Tally,
    pub holds: Tally,
    pub checkouts: Tally,
    /// 409 `seat_unavailable`: another buyer was faster (part of the night, not an error).
    pub hold_conflicts: AtomicU64,
    /// 403 on a hold: the buyer's turn ran out while they chose (part of the night).
    pub lapsed: AtomicU64,
    /// 402: the provider declined.
    pub declines: AtomicU64,
    /// Proofs of work made for a join (428 `proof_required`, answered).
    pub proofs: AtomicU64,
    /// Server errors by request and status ("holds 429"), to say what went wrong.
    pub unexpected: Mutex<BTreeMap<String, u64>>,
}

impl Tallies {
    pub fn unexpected(&self, tally: &Tally, what: &str, status: StatusCode) {
        tally.server_error();
        let mut seen = self.unexpected.lock().expect("not poisoned");
        *seen
            .entry(format!("{what} {}", status.as_u16()))
            .or_default() += 1;
    }
}

/// One answer, read whole, with the time it took from send to the last byte.
pub struct Reply {
    pub status: StatusCode,
    pub body: Vec<u8>,
    pub retry_after: Option<u64>,
    pub micros: u64,
}

/// What every buyer shares.
pub struct Night {
    pub client: reqwest::Client,
    pub bases: Vec<String>,
    pub event_id: String,
    pub plan: Plan,
    /// Bounds the requests in flight, so that the load generator does not fall over first.
    pub in_flight: Semaphore,
    /// Cancelled at sell-out or when time is up: every buyer stops at its next step.
    pub stop: CancellationToken,
    /// The moment the on-sale opens (the first arrival; with a pre-queue, its opening).
    pub open: Instant,
    pub tallies: Tallies,
    /// Polls answered (2xx) in each second of the night.
    pub polls_per_second: Vec<AtomicU64>,
    /// Each seat bought, with how many orders it appears in (1, unless oversold).
    pub sold: Mutex<HashMap<String, u32>>,
    pub sold_out_at: Mutex<Option<f64>>,
    /// First joins answered (or failed); `first_wave` is notified when all B are, and
    /// `first_wave_seconds` says when.
    pub first_joins: AtomicUsize,
    pub first_wave: Notify,
    pub first_wave_seconds: Mutex<Option<f64>>,
}

impl Night {
    /// Sends `req` within the in-flight bound, as a page does: a 503 that says Retry-After
    /// (the server shedding load) is counted in `tally` and sent again after that wait, until
    /// answered otherwise or the night stops. The time is the buyer's, from the first send to
    /// the last byte of the answer, waits included. `Err` is a client-side failure.
    pub async fn call(&self, tally: &Tally, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
        let t = Instant::now();
        loop {
            let attempt = req.try_clone().expect("request bodies are bytes");
            let mut reply = self.send(attempt).await?;
            reply.micros = t.elapsed().as_micros() as u64;
            match reply.retry_after {
                Some(wait) if reply.status == StatusCode::SERVICE_UNAVAILABLE => {
                    tally.shed.fetch_add(1, Ordering::Relaxed);
                    if !self.sleep(Duration::from_secs(wait)).await {
                        return Ok(reply);
                    }
                }
                _ => return Ok(reply),
            }
        }
    }

    /// One request and its answer, read whole.
    pub async fn send(&self, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
        let _permit = self.in_flight.acquire().await.expect("never closed");
        let t = Instant::now();
        let r = req.send().await?;
        let status = r.status();
        let retry_after = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let body = r.bytes().await?.to_vec();
        Ok(Reply {
            status,
            body,
            retry_after,
            micros: t.elapsed().as_micros() as u64,
        })
    }

    /// Sleeps `d` unless the night stops first; false if it stopped.
    pub async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = self.stop.cancelled() => false,
            _ = tokio::time::sleep(d) => true,
        }
    }

    pub fn poll_interval(&self) -> Duration {
        Duration::from_millis(self.plan.poll_ms)
    }

    pub fn seconds(&self) -> f64 {
        self.open.elapsed().as_secs_f64()
    }

    pub fn count_poll(&self) {
        let i = (self.seconds() as usize).min(self.polls_per_second.len() - 1);
        self.polls_per_second[i].fetch_add(1, Ordering::Relaxed);
    }

    pub fn sold_out(&self) {
        let mut at = self.sold_out_at.lock().expect("not poisoned");
        if at.is_none() {
            *at = Some(self.seconds());
        }
        self.stop.cancel();
    }

    pub fn record_sale(&self, seat_ids: &[String]) {
        let mut sold = self.sold.lock().expect("not poisoned");
        for id in seat_ids {
            *sold.entry(id.clone()).or_default() += 1;
        }
        if sold.len() >= self.plan.seats as usize {
            drop(sold);
            self.sold_out();
        }
    }
}

/// The operator's per-second series, read every few seconds (the API keeps 10 minutes).
async fn watch_stats(
    client: reqwest::Client,
    url: String,
    admin_token: String,
    stop: CancellationToken,
) -> BTreeMap<i64, StatsPoint> {
    let mut points = BTreeMap::new();
    loop {
        let stopped = stop.is_cancelled();
        let stats = client.get(&url).bearer_auth(&admin_token).send().await.ok();
        if let Some(r) = stats
            && let Ok(stats) = r.json::<Stats>().await
        {
            for p in stats.series {
                points.insert(p.t.timestamp(), p);
            }
        }
        if stopped {
            return points;
        }
        tokio::select! {
            _ = stop.cancelled() => tokio::time::sleep(Duration::from_millis(1100)).await,
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}

/// The server's report of the night, once the admission log has reached Postgres (the
/// ticker moves it every second); `None` if it cannot be read.
async fn night_report(
    client: &reqwest::Client,
    base: &str,
    event: &str,
) -> Option<app::wire::Report> {
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let url = format!("{base}/api/events/{event}/report");
    match client.get(&url).send().await {
        Ok(r) if r.status().is_success() => r.json().await.ok(),
        Ok(r) => {
            eprintln!("onsale: {url} answered {}", r.status());
            None
        }
        Err(e) => {
            eprintln!("onsale: {url}: {e}");
            None
        }
    }
}

pub async fn run(cli: &Cli, plan: Plan, target: &Target) -> Result<Report, String> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(cli.max_in_flight)
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let room = RoomUpdate {
        enabled: Some(true),
        paused: Some(false),
        admit_rate_per_second: Some(plan.admit_rate_per_second),
        auto_rate: Some(plan.auto_rate.is_some()),
        min_admit_rate_per_second: plan.auto_rate.map(|(min, _)| min),
        max_admit_rate_per_second: plan.auto_rate.map(|(_, max)| max),
        hold_ttl_seconds: Some(plan.hold_ttl_seconds),
        hold_sweep_seconds: Some(plan.hold_sweep_seconds),
        join_pow_bits: Some(plan.join_pow_bits),
        bind_tokens: Some(plan.bind_tokens),
        ..RoomUpdate::default()
    };
    let new_event = NewEvent {
        name: "The night".into(),
        starts_at: Utc::now(),
        time_zone: None,
        currency: None,
        sections: layout(plan.seats),
        room,
    };
    let event = create_event(&client, &target.bases[0], &target.admin_token, &new_event).await?;
    println!(
        "event {} with {} seats; creating {} sessions",
        event.id, plan.seats, plan.buyers
    );
    let t = Instant::now();
    let buyers = sessions(&client, &target.bases, plan.buyers, 64).await?;
    let sessions_seconds = t.elapsed().as_secs_f64();
    if plan.prequeue_seconds > 0 {
        let opens_at = open_prequeue(&client, target, &event.id, plan.prequeue_seconds).await?;
        println!(
            "sessions made in {sessions_seconds:.1} s; the pre-queue opens, the sale at {opens_at}"
        );
    } else {
        println!("sessions made in {sessions_seconds:.1} s; the on-sale opens");
    }

    let max_seconds = cli.max_seconds.max(1.0);
    let night = Arc::new(Night {
        client: client.clone(),
        bases: target.bases.clone(),
        event_id: event.id.clone(),
        in_flight: Semaphore::new(cli.max_in_flight.max(1)),
        stop: CancellationToken::new(),
        open: Instant::now(),
        tallies: Tallies::default(),
        polls_per_second: (0..max_seconds as usize + 2)
            .map(|_| AtomicU64::new(0))
            .collect(),
        sold: Mutex::new(HashMap::new()),
        sold_out_at: Mutex::new(None),
        first_joins: AtomicUsize::new(0),
        first_wave: Notify::new(),
        first_wave_seconds: Mutex::new(None),
        plan,
    });
    let open_unix = Utc::now().timestamp();
    let stats = tokio::spawn(watch_stats(
        client.clone(),
        format!("{}/api/admin/events/{}/stats", target.bases[0], event.id),
        target.admin_token.clone(),
        night.stop.clone(),
    ));
    let tasks: Vec<_> = buyers
        .into_iter()
        .enumerate()
        .map(|(i, s)| tokio::spawn(buyer(night.clone(), i, s)))
        .collect();

    // Redis bytes per queued buyer, once everybody has joined.
    let mut memory = None;
    tokio::select! {
        _ = night.first_wave.notified() => {
            if let Some((url, keys)) = &target.redis {
                memory = bytes_per_buyer(url, keys, &event.id).await;
            }
        }
        _ = night.stop.cancelled() => {}
    }
    let deadline = tokio::spawn({
        let night = night.clone();
        async move {
            let left = Duration::from_secs_f64(max_seconds).saturating_sub(night.open.elapsed());
            night.sleep(left).await;
            night.stop.cancel();
        }
    });
    let mut logs = Vec::with_capacity(tasks.len());
    for task in tasks {
        logs.push(task.await.map_err(|e| e.to_string())?);
    }
    let seconds = night.seconds();
    night.stop.cancel();
    let _ = deadline.await;
    let points = stats.await.map_err(|e| e.to_string())?;
    let oversold = oversold(&target.database_url, &event.id)
        .await
        .map_err(|e| format!("checking seats in Postgres: {e}"))?;
    let money = money(target, &event.id)
        .await
        .map_err(|e| format!("counting the money: {e}"))?;
    let draw = if night.plan.prequeue_seconds > 0 {
        Some(check_draw(&target.bases[0], &event.id, &logs).await)
    } else {
        None
    };

    let night_report = night_report(&client, &target.bases[0], &event.id).await;
    let mut report = report(
        &night,
        logs,
        points,
        open_unix,
        seconds,
        sessions_seconds,
        oversold,
        money,
        memory,
        draw,
    );
    report.night_report = night_report;
    report.print();
    if let Some(path) = &cli.out {
        let json = serde_json::to_string_pretty(&report).expect("plain data");
        std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &cli.svg {
        std::fs::write(path, report.svg()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(report)
}

/// Sets the event's opening `prequeue_seconds` from now, with a pre-queue of that length, and
/// waits for the pre-queue to open (a moment, so that every instance's settings and Redis's
/// clock agree it has); answers `opens_at`.
async fn open_prequeue(
    client: &reqwest::Client,
    target: &Target,
    event: &str,
    prequeue_seconds: u32,
) -> Result<chrono::DateTime<Utc>, String> {
    // Every instance re-reads its rooms within a second.
    let settle = Duration::from_secs(1);
    let opens_at = Utc::now()
        + chrono::Duration::from_std(settle).expect("a second")
        + chrono::Duration::seconds(i64::from(prequeue_seconds));
    let update = RoomUpdate {
        opens_at: Some(Some(opens_at)),
        prequeue_seconds: Some(prequeue_seconds),
        ..RoomUpdate::default()
    };
    let url = format!("{}/api/admin/events/{event}/room", target.bases[0]);
    let r = client
        .put(url)
        .bearer_auth(&target.admin_token)
        .json(&update)
        .send()
        .await
        .map_err(|e| format!("setting the opening: {e}"))?;
    if !r.status().is_success() {
        return Err(format!("setting the opening: {}", r.status()));
    }
    tokio::time::sleep(settle).await;
    Ok(opens_at)
}

/// The published draw, checked as `anteroom verify-draw` checks it (the same functions), and
/// every entrant's place in line (their arrival number) against their ticket's place in it.
async fn check_draw(base: &str, event: &str, logs: &[BuyerLog]) -> DrawCheck {
    let draw = match verify::fetch(base, event).await {
        Ok(draw) => draw,
        Err(e) => return DrawCheck::unverified(vec![e]),
    };
    let (verified, verdict) = match verify::check(&draw, None) {
        Ok(lines) => (true, lines),
        Err(lines) => (false, lines),
    };
    let tickets = draw.tickets.unwrap_or_default();
    let places = logs
        .iter()
        .flat_map(|l| &l.entries)
        .filter_map(|e| Some((e.ticket.as_ref()?, e.arrival?)));
    let (mut checked, mut not_as_published) = (0, 0);
    for (ticket, place) in places {
        checked += 1;
        let published = usize::try_from(place)
            .ok()
            .and_then(|p| tickets.get(p.checked_sub(1)?));
        if published != Some(ticket) {
            not_as_published += 1;
        }
    }
    DrawCheck {
        verified,
        verdict,
        entrants: draw.entrants,
        places_checked: checked,
        places_not_as_published: not_as_published,
    }
}

/// The money invariant, counted at the fake provider once no payment is pending: in-process,
/// reconciliation's step settles what the night left pending (as if its time had come); with
/// `--url`, the targets' own reconciliation is waited for, a minute at most. `None` without
/// the fake's ledger.
async fn money(
    target: &Target,
    event: &str,
) -> Result<Option<MoneyAudit>, Box<dyn std::error::Error + Send + Sync>> {
    let Some(url) = &target.payments_url else {
        return Ok(None);
    };
    let db = sqlx::PgPool::connect(&target.database_url).await?;
    let mut audit = fake::audit(url, &db, event).await?;
    for _ in 0..60 {
        if audit.pending == 0 {
            break;
        }
        match &target.deployment {
            Some(d) => {
                reconcile::step(d.state(), Utc::now() + chrono::Duration::hours(1)).await?;
            }
            None => tokio::time::sleep(Duration::from_secs(1)).await,
        }
        audit = fake::audit(url, &db, event).await?;
    }
    db.close().await;
    Ok(Some(audit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_layout_has_exactly_the_seats_asked_for() {
        for seats in [1, 19, 20, 500, 2_000, 2_013] {
            let total: u32 = layout(seats).iter().map(|s| s.rows * s.seats_per_row).sum();
            assert_eq!(total, seats);
        }
        assert_eq!(layout(2_000).len(), 4);
    }
}
