//! One buyer of the night, as the page behaves: arrives at their moment of the window (or of
//! the pre-queue), joins, polls every `--poll-ms` until admitted (an entrant of the pre-queue
//! waits for the draw first), reads the seat map and holds 1 to 4 seats
//! best-available in a section picked at random (weighted by its free seats), pays if they are
//! one in `--pay-one-in`, and joins again when nothing was free for them. What they saw is
//! kept in their [`BuyerLog`] for the report.

use std::{
    sync::{Arc, atomic::Ordering},
    time::{Duration, Instant},
};

use app::{
    pow,
    wire::{
        ErrorBody, Hold, HoldRequest, Outlook, QueueStatus, SeatMap, SeatStatus, SessionCreated,
    },
};
use chrono::{DateTime, Utc};
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::StatusCode;
use serde::Serialize;
use testkit::device::DeviceKey;

use crate::{
    cli::Plan,
    night::{Night, Reply},
};

pub struct Entry {
    /// `None` from a server that does not say (then this place is not checked for FIFO), and
    /// for an entrant of the pre-queue until the draw gives them a place (their arrival number
    /// is then their place in the draw).
    pub arrival: Option<u64>,
    /// An entrant's pre-queue ticket.
    pub ticket: Option<String>,
    /// When the place was given: the join, or an entrant's first answer after the draw.
    pub joined_ms: i64,
    pub estimate: Option<u64>,
    /// The band and the outlook the place was given with its estimate.
    pub range: Option<[u64; 2]>,
    pub outlook: Option<Outlook>,
    /// When the tick that admitted this place ran (Redis time, epoch ms).
    pub admitted_ms: Option<i64>,
    /// The first answer this place had after the night's first hold ended (`None`: admitted
    /// before, or never told).
    pub after_holds: Option<Answer>,
}

/// A waiting answer as the buyer kept it: when, the estimate, its band and the outlook.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Answer {
    pub at_ms: i64,
    /// The place's position then.
    pub position: u64,
    pub estimate: u64,
    pub range: Option<[u64; 2]>,
    pub outlook: Option<Outlook>,
}

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Still in line or looking when the night ended.
    #[default]
    Unfinished,
    Bought,
    /// Held, and let the hold expire.
    Abandoned,
    SoldOut,
    /// Held, but the payment was declined or failed.
    PaymentFailed,
    /// Admitted, and never opened the seat map (one of `--crowd`).
    NeverLooked,
}

/// What a buyer means to do once admitted.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Buy,
    /// Hold, and let the hold lapse.
    HoldAndLeave,
    /// Never open the seat map.
    NeverLook,
}

impl Intent {
    /// Buyer `i`'s intent: one in `--pay-one-in` buys, the others hold and leave; in the
    /// crowd, half buy, a quarter hold and leave, a quarter never look.
    pub fn of(plan: &Plan, i: usize) -> Self {
        match (plan.crowd, i % 4) {
            (true, 0 | 1) => Self::Buy,
            (true, 2) => Self::HoldAndLeave,
            (true, _) => Self::NeverLook,
            (false, _) if i.is_multiple_of(plan.pay_one_in) => Self::Buy,
            (false, _) => Self::HoldAndLeave,
        }
    }

    /// Whether the buyer wants a seat (to hold one at least).
    pub fn wants_a_seat(self) -> bool {
        self != Self::NeverLook
    }
}

impl Outcome {
    /// Whether the buyer held a seat.
    pub fn held(self) -> bool {
        matches!(self, Self::Bought | Self::Abandoned | Self::PaymentFailed)
    }
}

