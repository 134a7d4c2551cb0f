//! `bench`: throughput and latency of Anteroom's hot paths, beside the raw limits of the Redis
//! and Postgres they stand on, measured in the same run on the same machine.
//!
//! `bench line`  joins and polls at 1,000 and at 100,000 in line, Redis bytes per queued buyer,
//!               and `redis-benchmark` ZADD/ZRANK at the same concurrency.
//! `bench holds` the hold transaction through the HTTP API, and `pgbench` of the same
//!               statements.
//!
//! Each run starts Anteroom in-process (release build: `cargo run --release -p loadtest --bin
//! bench -- line`) on a scratch database and Redis prefix, both removed at the end.

use std::{
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anteroom::{scratch::Scratch, startup::Application};
use clap::{Parser, Subcommand};
use futures::future::join_all;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(about = "Benchmarks of Anteroom's hot paths against raw Redis and Postgres")]
struct Cli {
    #[command(subcommand)]
    what: What,
    /// Concurrent clients.
    #[arg(long, default_value_t = 16, global = true)]
    concurrency: usize,
}

#[derive(Subcommand)]
enum What {
    /// Join and poll latency and throughput, and Redis bytes per queued buyer.
    Line {
        /// Requests per measurement.
        #[arg(long, default_value_t = 4000)]
        requests: usize,
        /// The long line.
        #[arg(long, default_value_t = 100_000)]
        line: usize,
    },
    /// Holds per second through the API beside pgbench of the hold transaction.
    Holds {
        #[arg(long, default_value_t = 4000)]
        requests: usize,
    },
}

struct Running {
    base: String,
    app: anteroom::state::AppState,
    shutdown: CancellationToken,
    scratch: Scratch,
}

async fn start(scratch: Scratch) -> Running {
    let mut config = scratch.config();
    config.ticker = false;
    config.sessions_per_minute = u32::MAX;
    config.hold_attempts_per_minute = u32::MAX;
    let app = Application::build(config).await.expect("anteroom starts");
    let base = format!("http://{}", app.local_addr());
    let state = app.state().clone();
    let shutdown = CancellationToken::new();
    let token = shutdown.clone();
    tokio::spawn(async move { app.run(token).await.expect("serves") });
    Running {
        base,
        app: state,
        shutdown,
        scratch,
    }
}

/// Latencies of one measurement, and its throughput.
struct Sample {
    micros: Vec<u64>,
    elapsed: Duration,
    errors: usize,
}

impl Sample {
    fn pct(&self, p: f64) -> f64 {
        let i = ((self.micros.len() as f64 - 1.0) * p).round() as usize;
        self.micros[i] as f64 / 1000.0
    }

    fn per_second(&self) -> f64 {
        self.micros.len() as f64 / self.elapsed.as_secs_f64()
    }

    fn line(&self, what: &str) -> String {
        format!(
            "{what:<28} {:>9.0}/s   p50 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   errors {}",
            self.per_second(),
            self.pct(0.5),
            self.pct(0.99),
            self.pct(1.0),
            self.errors
        )
    }
}

/// Runs `n` requests from `concurrency` workers; `request(i)` makes the i-th.
async fn measure<F, Fut>(n: usize, concurrency: usize, request: F) -> Sample
where
    F: Fn(usize) -> Fut + Sync,
    Fut: std::future::Future<Output = bool>,
{
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let workers = (0..concurrency).map(|_| async {
        let mut micros = Vec::new();
        let mut errors = 0;
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                break;
            }
            let t = Instant::now();
            if !request(i).await {
                errors += 1;
            }
            micros.push(t.elapsed().as_micros() as u64);
        }
        (micros, errors)
    });
    let results = join_all(workers).await;
    let elapsed = started.elapsed();
    let mut micros: Vec<u64> = results.iter().flat_map(|(m, _)| m.clone()).collect();
    micros.sort_unstable();
    Sample {
        micros,
        elapsed,
        errors: results.iter().map(|(_, e)| e).sum(),
    }
}

async fn sessions(client: &reqwest::Client, base: &str, n: usize) -> Vec<String> {
    let sample_tokens = Arc::new(std::sync::Mutex::new(vec![String::new(); n]));
    measure(n, 16, |i| {
        let tokens = sample_tokens.clone();
        async move {
            let r = client.post(format!("{base}/api/session")).send().await;
            let Ok(r) = r else { return false };
            let body: Value = r.json().await.unwrap_or_default();
            tokens.lock().unwrap()[i] = body["token"].as_str().unwrap_or_default().to_owned();
            true
        }
    })
    .await;
    Arc::try_unwrap(sample_tokens)
        .unwrap()
        .into_inner()
        .unwrap()
}

