//! `bench`: throughput and latency of Anteroom's hot paths, beside the raw limits of the Redis
//! and Postgres they stand on, measured in the same run on the same machine.
//!
//! `bench line`  joins and polls at 1,000 and at 1,000,000 in line (alternating rounds), Redis
//!               bytes per queued buyer, and `redis-benchmark` ZADD/ZRANK at the same
//!               concurrency; where each request's CPU went (the server's threads, the
//!               client's own thread, Redis), so that a ratio can be read as its parts.
//! `bench holds` the hold transaction through the HTTP API, and `pgbench` of the same
//!               statements.
//! `bench draw`  the draw at a sale's opening: a million entrants joined to the pre-queue
//!               (with the join script itself), then the draw as the ticker's leader makes it,
//!               the first admission tick after it, and when the whole order is in line.
//! `bench inventory` what the ticker's leader pays each tick to count an event's seats for
//!               the line (sold out, the outlook), on a large event after many holds.
//! `bench gate`  what the reverse proxy's gate costs the ticketer's site: nginx straight to
//!               the site beside nginx asking Anteroom first, admitted and refused, and the
//!               check alone (`gate_bench`).
//! `bench rest`  rooms on with nobody in line: Redis commands and Postgres transactions a
//!               second for 10, 100 and 1,000 rooms, at rest and with rest turned off.
//! `bench polls` what a line's polling costs Redis when pages follow `app::presence`'s schedule
//!               (far back they read the public progress from a cache and ask for their place
//!               rarely) against every page asking every 3 s: the commands of one ask and of
//!               one progress read measured on a line of `--line`, the asks a second of lines
//!               of 1M and 10M summed from the schedule.
//! `bench pow`   what the join's proof of work costs a browser (the same search compiled to
//!               WebAssembly as the page's bundle is, timed in V8, Chromium's engine) and a
//!               native attacker, per place and for 1,000 places.
//!
//! Each run starts Anteroom in-process (release build: `cargo run --release -p loadtest --bin
//! bench -- line`) on a scratch database and Redis prefix, both removed at the end.

