//! The rate's steering, once a second for each event: every instance publishes the health of
//! its hold path; the leader combines the fresh reports with the buyers shopping, steers N by
//! `rate::propose` and writes it with its reason; every instance keeps what the record says as
//! its rate in force. The operator's N is in force whenever `auto_rate` is off.

use std::{collections::HashMap, time::Instant};

use app::{estimate::Model, wire::Room};

use super::Ticker;
use crate::{
    admission::{
        rate::{self, Limits, OriginHealth, Signals},
        signals::{self, Measured},
    },
    error::Result,
    queue::{inventory::Inventory, rates::InForce},
    redis::{Counter, Counters},
};

/// How long the rate's record outlives its last write (a line nobody ticks forgets it).
const RATE_KEEP_SECS: i64 = 3600;
/// The reason shown while the operator's N is in force.
pub const SET_BY_OPERATOR: &str = "set by the operator";

/// What one steering step reads: (the report's write, its expiry), every instance's report,
/// the buyers shopping, the ticker lock's holder, the rate's record, the seats as the last
/// tick counted them (the values of `Inventory::FIELDS`).
type Steering = (
    (),
    (),
    HashMap<String, String>,
    u64,
    Option<String>,
    HashMap<String, String>,
    Vec<Option<i64>>,
);

/// A figure for the rate's record: whole ms, or empty when nothing was measured.
fn figure(ms: Option<f64>) -> String {
    ms.map(|ms| format!("{ms:.1}")).unwrap_or_default()
}

/// The rate in force as the leader's record says (the room's N when it is off, or when the
/// record is missing or from before `auto_rate` was turned on).
pub fn read_in_force(room: &Room, record: &HashMap<String, String>) -> InForce {
    let number = |field: &str| record.get(field).and_then(|v| v.parse::<u32>().ok());
    let auto = record.get("auto").is_some_and(|a| a == "1");
    let proposal = number("proposal").unwrap_or(room.admit_rate_per_second);
    match number("rate") {
        Some(rate) if room.auto_rate && auto => InForce {
            rate,
            reason: record.get("reason").cloned().unwrap_or_default(),
            proposal,
        },
        _ => InForce {
            rate: room.admit_rate_per_second,
            reason: SET_BY_OPERATOR.into(),
            proposal,
        },
    }
}

impl Ticker {
    /// Once a second for one event: publishes this instance's `measured` hold path in the
    /// event's `health` hash; if this ticker leads the event, combines every fresh report with
    /// the buyers shopping, steers the rate by `rate::propose` and writes it, its reason and
    /// the signals to the event's `rate` hash; then keeps what that hash says as this
    /// instance's rate in force. The rate's write is not fenced like an admission: a stalled
    /// leader may write one stale rate, which the next leader's step replaces within a second.
    pub async fn steer(&self, event_id: &str, room: &Room, measured: &Measured) -> Result<InForce> {
        let keys = &self.state.keys;
        let now_ms = measured.at_ms;
        let report = serde_json::to_string(measured).expect("numbers serialize");
        let (_, _, reports, shopping, holder, record, seats): Steering = redis::pipe()
            .hset(keys.health(event_id), &self.owner, report)
            .pexpire(keys.health(event_id), signals::KEEP.as_millis() as i64)
            .hgetall(keys.health(event_id))
            .zcount(keys.shopping(event_id), format!("({now_ms}"), "+inf")
            .get(keys.ticker(event_id))
            .hgetall(keys.rate(event_id))
            .hget(keys.inventory(event_id), &Inventory::FIELDS[..])
            .query_async(&mut self.state.redis.clone())
            .await?;
        let inventory = Inventory::from_values(&seats);
        let in_force = if holder.as_deref() == Some(self.owner.as_str()) {
            let fresh_from = now_ms - signals::WINDOW.as_millis() as i64;
            let (fresh, stale): (Vec<_>, Vec<_>) = reports
                .iter()
                .map(|(owner, json)| (owner, serde_json::from_str::<Measured>(json).ok()))
                .partition(|(_, m)| m.is_some_and(|m| m.at_ms >= fresh_from));
            let measured: Vec<Measured> = fresh.into_iter().filter_map(|(_, m)| m).collect();
            let mut signals = signals::combine(&measured, fresh_from, shopping);
            // A room in front of the ticketer's site follows the site, not the hold path.
            if room.auto_rate
                && room.gate.target_url.is_some()
                && let Some(url) = room.gate.origin_probe_url.as_deref()
            {
                signals.origin = self.probes.read_and_probe(event_id, url);
            }
            let limits = self.limits(room, inventory.as_ref());
            let in_force = self.decide(event_id, room, &signals, &record, &limits);
            self.show_limits(&signals, &limits);
            let mut pipe = redis::pipe();
            let fields = [
                ("rate", in_force.rate.to_string()),
                ("reason", in_force.reason.clone()),
                ("proposal", in_force.proposal.to_string()),
                ("auto", u8::from(room.auto_rate).to_string()),
                ("hold_p99_ms", figure(signals.hold_p99_ms)),
                ("acquire_wait_ms", figure(signals.acquire_wait_ms)),
                ("loop_lag_ms", figure(Some(signals.loop_lag_ms))),
                ("shopping", shopping.to_string()),
                (
                    "origin_ms",
                    match signals.origin {
                        Some(OriginHealth::Answered(ms)) => figure(Some(ms)),
                        Some(OriginHealth::Failed) => "failed".to_owned(),
                        None => figure(None),
                    },
                ),
                ("target_shoppers", limits.target_shoppers.to_string()),
            ];
            pipe.hset_multiple(keys.rate(event_id), &fields)
                .ignore()
                .expire(keys.rate(event_id), RATE_KEEP_SECS)
                .ignore();
            let rate = if room.paused { 0 } else { in_force.rate };
            let second = Counters::at(keys, event_id, now_ms.div_euclid(1000));
            second.set(&mut pipe, Counter::Rate, u64::from(rate));
            // The model a buyer polling in this second is told, for the night's report.
            let band = (self.state.bands)
                .get(&self.state, &self.state.rates, event_id, room)
                .await;
            let model = Model {
                band,
                seats: inventory.map(|i| i.seats(shopping)),
                now_ms,
            };
            second.set_model(&mut pipe, &model.record());
            for (owner, _) in stale {
                pipe.hdel(keys.health(event_id), owner).ignore();
            }
            let _: () = pipe.query_async(&mut self.state.redis.clone()).await?;
            in_force
        } else {
            read_in_force(room, &record)
        };
        self.state.rates.set(event_id, in_force.clone());
        Ok(in_force)
    }