async fn create_event(client: &reqwest::Client, run: &Running, body: Value) -> String {
    let r: Value = client
        .post(format!("{}/api/admin/events", run.base))
        .bearer_auth(run.scratch.admin_token())
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    r["id"].as_str().expect("the event was created").to_owned()
}

/// `redis-benchmark` of one command at `concurrency`, in requests per second.
fn redis_benchmark(concurrency: usize, args: &[&str]) -> Option<f64> {
    let out = Command::new("redis-benchmark")
        .args([
            "-q",
            "-c",
            &concurrency.to_string(),
            "-n",
            "200000",
            "-r",
            "1000000",
        ])
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "ZADD ...: 123456.79 requests per second, p50=0.1 msec"
    let rps = text.rsplit(':').next()?.split_whitespace().next()?;
    rps.parse().ok()
}

async fn bench_line(concurrency: usize, requests: usize, line: usize) {
    let run = start(Scratch::new("bench")).await;
    let client = reqwest::Client::new();
    let event = create_event(
        &client,
        &run,
        json!({"name": "Bench", "starts_at": "2026-12-01T19:00:00Z",
               "sections": [{"name": "A", "rows": 1, "seats_per_row": 1, "price_cents": 1}],
               "room": {"admit_rate_per_second": 300, "paused": true}}),
    )
    .await;
    let tokens = sessions(&client, &run.base, requests * 2).await;
    let mut redis = run.app.redis.clone();
    let keys = &run.app.keys;

    let mut results = Vec::new();
    let mut filled = 0;
    for (label, size, batch) in [("1,000", 1_000usize, 0usize), ("long line", line, 1)] {
        // Fill the line to `size` with the join script itself, in pipelines.
        while filled < size {
            let mut pipe = redis::pipe();
            let chunk = (size - filled).min(2_000);
            for i in 0..chunk {
                let mut inv = run.app.scripts.locate.key(keys.queue(&event));
                inv.key(keys.seq(&event))
                    .key(keys.admitted(&event))
                    .key(keys.head(&event))
                    .arg(format!("filler-{:015}", filled + i))
                    .arg("1")
                    .arg("")
                    .arg("");
                pipe.invoke_script(&inv).ignore();
            }
            let _: () = pipe.query_async(&mut redis).await.unwrap();
            filled += chunk;
        }
        let mine = &tokens[batch * requests..(batch + 1) * requests];
        let joins = measure(requests, concurrency, |i| {
            let req = client
                .post(format!("{}/api/events/{event}/queue", run.base))
                .bearer_auth(&mine[i]);
            async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 202) }
        })
        .await;
        filled += requests;
        let polls = measure(requests, concurrency, |i| {
            let req = client
                .get(format!("{}/api/events/{event}/queue", run.base))
                .bearer_auth(&mine[i]);
            async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 200) }
        })
        .await;
        let count: u64 = redis::cmd("ZCARD")
            .arg(keys.queue(&event))
            .query_async(&mut redis)
            .await
            .unwrap();
        let mut bytes = 0u64;
        for key in [keys.queue(&event), keys.seq(&event)] {
            let b: Option<u64> = redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(key)
                .arg("SAMPLES")
                .arg(0)
                .query_async(&mut redis)
                .await
                .unwrap();
            bytes += b.unwrap_or(0);
        }
        results.push((label, count, joins, polls, bytes));
    }

    let raw_zadd = redis_benchmark(
        concurrency,
        &["ZADD", "bench:zset", "__rand_int__", "m:__rand_int__"],
    );
    let raw_zrank = redis_benchmark(concurrency, &["ZRANK", "bench:zset", "m:__rand_int__"]);
    let _: () = redis::cmd("DEL")
        .arg("bench:zset")
        .query_async(&mut redis)
        .await
        .unwrap();

    println!("\nThe line, {concurrency} concurrent clients, {requests} requests a measurement");
    for (label, count, joins, polls, bytes) in &results {
        println!(
            "\n-- {label}: {count} in line, {:.1} Redis bytes per queued buyer",
            *bytes as f64 / *count as f64
        );
        println!("{}", joins.line("join (POST queue)"));
        println!("{}", polls.line("poll (GET queue)"));
    }
    let (_, _, long_joins, long_polls, _) = &results[1];
    let (_, _, short_joins, _, _) = &results[0];
    println!(
        "\njoin p99 at the long line / at 1,000: {:.2}",
        long_joins.pct(0.99) / short_joins.pct(0.99)
    );
    if let (Some(zadd), Some(zrank)) = (raw_zadd, raw_zrank) {
        println!("raw redis-benchmark ZADD {zadd:.0}/s, ZRANK {zrank:.0}/s (same concurrency)");
        println!(
            "joins / raw ZADD: {:.3}   polls / raw ZRANK: {:.3}",
            long_joins.per_second() / zadd,
            long_polls.per_second() / zrank
        );
    } else {
        println!("redis-benchmark not found: no raw figures");
    }
    run.shutdown.cancel();
    run.scratch.cleanup().await;
}