use std::{
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use anteroom::{
    admission::ticker::Ticker,
    config::Config,
    opening::{self, Drawn},
    queue::{self, NewPlace, Proof, inventory::Inventory},
    redis::Lock,
};
use app::{
    presence::Schedule,
    wire::{BuyerId, EventId, NewEvent, NewSection, RoomUpdate},
};
use chrono::Utc;
use clap::{Parser, Subcommand};
use http_body_util::Empty;
use loadtest::{
    Budget, Sample, budget_line, create_event, measure, measure_http, quantile, redis_bytes,
    sessions, sorted,
};
use serde_json::json;
use testkit::{deployment::Deployment, device::DeviceKey};

mod gate_bench;

#[derive(Parser)]
#[command(about = "Benchmarks of Anteroom's hot paths against raw Redis and Postgres")]
struct Cli {
    #[command(subcommand)]
    what: What,
    /// Concurrent clients.
    #[arg(long, default_value_t = 16, global = true)]
    concurrency: usize,
    /// Export the server's traces over OTLP/HTTP (protobuf), as production would to a
    /// collector: to a sink here that reads and drops them. For the overhead of traces.
    #[arg(long, global = true)]
    traces: bool,
    /// With `--traces`: the share of requests traced (OTEL_TRACES_SAMPLER_ARG's meaning).
    #[arg(long, default_value_t = 1.0, global = true)]
    trace_ratio: f64,
}

#[derive(Subcommand)]
enum What {
    /// Join and poll latency and throughput, and Redis bytes per queued buyer.
    Line {
        /// Requests per measurement.
        #[arg(long, default_value_t = 4000)]
        requests: usize,
        /// The long line.
        #[arg(long, default_value_t = 1_000_000)]
        line: usize,
        /// Alternating rounds of measurement on the short and the long line.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
    },
    /// Holds per second through the API beside pgbench of the hold transaction.
    Holds {
        #[arg(long, default_value_t = 4000)]
        requests: usize,
    },
    /// The gated paths (seat map, hold) of a room that binds tokens to the device against one
    /// that does not, in the same run: what checking a DPoP proof costs.
    Gated {
        /// Admitted buyers per room and round (each reads the map once and holds one seat).
        #[arg(long, default_value_t = 2000)]
        requests: usize,
        /// Alternating rounds (unbound, bound, bound, unbound...).
        #[arg(long, default_value_t = 4)]
        rounds: usize,
    },
    /// What the reverse proxy's gate costs: nginx straight to the ticketer's example site
    /// against the same nginx asking Anteroom's `/api/gate/check` first (admitted, refused),
    /// and the check alone.
    Gate {
        /// Requests per path and round.
        #[arg(long, default_value_t = 20_000)]
        requests: usize,
        /// Alternating rounds (direct, admitted, refused, check; then backwards...).
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// The example site: `cargo build --release -p anteroom-verify --example origin`.
        #[arg(long, default_value = "target/release/examples/origin")]
        origin: PathBuf,
    },
    /// The draw of a pre-queue at the opening, and the first admissions after it.
    Draw {
        /// Entrants in the pre-queue.
        #[arg(long, default_value_t = 1_000_000)]
        entrants: usize,
        /// Openings measured (a new event each).
        #[arg(long, default_value_t = 3)]
        rounds: usize,
    },
    /// Rooms on with nobody in line: the Redis commands and Postgres transactions a second
    /// they cost, for each number of rooms, with rooms at rest and with rest turned off.
    Rest {
        /// Numbers of rooms measured, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "10,100,1000")]
        rooms: Vec<usize>,
        /// The most rooms measured with rest turned off (ticking at rest costs so much that
        /// this machine cannot tick many more).
        #[arg(long, default_value_t = 100)]
        awake_up_to: usize,
        /// Seconds measured each time.
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
    /// What a line's polling costs Redis: the page's schedule (`app::presence`) against an
    /// ask every 3 s.
    Polls {
        /// The line measured for real (filled with the join script).
        #[arg(long, default_value_t = 1_000_000)]
        line: usize,
        /// Asks measured on it.
        #[arg(long, default_value_t = 2_000)]
        requests: usize,
        /// The admission rate the lines move at.
        #[arg(long, default_value_t = 100)]
        rate: u32,
        /// Instances serving the progress (each reads it at most once a second).
        #[arg(long, default_value_t = 10)]
        instances: u32,
    },
    /// The proof of work at join: hashes a second natively and in V8, what a proof costs at
    /// `--bits`, and what 1,000 places cost.
    Pow {
        /// The difficulty to price (the one the README recommends).
        #[arg(long, default_value_t = 20)]
        bits: u32,
        /// The search built for the browser: `cargo build -p frontend --example pow_rate
        /// --target wasm32-unknown-unknown --profile wasm-release`.
        #[arg(
            long,
            default_value = "target/wasm32-unknown-unknown/wasm-release/examples/pow_rate.wasm"
        )]
        wasm: PathBuf,
        /// Hashes per measurement.
        #[arg(long, default_value_t = 4_000_000)]
        hashes: u64,
    },
    /// The seat count of every admission tick, and the whole tick, on an event of `--seats`
    /// seats after `--holds` holds of 2 seats (half expired, 4 in 10 bought, 1 in 10 held).
    Inventory {
        #[arg(long, default_value_t = 20_000)]
        seats: u32,
        #[arg(long, default_value_t = 10_000)]
        holds: u32,
        /// Counts (and ticks) measured.
        #[arg(long, default_value_t = 500)]
        ticks: usize,
    },
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

/// The bench's Anteroom: one instance, no ticker (the line stands still while it is measured),
/// no per-client limits (every request comes from this one address).
async fn start() -> Deployment {
    Deployment::start("bench", 1, |config: &mut Config| {
        config.ticker = false;
        config.sessions_per_minute = u32::MAX;
        config.hold_attempts_per_minute = u32::MAX;
        config.joins_per_network_per_minute = u32::MAX;
        config.places_per_network = u32::MAX;
    })
    .await
}

/// One section of `rows` x `seats_per_row`, with the given room settings.
fn bench_event(rows: u32, seats_per_row: u32, room: RoomUpdate) -> NewEvent {
    NewEvent {
        name: "Bench".into(),
        starts_at: chrono::Utc::now(),
        time_zone: None,
        currency: None,
        language: None,
        sections: vec![NewSection {
            name: "A".into(),
            rows,
            seats_per_row,
            price_cents: 100,
        }],
        room,
    }
}

/// The two lines `bench line` compares: one of 1,000 buyers, one of `--line`.
struct Line {
    label: String,
    event: String,
    joins: Vec<Sample>,
    polls: Vec<Sample>,
}

/// Fills the line (or the pre-queue) of `event` with `size` buyers, with the locate script
/// itself, in pipelines.
async fn fill(run: &Deployment, event: &str, size: usize) {
    let state = run.state();
    let event = EventId::from(event);
    let room = state.rooms.get(&state.db, &event).await.unwrap();
    let mut redis = state.redis.clone();
    let bench = NewPlace {
        networks: vec![anteroom::client::Network {
            cidr: "bench".into(),
            scale: 1,
        }],
        proof: None,
    };
    let band = app::estimate::Band::exact(room.admit_rate_per_second.max(1));
    let locate = |i: usize| {
        let buyer = BuyerId::from(format!("filler-{i:015}"));
        queue::locate_script(
            state,
            &room,
            &buyer,
            &event,
            &Proof::default(),
            (&[], Some(&bench)),
            &band,
        )
    };
    // A pipeline sends EVALSHA without falling back to EVAL: on a Redis that never ran the
    // script (a fresh one) it must be loaded first.
    let _: String = locate(0).load_async(&mut redis).await.unwrap();
    let mut filled = 0;
    while filled < size {
        let mut pipe = redis::pipe();
        let chunk = (size - filled).min(2_000);
        for i in 0..chunk {
            pipe.invoke_script(&locate(filled + i)).ignore();
        }
        let _: () = pipe.query_async(&mut redis).await.unwrap();
        filled += chunk;
    }
}

/// A request to the line at `path` (join: POST, poll: GET) as the buyer of session `token`.
fn queue_request(method: &str, path: &str, token: &str) -> loadtest::BareRequest {
    hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("authorization", format!("Bearer {token}"))
        .body(Empty::new())
        .expect("a valid request")
}

/// Where a measurement's CPU went, in µs a request: the server (this process's threads but the
/// client's), the client (its own thread) and Redis (its `INFO cpu`, every thread of it).
#[derive(Clone, Copy)]
struct CpuSplit {
    server: f64,
    client: f64,
    redis: f64,
}

impl CpuSplit {
    fn line(&self) -> String {
        format!(
            "server {:.0}, client {:.0}, Redis {:.0}",
            self.server, self.client, self.redis
        )
    }
}

/// Redis's CPU time so far (`used_cpu_sys` + `used_cpu_user`, in µs).
async fn redis_cpu_us(redis: &mut impl redis::aio::ConnectionLike) -> f64 {
    let info: String = redis::cmd("INFO")
        .arg("cpu")
        .query_async(redis)
        .await
        .expect("Redis answers INFO");
    info.lines()
        .filter_map(|l| {
            l.strip_prefix("used_cpu_sys:")
                .or(l.strip_prefix("used_cpu_user:"))
        })
        .filter_map(|v| v.trim().parse::<f64>().ok())
        .sum::<f64>()
        * 1e6
}

/// `measure` (a [`measure_http`]) and where its CPU went.
async fn measure_cpu(
    redis: &mut impl redis::aio::ConnectionLike,
    measure: impl FnOnce() -> Sample,
) -> (Sample, CpuSplit) {
    let (redis_before, threads_before) = (redis_cpu_us(redis).await, loadtest::threads_cpu());
    let sample = measure();
    let server = loadtest::threads_cpu().saturating_sub(threads_before);
    let redis_us = redis_cpu_us(redis).await - redis_before;
    let n = sample.count().max(1) as f64;
    let split = CpuSplit {
        server: server.as_secs_f64() * 1e6 / n,
        client: sample.client_cpu.as_secs_f64() * 1e6 / n,
        redis: redis_us / n,
    };
    (sample, split)
}

/// Joins at 1,000 and at `line` in line, measured in `rounds` alternating rounds (short, long,
/// short, long...) so that whatever else the machine does falls on both alike; each round's
/// buyers are new to both lines, and poll after they join.
async fn bench_line(concurrency: usize, requests: usize, line: usize, rounds: usize) {
    let run = start().await;
    let base = &run.servers[0].base;
    let addr = base.trim_start_matches("http://");
    let client = reqwest::Client::new();
    let room = RoomUpdate {
        admit_rate_per_second: Some(300),
        paused: Some(true),
        ..RoomUpdate::default()
    };
    let mut lines = Vec::new();
    for (label, size) in [("1,000".to_owned(), 1_000), (format!("{line}"), line)] {
        let event = create_event(
            &client,
            base,
            run.admin_key(),
            &bench_event(1, 1, room.clone()),
        )
        .await
        .expect("the event is created")
        .id;
        fill(&run, &event, size).await;
        lines.push(Line {
            label,
            event,
            joins: Vec::new(),
            polls: Vec::new(),
        });
    }
    let tokens: Vec<String> = sessions(&client, &run.bases(), requests * rounds, 16)
        .await
        .expect("sessions")
        .into_iter()
        .map(|s| s.token)
        .collect();
    // Raw Redis in every round, right after Anteroom's: the machine's speed drifts (this VM's
    // raw ZADD moved between 97k and 149k a second over one afternoon), so each ratio compares
    // figures taken within seconds of each other.
    let mut raw = Vec::new();
    let mut cpu = Vec::new();
    let mut info = redis::Client::open(run.state().config.redis_url.expose())
        .expect("a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis answers");
    for round in 0..rounds {
        let mine = &tokens[round * requests..(round + 1) * requests];
        // Short line first in even rounds, long line first in odd ones.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for k in order {
            let line = &mut lines[k];
            let path = format!("/api/events/{}/queue", line.event);
            let request = |method: &str, i: usize| queue_request(method, &path, &mine[i]);
            let (joins, join_cpu) = measure_cpu(&mut info, || {
                measure_http(addr, requests, concurrency, 202, |i| request("POST", i))
            })
            .await;
            let (polls, poll_cpu) = measure_cpu(&mut info, || {
                measure_http(addr, requests, concurrency, 200, |i| request("GET", i))
            })
            .await;
            line.joins.push(joins);
            line.polls.push(polls);
            if k == 1 {
                cpu.push((join_cpu, poll_cpu));
            }
        }
        let zadd = redis_benchmark(
            concurrency,
            &["ZADD", "bench:zset", "__rand_int__", "m:__rand_int__"],
        );
        let zrank = redis_benchmark(concurrency, &["ZRANK", "bench:zset", "m:__rand_int__"]);
        raw.push(zadd.zip(zrank));
    }

    let mut redis = run.state().redis.clone();
    let keys = &run.state().keys;
    let _: () = redis::cmd("DEL")
        .arg("bench:zset")
        .query_async(&mut redis)
        .await
        .unwrap();

    println!(
        "\nThe line, {concurrency} concurrent clients, {rounds} rounds of {requests} joins then \
         {requests} polls on each line"
    );
    let mut pooled = Vec::new();
    for line in &lines {
        let count: u64 = redis::cmd("ZCARD")
            .arg(keys.queue(&line.event))
            .query_async(&mut redis)
            .await
            .unwrap();
        // Counted exactly (`MEMORY USAGE ... SAMPLES 0` walks the whole line: seconds at ten
        // million), on a connection of its own without the server's response timeout.
        let mut counting = redis::Client::open(run.state().config.redis_url.expose())
            .expect("a Redis URL")
            .get_multiplexed_async_connection()
            .await
            .expect("Redis answers");
        let bytes = redis_bytes(
            &mut counting,
            &[keys.queue(&line.event), keys.seq(&line.event)],
        )
        .await
        .unwrap();
        let (joins, polls) = (Sample::pooled(&line.joins), Sample::pooled(&line.polls));
        println!(
            "\n-- {} in line at the start ({count} at the end), {:.1} Redis bytes per queued buyer",
            line.label,
            bytes as f64 / count as f64
        );
        println!("{}", joins.line("join (POST queue)"));
        println!("{}", polls.line("poll (GET queue)"));
        let p99s: Vec<String> = line
            .joins
            .iter()
            .map(|s| format!("{:.2}", s.quantile_ms(0.99)))
            .collect();
        println!("join p99 by round (ms): {}", p99s.join(", "));
        pooled.push((joins, polls));
    }
    let (short_joins, _) = &pooled[0];
    let (long_joins, _) = &pooled[1];
    println!(
        "\njoin p99 at {} / at 1,000: {:.2}   (p50: {:.2})",
        lines[1].label,
        long_joins.quantile_ms(0.99) / short_joins.quantile_ms(0.99),
        long_joins.quantile_ms(0.5) / short_joins.quantile_ms(0.5)
    );
    let long = &lines[1];
    let ratios: Option<Vec<(f64, f64, f64, f64)>> = raw
        .iter()
        .zip(long.joins.iter().zip(&long.polls))
        .map(|(raw, (joins, polls))| {
            raw.map(|(zadd, zrank)| {
                let (j, p) = (joins.per_second(), polls.per_second());
                (zadd, zrank, j / zadd, p / zrank)
            })
        })
        .collect();
    match ratios {
        Some(ratios) => {
            println!("\nraw redis-benchmark at the same concurrency, each round after Anteroom's:");
            for (round, ((zadd, zrank, j, p), (join_cpu, poll_cpu))) in
                ratios.iter().zip(&cpu).enumerate()
            {
                println!(
                    "round {}: ZADD {zadd:.0}/s, ZRANK {zrank:.0}/s   joins / ZADD {j:.3}   \
                     polls / ZRANK {p:.3}\n         CPU µs a join: {}   a poll: {}",
                    round + 1,
                    join_cpu.line(),
                    poll_cpu.line()
                );
            }
            let median = |v: Vec<f64>| quantile(&sorted(v), 0.5);
            println!(
                "joins / raw ZADD: {:.3}   polls / raw ZRANK: {:.3}   (medians over the rounds, \
                 on the long line)",
                median(ratios.iter().map(|r| r.2).collect()),
                median(ratios.iter().map(|r| r.3).collect())
            );
            let split = |pick: fn(&(CpuSplit, CpuSplit)) -> CpuSplit| CpuSplit {
                server: median(cpu.iter().map(|c| pick(c).server).collect()),
                client: median(cpu.iter().map(|c| pick(c).client).collect()),
                redis: median(cpu.iter().map(|c| pick(c).redis).collect()),
            };
            let (join, poll) = (split(|c| c.0), split(|c| c.1));
            println!(
                "CPU µs a join: {}   a poll: {}   (medians, on the long line)",
                join.line(),
                poll.line()
            );
            // Issue 66's budgets, the figures above against them.
            for (what, figure, most) in [
                ("join: the server's CPU", join.server, 25.0),
                ("join: Redis's CPU", join.redis, 20.0),
                ("poll: the server's CPU", poll.server, 20.0),
                ("poll: Redis's CPU", poll.redis, 12.0),
            ] {
                println!("{}", budget_line(what, figure, "µs", Budget::AtMost(most)));
            }
        }
        None => println!("redis-benchmark not found: no raw figures"),
    }
    run.stop().await;
}

