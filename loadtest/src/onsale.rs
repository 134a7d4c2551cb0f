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
//! 0 oversold seats, 0 failed joins.

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
    checkout::fake::{self, FakeSettings},
    config::Config,
    keys::Keys,
};
use app::wire::{
    Hold, HoldRequest, NewEvent, NewSection, QueueStatus, RoomUpdate, SeatMap, SeatStatus,
    SessionCreated, Stats, StatsPoint,
};
use chrono::{DateTime, Utc};
use clap::Parser;
use loadtest::{Deployment, Sample, create_event, redis_bytes, sessions};
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::{RequestBuilder, StatusCode};
use serde::Serialize;
use tokio::sync::{Notify, Semaphore};
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
    /// Time compression: the hold time (600 s), the admission time (600 s, in-process), the
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
    /// Exit with an error unless inversions, oversold seats and failed joins are all 0.
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
            admission_ttl_seconds: if cli.urls.is_empty() {
                scaled(600.0, 10.0)
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
}

#[derive(Serialize)]
struct TallyView {
    ok: u64,
    server_errors: u64,
    client_errors: u64,
}

impl Tally {
    fn view(&self) -> TallyView {
        TallyView {
            ok: self.ok.load(Ordering::Relaxed),
            server_errors: self.server_errors.load(Ordering::Relaxed),
            client_errors: self.client_errors.load(Ordering::Relaxed),
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
    /// Sends `req` within the in-flight bound; `Err` is a client-side failure.
    async fn call(&self, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
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
    arrival: u64,
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
                .call(night.client.post(self.queue_url()).bearer_auth(self.token))
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
                    arrival: arrival.unwrap_or(0),
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
                    .call(night.client.get(self.queue_url()).bearer_auth(self.token))
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
                    if self.i % night.plan.pay_one_in != 0 {
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
        match night.call(req).await {
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
            let wait = match night.call(req).await {
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

/// Seats sold or held against the rules, counted in Postgres.
#[derive(Serialize, Default)]
struct Oversold {
    /// Seats in more than one sale.
    sold_twice: i64,
    /// Seats of a purchased hold that are not sold to that hold.
    purchased_not_sold: i64,
    /// Seats marked sold without a purchased hold and its sale.
    sold_without_sale: i64,
    /// Seats in two live (active, unexpired) holds at once.
    held_twice: i64,
    /// Sold seats beyond the seats the event has.
    beyond_capacity: i64,
    seats_sold: i64,
}

impl Oversold {
    fn total(&self) -> i64 {
        self.sold_twice
            + self.purchased_not_sold
            + self.sold_without_sale
            + self.held_twice
            + self.beyond_capacity
    }
}

async fn oversold(database_url: &str, event: &str) -> Result<Oversold, sqlx::Error> {
    let db = sqlx::PgPool::connect(database_url).await?;
    let count = |sql: &'static str| {
        let db = db.clone();
        async move {
            sqlx::query_scalar::<_, i64>(sql)
                .bind(event)
                .fetch_one(&db)
                .await
        }
    };
    let seats = count("select count(*) from seat where event_id = $1").await?;
    let sold_seats = count(
        "select count(*) from hold_seat hs join sale x on x.hold_id = hs.hold_id \
         where x.event_id = $1",
    )
    .await?;
    let found = Oversold {
        sold_twice: count(
            "select count(*) from (select hs.seat_id from hold_seat hs \
             join sale x on x.hold_id = hs.hold_id where x.event_id = $1 \
             group by hs.seat_id having count(*) > 1) twice",
        )
        .await?,
        purchased_not_sold: count(
            "select count(*) from hold h join hold_seat hs on hs.hold_id = h.id \
             join seat s on s.id = hs.seat_id \
             where h.event_id = $1 and h.status = 'purchased' \
               and (s.status <> 'sold' or s.hold_id is distinct from h.id)",
        )
        .await?,
        sold_without_sale: count(
            "select count(*) from seat s left join hold h on h.id = s.hold_id \
             left join sale x on x.hold_id = h.id \
             where s.event_id = $1 and s.status = 'sold' \
               and (h.status is distinct from 'purchased' or x.id is null)",
        )
        .await?,
        held_twice: count(
            "select count(*) from (select hs.seat_id from hold_seat hs \
             join hold h on h.id = hs.hold_id \
             where h.event_id = $1 and h.status = 'active' and h.expires_at > now() \
             group by hs.seat_id having count(*) > 1) twice",
        )
        .await?,
        beyond_capacity: (sold_seats - seats).max(0),
        seats_sold: count("select count(*) from seat where event_id = $1 and status = 'sold'")
            .await?,
    };
    db.close().await;
    Ok(found)
}

/// Redis bytes of the line (sorted set and sequence) per buyer in it.
async fn bytes_per_buyer(redis_url: &str, keys: &Keys, event: &str) -> Option<(f64, u64)> {
    let client = redis::Client::open(redis_url).ok()?;
    let mut conn = client.get_multiplexed_async_connection().await.ok()?;
    let queued: u64 = redis::cmd("ZCARD")
        .arg(keys.queue(event))
        .query_async(&mut conn)
        .await
        .ok()?;
    let bytes = redis_bytes(&mut conn, &[keys.queue(event), keys.seq(event)])
        .await
        .ok()?;
    (queued > 0).then(|| (bytes as f64 / queued as f64, queued))
}

#[derive(Serialize)]
struct Latency {
    count: usize,
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

#[derive(Serialize)]
struct Estimates {
    /// Buyers whose first join and admission were both seen.
    checked: usize,
    /// |real wait - estimate at join|, in seconds.
    median_abs_error_seconds: f64,
    p90_abs_error_seconds: f64,
    /// real wait - estimate: positive when the wait was longer than promised.
    median_error_seconds: f64,
}

#[derive(Serialize)]
struct Fifo {
    /// Places whose join and admission were both seen.
    checked: usize,
    /// Places admitted by an earlier tick than a place that arrived before them.
    inversions: usize,
}

#[derive(Serialize)]
struct Rate {
    mean: f64,
    peak: u64,
}

#[derive(Serialize)]
struct Point {
    /// Seconds since the on-sale opened.
    t: i64,
    admissions: u64,
    holds: u64,
    checkouts: u64,
    queue_length: u64,
    polls: u64,
}

#[derive(Serialize)]
struct Report {
    plan: Plan,
    seconds: f64,
    sessions_seconds: f64,
    first_joins: Latency,
    joins: TallyView,
    polls: TallyView,
    seat_maps: TallyView,
    holds: TallyView,
    hold_conflicts: u64,
    holds_after_turn_lapsed: u64,
    checkouts: TallyView,
    declines: u64,
    /// Server errors by request and status.
    unexpected: BTreeMap<String, u64>,
    polls_served_per_second: Rate,
    admissions_per_second: Rate,
    holds_per_second: Rate,
    checkouts_per_second: Rate,
    fifo: Fifo,
    estimates: Estimates,
    oversold: Oversold,
    /// Seats the buyers paid for (their own count), and seats they were sold twice.
    seats_bought: usize,
    seats_bought_twice: usize,
    sold_out_seconds: Option<f64>,
    redis_bytes_per_queued_buyer: Option<f64>,
    queued_when_measured: Option<u64>,
    outcomes: BTreeMap<String, usize>,
    series: Vec<Point>,
}

impl Report {
    fn failed_joins(&self) -> u64 {
        self.joins.server_errors + self.joins.client_errors
    }
}

/// Sorted by arrival, a place is inverted when an earlier arrival was admitted by a later tick.
fn inversions(mut places: Vec<(u64, i64)>) -> usize {
    places.sort_unstable();
    let mut latest = i64::MIN;
    let mut inverted = 0;
    for (_, admitted) in places {
        if admitted < latest {
            inverted += 1;
        }
        latest = latest.max(admitted);
    }
    inverted
}

fn quantile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn rate(values: impl Iterator<Item = u64>) -> Rate {
    let active: Vec<u64> = values.filter(|v| *v > 0).collect();
    Rate {
        mean: active.iter().sum::<u64>() as f64 / active.len().max(1) as f64,
        peak: active.into_iter().max().unwrap_or(0),
    }
}

/// The night as a chart: admissions, holds and checkouts a second (left axis) and the queue's
/// length (right axis, dashed), one point a second.
fn svg(series: &[Point]) -> String {
    let (w, h, m) = (960.0, 400.0, 50.0);
    let last = series.last().map_or(1, |p| p.t.max(1)) as f64;
    let top_rate = series
        .iter()
        .flat_map(|p| [p.admissions, p.holds, p.checkouts])
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let top_queue = series
        .iter()
        .map(|p| p.queue_length)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let x = |t: i64| m + (t as f64 / last) * (w - 2.0 * m);
    let y = |v: u64, top: f64| h - m - (v as f64 / top) * (h - 2.0 * m);
    let line = |value: &dyn Fn(&Point) -> u64, top: f64, style: &str, name: &str| {
        let points: Vec<String> = series
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.t), y(value(p), top)))
            .collect();
        format!(
            "<polyline fill=\"none\" {style} points=\"{}\"><title>{name}</title></polyline>\n",
            points.join(" ")
        )
    };
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{m}\" y=\"24\" font-size=\"15\">The night: per second, and the line</text>\n\
         <line x1=\"{m}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#444\"/>\n\
         <line x1=\"{m}\" y1=\"{m}\" x2=\"{m}\" y2=\"{b}\" stroke=\"#444\"/>\n\
         <text x=\"{m}\" y=\"{lab}\">0 s</text><text x=\"{r}\" y=\"{lab}\" text-anchor=\"end\">{last} s</text>\n\
         <text x=\"{l}\" y=\"{m}\" text-anchor=\"end\">{top_rate}/s</text>\n\
         <text x=\"{rr}\" y=\"{m}\">{top_queue} in line</text>\n",
        b = h - m,
        r = w - m,
        lab = h - m + 16.0,
        l = m - 4.0,
        rr = w - m + 4.0,
    );
    out += &line(
        &|p| p.admissions,
        top_rate,
        "stroke=\"#1f77b4\" stroke-width=\"2\"",
        "admissions/s",
    );
    out += &line(
        &|p| p.holds,
        top_rate,
        "stroke=\"#2ca02c\" stroke-width=\"2\"",
        "holds/s",
    );
    out += &line(
        &|p| p.checkouts,
        top_rate,
        "stroke=\"#d62728\" stroke-width=\"2\"",
        "checkouts/s",
    );
    out += &line(
        &|p| p.queue_length,
        top_queue,
        "stroke=\"#777\" stroke-dasharray=\"6 4\"",
        "queue length",
    );
    for (i, (name, color)) in [
        ("admissions/s", "#1f77b4"),
        ("holds/s", "#2ca02c"),
        ("checkouts/s", "#d62728"),
        ("queue length (right)", "#777"),
    ]
    .iter()
    .enumerate()
    {
        let lx = m + 20.0 + i as f64 * 170.0;
        out += &format!(
            "<rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{color}\"/>\
             <text x=\"{}\" y=\"{}\">{name}</text>\n",
            m - 22.0,
            lx + 16.0,
            m - 12.0
        );
    }
    out + "</svg>\n"
}

fn print(r: &Report) {
    let p = &r.plan;
    println!(
        "\nThe night: {} buyers within {} s, {} seats, N = {}, {} instance(s), compressed {}x \
         (holds {} s, admissions {} s, payments {} ms), polls every {} ms",
        p.buyers,
        p.window_seconds,
        p.seats,
        p.admit_rate_per_second,
        p.instances,
        p.compress,
        p.hold_ttl_seconds,
        p.admission_ttl_seconds,
        p.payment_latency_ms,
        p.poll_ms
    );
    let j = &r.first_joins;
    println!(
        "joins (the first wave)   {:>8.0}/s   p50 {:.2} ms   p99 {:.2} ms   max {:.2} ms   \
         server errors {}   client errors {}",
        j.per_second, j.p50_ms, j.p99_ms, j.max_ms, r.joins.server_errors, r.joins.client_errors
    );
    let per = |name: &str, rate: &Rate| {
        println!(
            "{name:<24} mean {:>8.1}/s   peak {:>6}/s",
            rate.mean, rate.peak
        )
    };
    per("polls served", &r.polls_served_per_second);
    per("admissions", &r.admissions_per_second);
    per("holds", &r.holds_per_second);
    per("checkouts", &r.checkouts_per_second);
    let errors = |name: &str, t: &TallyView| {
        println!(
            "{name:<24} ok {:>8}   server errors {}   client errors {}",
            t.ok, t.server_errors, t.client_errors
        )
    };
    errors("polls", &r.polls);
    errors("seat maps", &r.seat_maps);
    errors("holds", &r.holds);
    errors("checkouts", &r.checkouts);
    println!(
        "hold conflicts (409) {}   turn lapsed (403) {}   declines {}   server errors {:?}",
        r.hold_conflicts, r.holds_after_turn_lapsed, r.declines, r.unexpected
    );
    println!(
        "FIFO inversions          {} (of {} places checked)",
        r.fifo.inversions, r.fifo.checked
    );
    println!(
        "estimate error           median {:.2} s   p90 {:.2} s   (signed median {:+.2} s, {} buyers)",
        r.estimates.median_abs_error_seconds,
        r.estimates.p90_abs_error_seconds,
        r.estimates.median_error_seconds,
        r.estimates.checked
    );
    println!(
        "oversold seats           {} (Postgres: {} sold; buyers' own count {} bought, {} twice)",
        r.oversold.total(),
        r.oversold.seats_sold,
        r.seats_bought,
        r.seats_bought_twice
    );
    match r.sold_out_seconds {
        Some(s) => println!("sold out after           {s:.1} s"),
        None => println!(
            "sold out after           not sold out in {:.1} s",
            r.seconds
        ),
    }
    if let (Some(b), Some(q)) = (r.redis_bytes_per_queued_buyer, r.queued_when_measured) {
        println!("Redis bytes / queued     {b:.1} (with {q} in line)");
    }
    println!("buyers                   {:?}", r.outcomes);
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
            let failed = report.fifo.inversions > 0
                || report.oversold.total() > 0
                || report.seats_bought_twice > 0
                || report.failed_joins() > 0;
            if cli.check && failed {
                eprintln!("onsale: the check failed (inversions, oversold seats or failed joins)");
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

    let report = report(
        &night,
        logs,
        points,
        open_unix,
        seconds,
        sessions_seconds,
        oversold,
        memory,
    );
    print(&report);
    if let Some(path) = &cli.out {
        let json = serde_json::to_string_pretty(&report).expect("plain data");
        std::fs::write(path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &cli.svg {
        std::fs::write(path, svg(&report.series))
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(report)
}

#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one report, gathered once"
)]
fn report(
    night: &Night,
    logs: Vec<BuyerLog>,
    points: BTreeMap<i64, StatsPoint>,
    open_unix: i64,
    seconds: f64,
    sessions_seconds: f64,
    oversold: Oversold,
    memory: Option<(f64, u64)>,
) -> Report {
    let t = &night.tallies;
    let first: Vec<u64> = logs.iter().filter_map(|l| l.first_join_micros).collect();
    // Throughput of the first wave: from the opening to its last answer.
    let first_wave_seconds = night
        .first_wave_seconds
        .lock()
        .expect("not poisoned")
        .unwrap_or(seconds)
        .max(0.001);
    let joins = Sample::new(first, Duration::from_secs_f64(first_wave_seconds), 0);

    let places: Vec<(u64, i64)> = logs
        .iter()
        .flat_map(|l| &l.entries)
        .filter_map(|e| Some((e.arrival, e.admitted_ms?)))
        .collect();
    let mut errors: Vec<f64> = Vec::new();
    let mut abs_errors: Vec<f64> = Vec::new();
    for e in logs.iter().filter_map(|l| l.entries.first()) {
        if let (Some(estimate), Some(admitted)) = (e.estimate, e.admitted_ms) {
            let error = (admitted - e.joined_ms) as f64 / 1000.0 - estimate as f64;
            errors.push(error);
            abs_errors.push(error.abs());
        }
    }
    errors.sort_by(f64::total_cmp);
    abs_errors.sort_by(f64::total_cmp);

    let mut outcomes = BTreeMap::new();
    for l in &logs {
        let name = serde_json::to_value(l.outcome).expect("plain data");
        *outcomes
            .entry(name.as_str().unwrap_or_default().to_owned())
            .or_default() += 1;
    }
    let sold = night.sold.lock().expect("not poisoned");
    let last = (seconds as i64).max(0);
    let series: Vec<Point> = (0..=last)
        .map(|s| {
            let p = points.get(&(open_unix + s));
            let polls = night
                .polls_per_second
                .get(s as usize)
                .map_or(0, |c| c.load(Ordering::Relaxed));
            Point {
                t: s,
                admissions: p.map_or(0, |p| p.admissions),
                holds: p.map_or(0, |p| p.holds),
                checkouts: p.map_or(0, |p| p.checkouts),
                queue_length: p.map_or(0, |p| p.queue_length),
                polls,
            }
        })
        .collect();
    Report {
        plan: night.plan.clone(),
        seconds,
        sessions_seconds,
        first_joins: Latency {
            count: joins.count(),
            per_second: joins.per_second(),
            p50_ms: joins.pct(0.5),
            p99_ms: joins.pct(0.99),
            max_ms: joins.pct(1.0),
        },
        joins: t.joins.view(),
        polls: t.polls.view(),
        seat_maps: t.seat_maps.view(),
        holds: t.holds.view(),
        hold_conflicts: t.hold_conflicts.load(Ordering::Relaxed),
        holds_after_turn_lapsed: t.lapsed.load(Ordering::Relaxed),
        checkouts: t.checkouts.view(),
        declines: t.declines.load(Ordering::Relaxed),
        unexpected: t.unexpected.lock().expect("not poisoned").clone(),
        polls_served_per_second: rate(series.iter().map(|p| p.polls)),
        admissions_per_second: rate(series.iter().map(|p| p.admissions)),
        holds_per_second: rate(series.iter().map(|p| p.holds)),
        checkouts_per_second: rate(series.iter().map(|p| p.checkouts)),
        fifo: Fifo {
            checked: places.len(),
            inversions: inversions(places),
        },
        estimates: Estimates {
            checked: errors.len(),
            median_abs_error_seconds: quantile(&abs_errors, 0.5),
            p90_abs_error_seconds: quantile(&abs_errors, 0.9),
            median_error_seconds: quantile(&errors, 0.5),
        },
        oversold,
        seats_bought: sold.len(),
        seats_bought_twice: sold.values().filter(|n| **n > 1).count(),
        sold_out_seconds: *night.sold_out_at.lock().expect("not poisoned"),
        redis_bytes_per_queued_buyer: memory.map(|(b, _)| b),
        queued_when_measured: memory.map(|(_, q)| q),
        outcomes,
        series,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_arrival_admitted_by_a_later_tick_is_an_inversion() {
        assert_eq!(inversions(vec![(1, 10), (2, 10), (3, 20), (4, 20)]), 0);
        assert_eq!(inversions(vec![(1, 20), (2, 10), (3, 20)]), 1);
        assert_eq!(inversions(vec![(3, 10), (1, 30), (2, 20)]), 2);
    }

    #[test]
    fn the_layout_has_exactly_the_seats_asked_for() {
        for seats in [1, 19, 20, 500, 2_000, 2_013] {
            let total: u32 = layout(seats).iter().map(|s| s.rows * s.seats_per_row).sum();
            assert_eq!(total, seats);
        }
        assert_eq!(layout(2_000).len(), 4);
    }
}