fn pgbench_script(event: &str, first_seat: i64, last_seat: i64) -> String {
    // The statements of the hold transaction (server/src/holds/transaction.rs) for one chosen
    // seat, with fresh ids.
    format!(
        "\\set sid random({first_seat}, {last_seat})
\\set hid random(1, 1000000000000)
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended('b' || :client_id || '\\n{event}', 0));
SELECT id FROM hold WHERE buyer_id = 'b' || :client_id AND idempotency_key = md5(random()::text);
SELECT count(*) FROM seat s JOIN hold h ON h.id = s.hold_id WHERE h.event_id = '{event}' AND h.buyer_id = 'b' || :client_id AND h.status = 'active' AND h.expires_at > now() AND s.status = 'held';
SELECT id, section, row_label, number, price_cents, status, hold_id FROM seat WHERE event_id = '{event}' AND id = ANY(ARRAY[:sid]::bigint[]) ORDER BY id FOR UPDATE;
INSERT INTO hold (id, event_id, buyer_id, idempotency_key, expires_at, total_cents) VALUES ('p' || :hid || '-' || :client_id, '{event}', 'b' || :client_id, md5(random()::text), now() + interval '10 minutes', 100);
UPDATE seat SET status = 'held', hold_id = 'p' || :hid || '-' || :client_id, version = version + 1, updated_at = now() WHERE id = ANY(ARRAY[:sid]::bigint[]);
INSERT INTO hold_seat (hold_id, seat_id) SELECT 'p' || :hid || '-' || :client_id, unnest(ARRAY[:sid]::bigint[]);
COMMIT;
"
    )
}

async fn bench_holds(concurrency: usize, requests: usize) {
    let run = start(Scratch::new("bench")).await;
    let client = reqwest::Client::new();
    let rows = (requests as u32).div_ceil(200).max(1) * 2;
    let event = create_event(
        &client,
        &run,
        json!({"name": "Bench", "starts_at": "2026-12-01T19:00:00Z",
               "sections": [{"name": "A", "rows": rows, "seats_per_row": 200, "price_cents": 100}],
               "room": {"enabled": false}}),
    )
    .await;
    let seats: Vec<i64> = sqlx::query_scalar("select id from seat where event_id = $1 order by id")
        .bind(&event)
        .fetch_all(&run.app.db)
        .await
        .unwrap();
    let tokens = sessions(&client, &run.base, requests).await;
    let holds = measure(requests, concurrency, |i| {
        let req = client
            .post(format!("{}/api/events/{event}/holds", run.base))
            .bearer_auth(&tokens[i])
            .header("idempotency-key", format!("bench-{i}"))
            .json(&json!({"seat_ids": [seats[i].to_string()]}));
        async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 201) }
    })
    .await;

    // pgbench of the same statements, on the same database, on the seats the API left free.
    let script = std::env::temp_dir().join(format!("anteroom-hold-{}.sql", std::process::id()));
    std::fs::write(
        &script,
        pgbench_script(&event, seats[requests], *seats.last().unwrap()),
    )
    .unwrap();
    let out = Command::new("pgbench")
        .args([
            "-n",
            "-c",
            &concurrency.to_string(),
            "-j",
            "2",
            "-T",
            "10",
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-f",
        ])
        .arg(&script)
        .arg(run.scratch.database_name())
        .output();
    std::fs::remove_file(&script).ok();
    let pg_tps = out.ok().and_then(|o| {
        let text = String::from_utf8_lossy(&o.stdout).into_owned();
        if !o.status.success() {
            eprintln!("pgbench: {}", String::from_utf8_lossy(&o.stderr));
        }
        text.lines()
            .find(|l| l.starts_with("tps = "))
            .and_then(|l| {
                l.split_whitespace()
                    .nth(2)
                    .and_then(|v| v.parse::<f64>().ok())
            })
    });

    println!("\nHolds, {concurrency} concurrent buyers, one chosen seat each, {requests} holds");
    println!("{}", holds.line("hold (POST holds)"));
    match pg_tps {
        Some(tps) => {
            println!("raw pgbench of the hold transaction: {tps:.0} tx/s (same concurrency)");
            println!("holds / raw pgbench: {:.3}", holds.per_second() / tps);
        }
        None => println!("pgbench not found or failed: no raw figure"),
    }
    run.shutdown.cancel();
    run.scratch.cleanup().await;
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    match cli.what {
        What::Line { requests, line } => bench_line(cli.concurrency, requests, line).await,
        What::Holds { requests } => bench_holds(cli.concurrency, requests).await,
    }
}
