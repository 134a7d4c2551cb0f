//! The night's course: [`run`] creates the event and the sessions, lets the buyers loose,
//! watches the operator's stats and reads the result into the report.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, AtomicUsize},
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
use app::wire::{Identity, NewEvent, NewSection, RoomUpdate, Stats, StatsPoint};
use chrono::Utc;
use loadtest::{create_event, sessions, sessions_with};
use serde_json::json;
use tokio::sync::{Notify, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::{
    buyer::{BuyerLog, buyer},
    cli::{Cli, Plan, Target},
    night::{Night, Tallies},
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

/// The operator's per-second series, read every few seconds (the API keeps 10 minutes).
async fn watch_stats(
    client: reqwest::Client,
    url: String,
    admin_key: String,
    stop: CancellationToken,
) -> BTreeMap<i64, StatsPoint> {
    let mut points = BTreeMap::new();
    loop {
        let stopped = stop.is_cancelled();
        let stats = client.get(&url).bearer_auth(&admin_key).send().await.ok();
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

/// `path` for the `night`-th of `--nights` (`crowd.json` -> `crowd-2.json`), or as given
/// for a single night.
fn numbered(nights: u32, path: &std::path::Path, night: u32) -> std::path::PathBuf {
    if nights <= 1 {
        return path.to_owned();
    }
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{night}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{night}"),
    };
    path.with_file_name(name)
}

/// Puts `update` on the room of `event`; `doing` names it in an error.
async fn put_room(
    client: &reqwest::Client,
    target: &Target,
    event: &str,
    update: &RoomUpdate,
    doing: &str,
) -> Result<(), String> {
    let url = format!("{}/api/admin/events/{event}/room", target.bases[0]);
    let r = client
        .put(url)
        .bearer_auth(&target.admin_key)
        .json(update)
        .send()
        .await
        .map_err(|e| format!("{doing}: {e}"))?;
    if !r.status().is_success() {
        return Err(format!("{doing}: {}", r.status()));
    }
    Ok(())
}

/// Turns the room of `event` off, which keeps its night (the next night's history).
async fn close_room(client: &reqwest::Client, target: &Target, event: &str) -> Result<(), String> {
    let update = RoomUpdate {
        enabled: Some(false),
        ..RoomUpdate::default()
    };
    put_room(client, target, event, &update, "turning the room off").await
}

/// The `night`-th night (of `--nights`) of `plan` on `target`.
pub async fn run(cli: &Cli, plan: Plan, target: &Target, number: u32) -> Result<Report, String> {
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
        identity: plan.accounts.then_some(Identity::Account),
        ..RoomUpdate::default()
    };
    let new_event = NewEvent {
        name: "The night".into(),
        starts_at: Utc::now(),
        time_zone: None,
        currency: None,
        language: None,
        sections: layout(plan.seats),
        room,
    };
    let event = create_event(&client, &target.bases[0], &target.admin_key, &new_event).await?;
    println!(
        "event {} with {} seats; creating {} sessions",
        event.id, plan.seats, plan.buyers
    );
    let t = Instant::now();
    let (buyers, second_devices) = match &target.signer {
        // Buyer i is the account `fan-i`, signed in on two devices.
        Some(key) => {
            let hand_over =
                |i: usize| json!({ "assertion": key.sign(json!({ "sub": format!("fan-{i}") })) });
            (
                sessions_with(&client, &target.bases, plan.buyers, 64, hand_over).await?,
                sessions_with(&client, &target.bases, plan.buyers, 64, hand_over)
                    .await?
                    .into_iter()
                    .map(Some)
                    .collect(),
            )
        }
        None => (
            sessions(&client, &target.bases, plan.buyers, 64).await?,
            vec![None; plan.buyers],
        ),
    };
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
        last_sale_at: Mutex::new(None),
        first_hold_end_ms: std::sync::atomic::AtomicI64::new(i64::MAX),
        first_joins: AtomicUsize::new(0),
        first_wave: Notify::new(),
        first_wave_seconds: Mutex::new(None),
        plan,
    });
    let open_unix = Utc::now().timestamp();
    let stats = tokio::spawn(watch_stats(
        client.clone(),
        format!("{}/api/admin/events/{}/stats", target.bases[0], event.id),
        target.admin_key.clone(),
        night.stop.clone(),
    ));
    let tasks: Vec<_> = buyers
        .into_iter()
        .zip(second_devices)
        .enumerate()
        .map(|(i, (s, second))| tokio::spawn(buyer(night.clone(), i, s, second)))
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
    // The night ends when every buyer has their answer, when time is up, or once sold out
    // has been said for an admission's life and two polls more (a buyer still without an
    // answer then is counted as unanswered).
    let grace =
        f64::from(night.plan.admission_ttl_seconds) + 2.0 * night.plan.poll_ms as f64 / 1000.0;
    let deadline = tokio::spawn({
        let night = night.clone();
        async move {
            while night.seconds() < max_seconds {
                let told = *night.sold_out_at.lock().expect("not poisoned");
                if told.is_some_and(|t| night.seconds() > t + grace) {
                    break;
                }
                if !night.sleep(Duration::from_millis(250)).await {
                    return;
                }
            }
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
        let path = numbered(cli.nights, path, number);
        let json = serde_json::to_string_pretty(&report).expect("plain data");
        std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if let Some(path) = &cli.svg {
        let path = numbered(cli.nights, path, number);
        std::fs::write(&path, report.svg()).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    if cli.nights > 1 {
        close_room(&client, target, &event.id).await?;
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
    put_room(client, target, event, &update, "setting the opening").await?;
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

    #[test]
    fn each_night_of_several_writes_its_own_file() {
        let path = std::path::Path::new("bench-results/crowd-4.json");
        assert_eq!(numbered(1, path, 1), path);
        let second = numbered(2, path, 2);
        assert_eq!(second, std::path::Path::new("bench-results/crowd-4-2.json"));
        let bare = numbered(3, std::path::Path::new("night"), 3);
        assert_eq!(bare, std::path::Path::new("night-3"));
    }
}
