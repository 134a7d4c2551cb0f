//! The night: what every buyer shares (the client, the event, the in-flight bound, the tallies
//! of answers, the sales). `run` (the night's course) creates it; the buyers and the report
//! read it, and it depends on neither.
//!
//! Invariant: every request of the night goes through [`Night::call`], so each one is counted
//! once in its [`Tally`], and a shed request (503 with Retry-After) is retried after the wait
//! it asked, as a page does.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        Mutex,
        atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use reqwest::{RequestBuilder, StatusCode};
use serde::Serialize;
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::cli::Plan;

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
    /// Cancelled when time is up: every buyer stops at its next step. A sell-out does not
    /// stop the night: each buyer goes on until the line tells them so (issue 64: sold out
    /// ends every wait), and the report says how long after the last sale each was told.
    pub stop: CancellationToken,
    /// The moment the on-sale opens (the first arrival; with a pre-queue, its opening).
    pub open: Instant,
    pub tallies: Tallies,
    /// Polls answered (2xx) in each second of the night.
    pub polls_per_second: Vec<AtomicU64>,
    /// Each seat bought, with how many orders it appears in (1, unless oversold).
    pub sold: Mutex<HashMap<String, u32>>,
    /// When a buyer was first told sold out (the line or a map of sold seats), and when the
    /// last seat was bought (seconds of the night).
    pub sold_out_at: Mutex<Option<f64>>,
    pub last_sale_at: Mutex<Option<f64>>,
    /// When the night's first hold ended (bought, or its expiry), epoch ms (`i64::MAX`: not
    /// yet): a waiting buyer keeps the first answer they get after it (the estimate once the
    /// first holds have ended).
    pub first_hold_end_ms: AtomicI64,
    /// First joins answered (or failed); `first_wave` is notified when all B are, and
    /// `first_wave_seconds` says when.
    pub first_joins: AtomicUsize,
    pub first_wave: Notify,
    pub first_wave_seconds: Mutex<Option<f64>>,
}

impl Night {
    /// Sends the request `make` makes within the in-flight bound, as a page does: a 503 that
    /// says Retry-After (the server shedding load) is counted in `tally` and a new request
    /// (with a fresh device proof: a proof is good once) sent after that wait, until answered
    /// otherwise or the night stops. The time is the buyer's, from the first send to the last
    /// byte of the answer, waits included. `Err` is a client-side failure.
    pub async fn call(
        &self,
        tally: &Tally,
        make: impl Fn() -> RequestBuilder,
    ) -> Result<Reply, reqwest::Error> {
        let t = Instant::now();
        loop {
            let mut reply = self.send(make()).await?;
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
    }

    pub fn record_sale(&self, seat_ids: &[String]) {
        let mut sold = self.sold.lock().expect("not poisoned");
        for id in seat_ids {
            *sold.entry(id.clone()).or_default() += 1;
        }
        *self.last_sale_at.lock().expect("not poisoned") = Some(self.seconds());
        self.hold_ends(chrono::Utc::now().timestamp_millis());
    }

    /// A hold ends (or will) at `at_ms`, epoch ms.
    pub fn hold_ends(&self, at_ms: i64) {
        self.first_hold_end_ms.fetch_min(at_ms, Ordering::Relaxed);
    }

    /// Whether the night's first hold has ended.
    pub fn a_hold_has_ended(&self) -> bool {
        chrono::Utc::now().timestamp_millis() >= self.first_hold_end_ms.load(Ordering::Relaxed)
    }
}