    fn limits(&self, room: &Room, inventory: Option<&Inventory>) -> Limits {
        let config = &self.state.config;
        Limits::of(
            room,
            config.db_acquire_timeout_ms,
            config.loop_lag_limit_ms,
            config.admission_ttl_seconds,
            inventory,
        )
    }

    /// The leader's step: the proposal from the rate in force (or, when the operator's N was
    /// in force, from N: turning `auto_rate` on starts there), and what is in force now.
    fn decide(
        &self,
        event_id: &str,
        room: &Room,
        signals: &Signals,
        record: &HashMap<String, String>,
        limits: &Limits,
    ) -> InForce {
        let was_auto = record.get("auto").is_some_and(|a| a == "1");
        let previous = record
            .get("rate")
            .and_then(|r| r.parse().ok())
            .filter(|_| was_auto && room.auto_rate)
            .unwrap_or(room.admit_rate_per_second);
        if room.paused && room.auto_rate {
            return InForce {
                rate: previous,
                reason: "paused by the operator".into(),
                proposal: previous,
            };
        }
        let mut cuts = self.cuts.lock().expect("not poisoned");
        let cooling = cuts
            .get(event_id)
            .is_some_and(|at| at.elapsed() < rate::COOL_DOWN);
        let step = rate::propose(previous, signals, limits, cooling);
        if step.cut && room.auto_rate {
            cuts.insert(event_id.to_owned(), Instant::now());
        }
        if room.auto_rate {
            InForce {
                rate: step.rate,
                reason: step.reason,
                proposal: step.rate,
            }
        } else {
            InForce {
                rate: room.admit_rate_per_second,
                reason: SET_BY_OPERATOR.into(),
                proposal: step.rate,
            }
        }
    }

    /// Sets the metrics of how close each signal is to its limit.
    fn show_limits(&self, signals: &Signals, limits: &Limits) {
        let ratio = &self.state.metrics.limit_ratio;
        ratio
            .with_label_values(&["hold_p99"])
            .set(signals.hold_p99_ms.unwrap_or(0.0) / limits.target_hold_p99_ms);
        ratio
            .with_label_values(&["db_acquire_wait"])
            .set(signals.acquire_wait_ms.unwrap_or(0.0) / limits.acquire_wait_limit_ms);
        ratio
            .with_label_values(&["loop_lag"])
            .set(signals.loop_lag_ms / limits.loop_lag_limit_ms);
    }
}
