//! `onsale`: the night of an on-sale (seed 004), replayed against Anteroom. B buyers arrive
//! within W seconds for S seats with N admissions a second. Each one joins the line, polls it
//! as the page does, and once admitted reads the seat map and holds 1 to 4 seats best-available;
//! one in three pays through the fake payment provider, the others let their holds expire. A
//! buyer who finds nothing free waits for their turn to lapse and joins again, as the page does.
//!
//! Targets: running instances (`--url`, repeated; buyers are spread round-robin), or, with no
//! `--url`, `--instances` servers started in this process on one scratch deployment (ticker on
//! in each, so admission runs for real; removed at the end).
//!
//! It prints and writes (`--out`, JSON) join latency and errors, polls served a second,
//! admissions, holds and checkouts a second, FIFO inversions, the error of the estimate, oversold
//! seats (checked in Postgres), the time to sell out and Redis bytes per queued buyer, and draws
//! the night (`--svg`). Invariants checked (`--check` exits non-zero otherwise): 0 inversions,
//! 0 oversold seats, 0 failed joins, and no money lost: provider charges = sales + refunds, 0
//! charges without an order or a refund (counted at the fake provider once the payments left
//! pending are reconciled).

use std::{
    collections::{BTreeMap, HashMap},
    path::PathBuf,
    process::ExitCode,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anteroom::{
    checkout::{
        fake::{self, FakeSettings, MoneyAudit},
        reconcile,
    },
    config::Config,
    keys::Keys,
};
use app::wire::{
    Hold, HoldRequest, NewEvent, NewSection, QueueStatus, RoomUpdate, SeatMap, SeatStatus,
    SessionCreated, Stats, StatsPoint,
};
use chrono::{DateTime, Utc};
use clap::Parser;
use loadtest::{Deployment, create_event, sessions};
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::{RequestBuilder, StatusCode};
use serde::Serialize;
use tokio::sync::{Notify, Semaphore};

mod report;
use report::{Report, bytes_per_buyer, oversold, report};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(about = "Replays the night of an on-sale against Anteroom and measures it")]
struct Cli {
    /// Base URL of a running Anteroom; repeat for several instances. None: start
    /// `--instances` in this process on a scratch deployment.
    #[arg(long = "url")]
    urls: Vec<String>,
    /// The targets' database, to count oversold seats (required with `--url`).
    #[arg(long, env = "DATABASE_URL")]
    database_url: Option<String>,
    /// The targets' admin token, to create the event and read its stats (required with `--url`).
    #[arg(long, env = "ANTEROOM_ADMIN_TOKEN", hide_env_values = true)]
    admin_token: Option<String>,
    /// The targets' Redis, for bytes per queued buyer (optional with `--url`).
    #[arg(long)]
    redis_url: Option<String>,
    /// The targets' Redis key prefix.
    #[arg(long, default_value = "ar")]
    redis_prefix: String,
    /// The targets' admission time in seconds (with `--url`; in-process it is set from
    /// `--compress`): turns an admission's expiry back into the tick that admitted it.
    #[arg(long, default_value_t = 600)]
    admission_ttl_seconds: u32,
    /// The targets' fake payment provider, set to the night's latency and rate (with `--url`).
    #[arg(long)]
    fake_payments_url: Option<String>,
    /// In-process instances sharing one deployment.
    #[arg(long, default_value_t = 1)]
    instances: usize,
    /// Buyers (B).
    #[arg(long, default_value_t = 20_000)]
    buyers: usize,
    /// The seconds within which they all arrive (W), evenly spread.
    #[arg(long, default_value_t = 1.0)]
    window: f64,
    /// Seats (S), in sections of 25 rows of 20.
    #[arg(long, default_value_t = 2_000)]
    seats: u32,
    /// Admissions a second (N).
    #[arg(long, short = 'n', default_value_t = 300)]
    admit_rate: u32,
    /// Time compression: the hold time (600 s), the admission time (600 s, in-process, at
    /// least 60 s), the
    /// expiry sweep (30 s) and the payment latency (400 ms) are divided by it, within the
    /// server's bounds (holds last at least 10 s). Rates (N, 100 charges a second) are not.
    #[arg(long, default_value_t = 1.0)]
    compress: f64,
    /// How often a waiting buyer polls, in ms. Not compressed: it sets the line's load
    /// (queue length / interval), which compression must not multiply.
    #[arg(long, default_value_t = 3000)]
    poll_ms: u64,
    /// One buyer in this many pays for their hold.
    #[arg(long, default_value_t = 3)]
    pay_one_in: usize,
    /// Stop after this many seconds even if seats are left.
    #[arg(long, default_value_t = 900.0)]
    max_seconds: f64,
    /// Requests in flight at most (the load generator's own bound).
    #[arg(long, default_value_t = 256)]
    max_in_flight: usize,
    /// Write the figures as JSON here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Draw the night as an SVG chart here.
    #[arg(long)]
    svg: Option<PathBuf>,
    /// Exit with an error unless inversions, oversold seats and failed joins are all 0 and
    /// provider charges = sales + refunds.
    #[arg(long)]
    check: bool,
}

