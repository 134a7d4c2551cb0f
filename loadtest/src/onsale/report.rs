//! The night's figures: what Postgres and Redis say after it (oversold seats, bytes per queued
//! buyer), the report gathered from every buyer's log (latencies, rates, FIFO inversions, the
//! error of the estimate), printed, as JSON, and drawn as an SVG chart.
//!
//! Invariants of a good night, which [`Report::failed`] checks: some places were checked for
//! FIFO and none was inverted (admitted out of draw-or-arrival order: a drawn entrant's arrival
//! number is their place in the draw), no seat was oversold (in Postgres or in the buyers' own
//! count), no join failed, no money was lost (provider charges = sales + refunds, nothing
//! pending), with a pre-queue, the published draw verifies and every entrant stood at
//! their ticket's place in it, and with tokens bound to devices, proven holds went through.

use std::{collections::BTreeMap, sync::atomic::Ordering, time::Duration};

use anteroom::{checkout::fake::MoneyAudit, redis::Keys};
use app::wire::{Outlook, StatsPoint};
use loadtest::{Budget, Sample, budget_line, quantile, redis_bytes, sorted};
use serde::Serialize;

use crate::{
    buyer::{BuyerLog, Entry, Intent, Outcome},
    cli::Plan,
    night::{Night, TallyView},
};

