//! The command line of `onsale`: the flags, the night's [`Plan`] (its clocks after
//! compression), and the [`Target`] it runs against: running instances (`--url`), or
//! `--instances` started in this process on a scratch deployment (`testkit`).

use std::path::PathBuf;
use testkit::ticketer::{AUDIENCE, Key, Ticketer};

use anteroom::{
    checkout::fake::{self, FakeSettings},
    config::Config,
    redis::Keys,
};
use clap::Parser;
use serde::Serialize;
use testkit::deployment::Deployment;

use crate::replay;

#[derive(Parser)]
#[command(about = "Replays the night of an on-sale against Anteroom and measures it")]
pub struct Cli {
    /// Base URL of a running Anteroom; repeat for several instances. None: start
    /// `--instances` in this process on a scratch deployment.
    #[arg(long = "url")]
    pub urls: Vec<String>,
    /// The targets' database, to count oversold seats (required with `--url`).
    #[arg(long, env = "DATABASE_URL")]
    pub database_url: Option<String>,
    /// The targets' admin API key (`ak_...`, every scope: `anteroom keys add`), to create
    /// the event and read its stats (required with `--url`).
    #[arg(long, env = "ANTEROOM_ADMIN_KEY", hide_env_values = true)]
    pub admin_key: Option<String>,
    /// The targets' Redis, for bytes per queued buyer (optional with `--url`).
    #[arg(long)]
    pub redis_url: Option<String>,
    /// The targets' Redis key prefix.
    #[arg(long, default_value = "ar")]
    pub redis_prefix: String,
    /// The targets' admission time in seconds (with `--url`; in-process it is set from
    /// `--compress`): turns an admission's expiry back into the tick that admitted it.
    #[arg(long, default_value_t = 600)]
    pub admission_ttl_seconds: u32,
    /// The targets' fake payment provider, set to the night's latency and rate (with `--url`).
    #[arg(long)]
    pub fake_payments_url: Option<String>,
    /// In-process instances sharing one deployment.
    #[arg(long, default_value_t = 1)]
    pub instances: usize,
    /// Buyers (B).
    #[arg(long, default_value_t = 20_000)]
    pub buyers: usize,
    /// The seconds within which they all arrive (W), evenly spread.
    #[arg(long, default_value_t = 1.0)]
    pub window: f64,
    /// The pre-queue's length in seconds (0: none; the line is first come, first served from
    /// the first arrival). With one, half the buyers arrive spread over it and the other half
    /// in a burst of `--window` seconds at the opening; the report counts the admissions out
    /// of draw-or-arrival order and checks the published draw as `anteroom verify-draw` does.
    #[arg(long, default_value_t = 0)]
    pub prequeue_seconds: u32,
    /// Seats (S), in sections of 25 rows of 20.
    #[arg(long, default_value_t = 2_000)]
    pub seats: u32,
    /// Admissions a second (N).
    #[arg(long, short = 'n', default_value_t = 300)]
    pub admit_rate: u32,
    /// Let the room's automatic rate steer admissions (`auto_rate`), starting from N, between
    /// N / 10 and 4 N: the night to compare with a fixed N in the same bench run.
    #[arg(long)]
    pub auto_rate: bool,
    /// Time compression: the hold time (600 s), the admission time (600 s, in-process, at
    /// least 60 s), the
    /// expiry sweep (30 s) and the payment latency (400 ms) are divided by it, within the
    /// server's bounds (holds last at least 10 s). Rates (N, 100 charges a second) are not.
    #[arg(long, default_value_t = 1.0)]
    pub compress: f64,
    /// How often a waiting buyer polls, in ms. Not compressed: it sets the line's load
    /// (queue length / interval), which compression must not multiply.
    #[arg(long, default_value_t = 3000)]
    pub poll_ms: u64,
    /// Leading zero bits of the proof of work the room asks of each new place (0: none);
    /// every buyer makes it as the page does, on this machine's cores.
    #[arg(long, default_value_t = 0)]
    pub join_pow_bits: u32,
    /// Bind admission tokens to each buyer's device (the room's `bind_tokens`): every buyer
    /// keeps a P-256 key and signs a DPoP proof for the join and each gated request, as the
    /// page does.
    #[arg(long)]
    pub bind_tokens: bool,
    /// Buyers who are accounts (API.md "Accounts"): the room takes accounts only, each buyer's
    /// session is a signed hand-over from a test ticketer (in this process), and each account
    /// also joins from a second device right after its first join: the line must keep one
    /// place per account (in-process deployments only).
    #[arg(long)]
    pub accounts: bool,
    /// The crowd of the estimate's check (issue 31) instead of the usual buyers: each holds
    /// one seat; half of them buy it, a quarter hold it and walk away, a quarter never open
    /// the seat map (`--pay-one-in` is then ignored).
    #[arg(long)]
    pub crowd: bool,
    /// Admit plain N a second while any seat is free: the free seats do not hold admissions
    /// back for the buyers on the seat map (`ANTEROOM_SEAT_HOLD_BACK=false`; in-process
    /// deployments only). `make bench` runs the crowd and the night both ways.
    #[arg(long)]
    pub no_hold_back: bool,
    /// Run the night this many times in the same house, each on a new event whose room is
    /// turned off at its end (so its night is kept): from the second on, the estimate knows
    /// what the nights before measured (`app::estimate::History`). `--out` and `--svg` gain
    /// the night's number (`crowd-4.json` -> `crowd-4-2.json`).
    #[arg(long, default_value_t = 1)]
    pub nights: u32,
    /// One buyer in this many pays for their hold.
    #[arg(long, default_value_t = 3)]
    pub pay_one_in: usize,
    /// Stop after this many seconds even if seats are left.
    #[arg(long, default_value_t = 900.0)]
    pub max_seconds: f64,
    /// Requests in flight at most (the load generator's own bound).
    #[arg(long, default_value_t = 256)]
    pub max_in_flight: usize,
    /// Write the figures as JSON here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Draw the night as an SVG chart here.
    #[arg(long)]
    pub svg: Option<PathBuf>,
    /// Replay a kept night (its CSV, from the operator's `nights/{night}/csv`): its arrival
    /// curve replaces `--buyers` and `--window`, its admission rate `--admit-rate`, its
    /// holds per checkout `--pay-one-in`.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// Exit with an error unless inversions, oversold seats and failed joins are all 0 and
    /// provider charges = sales + refunds.
    #[arg(long)]
    pub check: bool,
}