/// The night's clocks after compression.
#[derive(Clone, Serialize)]
struct Plan {
    buyers: usize,
    window_seconds: f64,
    seats: u32,
    admit_rate_per_second: u32,
    compress: f64,
    poll_ms: u64,
    pay_one_in: usize,
    hold_ttl_seconds: u32,
    admission_ttl_seconds: u32,
    hold_sweep_seconds: u32,
    payment_latency_ms: u64,
    instances: usize,
}

impl Plan {
    fn new(cli: &Cli) -> Self {
        let f = cli.compress.max(1.0);
        let scaled = |secs: f64, least: f64| (secs / f).max(least).round() as u32;
        Self {
            buyers: cli.buyers,
            window_seconds: cli.window,
            seats: cli.seats,
            admit_rate_per_second: cli.admit_rate,
            compress: f,
            poll_ms: cli.poll_ms,
            pay_one_in: cli.pay_one_in.max(1),
            hold_ttl_seconds: scaled(600.0, 10.0),
            // A turn shorter than a minute is shorter than a loaded machine's queueing: the
            // buyers' holds would all come too late.
            admission_ttl_seconds: if cli.urls.is_empty() {
                scaled(600.0, 60.0)
            } else {
                cli.admission_ttl_seconds
            },
            hold_sweep_seconds: scaled(30.0, 1.0),
            payment_latency_ms: (400.0 / f).round() as u64,
            instances: if cli.urls.is_empty() {
                cli.instances.max(1)
            } else {
                cli.urls.len()
            },
        }
    }
}

/// Where the night runs.
struct Target {
    bases: Vec<String>,
    admin_token: String,
    database_url: String,
    redis: Option<(String, Keys)>,
    /// The fake payment provider, whose ledger the money invariant is counted against.
    payments_url: Option<String>,
    /// Present when the instances run in this process.
    deployment: Option<Deployment>,
}

async fn in_process(plan: &Plan) -> Target {
    // One fake provider for all instances: the merchant's limit is one limit.
    let settings = FakeSettings {
        latency_ms: plan.payment_latency_ms,
        ..FakeSettings::default()
    };
    let payments = fake::spawn(settings, "127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the fake payment provider starts");
    let (ttl, compress) = (plan.admission_ttl_seconds, plan.compress);
    let deployment = Deployment::start("onsale", plan.instances, |config: &mut Config| {
        config.ticker = true;
        // Every buyer comes from this one address; a compressed minute is shorter.
        config.sessions_per_minute = u32::MAX;
        config.hold_attempts_per_minute = (10.0 * compress) as u32;
        config.admission_ttl_seconds = ttl;
        config.payments_url = Some(payments.clone());
    })
    .await;
    let config = &deployment.state.config;
    Target {
        bases: deployment.bases.clone(),
        admin_token: deployment.admin_token().to_owned(),
        database_url: config.database_url.expose().to_owned(),
        redis: Some((
            config.redis_url.expose().to_owned(),
            deployment.state.keys.clone(),
        )),
        payments_url: Some(payments),
        deployment: Some(deployment),
    }
}