fn pgbench_script(event: &str, first_seat: i64, last_seat: i64) -> String {
    // The statements of the hold transaction (server/src/holds/transaction.rs) for one chosen
    // seat, with fresh ids: a new buyer each time, as each hold of the API run is.
    format!(
        "\\set sid random({first_seat}, {last_seat})
\\set hid random(1, 1000000000000)
BEGIN;
SELECT pg_advisory_xact_lock(hashtextextended('b' || :hid || '\\n{event}', 0));
SELECT id FROM hold WHERE buyer_id = 'b' || :hid AND idempotency_key = md5(random()::text);
SELECT count(*) FROM seat s JOIN hold h ON h.id = s.hold_id WHERE h.event_id = '{event}' AND h.buyer_id = 'b' || :hid AND h.status = 'active' AND h.expires_at > now() AND s.status = 'held';
SELECT id, section, row_label, number, price_cents, status, hold_id FROM seat WHERE event_id = '{event}' AND id = ANY(ARRAY[:sid]::bigint[]) ORDER BY id FOR UPDATE;
INSERT INTO hold (id, event_id, buyer_id, idempotency_key, expires_at, total_cents, seat_count) VALUES ('p' || :hid || '-' || :client_id, '{event}', 'b' || :hid, md5(random()::text), now() + interval '10 minutes', 100, 1);
UPDATE seat SET status = 'held', hold_id = 'p' || :hid || '-' || :client_id, version = version + 1, updated_at = now() WHERE id = ANY(ARRAY[:sid]::bigint[]);
INSERT INTO hold_seat (hold_id, seat_id) SELECT 'p' || :hid || '-' || :client_id, unnest(ARRAY[:sid]::bigint[]);
COMMIT;
"
    )
}