#[derive(Default)]
pub struct BuyerLog {
    /// Whether the buyer has tried to join at all (the first try belongs to the first wave).
    pub tried: bool,
    pub first_join_micros: Option<u64>,
    pub entries: Vec<Entry>,
    pub outcome: Outcome,
    /// When the buyer was told sold out, seconds of the night, and whether they were waiting
    /// in line then (not at the seat map).
    pub told_sold_out: Option<(f64, bool)>,
    /// With `--accounts`: whether the account's second device, joining right after the first,
    /// was given the first device's place (`None`: no second device).
    pub second_device_same_place: Option<bool>,
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
    /// In a room that binds tokens: the key this buyer's device keeps.
    device: Option<DeviceKey>,
    /// With `--accounts`: the session of the account's second device.
    second: Option<&'a str>,
    /// When a seat map of sold seats told this buyer the night was sold out.
    told_at_the_map: Option<f64>,
}

impl Buyer<'_> {
    fn queue_url(&self) -> String {
        format!("{}/api/events/{}/queue", self.base, self.night.event_id)
    }

    /// Joins (again) and polls until admitted: the admission token and its expiry, or `None`
    /// when the night stopped or the line answered sold out (the log's outcome then).
    async fn wait_turn(&mut self, log: &mut BuyerLog) -> Option<(String, DateTime<Utc>)> {
        let night = self.night;
        let ttl_ms = i64::from(night.plan.admission_ttl_seconds) * 1000;
        'join: loop {
            let joined_ms = Utc::now().timestamp_millis();
            let reply = self.join().await;
            let first = !log.tried;
            log.tried = true;
            let status = self.read_queue(reply, true, first, log);
            if first
                && status.is_some()
                && let Some(second) = self.second
            {
                log.second_device_same_place = Some(self.same_place(second, status.as_ref()).await);
            }
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
                    estimate_range_seconds,
                    outlook,
                    ..
                }) => log.entries.push(Entry {
                    arrival,
                    ticket: None,
                    joined_ms,
                    estimate: estimated_wait_seconds,
                    range: estimate_range_seconds,
                    outlook,
                    admitted_ms: None,
                    after_holds: None,
                }),
                Some(QueueStatus::PreQueue { ticket, .. }) => log.entries.push(Entry {
                    arrival: None,
                    ticket: Some(ticket),
                    joined_ms,
                    estimate: None,
                    range: None,
                    outlook: None,
                    admitted_ms: None,
                    after_holds: None,
                }),
                Some(QueueStatus::SoldOut) => return self.sold_out(log),
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
                    .call(&night.tallies.polls, || {
                        night.client.get(self.queue_url()).bearer_auth(self.token)
                    })
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
                    Some(QueueStatus::Waiting {
                        arrival,
                        position,
                        estimated_wait_seconds,
                        estimate_range_seconds,
                        outlook,
                        ..
                    }) => {
                        night.count_poll();
                        // An entrant's first place, from the draw: estimated from now on.
                        if let Some(entry) = log.entries.last_mut()
                            && entry.arrival.is_none()
                        {
                            entry.arrival = arrival;
                            entry.estimate = estimated_wait_seconds;
                            entry.range = estimate_range_seconds;
                            entry.outlook = outlook;
                            entry.joined_ms = Utc::now().timestamp_millis();
                        }
                        if let Some(entry) = log.entries.last_mut()
                            && entry.after_holds.is_none()
                            && night.a_hold_has_ended()
                            && let Some(estimate) = estimated_wait_seconds
                        {
                            entry.after_holds = Some(Answer {
                                at_ms: Utc::now().timestamp_millis(),
                                position,
                                estimate,
                                range: estimate_range_seconds,
                                outlook,
                            });
                        }
                    }
                    Some(QueueStatus::PreQueue { .. }) => night.count_poll(),
                    Some(QueueStatus::SoldOut) => return self.sold_out(log),
                    None => {}
                }
            }
        }
    }

    /// `POST queue`, and again with the proof of work when the room asks one, made as the
    /// page makes it (the same `app::pow`), on a blocking thread so the other buyers go on.
    async fn join(&self) -> Result<Reply, reqwest::Error> {
        self.join_as(self.token).await
    }

    /// Whether a join from the account's other session (`second`) answers the place the first
    /// device was just given (`first`): the same arrival, the same pre-queue ticket, or both
    /// admitted.
    async fn same_place(&self, second: &str, first: Option<&QueueStatus>) -> bool {
        let Ok(reply) = self.join_as(second).await else {
            return false;
        };
        let Ok(other) = serde_json::from_slice::<QueueStatus>(&reply.body) else {
            return false;
        };
        match (first, other) {
            (
                Some(QueueStatus::Waiting { arrival: a, .. }),
                QueueStatus::Waiting { arrival: b, .. },
            ) => a.is_some() && *a == b,
            (
                Some(QueueStatus::PreQueue { ticket: a, .. }),
                QueueStatus::PreQueue { ticket: b, .. },
            ) => *a == b,
            (
                Some(QueueStatus::Waiting { .. } | QueueStatus::Admitted { .. }),
                QueueStatus::Admitted { .. },
            ) => true,
            _ => false,
        }
    }

    async fn join_as(&self, token: &str) -> Result<Reply, reqwest::Error> {
        let night = self.night;
        let join = || {
            let url = self.queue_url();
            self.prove(night.client.post(&url), "POST", &url, None)
                .bearer_auth(token)
        };
        let reply = night.call(&night.tallies.joins, join).await?;
        let asked = (reply.status == StatusCode::PRECONDITION_REQUIRED)
            .then(|| serde_json::from_slice::<ErrorBody>(&reply.body).ok()?.proof)
            .flatten();
        let Some(asked) = asked else {
            return Ok(reply);
        };
        let (challenge, bits) = (asked.challenge.clone(), asked.bits);
        let nonce = tokio::task::spawn_blocking(move || pow::solve(&challenge, bits))
            .await
            .expect("the search does not panic");
        night.tallies.proofs.fetch_add(1, Ordering::Relaxed);
        let proof = format!("{}:{nonce}", asked.challenge);
        night
            .call(&night.tallies.joins, || {
                join().header("join-proof", proof.as_str())
            })
            .await
    }

    /// `req` (a `method` request of `url`) with the device's DPoP proof, bound to the
    /// admission `token` if given; unchanged where the room does not bind tokens.
    fn prove(
        &self,
        req: reqwest::RequestBuilder,
        method: &str,
        url: &str,
        token: Option<&str>,
    ) -> reqwest::RequestBuilder {
        match &self.device {
            Some(key) => req.header(app::dpop::HEADER, key.proof(method, url, token)),
            None => req,
        }
    }

    /// The line is over: the night is sold out.
    fn sold_out(&self, log: &mut BuyerLog) -> Option<(String, DateTime<Utc>)> {
        log.outcome = Outcome::SoldOut;
        log.told_sold_out = Some((self.night.seconds(), true));
        self.night.sold_out();
        None
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
        let intent = Intent::of(&night.plan, self.i);
        if intent == Intent::NeverLook {
            return Visit::Done(Outcome::NeverLooked);
        }
        // On the map until the admission runs out, as the page is: it reads the map again
        // every `--poll-ms` while nothing is free for us (the page every
        // `app::presence::ON_MAP_SECONDS`, uncompressed), and holds what comes back.
        let mut conflicts = 0;
        while Utc::now() < expires_at {
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
                self.told_at_the_map = Some(night.seconds());
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
            if total == 0 || conflicts >= 3 {
                conflicts = 0;
                if !night.sleep(night.poll_interval()).await {
                    return Visit::Done(Outcome::Unfinished);
                }
                continue;
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
            let most = if night.plan.crowd { 1 } else { 4 };
            let quantity = self.rng.gen_range(1..=most).min(available);
            match self.hold(admission, section, quantity).await {
                Ok(hold) => {
                    night.hold_ends(hold.expires_at.timestamp_millis());
                    if intent == Intent::HoldAndLeave {
                        return Visit::Done(Outcome::Abandoned);
                    }
                    return Visit::Done(self.pay(&hold).await);
                }
                Err(StatusCode::CONFLICT) => conflicts += 1,
                Err(StatusCode::FORBIDDEN) => return Visit::Again,
                Err(_) => break,
            }
        }
        // Nothing free for us this time: the turn lapses and the page puts us back in line.
        let lapse = (expires_at - Utc::now()).to_std().unwrap_or_default() + night.poll_interval();
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
            .call(&night.tallies.seat_maps, || {
                self.prove(night.client.get(&url), "GET", &url, Some(admission))
                    .bearer_auth(self.token)
                    .header("admission-token", admission)
            })
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
        let url = format!("{}/api/events/{}/holds", self.base, night.event_id);
        let req = || {
            self.prove(night.client.post(&url), "POST", &url, Some(admission))
                .bearer_auth(self.token)
                .header("admission-token", admission)
                .header(
                    "idempotency-key",
                    format!("onsale-{}-{}", self.i, self.attempts),
                )
                .json(&body)
        };
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
            let req = || {
                self.prove(night.client.post(&url), "POST", &url, None)
                    .bearer_auth(self.token)
                    .header("idempotency-key", format!("pay-{}", hold.hold_id))
            };
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

/// When buyer `i` arrives after the night opens: as a replayed night's curve says; else evenly
/// over the window; with a pre-queue, the
/// first half evenly over the pre-queue's first nine tenths (so that none is still in flight at
/// the opening) and the second half over the window from the opening.
fn arrival(plan: &Plan, i: usize) -> Duration {
    let spread = |over: f64, k: usize, of: usize| over * k as f64 / of.max(1) as f64;
    if let Some(at) = plan.arrivals.as_ref().and_then(|a| a.get(i)) {
        return Duration::from_secs_f64(*at);
    }
    let seconds = match plan.prequeue_seconds {
        0 => spread(plan.window_seconds, i, plan.buyers),
        prequeue => {
            let (prequeue, early) = (f64::from(prequeue), plan.buyers / 2);
            if i < early {
                spread(prequeue * 0.9, i, early)
            } else {
                prequeue + spread(plan.window_seconds, i - early, plan.buyers - early)
            }
        }
    };
    Duration::from_secs_f64(seconds)
}

pub async fn buyer(
    night: Arc<Night>,
    i: usize,
    session: SessionCreated,
    second: Option<SessionCreated>,
) -> BuyerLog {
    let mut log = BuyerLog::default();
    let until = (night.open + arrival(&night.plan, i)).saturating_duration_since(Instant::now());
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
        device: night.plan.bind_tokens.then(DeviceKey::new),
        second: second.as_ref().map(|s| s.token.as_str()),
        told_at_the_map: None,
    };
    while let Some((admission, expires_at)) = me.wait_turn(&mut log).await {
        if let Visit::Done(outcome) = me.visit(&admission, expires_at).await {
            log.outcome = outcome;
            if let Some(at) = me.told_at_the_map {
                log.told_sold_out = Some((at, false));
            }
            break;
        }
    }
    log
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(buyers: usize, prequeue_seconds: u32) -> Plan {
        Plan {
            buyers,
            window_seconds: 2.0,
            prequeue_seconds,
            seats: 100,
            admit_rate_per_second: 10,
            auto_rate: None,
            compress: 1.0,
            poll_ms: 3000,
            pay_one_in: 3,
            crowd: false,
            hold_back: true,
            hold_ttl_seconds: 600,
            admission_ttl_seconds: 600,
            hold_sweep_seconds: 30,
            payment_latency_ms: 400,
            instances: 1,
            arrivals: None,
            join_pow_bits: 0,
            bind_tokens: false,
            accounts: false,
        }
    }

    #[test]
    fn with_a_pre_queue_half_arrive_before_the_opening_and_half_in_the_burst_after() {
        let secs = |p: &Plan, i| arrival(p, i).as_secs_f64();
        let open = plan(100, 0);
        assert!((0..100).all(|i| secs(&open, i) < 2.0));
        let prequeue = plan(100, 60);
        assert!((0..50).all(|i| secs(&prequeue, i) < 54.0 + 1e-9));
        assert!((50..100).all(|i| (60.0..62.0).contains(&secs(&prequeue, i))));
        assert!((1..100).all(|i| secs(&prequeue, i) > secs(&prequeue, i - 1)));
    }
}