async fn external(cli: &Cli, plan: &Plan) -> Result<Target, String> {
    let (Some(admin_token), Some(database_url)) = (&cli.admin_token, &cli.database_url) else {
        return Err("with --url, give --admin-token and --database-url too".into());
    };
    if let Some(url) = &cli.fake_payments_url {
        reqwest::Client::new()
            .put(format!("{}/settings", url.trim_end_matches('/')))
            .json(
                &serde_json::json!({"latency_ms": plan.payment_latency_ms, "rate_per_second": 100}),
            )
            .send()
            .await
            .map_err(|e| format!("setting the fake payment provider: {e}"))?;
    }
    Ok(Target {
        bases: cli
            .urls
            .iter()
            .map(|u| u.trim_end_matches('/').to_owned())
            .collect(),
        admin_token: admin_token.clone(),
        database_url: database_url.clone(),
        redis: cli
            .redis_url
            .clone()
            .map(|url| (url, Keys::new(cli.redis_prefix.clone()))),
        payments_url: cli.fake_payments_url.clone(),
        deployment: None,
    })
}

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
struct Tally {
    ok: AtomicU64,
    /// An answer the buyer did not expect: a 5xx, or a 4xx that is not part of the night.
    server_errors: AtomicU64,
    /// No answer: connection refused or reset, timeout (the load generator's side or the
    /// network's, not the server's word).
    client_errors: AtomicU64,
    /// 503 `unavailable` with Retry-After: the server shed the excess and the buyer tried
    /// again after the wait it asked (the night's protection at work, not an error).
    shed: AtomicU64,
}

#[derive(Serialize)]
struct TallyView {
    ok: u64,
    server_errors: u64,
    client_errors: u64,
    shed: u64,
}

impl Tally {
    fn view(&self) -> TallyView {
        TallyView {
            ok: self.ok.load(Ordering::Relaxed),
            server_errors: self.server_errors.load(Ordering::Relaxed),
            client_errors: self.client_errors.load(Ordering::Relaxed),
            shed: self.shed.load(Ordering::Relaxed),
        }
    }

    fn server_error(&self) {
        self.server_errors.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Default)]
struct Tallies {
    joins: Tally,
    polls: Tally,
    seat_maps: Tally,
    holds: Tally,
    checkouts: Tally,
    /// 409 `seat_unavailable`: another buyer was faster (part of the night, not an error).
    hold_conflicts: AtomicU64,
    /// 403 on a hold: the buyer's turn ran out while they chose (part of the night).
    lapsed: AtomicU64,
    /// 402: the provider declined.
    declines: AtomicU64,
    /// Server errors by request and status ("holds 429"), to say what went wrong.
    unexpected: Mutex<BTreeMap<String, u64>>,
}

impl Tallies {
    fn unexpected(&self, tally: &Tally, what: &str, status: StatusCode) {
        tally.server_error();
        let mut seen = self.unexpected.lock().expect("not poisoned");
        *seen
            .entry(format!("{what} {}", status.as_u16()))
            .or_default() += 1;
    }
}

/// One answer, read whole, with the time it took from send to the last byte.
struct Reply {
    status: StatusCode,
    body: Vec<u8>,
    retry_after: Option<u64>,
    micros: u64,
}

/// What every buyer shares.
struct Night {
    client: reqwest::Client,
    bases: Vec<String>,
    event_id: String,
    plan: Plan,
    /// Bounds the requests in flight, so that the load generator does not fall over first.
    in_flight: Semaphore,
    /// Cancelled at sell-out or when time is up: every buyer stops at its next step.
    stop: CancellationToken,
    /// The moment the on-sale opens (the first arrival).
    open: Instant,
    tallies: Tallies,
    /// Polls answered (2xx) in each second of the night.
    polls_per_second: Vec<AtomicU64>,
    /// Each seat bought, with how many orders it appears in (1, unless oversold).
    sold: Mutex<HashMap<String, u32>>,
    sold_out_at: Mutex<Option<f64>>,
    /// First joins answered (or failed); `first_wave` is notified when all B are, and
    /// `first_wave_seconds` says when.
    first_joins: AtomicUsize,
    first_wave: Notify,
    first_wave_seconds: Mutex<Option<f64>>,
}