/// The night's clocks after compression.
#[derive(Clone, Serialize)]
pub struct Plan {
    pub buyers: usize,
    pub window_seconds: f64,
    pub prequeue_seconds: u32,
    pub seats: u32,
    pub admit_rate_per_second: u32,
    /// The automatic rate's bounds when it steers (`--auto-rate`), else `None`.
    pub auto_rate: Option<(u32, u32)>,
    pub join_pow_bits: u32,
    pub bind_tokens: bool,
    /// Buyers are accounts, each joining from two devices (`--accounts`).
    pub accounts: bool,
    pub compress: f64,
    pub poll_ms: u64,
    pub pay_one_in: usize,
    /// The crowd of the estimate's check (`--crowd`).
    pub crowd: bool,
    /// Whether the free seats hold admissions back for the buyers on the map (not
    /// `--no-hold-back`).
    pub hold_back: bool,
    pub hold_ttl_seconds: u32,
    pub admission_ttl_seconds: u32,
    pub hold_sweep_seconds: u32,
    pub payment_latency_ms: u64,
    pub instances: usize,
    /// A replayed night's arrivals (seconds after the opening, one a buyer); `None`: evenly
    /// over the window.
    #[serde(skip)]
    pub arrivals: Option<Vec<f64>>,
}

impl Plan {
    /// The plan of the flags, or of the night `--replay` names.
    pub fn new(cli: &Cli) -> Result<Self, String> {
        let mut plan = Self::of_flags(cli);
        if let Some(path) = &cli.replay {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let night = replay::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
            plan.buyers = night.arrivals.len();
            plan.window_seconds = night.arrivals.last().copied().unwrap_or(0.0) + 1.0;
            if night.admit_rate > 0 {
                plan.admit_rate_per_second = night.admit_rate;
            }
            plan.pay_one_in = night.pay_one_in.unwrap_or(plan.pay_one_in);
            plan.arrivals = Some(night.arrivals);
        }
        Ok(plan)
    }

    fn of_flags(cli: &Cli) -> Self {
        let f = cli.compress.max(1.0);
        let scaled = |secs: f64, least: f64| (secs / f).max(least).round() as u32;
        Self {
            buyers: cli.buyers,
            window_seconds: cli.window,
            prequeue_seconds: cli.prequeue_seconds,
            seats: cli.seats,
            admit_rate_per_second: cli.admit_rate,
            auto_rate: cli.auto_rate.then(|| auto_bounds(cli.admit_rate)),
            join_pow_bits: cli.join_pow_bits,
            bind_tokens: cli.bind_tokens,
            accounts: cli.accounts,
            compress: f,
            poll_ms: cli.poll_ms,
            pay_one_in: cli.pay_one_in.max(1),
            crowd: cli.crowd,
            hold_back: !cli.no_hold_back,
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
            arrivals: None,
        }
    }
}