async fn bench_holds(concurrency: usize, requests: usize) {
    let run = start().await;
    let base = &run.servers[0].base;
    let client = reqwest::Client::new();
    let rows = (requests as u32).div_ceil(200).max(1) * 2;
    let room = RoomUpdate {
        enabled: Some(false),
        ..RoomUpdate::default()
    };
    let event = create_event(
        &client,
        base,
        run.admin_key(),
        &bench_event(rows, 200, room),
    )
    .await
    .expect("the event is created")
    .id;
    let seats: Vec<i64> = sqlx::query_scalar("select id from seat where event_id = $1 order by id")
        .bind(&event)
        .fetch_all(&run.state().db)
        .await
        .unwrap();
    let tokens: Vec<String> = sessions(&client, &run.bases(), requests, 16)
        .await
        .expect("sessions")
        .into_iter()
        .map(|s| s.token)
        .collect();
    let holds = measure(requests, concurrency, |i| {
        let req = client
            .post(format!("{base}/api/events/{event}/holds"))
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
            // Prepared statements, as sqlx sends them: the raw limit, not the parser's.
            "-M",
            "prepared",
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
        .arg(run.database_name())
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
    let p99 = holds.quantile_ms(0.99);
    println!(
        "{}",
        budget_line("hold p99", p99, "ms", Budget::AtMost(25.0))
    );
    match pg_tps {
        Some(tps) => {
            println!("raw pgbench of the hold transaction: {tps:.0} tx/s (same concurrency)");
            println!("holds / raw pgbench: {:.3}", holds.per_second() / tps);
            let ratio = holds.per_second() / tps;
            println!(
                "{}",
                budget_line("holds / raw pgbench", ratio, "x", Budget::AtLeast(0.6))
            );
        }
        None => println!("pgbench not found or failed: no raw figure"),
    }
    run.stop().await;
}

/// One room of `bench gated`: its event, and each round's seat-map and hold samples.
struct GatedRoom {
    bound: bool,
    event: String,
    maps: Vec<Sample>,
    holds: Vec<Sample>,
}

/// Admitted buyers of `event`: (session, admission token, device key if the room binds).
async fn admitted_buyers(
    run: &Deployment,
    client: &reqwest::Client,
    event: &str,
    bound: bool,
    n: usize,
) -> Vec<(String, String, Option<DeviceKey>)> {
    let base = &run.servers[0].base;
    let url = format!("{base}/api/events/{event}/queue");
    let sessions = sessions(client, &run.bases(), n, 16)
        .await
        .expect("sessions");
    let keys: Vec<Option<DeviceKey>> = (0..n).map(|_| bound.then(DeviceKey::new)).collect();
    let joined = measure(n, 16, |i| {
        let mut req = client.post(&url).bearer_auth(&sessions[i].token);
        if let Some(key) = &keys[i] {
            req = req.header(app::dpop::HEADER, key.proof("POST", &url, None));
        }
        async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 202) }
    })
    .await;
    assert_eq!(joined.errors, 0, "every buyer joins");
    let state = run.state();
    let event_id = EventId::from(event);
    let room = state.rooms.get(&state.db, &event_id).await.unwrap();
    let ticker = Ticker::new(state.line.clone());
    let mut buyers = Vec::new();
    for (session, key) in sessions.iter().zip(keys) {
        let token = loop {
            let body: serde_json::Value = client
                .get(&url)
                .bearer_auth(&session.token)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            match body["admission_token"].as_str() {
                Some(token) => break token.to_owned(),
                None => {
                    ticker.tick(event, &room, 0).await.unwrap();
                }
            }
        };
        buyers.push((session.token.clone(), token, key));
    }
    buyers
}