/// Seats sold or held against the rules, counted in Postgres.
#[derive(Serialize, Default)]
pub struct Oversold {
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

pub async fn oversold(database_url: &str, event: &str) -> Result<Oversold, sqlx::Error> {
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
pub async fn bytes_per_buyer(redis_url: &str, keys: &Keys, event: &str) -> Option<(f64, u64)> {
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
    /// The median real wait: the estimate's goal is a median |error| within a tenth of it.
    median_wait_seconds: f64,
    longest_wait_seconds: f64,
    /// Share of real waits inside the band given at joining (whole seconds, rounded either
    /// way, as the server's report counts).
    within_band_share: f64,
}

/// The buyers told one outlook at their first joining, and what became of them.
#[derive(Default, Serialize)]
struct Told {
    told: usize,
    /// Of those, the buyers who meant to hold a seat.
    wanted: usize,
    /// Of those, the buyers who held one (bought, or let the hold lapse).
    held: usize,
    bought: usize,
}

/// The outlook's calibration, as the buyers saw it.
#[derive(Default, Serialize)]
struct Calibration {
    likely: Told,
    uncertain: Told,
    unlikely: Told,
    /// Buyers who meant to hold a seat, were told `likely`, and left without one: the goal is
    /// at most 10% of the told `likely` who meant to.
    likely_left_without_share: f64,
    /// Buyers who held a seat and had been told `unlikely`: the goal is at most 20% of those
    /// who held.
    held_told_unlikely_share: f64,
}

impl Calibration {
    /// The outlook each buyer was told at `when` (their first place's answer at joining, or
    /// after the night's first hold ended), against what became of them.
    fn of(night: &Night, logs: &[BuyerLog], when: fn(&Entry) -> Option<Outlook>) -> Self {
        let mut c = Self::default();
        for (i, log) in logs.iter().enumerate() {
            let Some(outlook) = log.entries.first().and_then(when) else {
                continue;
            };
            let told = match outlook {
                Outlook::Likely => &mut c.likely,
                Outlook::Uncertain => &mut c.uncertain,
                Outlook::Unlikely => &mut c.unlikely,
            };
            told.told += 1;
            told.wanted += usize::from(Intent::of(&night.plan, i).wants_a_seat());
            told.held += usize::from(log.outcome.held());
            told.bought += usize::from(log.outcome == Outcome::Bought);
        }
        let share = |part: usize, of: usize| part as f64 / of.max(1) as f64;
        c.likely_left_without_share = share(c.likely.wanted - c.likely.held, c.likely.wanted);
        let held = c.likely.held + c.uncertain.held + c.unlikely.held;
        c.held_told_unlikely_share = share(c.unlikely.held, held);
        c
    }

    /// The share of buyers told `likely` or `unlikely` (something, not `uncertain`).
    fn said_something_share(&self) -> f64 {
        let said = self.likely.told + self.unlikely.told;
        said as f64 / (said + self.uncertain.told).max(1) as f64
    }
}

impl Estimates {
    /// Of each buyer's (real wait, estimate, band), in seconds.
    fn of(told: &[(f64, u64, Option<[u64; 2]>)]) -> Self {
        let errors: Vec<f64> = told.iter().map(|(w, e, _)| w - *e as f64).collect();
        let within = told
            .iter()
            .filter(|(w, _, r)| {
                r.is_some_and(|[low, high]| w.ceil() >= low as f64 && w.floor() <= high as f64)
            })
            .count();
        let waits = sorted(told.iter().map(|(w, _, _)| *w).collect());
        let abs_errors = sorted(errors.iter().map(|e| e.abs()).collect());
        let errors = sorted(errors);
        Estimates {
            checked: errors.len(),
            median_abs_error_seconds: quantile(&abs_errors, 0.5),
            p90_abs_error_seconds: quantile(&abs_errors, 0.9),
            median_error_seconds: quantile(&errors, 0.5),
            median_wait_seconds: quantile(&waits, 0.5),
            longest_wait_seconds: waits.last().copied().unwrap_or(0.0),
            within_band_share: within as f64 / told.len().max(1) as f64,
        }
    }

    /// "1.20 s of 20.00 s (6%), 95.0% inside the band".
    fn brief(&self) -> String {
        format!(
            "{:.2} s of {:.2} s ({:.0}%), {:.1}% inside the band",
            self.median_abs_error_seconds,
            self.median_wait_seconds,
            100.0 * self.median_abs_error_seconds / self.median_wait_seconds.max(0.001),
            100.0 * self.within_band_share
        )
    }
}

/// How the line ended for those still waiting (issue 64: sold out ends the wait).
#[derive(Serialize)]
struct Ending {
    /// When the last seat was bought, and when a buyer was first told sold out (seconds of
    /// the night).
    last_sale_seconds: Option<f64>,
    sold_out_seconds: Option<f64>,
    /// Buyers told sold out while waiting in line, and the longest any of them was told after
    /// the last sale.
    told_in_line: usize,
    longest_after_last_sale_seconds: Option<f64>,
    /// Admitted buyers who found the map sold out, or whose turn lapsed with nothing free.
    admitted_to_a_sold_out_map: usize,
    /// Buyers who had no answer (neither a seat nor sold out) when the night ended.
    unanswered: usize,
}

#[derive(Serialize)]
struct Fifo {
    /// Places whose join and admission were both seen.
    checked: usize,
    /// Places admitted by an earlier tick than a place that arrived before them.
    inversions: usize,
}

/// The published draw, checked (with a pre-queue only).
#[derive(Serialize)]
pub struct DrawCheck {
    pub verified: bool,
    /// What `anteroom verify-draw` would print.
    pub verdict: Vec<String>,
    pub entrants: u64,
    /// Entrants whose place in line was seen.
    pub places_checked: usize,
    /// Of those, places that are not their ticket's place in the published draw.
    pub places_not_as_published: usize,
}

impl DrawCheck {
    pub fn unverified(verdict: Vec<String>) -> Self {
        Self {
            verified: false,
            verdict,
            entrants: 0,
            places_checked: 0,
            places_not_as_published: 0,
        }
    }
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
    /// The admission rate in force (what the ticker's leader steered; N when fixed).
    rate: u64,
}

#[derive(Serialize)]
pub struct Report {
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
    /// Proofs of work the buyers made to join.
    join_proofs: u64,
    /// Server errors by request and status.
    unexpected: BTreeMap<String, u64>,
    polls_served_per_second: Rate,
    admissions_per_second: Rate,
    holds_per_second: Rate,
    checkouts_per_second: Rate,
    fifo: Fifo,
    estimates: Estimates,
    outlook: Calibration,
    /// The answer each waiting buyer had once the night's first hold had ended: the estimate
    /// against the wait from then, and the outlook.
    estimates_after_holds: Estimates,
    outlook_after_holds: Calibration,
    /// Where the buyers told `likely` after the first holds stood then, by what became of
    /// them: what the outlook's misses have in common.
    likely_after_holds: String,
    /// Buyers admitted at least once.
    admitted_buyers: usize,
    ending: Ending,
    oversold: Oversold,
    /// Charges at the fake provider against sales and refunds (`None` without its ledger).
    money: Option<MoneyAudit>,
    /// Seats the buyers paid for (their own count), and seats they were sold twice.
    seats_bought: usize,
    seats_bought_twice: usize,
    sold_out_seconds: Option<f64>,
    redis_bytes_per_queued_buyer: Option<f64>,
    queued_when_measured: Option<u64>,
    outcomes: BTreeMap<String, usize>,
    /// The published draw, checked (`None` without a pre-queue).
    draw: Option<DrawCheck>,
    /// The server's own report of the night (`GET /api/events/{id}/report`), read at the end.
    pub night_report: Option<app::wire::Report>,
    /// With `--accounts`: the places the accounts' second devices were given.
    accounts: Option<Accounts>,
    series: Vec<Point>,
}

impl Report {
    /// Whether the night broke an invariant (or checked nothing).
    pub fn failed(&self) -> bool {
        self.fifo.checked == 0
            || self.fifo.inversions > 0
            || self.oversold.total() > 0
            || self.money.is_some_and(|m| !m.holds() || m.pending > 0)
            || self.seats_bought_twice > 0
            || self.joins.server_errors + self.joins.client_errors > 0
            || self
                .draw
                .as_ref()
                .is_some_and(|d| !d.verified || d.places_not_as_published > 0)
            || (self.plan.bind_tokens && self.holds.ok == 0)
            || self
                .accounts
                .as_ref()
                .is_some_and(|a| a.second_devices == 0 || a.same_place < a.second_devices)
    }

    pub fn svg(&self) -> String {
        svg(&self.series)
    }
}

/// With `--accounts`: each buyer an account, joining from a second device right after the
/// first; the line must give that device the first one's place.
#[derive(Clone, Debug, Serialize)]
pub struct Accounts {
    pub accounts: usize,
    /// Second devices that joined (after a first join that was answered).
    pub second_devices: usize,
    pub same_place: usize,
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

fn rate(values: impl Iterator<Item = u64>) -> Rate {
    let active: Vec<u64> = values.filter(|v| *v > 0).collect();
    Rate {
        mean: active.iter().sum::<u64>() as f64 / active.len().max(1) as f64,
        peak: active.into_iter().max().unwrap_or(0),
    }
}

/// The night as a chart: admissions, holds and checkouts a second and the rate in force
/// (dotted; left axis) and the queue's length (right axis, dashed), one point a second.
fn svg(series: &[Point]) -> String {
    let (w, h, m) = (960.0, 400.0, 50.0);
    let last = series.last().map_or(1, |p| p.t.max(1)) as f64;
    let top_rate = series
        .iter()
        .flat_map(|p| [p.admissions, p.holds, p.checkouts, p.rate])
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
    // What is drawn: name, colour, dash pattern, value, and the top of its axis.
    type Line = (
        &'static str,
        &'static str,
        &'static str,
        fn(&Point) -> u64,
        f64,
    );
    let lines: [Line; 5] = [
        (
            "admissions/s",
            "#1f77b4",
            "none",
            |p| p.admissions,
            top_rate,
        ),
        ("holds/s", "#2ca02c", "none", |p| p.holds, top_rate),
        ("checkouts/s", "#d62728", "none", |p| p.checkouts, top_rate),
        ("rate in force/s", "#1f77b4", "2 3", |p| p.rate, top_rate),
        (
            "queue length (right)",
            "#777",
            "6 4",
            |p| p.queue_length,
            top_queue,
        ),
    ];
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
    for (i, (name, color, dashes, value, top)) in lines.iter().enumerate() {
        let points: Vec<String> = series
            .iter()
            .map(|p| format!("{:.1},{:.1}", x(p.t), y(value(p), *top)))
            .collect();
        let lx = m + 20.0 + i as f64 * 170.0;
        out += &format!(
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" \
             stroke-dasharray=\"{dashes}\" points=\"{}\"><title>{name}</title></polyline>\n\
             <rect x=\"{lx}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{color}\"/>\
             <text x=\"{}\" y=\"{}\">{name}</text>\n",
            points.join(" "),
            m - 22.0,
            lx + 16.0,
            m - 12.0
        );
    }
    out + "</svg>\n"
}

impl Report {
    pub fn print(&self) {
        let r = self;
        let p = &r.plan;
        println!(
            "\nThe night: {} buyers within {} s, {} seats, N = {}{}{}, {} instance(s), compressed {}x \
         (holds {} s, admissions {} s, payments {} ms), polls every {} ms",
            p.buyers,
            p.window_seconds,
            p.seats,
            p.admit_rate_per_second,
            p.auto_rate
                .map(|(min, max)| format!(" (automatic, {min} to {max})"))
                .unwrap_or_default(),
            if p.hold_back {
                ""
            } else {
                " (no hold-back: plain N while a seat is free)"
            },
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
         server errors {}   client errors {}   shed and retried {}",
            j.per_second,
            j.p50_ms,
            j.p99_ms,
            j.max_ms,
            r.joins.server_errors,
            r.joins.client_errors,
            r.joins.shed
        );
        // Issue 66's budgets for the first wave: every join answered within 1.5 s, p99 at
        // most 100 ms, no error.
        let errors = (r.joins.server_errors + r.joins.client_errors) as f64;
        for (what, figure, unit, most) in [
            ("first wave: the slowest join", j.max_ms, "ms", 1500.0),
            ("first wave: join p99", j.p99_ms, "ms", 100.0),
            ("first wave: joins failed", errors, "", 0.0),
        ] {
            println!("{}", budget_line(what, figure, unit, Budget::AtMost(most)));
        }
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
                "{name:<24} ok {:>8}   server errors {}   client errors {}   shed and retried {}",
                t.ok, t.server_errors, t.client_errors, t.shed
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
        if r.plan.bind_tokens {
            println!(
                "tokens bound to devices   every join, seat map and hold carried a DPoP proof"
            );
        }
        if let Some(a) = &r.accounts {
            let other = a.second_devices - a.same_place;
            println!(
                "accounts                 {} accounts joined again from a second device: {} given the same place, {} another ({:.2} places per account)",
                a.second_devices,
                a.same_place,
                other,
                (a.accounts + other) as f64 / a.accounts.max(1) as f64
            );
        }
        if r.join_proofs > 0 {
            println!(
                "proofs of work made      {} (at {} bits)",
                r.join_proofs, r.plan.join_pow_bits
            );
        }
        let fifo = if p.prequeue_seconds > 0 {
            "admitted out of draw-or-arrival order"
        } else {
            "FIFO inversions"
        };
        println!(
            "{fifo:<24} {} (of {} places checked)",
            r.fifo.inversions, r.fifo.checked
        );
        if let Some(d) = &r.draw {
            println!(
                "the published draw       {}   entrants' places not as published: {} (of {} seen)",
                d.verdict.join("; "),
                d.places_not_as_published,
                d.places_checked
            );
        }
        let e = &r.estimates;
        println!(
            "estimate error           median {:.2} s of a median wait of {:.2} s ({:.0}%)   p90 {:.2} s   (signed median {:+.2} s, {} buyers, {:.1}% inside the band)",
            e.median_abs_error_seconds,
            e.median_wait_seconds,
            100.0 * e.median_abs_error_seconds / e.median_wait_seconds.max(0.001),
            e.p90_abs_error_seconds,
            e.median_error_seconds,
            e.checked,
            100.0 * e.within_band_share
        );
        let o = &r.outlook;
        let told = |t: &Told| format!("{} ({} held, {} bought)", t.told, t.held, t.bought);
        println!(
            "outlook at joining       likely {}   uncertain {}   unlikely {}",
            told(&o.likely),
            told(&o.uncertain),
            told(&o.unlikely)
        );
        println!(
            "outlook's calibration    told likely and left without a seat {:.1}%   held a seat told unlikely {:.1}%",
            100.0 * o.likely_left_without_share,
            100.0 * o.held_told_unlikely_share
        );
        let later = &r.outlook_after_holds;
        println!(
            "after the first holds    estimate error {}   ({} buyers)   outlook likely {}   uncertain {}   unlikely {}   (said something {:.0}%; told likely and left without {:.1}%, held told unlikely {:.1}%)",
            r.estimates_after_holds.brief(),
            r.estimates_after_holds.checked,
            told(&later.likely),
            told(&later.uncertain),
            told(&later.unlikely),
            100.0 * later.said_something_share(),
            100.0 * later.likely_left_without_share,
            100.0 * later.held_told_unlikely_share
        );
        println!("told likely then         {}", r.likely_after_holds);
        let end = &r.ending;
        let at = |s: Option<f64>| s.map_or("-".to_owned(), |s| format!("{s:.1} s"));
        println!(
            "the ending               last seat bought at {}   sold out first told at {}   told in line {} (the last {} after the last sale)   admitted to a sold-out map {}   unanswered {}",
            at(end.last_sale_seconds),
            at(end.sold_out_seconds),
            end.told_in_line,
            at(end.longest_after_last_sale_seconds),
            end.admitted_to_a_sold_out_map,
            end.unanswered
        );
        if let Some(n) = &r.night_report {
            let e = &n.estimate;
            let seconds = |s: Option<f64>| s.map_or("-".to_owned(), |s| format!("{s:.2} s"));
            println!(
                "the night's report       joined {}   admitted {}   inversions {}   estimate: median |error| {}   p90 {}   within the band {}   ({} samples)   outlook told/bought: likely {}/{} uncertain {}/{} unlikely {}/{}",
                n.joined,
                n.admitted,
                n.fifo_inversions,
                seconds(e.median_abs_error_seconds),
                seconds(e.p90_abs_error_seconds),
                e.within_range_share
                    .map_or("-".to_owned(), |s| format!("{:.1}%", s * 100.0)),
                e.samples,
                n.outlook.likely.told,
                n.outlook.likely.bought,
                n.outlook.uncertain.told,
                n.outlook.uncertain.bought,
                n.outlook.unlikely.told,
                n.outlook.unlikely.bought
            );
            let b = &n.estimate_60s_before;
            println!(
                "  a minute before        estimate: median |error| {}   p90 {}   within the band {}   ({} samples: the buyers who waited a minute or more)",
                seconds(b.median_abs_error_seconds),
                seconds(b.p90_abs_error_seconds),
                b.within_range_share
                    .map_or("-".to_owned(), |s| format!("{:.1}%", s * 100.0)),
                b.samples,
            );
        }
        println!(
            "oversold seats           {} (Postgres: {} sold; buyers' own count {} bought, {} twice)",
            r.oversold.total(),
            r.oversold.seats_sold,
            r.seats_bought,
            r.seats_bought_twice
        );
        if let Some(m) = &r.money {
            println!(
                "money                    charges {} = sales {} + refunds {}: {}   (unsettled {}, \
                 sold and refunded {}, sales without a charge {}, pending {})",
                m.charges,
                m.sales,
                m.refunds,
                if m.holds() { "holds" } else { "BROKEN" },
                m.unsettled,
                m.sold_and_refunded,
                m.sales_without_charge,
                m.pending
            );
        }
        match r.sold_out_seconds {
            Some(s) => println!("sold out after           {s:.1} s"),
            None => println!(
                "sold out after           not sold out in {:.1} s",
                r.seconds
            ),
        }
        if let (Some(b), Some(q)) = (r.redis_bytes_per_queued_buyer, r.queued_when_measured) {
            println!("Redis bytes / queued     {b:.1} (with {q} in line)");
            let what = "Redis bytes a waiting buyer, all in";
            println!("{}", budget_line(what, b, "bytes", Budget::AtMost(150.0)));
        }
        println!("buyers                   {:?}", r.outcomes);
        println!("{}", r.side_by_side());
    }

    /// One line of the night's figures that `make bench` sets beside the same night with and
    /// without the hold-back (issue 64).
    pub fn side_by_side(&self) -> String {
        let p = &self.plan;
        let minute = self.night_report.as_ref().map_or("-".to_owned(), |n| {
            let b = &n.estimate_60s_before;
            format!(
                "{} ({})",
                b.median_abs_error_seconds
                    .map_or("-".to_owned(), |s| format!("{s:.2} s")),
                b.within_range_share
                    .map_or("-".to_owned(), |s| format!("{:.0}% inside", s * 100.0))
            )
        });
        let sold = self.oversold.seats_sold;
        format!(
            "side by side | N = {}{} | hold-back {} | sold out after {} | seats sold {} | admitted {} | wait median {:.1} s, longest {:.1} s | estimate at joining {} | after the first holds {} | a minute before {} | outlook said something {:.0}% at joining, {:.0}% after the first holds (likely left without {:.0}%, held told unlikely {:.0}%) | admitted to a sold-out map {} | told sold out in line at most {} after the last sale | unanswered {}",
            p.admit_rate_per_second,
            if p.auto_rate.is_some() { " auto" } else { "" },
            if p.hold_back { "on" } else { "off" },
            self.sold_out_seconds
                .map_or("never".to_owned(), |s| format!("{s:.1} s")),
            sold,
            self.admitted_buyers,
            self.estimates.median_wait_seconds,
            self.estimates.longest_wait_seconds,
            self.estimates.brief(),
            self.estimates_after_holds.brief(),
            minute,
            100.0 * self.outlook.said_something_share(),
            100.0 * self.outlook_after_holds.said_something_share(),
            100.0 * self.outlook_after_holds.likely_left_without_share,
            100.0 * self.outlook_after_holds.held_told_unlikely_share,
            self.ending.admitted_to_a_sold_out_map,
            self.ending
                .longest_after_last_sale_seconds
                .map_or("-".to_owned(), |s| format!("{s:.1} s")),
            self.ending.unanswered,
        )
    }
}

#[expect(
    clippy::too_many_arguments,
    reason = "the parts of one report, gathered once"
)]
pub fn report(
    night: &Night,
    logs: Vec<BuyerLog>,
    points: BTreeMap<i64, StatsPoint>,
    open_unix: i64,
    seconds: f64,
    sessions_seconds: f64,
    oversold: Oversold,
    money: Option<MoneyAudit>,
    memory: Option<(f64, u64)>,
    draw: Option<DrawCheck>,
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
    let second: Vec<bool> = logs
        .iter()
        .filter_map(|l| l.second_device_same_place)
        .collect();
    let accounts = night.plan.accounts.then(|| Accounts {
        accounts: logs.len(),
        second_devices: second.len(),
        same_place: second.iter().filter(|same| **same).count(),
    });

    let places: Vec<(u64, i64)> = logs
        .iter()
        .flat_map(|l| &l.entries)
        .filter_map(|e| Some((e.arrival?, e.admitted_ms?)))
        .collect();
    // (real wait, estimate, band) of each buyer's first place.
    let told: Vec<(f64, u64, Option<[u64; 2]>)> = logs
        .iter()
        .filter_map(|l| l.entries.first())
        .filter_map(|e| {
            let (estimate, admitted) = (e.estimate?, e.admitted_ms?);
            Some(((admitted - e.joined_ms) as f64 / 1000.0, estimate, e.range))
        })
        .collect();
    // The same, from the first answer after the night's first hold ended.
    let told_later: Vec<(f64, u64, Option<[u64; 2]>)> = logs
        .iter()
        .filter_map(|l| l.entries.first())
        .filter_map(|e| {
            let (answer, admitted) = (e.after_holds?, e.admitted_ms?);
            Some((
                (admitted - answer.at_ms) as f64 / 1000.0,
                answer.estimate,
                answer.range,
            ))
        })
        .collect();
    let outlook = Calibration::of(night, &logs, |e| e.outlook);
    let outlook_after_holds = Calibration::of(night, &logs, |e| e.after_holds?.outlook);
    let likely_after_holds = likely_after_holds(night, &logs);
    let last_sale_seconds = *night.last_sale_at.lock().expect("not poisoned");
    let in_line: Vec<f64> = logs
        .iter()
        .filter_map(|l| l.told_sold_out)
        .filter(|(_, in_line)| *in_line)
        .map(|(at, _)| at)
        .collect();
    let ending = Ending {
        last_sale_seconds,
        sold_out_seconds: *night.sold_out_at.lock().expect("not poisoned"),
        told_in_line: in_line.len(),
        longest_after_last_sale_seconds: last_sale_seconds
            .and_then(|sale| in_line.iter().map(|at| at - sale).max_by(f64::total_cmp)),
        admitted_to_a_sold_out_map: logs
            .iter()
            .filter(|l| l.told_sold_out.is_some_and(|(_, in_line)| !in_line))
            .count(),
        unanswered: logs
            .iter()
            .filter(|l| l.tried && l.outcome == Outcome::Unfinished)
            .count(),
    };

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
                rate: p.map_or(0, |p| p.admit_rate_per_second),
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
            p50_ms: joins.quantile_ms(0.5),
            p99_ms: joins.quantile_ms(0.99),
            max_ms: joins.quantile_ms(1.0),
        },
        joins: t.joins.view(),
        polls: t.polls.view(),
        seat_maps: t.seat_maps.view(),
        holds: t.holds.view(),
        hold_conflicts: t.hold_conflicts.load(Ordering::Relaxed),
        holds_after_turn_lapsed: t.lapsed.load(Ordering::Relaxed),
        checkouts: t.checkouts.view(),
        declines: t.declines.load(Ordering::Relaxed),
        join_proofs: t.proofs.load(Ordering::Relaxed),
        unexpected: t.unexpected.lock().expect("not poisoned").clone(),
        polls_served_per_second: rate(series.iter().map(|p| p.polls)),
        admissions_per_second: rate(series.iter().map(|p| p.admissions)),
        holds_per_second: rate(series.iter().map(|p| p.holds)),
        checkouts_per_second: rate(series.iter().map(|p| p.checkouts)),
        fifo: Fifo {
            checked: places.len(),
            inversions: inversions(places),
        },
        night_report: None,
        accounts,
        estimates: Estimates::of(&told),
        outlook,
        estimates_after_holds: Estimates::of(&told_later),
        outlook_after_holds,
        likely_after_holds,
        admitted_buyers: logs
            .iter()
            .filter(|l| l.entries.iter().any(|e| e.admitted_ms.is_some()))
            .count(),
        ending,
        oversold,
        money,
        seats_bought: sold.len(),
        seats_bought_twice: sold.values().filter(|n| **n > 1).count(),
        sold_out_seconds: *night.sold_out_at.lock().expect("not poisoned"),
        redis_bytes_per_queued_buyer: memory.map(|(b, _)| b),
        queued_when_measured: memory.map(|(_, q)| q),
        outcomes,
        draw,
        series,
    }
}