/// The automatic rate's bounds around a starting N: a tenth of it to four times it, within
/// the server's 1 to 100,000.
pub fn auto_bounds(n: u32) -> (u32, u32) {
    (
        (n / 10).clamp(1, 100_000),
        n.saturating_mul(4).clamp(1, 100_000),
    )
}

/// Where the night runs.
pub struct Target {
    pub bases: Vec<String>,
    pub admin_key: String,
    pub database_url: String,
    pub redis: Option<(String, Keys)>,
    /// The fake payment provider, whose ledger the money invariant is counted against.
    pub payments_url: Option<String>,
    /// Present when the instances run in this process.
    pub deployment: Option<Deployment>,
    /// The test ticketer's key that signs the buyers' hand-overs (`--accounts`).
    pub signer: Option<Key>,
}

pub async fn in_process(plan: &Plan) -> Target {
    // One fake provider for all instances: the merchant's limit is one limit.
    let settings = FakeSettings {
        latency_ms: plan.payment_latency_ms,
        ..FakeSettings::default()
    };
    let payments = fake::spawn(settings, "127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the fake payment provider starts");
    let (ttl, compress) = (plan.admission_ttl_seconds, plan.compress);
    // A compressed night's buyers shop and go away sooner, but a buyer polling every
    // `poll_ms` is never taken for gone, nor for one who never came to the seat map: they
    // learn of their admission at their next poll and open the map at once, so the deadline
    // is at least a poll and a second (with a deadline under the poll, most of the admitted
    // counted as done without holding, and the model read the share who hold as a third of
    // what it was: issue 64's seed night).
    let deadline = ((120.0 / compress).max(plan.poll_ms as f64 / 1000.0 + 1.0)).ceil() as u32;
    let away = ((60.0 / compress).max(3.0 * plan.poll_ms as f64 / 1000.0)).ceil() as u32;
    let window = ((30.0 / compress).max(3.0 * plan.poll_ms as f64 / 1000.0)).ceil() as u32;
    let (signer, ticketer) = if plan.accounts {
        let key = Key::new("onsale");
        let ticketer = Ticketer::start(&[&key]).await;
        (Some(key), Some(ticketer.setting()))
    } else {
        (None, None)
    };
    let deployment = Deployment::start("onsale", plan.instances, |config: &mut Config| {
        if let Some(setting) = &ticketer {
            config.ticketers = vec![setting.clone()];
            config.account_audience = Some(AUDIENCE.into());
        }
        config.ticker = true;
        // Every buyer comes from this one address; a compressed minute is shorter.
        config.sessions_per_minute = u32::MAX;
        config.joins_per_network_per_minute = u32::MAX;
        config.places_per_network = u32::MAX;
        config.hold_attempts_per_minute = (10.0 * compress) as u32;
        config.admission_ttl_seconds = ttl;
        config.seatmap_deadline_seconds = deadline;
        config.away_after_seconds = away;
        config.seat_hold_back = plan.hold_back;
        // A buyer on the map reads it again every poll here (the page every 10 s): three
        // readings missed, as the server's default window says.
        config.seatmap_window_seconds = window;
        config.payments_url = Some(payments.clone());
    })
    .await;
    let state = deployment.state();
    Target {
        bases: deployment.bases(),
        admin_key: deployment.admin_key().to_owned(),
        database_url: state.config.database_url.expose().to_owned(),
        redis: Some((
            state.config.redis_url.expose().to_owned(),
            state.keys.clone(),
        )),
        payments_url: Some(payments),
        deployment: Some(deployment),
        signer,
    }
}

pub async fn external(cli: &Cli, plan: &Plan) -> Result<Target, String> {
    if cli.accounts {
        return Err("--accounts runs its own ticketer: in-process deployments only".into());
    }
    if cli.no_hold_back {
        return Err("--no-hold-back sets the deployment's ANTEROOM_SEAT_HOLD_BACK: in-process deployments only (set it on the server you name)".into());
    }
    let (Some(admin_key), Some(database_url)) = (&cli.admin_key, &cli.database_url) else {
        return Err("with --url, give --admin-key and --database-url too".into());
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
        admin_key: admin_key.clone(),
        database_url: database_url.clone(),
        redis: cli
            .redis_url
            .clone()
            .map(|url| (url, Keys::new(cli.redis_prefix.clone()))),
        payments_url: cli.fake_payments_url.clone(),
        deployment: None,
        signer: None,
    })
}