/// The seat map and a hold of one seat by each of `requests` admitted buyers, in rooms with
/// and without bound tokens, in alternating rounds (new buyers each round). Proofs are made
/// before the clock starts: what is measured is the server's check, not the client's signing.
async fn bench_gated(concurrency: usize, requests: usize, rounds: usize) {
    let run = start().await;
    let base = &run.servers[0].base;
    let client = reqwest::Client::new();
    let mut rooms = Vec::new();
    for bound in [false, true] {
        let room = RoomUpdate {
            admit_rate_per_second: Some(100_000),
            bind_tokens: Some(bound),
            ..RoomUpdate::default()
        };
        let rows = (requests * rounds).div_ceil(200) as u32 + 1;
        let event = create_event(
            &client,
            base,
            run.admin_key(),
            &bench_event(rows, 200, room),
        )
        .await
        .expect("the event is created")
        .id;
        rooms.push(GatedRoom {
            bound,
            event,
            maps: Vec::new(),
            holds: Vec::new(),
        });
    }
    let mut raw = Vec::new();
    for round in 0..rounds {
        // Unbound first in even rounds, bound first in odd ones.
        let order = if round % 2 == 0 { [0, 1] } else { [1, 0] };
        for k in order {
            let room = &mut rooms[k];
            let buyers = admitted_buyers(&run, &client, &room.event, room.bound, requests).await;
            let seats: Vec<i64> = sqlx::query_scalar(
                "select id from seat where event_id = $1 and status = 'available' order by id",
            )
            .bind(&room.event)
            .fetch_all(&run.state().db)
            .await
            .unwrap();
            let maps_url = format!("{base}/api/events/{}/seats", room.event);
            let holds_url = format!("{base}/api/events/{}/holds", room.event);
            let proofs = |method: &str, url: &str| -> Vec<Option<String>> {
                buyers
                    .iter()
                    .map(|(_, token, key)| key.as_ref().map(|k| k.proof(method, url, Some(token))))
                    .collect()
            };
            let (map_proofs, hold_proofs) = (proofs("GET", &maps_url), proofs("POST", &holds_url));
            let maps = measure(requests, concurrency, |i| {
                let (session, token, _) = &buyers[i];
                let mut req = client
                    .get(&maps_url)
                    .bearer_auth(session)
                    .header("admission-token", token);
                if let Some(proof) = &map_proofs[i] {
                    req = req.header(app::dpop::HEADER, proof);
                }
                async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 200) }
            })
            .await;
            let holds = measure(requests, concurrency, |i| {
                let (session, token, _) = &buyers[i];
                let mut req = client
                    .post(&holds_url)
                    .bearer_auth(session)
                    .header("admission-token", token)
                    .header("idempotency-key", format!("gated-{round}-{i}"))
                    .json(&json!({"seat_ids": [seats[i].to_string()]}));
                if let Some(proof) = &hold_proofs[i] {
                    req = req.header(app::dpop::HEADER, proof);
                }
                async move { req.send().await.is_ok_and(|r| r.status().as_u16() == 201) }
            })
            .await;
            room.maps.push(maps);
            room.holds.push(holds);
        }
        // What a bound request adds in Redis: one SADD (and its EXPIRE) to the replay set.
        raw.extend(redis_benchmark(
            concurrency,
            &["sadd", "bench:jti", "__rand_int__"],
        ));
    }
    println!(
        "
Gated paths, {concurrency} concurrent buyers, {requests} admitted buyers per room and \
         round, {rounds} alternating rounds"
    );
    for room in &rooms {
        let label = if room.bound {
            "bound (DPoP)"
        } else {
            "unbound"
        };
        println!(
            "{}",
            Sample::pooled(&room.maps).line(&format!("seat map, {label}"))
        );
        println!(
            "{}",
            Sample::pooled(&room.holds).line(&format!("hold, {label}"))
        );
    }
    let (unbound, bound) = (&rooms[0], &rooms[1]);
    for (what, without, with) in [
        (
            "seat map",
            Sample::pooled(&unbound.maps),
            Sample::pooled(&bound.maps),
        ),
        (
            "hold",
            Sample::pooled(&unbound.holds),
            Sample::pooled(&bound.holds),
        ),
    ] {
        println!(
            "{what}: bound / unbound   p50 {:.2}x   p99 {:.2}x   throughput {:.2}x",
            with.quantile_ms(0.5) / without.quantile_ms(0.5),
            with.quantile_ms(0.99) / without.quantile_ms(0.99),
            with.per_second() / without.per_second()
        );
    }
    if !raw.is_empty() {
        let sadd = raw.iter().sum::<f64>() / raw.len() as f64;
        let maps = Sample::pooled(&bound.maps).per_second();
        println!(
            "raw redis-benchmark SADD (the replay set's write): {sadd:.0}/s; bound seat maps / \
             raw SADD: {:.3}",
            maps / sadd
        );
    }
    run.stop().await;
}