impl Night {
    /// Sends `req` within the in-flight bound, as a page does: a 503 that says Retry-After
    /// (the server shedding load) is counted in `tally` and sent again after that wait, until
    /// answered otherwise or the night stops. The time is the buyer's, from the first send to
    /// the last byte of the answer, waits included. `Err` is a client-side failure.
    async fn call(&self, tally: &Tally, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
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
    async fn send(&self, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
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
    async fn sleep(&self, d: Duration) -> bool {
        tokio::select! {
            _ = self.stop.cancelled() => false,
            _ = tokio::time::sleep(d) => true,
        }
    }

    fn poll_interval(&self) -> Duration {
        Duration::from_millis(self.plan.poll_ms)
    }

    fn seconds(&self) -> f64 {
        self.open.elapsed().as_secs_f64()
    }

    fn count_poll(&self) {
        let i = (self.seconds() as usize).min(self.polls_per_second.len() - 1);
        self.polls_per_second[i].fetch_add(1, Ordering::Relaxed);
    }

    fn sold_out(&self) {
        let mut at = self.sold_out_at.lock().expect("not poisoned");
        if at.is_none() {
            *at = Some(self.seconds());
        }
        self.stop.cancel();
    }

    fn record_sale(&self, seat_ids: &[String]) {
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

/// One place in the line: from a join to the tick that admitted it.
struct Entry {
    /// `None` from a server that does not say (then this place is not checked for FIFO).
    arrival: Option<u64>,
    joined_ms: i64,
    estimate: Option<u64>,
    /// When the tick that admitted this place ran (Redis time, epoch ms).
    admitted_ms: Option<i64>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
enum Outcome {
    /// Still in line or looking when the night ended.
    #[default]
    Unfinished,
    Bought,
    /// Held, and let the hold expire.
    Abandoned,
    SoldOut,
    /// Held, but the payment was declined or failed.
    PaymentFailed,
}

#[derive(Default)]
struct BuyerLog {
    /// Whether the buyer has tried to join at all (the first try belongs to the first wave).
    tried: bool,
    first_join_micros: Option<u64>,
    entries: Vec<Entry>,
    outcome: Outcome,
}

/// What a visit to the seat map ended in.
enum Visit {
    Done(Outcome),
    /// Nothing (or nothing more) to do with this admission: join again.
    Again,
}

struct Buyer<'a> {
    night: &'a Night,
    i: usize,
    base: &'a str,
    token: &'a str,
    rng: StdRng,
    /// Distinguishes this buyer's hold attempts (their Idempotency-Keys).
    attempts: u32,
}

impl Buyer<'_> {
    fn queue_url(&self) -> String {
        format!("{}/api/events/{}/queue", self.base, self.night.event_id)
    }

    /// Joins (again) and polls until admitted: the admission token and its expiry, or `None`
    /// when the night stopped.
    async fn wait_turn(&mut self, log: &mut BuyerLog) -> Option<(String, DateTime<Utc>)> {
        let night = self.night;
        let ttl_ms = i64::from(night.plan.admission_ttl_seconds) * 1000;
        'join: loop {
            let joined_ms = Utc::now().timestamp_millis();
            let reply = night
                .call(
                    &night.tallies.joins,
                    night.client.post(self.queue_url()).bearer_auth(self.token),
                )
                .await;
            let first = !log.tried;
            log.tried = true;
            let status = self.read_queue(reply, true, first, log);
            if first && night.first_joins.fetch_add(1, Ordering::Relaxed) + 1 == night.plan.buyers {
                *night.first_wave_seconds.lock().expect("not poisoned") = Some(night.seconds());
                night.first_wave.notify_one();
            }
            match status {
                Some(QueueStatus::Admitted {
                    admission_token,
                    expires_at,
                    ..
                }) => return Some((admission_token, expires_at)),
                Some(QueueStatus::Waiting {
                    arrival,
                    estimated_wait_seconds,
                    ..
                }) => log.entries.push(Entry {
                    arrival,
                    joined_ms,
                    estimate: estimated_wait_seconds,
                    admitted_ms: None,
                }),
                None => {
                    if !night.sleep(night.poll_interval()).await {
                        return None;
                    }
                    continue 'join;
                }
            }
            loop {
                if !night.sleep(night.poll_interval()).await {
                    return None;
                }
                let reply = night
                    .call(
                        &night.tallies.polls,
                        night.client.get(self.queue_url()).bearer_auth(self.token),
                    )
                    .await;
                if reply
                    .as_ref()
                    .is_ok_and(|r| r.status == StatusCode::NOT_FOUND)
                {
                    // Out of the line (an admission that lapsed unseen): join again.
                    night.tallies.polls.ok.fetch_add(1, Ordering::Relaxed);
                    night.count_poll();
                    continue 'join;
                }
                match self.read_queue(reply, false, false, log) {
                    Some(QueueStatus::Admitted {
                        admission_token,
                        expires_at,
                        ..
                    }) => {
                        night.count_poll();
                        if let Some(entry) = log.entries.last_mut() {
                            entry.admitted_ms = Some(expires_at.timestamp_millis() - ttl_ms);
                        }
                        return Some((admission_token, expires_at));
                    }
                    Some(QueueStatus::Waiting { .. }) => night.count_poll(),
                    None => {}
                }
            }
        }
    }

    /// Tallies a join (`first_join` says if it is the buyer's first) or a poll, and reads it.
    fn read_queue(
        &self,
        reply: Result<Reply, reqwest::Error>,
        joining: bool,
        first_join: bool,
        log: &mut BuyerLog,
    ) -> Option<QueueStatus> {
        let tallies = &self.night.tallies;
        let (tally, what) = if joining {
            (&tallies.joins, "joins")
        } else {
            (&tallies.polls, "polls")
        };
        let reply = match reply {
            Ok(r) => r,
            Err(_) => {
                tally.client_errors.fetch_add(1, Ordering::Relaxed);
                return None;
            }
        };
        if first_join {
            log.first_join_micros = Some(reply.micros);
        }
        let status = reply
            .status
            .is_success()
            .then(|| serde_json::from_slice::<QueueStatus>(&reply.body).ok())
            .flatten();
        match status {
            Some(s) => {
                tally.ok.fetch_add(1, Ordering::Relaxed);
                Some(s)
            }
            None => {
                tallies.unexpected(tally, what, reply.status);
                None
            }
        }
    }

    /// The admitted buyer at the seat map: hold, maybe pay, or find nothing and wait for the
    /// admission to lapse.
    async fn visit(&mut self, admission: &str, expires_at: DateTime<Utc>) -> Visit {
        let night = self.night;
        let lapse = (expires_at - Utc::now()).to_std().unwrap_or_default() + night.poll_interval();
        for _ in 0..3 {
            let Some(map) = self.seat_map(admission).await else {
                return Visit::Again;
            };
            let seats = map
                .sections
                .iter()
                .flat_map(|s| &s.rows)
                .flat_map(|r| &r.seats);
            if seats.clone().all(|s| s.status == SeatStatus::Sold) {
                night.sold_out();
                return Visit::Done(Outcome::SoldOut);
            }
            // A section at random, weighted by its free seats: buyers spread as people do.
            let free: Vec<(u32, &str)> = map
                .sections
                .iter()
                .map(|s| {
                    let n = s.rows.iter().flat_map(|r| &r.seats);
                    let n = n.filter(|s| s.status == SeatStatus::Available).count() as u32;
                    (n, s.name.as_str())
                })
                .filter(|(n, _)| *n > 0)
                .collect();
            let total: u32 = free.iter().map(|(n, _)| n).sum();
            if total == 0 {
                break;
            }
            let mut pick = self.rng.gen_range(0..total);
            let (available, section) = free
                .iter()
                .find(|(n, _)| {
                    let here = pick < *n;
                    pick = pick.saturating_sub(*n);
                    here
                })
                .map(|(n, name)| (*n, name.to_string()))
                .expect("pick < total");
            let quantity = self.rng.gen_range(1..=4).min(available);
            match self.hold(admission, section, quantity).await {
                Ok(hold) => {
                    if !self.i.is_multiple_of(night.plan.pay_one_in) {
                        return Visit::Done(Outcome::Abandoned);
                    }
                    return Visit::Done(self.pay(&hold).await);
                }
                Err(StatusCode::CONFLICT) => continue,
                Err(StatusCode::FORBIDDEN) => return Visit::Again,
                Err(_) => break,
            }
        }
        // Nothing free for us this time: the turn lapses and the page puts us back in line.
        if night.sleep(lapse).await {
            Visit::Again
        } else {
            Visit::Done(Outcome::Unfinished)
        }
    }

    async fn seat_map(&mut self, admission: &str) -> Option<SeatMap> {
        let night = self.night;
        let url = format!("{}/api/events/{}/seats", self.base, night.event_id);
        let reply = night
            .call(
                &night.tallies.seat_maps,
                night
                    .client
                    .get(url)
                    .bearer_auth(self.token)
                    .header("admission-token", admission),
            )
            .await;
        let tally = &night.tallies.seat_maps;
        match reply {
            Ok(r) if r.status.is_success() => match serde_json::from_slice(&r.body) {
                Ok(map) => {
                    tally.ok.fetch_add(1, Ordering::Relaxed);
                    Some(map)
                }
                Err(_) => {
                    night.tallies.unexpected(tally, "seat maps", r.status);
                    None
                }
            },
            Ok(r) => {
                if r.status != StatusCode::FORBIDDEN {
                    night.tallies.unexpected(tally, "seat maps", r.status);
                }
                None
            }
            Err(_) => {
                tally.client_errors.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// Holds `quantity` best-available seats in `section`; the status of a refusal.
    async fn hold(
        &mut self,
        admission: &str,
        section: String,
        quantity: u32,
    ) -> Result<Hold, StatusCode> {
        let night = self.night;
        self.attempts += 1;
        let body = HoldRequest {
            section: Some(section),
            quantity: Some(quantity),
            seat_ids: None,
        };
        let req = night
            .client
            .post(format!("{}/api/events/{}/holds", self.base, night.event_id))
            .bearer_auth(self.token)
            .header("admission-token", admission)
            .header(
                "idempotency-key",
                format!("onsale-{}-{}", self.i, self.attempts),
            )
            .json(&body);
        let tally = &night.tallies.holds;
        match night.call(tally, req).await {
            Ok(r) if r.status == StatusCode::CREATED => {
                match serde_json::from_slice::<Hold>(&r.body) {
                    Ok(hold) => {
                        tally.ok.fetch_add(1, Ordering::Relaxed);
                        Ok(hold)
                    }
                    Err(_) => {
                        night.tallies.unexpected(tally, "holds", r.status);
                        Err(StatusCode::INTERNAL_SERVER_ERROR)
                    }
                }
            }
            Ok(r) => {
                if r.status == StatusCode::CONFLICT {
                    night.tallies.hold_conflicts.fetch_add(1, Ordering::Relaxed);
                } else if r.status == StatusCode::FORBIDDEN {
                    night.tallies.lapsed.fetch_add(1, Ordering::Relaxed);
                } else {
                    night.tallies.unexpected(tally, "holds", r.status);
                }
                Err(r.status)
            }
            Err(_) => {
                tally.client_errors.fetch_add(1, Ordering::Relaxed);
                Err(StatusCode::BAD_GATEWAY)
            }
        }
    }

    /// Pays for `hold`, waiting out 429 and 503 answers as their Retry-After says while the
    /// hold lasts; the same Idempotency-Key every time, so a retry never pays twice.
    async fn pay(&self, hold: &Hold) -> Outcome {
        let night = self.night;
        let tally = &night.tallies.checkouts;
        let url = format!("{}/api/holds/{}/checkout", self.base, hold.hold_id);
        while Utc::now() < hold.expires_at {
            let req = night
                .client
                .post(&url)
                .bearer_auth(self.token)
                .header("idempotency-key", format!("pay-{}", hold.hold_id));
            let wait = match night.call(tally, req).await {
                Ok(r) if r.status == StatusCode::OK => {
                    tally.ok.fetch_add(1, Ordering::Relaxed);
                    night.record_sale(&hold.seat_ids);
                    return Outcome::Bought;
                }
                Ok(r) if r.status == StatusCode::PAYMENT_REQUIRED => {
                    night.tallies.declines.fetch_add(1, Ordering::Relaxed);
                    return Outcome::PaymentFailed;
                }
                Ok(r)
                    if r.status == StatusCode::TOO_MANY_REQUESTS
                        || r.status == StatusCode::SERVICE_UNAVAILABLE =>
                {
                    r.retry_after.unwrap_or(1)
                }
                Ok(r) => {
                    night.tallies.unexpected(tally, "checkouts", r.status);
                    return Outcome::PaymentFailed;
                }
                Err(_) => {
                    tally.client_errors.fetch_add(1, Ordering::Relaxed);
                    1
                }
            };
            if !night.sleep(Duration::from_secs(wait)).await {
                break;
            }
        }
        Outcome::PaymentFailed
    }
}

async fn buyer(night: Arc<Night>, i: usize, session: SessionCreated) -> BuyerLog {
    let mut log = BuyerLog::default();
    let arrives = Duration::from_secs_f64(
        night.plan.window_seconds * i as f64 / night.plan.buyers.max(1) as f64,
    );
    let until = (night.open + arrives).saturating_duration_since(Instant::now());
    if !night.sleep(until).await {
        return log;
    }
    let mut me = Buyer {
        night: &night,
        i,
        base: &night.bases[i % night.bases.len()],
        token: &session.token,
        rng: StdRng::seed_from_u64(i as u64),
        attempts: 0,
    };
    while let Some((admission, expires_at)) = me.wait_turn(&mut log).await {
        if let Visit::Done(outcome) = me.visit(&admission, expires_at).await {
            log.outcome = outcome;
            break;
        }
    }
    log
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

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let plan = Plan::new(&cli);
    let target = if cli.urls.is_empty() {
        in_process(&plan).await
    } else {
        match external(&cli, &plan).await {
            Ok(t) => t,
            Err(e) => {
                eprintln!("onsale: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    let result = run(&cli, plan, &target).await;
    if let Some(deployment) = target.deployment {
        deployment.stop().await;
    }
    match result {
        Ok(report) => {
            if cli.check && report.failed() {
                eprintln!(
                    "onsale: the check failed (inversions, none checked, oversold seats, failed joins or money lost)"
                );
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("onsale: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: &Cli, plan: Plan, target: &Target) -> Result<Report, String> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(cli.max_in_flight)
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let room = RoomUpdate {
        enabled: Some(true),
        paused: Some(false),
        admit_rate_per_second: Some(plan.admit_rate_per_second),
        hold_ttl_seconds: Some(plan.hold_ttl_seconds),
        hold_sweep_seconds: Some(plan.hold_sweep_seconds),
        ..RoomUpdate::default()
    };
    let new_event = NewEvent {
        name: "The night".into(),
        starts_at: Utc::now(),
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
    println!("sessions made in {sessions_seconds:.1} s; the on-sale opens");

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

    let report = report(
        &night,
        logs,
        points,
        open_unix,
        seconds,
        sessions_seconds,
        oversold,
        money,
        memory,
    );
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
                reconcile::step(&d.state, Utc::now() + chrono::Duration::hours(1)).await?;
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