/// The buyers told `likely` once the first holds had ended, split by whether they held a seat:
/// how many, their positions then (p10 / p50 / p90), the estimate they were told and when
/// (seconds after the first of those answers).
fn likely_after_holds(night: &Night, logs: &[BuyerLog]) -> String {
    let told: Vec<(bool, crate::buyer::Answer)> = logs
        .iter()
        .enumerate()
        .filter(|(i, _)| Intent::of(&night.plan, *i).wants_a_seat())
        .filter_map(|(_, l)| Some((l.outcome.held(), l.entries.first()?.after_holds?)))
        .filter(|(_, a)| a.outlook == Some(Outlook::Likely))
        .collect();
    let first = told.iter().map(|(_, a)| a.at_ms).min().unwrap_or(0);
    let spread = |values: Vec<f64>| {
        let v = sorted(values);
        format!(
            "{:.0} / {:.0} / {:.0}",
            quantile(&v, 0.1),
            quantile(&v, 0.5),
            quantile(&v, 0.9)
        )
    };
    let group = |held: bool| {
        let of: Vec<&crate::buyer::Answer> = told
            .iter()
            .filter(|(h, _)| *h == held)
            .map(|(_, a)| a)
            .collect();
        format!(
            "{} {}: position {}, estimate {} s, told at +{} s",
            of.len(),
            if held { "held a seat" } else { "left without" },
            spread(of.iter().map(|a| a.position as f64).collect()),
            spread(of.iter().map(|a| a.estimate as f64).collect()),
            spread(
                of.iter()
                    .map(|a| (a.at_ms - first) as f64 / 1000.0)
                    .collect()
            ),
        )
    };
    format!("{}   {}", group(true), group(false))
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
}