/// `rounds` openings of `entrants` each: the entrants read ahead (as the ticker's leader does
/// on its ticks before the opening), the draw (reading the last entries, sorting, the head of
/// the order in line) as the leader makes it, and the first admission tick after it (their sum
/// is how late the first admissions come after the opening); then until every entrant is in
/// line.
async fn bench_draw(entrants: usize, rounds: usize) {
    let run = start().await;
    let state = run.state();
    let client = reqwest::Client::new();
    let ticker = Ticker::new(state.line.clone());
    let lease = Duration::from_millis(u64::from(state.config.ticker_lease_ms));
    let (mut draws, mut firsts, mut alls) = (Vec::new(), Vec::new(), Vec::new());
    for round in 1..=rounds {
        // Time to fill the pre-queue (tens of thousands of joins a second) before it closes.
        let opens_at = Utc::now() + chrono::Duration::seconds(5 + entrants as i64 / 20_000);
        let room = RoomUpdate {
            opens_at: Some(Some(opens_at)),
            prequeue_seconds: Some(600),
            admit_rate_per_second: Some(1_000),
            ..RoomUpdate::default()
        };
        let event = create_event(
            &client,
            &run.bases()[0],
            run.admin_key(),
            &bench_event(1, 10, room),
        )
        .await
        .expect("an event");
        let t = Instant::now();
        fill(&run, &event.id, entrants).await;
        let filled = t.elapsed();
        // What the ticker's leader does on its ticks before the opening: the entrants read
        // ahead, so that the draw reads only those who came since.
        opening::prefetch(&state.opening(), &event.id)
            .await
            .expect("the pre-queue read ahead");
        let left = (opens_at - Utc::now()).to_std().unwrap_or_default();
        assert!(
            !left.is_zero(),
            "the pre-queue filled after the opening: give it more time"
        );
        tokio::time::sleep(left + Duration::from_millis(20)).await;
        assert!(ticker.acquire(&event.id).await.expect("Redis answers"));
        let lock = Lock::with_owner(state.keys.ticker(&event.id), ticker.owner().to_owned());
        let drawn = opening::draw(&state.opening(), &lock, lease, &event.id)
            .await
            .expect("the draw");
        let Drawn::Made {
            entrants: n,
            took,
            read,
            ordered,
        } = drawn
        else {
            panic!("round {round}: the draw was not made: {drawn:?}");
        };
        let room = state.rooms.get(&state.db, &event.id).await.expect("a room");
        let t = Instant::now();
        let tick = ticker
            .tick(&event.id, &room, Utc::now().timestamp())
            .await
            .expect("a tick");
        let first = t.elapsed();
        // The rest of the order goes into line behind the head, a chunk at a time, while
        // admission goes on (`opening::draw`).
        let mut redis = state.redis.clone();
        loop {
            let placed: Option<usize> = redis::cmd("HGET")
                .arg(state.keys.draw(&event.id))
                .arg("placed")
                .query_async(&mut redis)
                .await
                .expect("Redis answers");
            if placed.is_some_and(|p| p >= n as usize) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let all = t.elapsed() + took;
        println!(
            "round {round}: {n} entrants joined in {:.1} s; the draw took {:.0} ms, the first \
             tick after it {:.0} ms ({tick:?}); every entrant in line {:.0} ms after the \
             draw began (of the draw: {:.0} ms reading the entrants, {:.0} ms ordering them)",
            filled.as_secs_f64(),
            took.as_secs_f64() * 1000.0,
            first.as_secs_f64() * 1000.0,
            all.as_secs_f64() * 1000.0,
            read.as_secs_f64() * 1000.0,
            ordered.as_secs_f64() * 1000.0,
        );
        draws.push(took.as_secs_f64() * 1000.0);
        firsts.push((took + first).as_secs_f64() * 1000.0);
        alls.push(all.as_secs_f64() * 1000.0);
    }
    let (draws, firsts, alls) = (sorted(draws), sorted(firsts), sorted(alls));
    println!(
        "\nThe draw of {entrants} entrants: median {:.0} ms (max {:.0} ms); the first admissions \
         come {:.0} ms after the opening's tick (median; a tick is 1,000 ms by default); every \
         entrant is in line {:.0} ms after it (median)",
        quantile(&draws, 0.5),
        quantile(&draws, 1.0),
        quantile(&firsts, 0.5),
        quantile(&alls, 0.5)
    );
    run.stop().await;
}

/// Rooms at rest (`admission::rest`): `rooms` events each, rooms on, nobody joining, one
/// instance with its ticker running; Redis's commands a second (its own count, less this
/// bench's two reads) and Postgres's transactions a second on the scratch database, once every
/// room rests, and with rest turned off (up to `awake_up_to` rooms).
async fn bench_rest(rooms: &[usize], awake_up_to: usize, seconds: u64) {
    println!(
        "\nRooms on with nobody in line: what they cost a second ({seconds} s measured; ticks of 100 ms)"
    );
    println!(
        "{:>7}  {:<6}  {:>14}  {:>14}  {:>12}",
        "rooms", "rest", "Redis cmds/s", "per room", "Postgres tx/s"
    );
    for &n in rooms {
        for rest in [false, true] {
            if !rest && n > awake_up_to {
                continue;
            }
            let run = Deployment::start("bench", 1, |config: &mut Config| {
                config.ticker = true;
                config.rest_after_seconds = if rest { 2 } else { 0 };
                config.night_idle_seconds = 1;
                config.room_refresh_ms = 200;
            })
            .await;
            let state = run.state();
            let client = reqwest::Client::new();
            let room = RoomUpdate {
                tick_ms: Some(100),
                ..RoomUpdate::default()
            };
            for _ in 0..n {
                create_event(
                    &client,
                    &run.bases()[0],
                    run.admin_key(),
                    &bench_event(1, 10, room.clone()),
                )
                .await
                .expect("an event");
            }
            // Every room rests (or, awake, a few seconds to settle).
            let settle = Instant::now();
            let settled = if rest {
                loop {
                    let resting = state.metrics.rooms_resting.get();
                    if resting as usize >= n || settle.elapsed() > Duration::from_secs(120) {
                        break resting;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            } else {
                tokio::time::sleep(Duration::from_secs(5)).await;
                0
            };
            // The leader's last flush of each room (its log and seconds, a second after its
            // last tick) is not the cost of a room at rest: wait it out.
            tokio::time::sleep(Duration::from_secs(3)).await;
            let redis_url = state.config.redis_url.expose().to_owned();
            let commands = || redis_commands(&redis_url);
            let transactions = || async {
                sqlx::query_scalar::<_, i64>(
                    "select xact_commit + xact_rollback from pg_stat_database \
                     where datname = current_database()",
                )
                .fetch_one(&state.db)
                .await
                .expect("Postgres answers")
            };
            let (c0, x0) = (commands().await, transactions().await);
            tokio::time::sleep(Duration::from_secs(seconds)).await;
            let (c1, x1) = (commands().await, transactions().await);
            // Less this bench's own INFO (one of the two) and its two statistics reads.
            let redis_rate = c1.saturating_sub(c0).saturating_sub(1) as f64 / seconds as f64;
            let pg_rate = (x1 - x0 - 2).max(0) as f64 / seconds as f64;
            println!(
                "{n:>7}  {:<6}  {redis_rate:>14.1}  {:>14.2}  {pg_rate:>12.1}{}",
                if rest { "on" } else { "off" },
                redis_rate / n as f64,
                if rest && (settled as usize) < n {
                    format!("   (only {settled} of {n} rested within 120 s)")
                } else {
                    String::new()
                }
            );
            run.stop().await;
        }
    }
    println!(
        "(Redis counts every command of this machine's Redis: run with nothing else on it. Postgres counts the scratch database's transactions.)"
    );
}

/// Redis's own count of the commands it has run (scripts' commands included).
async fn redis_commands(url: &str) -> u64 {
    let mut conn = redis::Client::open(url)
        .expect("a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis answers");
    let info: String = redis::cmd("INFO")
        .arg("stats")
        .query_async(&mut conn)
        .await
        .expect("INFO");
    info.lines()
        .find_map(|l| l.strip_prefix("total_commands_processed:"))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .expect("a command count")
}

/// The asks a second of a line of `len` whose pages follow `schedule`: each place asks once
/// per [`Schedule::next_poll_ms`] at its position (the line moves little in a minute: the
/// steady state).
fn scheduled_asks(len: u64, schedule: &Schedule) -> f64 {
    (1..=len)
        .map(|p| 1000.0 / schedule.next_poll_ms(p) as f64)
        .sum()
}

/// `bench polls`: what one ask (a poll at the back of a line of `line`) and one read of the
/// progress cost Redis, measured; the asks a second of lines of 1M and 10M on the page's
/// schedule against today's every 3 s, summed; and Redis's commands a second for both.
async fn bench_polls(concurrency: usize, line: usize, requests: usize, rate: u32, instances: u32) {
    let run = start().await;
    let base = &run.servers[0].base;
    let addr = base.trim_start_matches("http://");
    let client = reqwest::Client::new();
    let room = RoomUpdate {
        admit_rate_per_second: Some(rate),
        paused: Some(true),
        ..RoomUpdate::default()
    };
    let event = create_event(&client, base, run.admin_key(), &bench_event(1, 1, room))
        .await
        .expect("the event is created")
        .id;
    let filling = Instant::now();
    fill(&run, &event, line).await;
    let filled = filling.elapsed();
    // What a place costs Redis's memory: the line itself, and with what it keeps beside each
    // place (the presence mark, the record of the join for the report).
    let keys = &run.state().keys;
    let mut counting = redis::Client::open(run.state().config.redis_url.expose())
        .expect("a Redis URL")
        .get_multiplexed_async_connection()
        .await
        .expect("Redis answers");
    let line_bytes = redis_bytes(&mut counting, &[keys.queue(&event), keys.seq(&event)])
        .await
        .expect("MEMORY USAGE");
    let beside = redis_bytes(&mut counting, &[keys.seen(&event), keys.joins(&event)])
        .await
        .expect("MEMORY USAGE");
    let tokens: Vec<String> = sessions(&client, &run.bases(), requests, 16)
        .await
        .expect("sessions")
        .into_iter()
        .map(|s| s.token)
        .collect();
    let path = format!("/api/events/{event}/queue");
    let request = |method: &str, i: usize| queue_request(method, &path, &tokens[i]);
    let _ = measure_http(addr, requests, concurrency, 202, |i| request("POST", i));
    let url = run.state().config.redis_url.expose().to_owned();
    // One ask: the poll of a place at the back of the line.
    let before = redis_commands(&url).await;
    let asks = measure_http(addr, requests, concurrency, 200, |i| request("GET", i));
    let per_ask = (redis_commands(&url).await - before - 1) as f64 / requests as f64;
    // One read of the progress: a fresh one each second (a cache answers the rest).
    let progress_path = format!("/api/events/{event}/progress");
    let reads = 5;
    let before = redis_commands(&url).await;
    let mut read_ms = Vec::new();
    for _ in 0..reads {
        tokio::time::sleep(anteroom::queue::progress::FRESH).await;
        let started = Instant::now();
        let r = client
            .get(format!("{base}{progress_path}"))
            .send()
            .await
            .expect("the progress answers");
        assert!(r.status().is_success(), "{}", r.status());
        let _ = r.bytes().await;
        read_ms.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    let per_read = (redis_commands(&url).await - before - 1) as f64 / reads as f64;
    let read_ms = sorted(read_ms);
    let floor_ms = u64::from(run.state().config.away_after_seconds) * 1000;
    let schedule = Schedule { rate, floor_ms };

    println!(
        "\nA line's polling: one ask and one progress read measured on a line of {line} (filled in {:.0} s), at {rate} admissions a second",
        filled.as_secs_f64()
    );
    println!(
        "  Redis bytes a place: {:.1} in the line, {:.1} with its presence mark and join record",
        line_bytes as f64 / line as f64,
        (line_bytes + beside) as f64 / line as f64
    );
    println!(
        "  one ask (a poll at the back): {per_ask:.1} Redis commands (scripts' own counted), \
         p50 {:.2} ms, p99 {:.2} ms over {requests}",
        asks.quantile_ms(0.5),
        asks.quantile_ms(0.99)
    );
    println!(
        "  one progress read: {per_read:.1} Redis commands, median {:.1} ms (once a second for \
         the deployment)",
        quantile(&read_ms, 0.5)
    );
    println!(
        "\n{:>12}  {:>16}  {:>16}  {:>18}  {:>18}  {:>8}",
        "line", "asks/s, 3 s", "asks/s, schedule", "Redis cmds/s, 3 s", "cmds/s, schedule", "ratio"
    );
    let mut lens = vec![line as u64, 1_000_000, 10_000_000];
    lens.sort_unstable();
    lens.dedup();
    // The deployment reads the line once a second; every other instance takes the copy it
    // kept (one GET each), behind whatever cache answers the pages.
    let progress_cmds = per_read + f64::from(instances.saturating_sub(1));
    for len in lens {
        let today = len as f64 / 3.0;
        let scheduled = scheduled_asks(len, &schedule);
        let today_cmds = today * per_ask;
        let scheduled_cmds = scheduled * per_ask + progress_cmds;
        println!(
            "{len:>12}  {today:>16.0}  {scheduled:>16.0}  {today_cmds:>18.0}  {scheduled_cmds:>18.0}  {:>8}",
            format!("1/{:.0}", today_cmds / scheduled_cmds)
        );
    }
    println!(
        "(asks a second summed over every place from app::presence's schedule at the rate, the \
         progress read once a second and served by {instances} instances behind a cache; without \
         JavaScript a page asks at each refresh, at most a minute apart: not counted)"
    );
    run.stop().await;
}

async fn bench_inventory(seats: u32, holds: u32, ticks: usize) {
    assert!(holds * 2 <= seats, "--holds of 2 seats must fit in --seats");
    let run = start().await;
    let state = run.state();
    let db = &state.db;
    let room = RoomUpdate {
        paused: Some(true),
        ..RoomUpdate::default()
    };
    let client = reqwest::Client::new();
    let event = create_event(
        &client,
        &run.servers[0].base,
        run.admin_key(),
        &bench_event(seats.div_ceil(200), 200, room),
    )
    .await
    .expect("the event is created")
    .id;
    // The night so far, written straight into the tables (the hold path's own speed is `bench
    // holds`): holds 1 to n/2 expired, then 4 in 10 bought, the last 1 in 10 still held.
    sqlx::query(
        "insert into hold (id, event_id, buyer_id, idempotency_key, expires_at, total_cents, \
             seat_count, status) \
         select 'h' || i, $1, 'b' || i, 'k', now() + interval '10 minutes', 200, 2, \
             case when i * 2 <= $2 then 'expired' when i * 10 <= $2 * 9 then 'purchased' \
             else 'active' end \
         from generate_series(1, $2) i",
    )
    .bind(&event)
    .bind(holds as i32)
    .execute(db)
    .await
    .expect("the holds are written");
    sqlx::query(
        "insert into hold_seat (hold_id, seat_id) \
         select 'h' || ((n + 1) / 2), id \
         from (select id, row_number() over (order by id) n from seat where event_id = $1) s \
         where n <= $2 * 2",
    )
    .bind(&event)
    .bind(i64::from(holds))
    .execute(db)
    .await
    .expect("the holds' seats are written");
    sqlx::query(
        "update seat s set hold_id = h.id, \
             status = case when h.status = 'purchased' then 'sold' else 'held' end \
         from hold_seat hs join hold h on h.id = hs.hold_id \
         where hs.seat_id = s.id and h.event_id = $1 and h.status in ('purchased', 'active')",
    )
    .bind(&event)
    .execute(db)
    .await
    .expect("the seats are held and sold");
    sqlx::query("analyze").execute(db).await.ok();
    let counts = measure(ticks, 1, |_| async {
        Inventory::count(db, &event).await.is_ok()
    })
    .await;
    let inventory = Inventory::count(db, &event).await.expect("counted");
    let room = state.rooms.get(db, &event).await.expect("the room");
    let ticker = Ticker::new(state.line.clone());
    let tick_all = measure(ticks, 1, |i| {
        let (ticker, room, event) = (&ticker, &room, &event);
        async move { ticker.tick(event, room, i as i64).await.is_ok() }
    })
    .await;
    println!("\nThe line's inventory: {seats} seats, {holds} holds so far, counted {ticks} times");
    println!("counted: {inventory:?}");
    println!("{}", counts.line("seat count (Postgres)"));
    println!("{}", tick_all.line("admission tick (count + admit script)"));
    run.stop().await;
}

/// Times the WebAssembly search in V8 (node): hashes a second, or why it could not.
const V8_RATE: &str = r#"
const fs = require("fs");
const wasm = new WebAssembly.Module(fs.readFileSync(process.argv[1]));
// The wasm-bindgen imports of the bundle's runtime: never called by the search.
const imports = {};
for (const i of WebAssembly.Module.imports(wasm)) {
  (imports[i.module] ??= {})[i.name] = () => { throw new Error(i.name + " called"); };
}
const search = new WebAssembly.Instance(wasm, imports).exports.pow_search;
const hashes = BigInt(process.argv[2]);
search(64, 0n, 100000n);
const t = performance.now();
search(64, 0n, hashes);
console.log(Number(hashes) / ((performance.now() - t) / 1000));
"#;

fn v8_rate(wasm: &Path, hashes: u64) -> Result<f64, String> {
    let out = Command::new("node")
        .args(["-e", V8_RATE])
        .arg(wasm)
        .arg(hashes.to_string())
        .output()
        .map_err(|e| format!("node: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim().parse().map_err(|_| {
        format!(
            "node could not time {}: {}",
            wasm.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        )
    })
}

fn bench_pow(bits: u32, wasm: &Path, hashes: u64) {
    // 64 bits are never met: the search hashes every nonce it is given.
    let t = std::time::Instant::now();
    assert_eq!(app::pow::search("bench", 64, 0, hashes), None);
    let native = hashes as f64 / t.elapsed().as_secs_f64();
    let per_proof = 2f64.powi(bits as i32);
    println!(
        "\nProof of work at join, {bits} bits: 2^{bits} = {per_proof:.0} hashes a proof on average"
    );
    println!("(the time to a proof is exponential: p90 = 2.3 x mean, p99 = 4.6 x mean)");
    let line = |who: &str, rate: f64| {
        let mean = per_proof / rate;
        println!(
            "{who:<40} {:>6.2} M hashes/s   a proof: mean {:>6.2} s   p90 {:>6.2} s   \
             1,000 places: {:>7.0} core-seconds",
            rate / 1e6,
            mean,
            mean * 10f64.ln(),
            1000.0 * mean
        );
    };
    line("native, one core (an attacker)", native);
    match v8_rate(wasm, hashes) {
        Ok(rate) => line("WebAssembly in V8, one core (a browser)", rate),
        Err(e) => println!("WebAssembly in V8: not measured ({e})"),
    }
    println!(
        "1,000 places also take 1,000 sessions and joins, and from one network at most \
         ANTEROOM_PLACES_PER_NETWORK of them (default 1,000): past that, other networks."
    );
}

/// An OTLP/HTTP receiver that reads every export and drops it; its base URL.
async fn trace_sink() -> String {
    let app = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(|_: axum::body::Bytes| async { "" }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    url
}

#[tokio::main]
async fn main() {
    let cli = Cli::parse();
    let _telemetry = if cli.traces {
        let endpoint = trace_sink().await;
        println!(
            "traces: a share {} of requests' spans exported over OTLP/HTTP to a sink at {endpoint}",
            cli.trace_ratio
        );
        Some(anteroom::telemetry::init_with(
            false,
            "warn",
            Some(anteroom::telemetry::Otlp {
                endpoint,
                json: false,
                ratio: cli.trace_ratio,
            }),
        ))
    } else {
        None
    };
    match cli.what {
        What::Line {
            requests,
            line,
            rounds,
        } => bench_line(cli.concurrency, requests, line, rounds).await,
        What::Holds { requests } => bench_holds(cli.concurrency, requests).await,
        What::Gated { requests, rounds } => bench_gated(cli.concurrency, requests, rounds).await,
        What::Gate {
            requests,
            rounds,
            origin,
        } => gate_bench::bench_gate(cli.concurrency, requests, rounds, &origin).await,
        What::Draw { entrants, rounds } => bench_draw(entrants, rounds).await,
        What::Inventory {
            seats,
            holds,
            ticks,
        } => bench_inventory(seats, holds, ticks).await,
        What::Pow { bits, wasm, hashes } => bench_pow(bits, &wasm, hashes),
        What::Rest {
            rooms,
            awake_up_to,
            seconds,
        } => bench_rest(&rooms, awake_up_to, seconds).await,
        What::Polls {
            line,
            requests,
            rate,
            instances,
        } => bench_polls(cli.concurrency, line, requests, rate, instances).await,
    }
}
