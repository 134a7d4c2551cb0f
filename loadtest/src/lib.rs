//! What the two load tools (`bench` and `onsale`) share: latency samples and their
//! percentiles, a closed-loop driver of N requests from C workers, Anteroom started in-process
//! on a scratch deployment (one or several instances, removed at the end), and the few API
//! calls every run begins with (an event, buyer sessions), through the `app` wire types.
//!
//! Invariant: a [`Deployment`] owns its scratch database and Redis prefix; [`Deployment::stop`]
//! stops every instance before it removes them, so nothing outlives the run.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anteroom::{config::Config, scratch::Scratch, startup::Application, state::AppState};
use app::wire::{Event, NewEvent, SessionCreated};
use futures::future::join_all;
use http_body_util::{BodyExt, Empty};
use hyper::{body::Bytes, client::conn::http1::handshake};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Latencies of one measurement (sorted), its length and its failures.
pub struct Sample {
    micros: Vec<u64>,
    elapsed: Duration,
    pub errors: usize,
}

impl Sample {
    pub fn new(mut micros: Vec<u64>, elapsed: Duration, errors: usize) -> Self {
        micros.sort_unstable();
        Self {
            micros,
            elapsed,
            errors,
        }
    }

    /// The `p` quantile (0 to 1) in ms; 0 for an empty sample.
    pub fn pct(&self, p: f64) -> f64 {
        if self.micros.is_empty() {
            return 0.0;
        }
        let i = ((self.micros.len() as f64 - 1.0) * p).round() as usize;
        self.micros[i] as f64 / 1000.0
    }

    /// The measurements together, as one: their latencies pooled, their times added.
    pub fn pooled<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Self {
        let (mut micros, mut elapsed, mut errors) = (Vec::new(), Duration::ZERO, 0);
        for s in samples {
            micros.extend_from_slice(&s.micros);
            elapsed += s.elapsed;
            errors += s.errors;
        }
        Self::new(micros, elapsed, errors)
    }

    pub fn count(&self) -> usize {
        self.micros.len()
    }

    pub fn per_second(&self) -> f64 {
        self.micros.len() as f64 / self.elapsed.as_secs_f64()
    }

    /// One printed line: throughput, p50, p99, max and errors.
    pub fn line(&self, what: &str) -> String {
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

/// Runs `n` requests from `concurrency` workers, each starting its next request when its last
/// one ends; `request(i)` makes the i-th and says whether it succeeded.
pub async fn measure<F, Fut>(n: usize, concurrency: usize, request: F) -> Sample
where
    F: Fn(usize) -> Fut + Sync,
    Fut: Future<Output = bool>,
{
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let workers = (0..concurrency).map(|_| worker(&next, n, &request));
    sample(join_all(workers).await, started)
}

/// A request of [`measure_http`]: no body.
pub type BareRequest = hyper::Request<Empty<Bytes>>;

/// Runs `n` requests to `addr` ("127.0.0.1:3000") from `concurrency` workers as [`measure`]
/// does, each worker on its own kept-alive HTTP/1.1 connection driven inside the worker, the
/// way `redis-benchmark` keeps one connection per client: no pool, no task per connection,
/// so that the client costs the machine as little as it can and the figure is the server's.
/// `request(i)` makes the i-th (origin-form URI); it succeeds when answered `expect`.
pub async fn measure_http<F>(
    addr: &str,
    n: usize,
    concurrency: usize,
    expect: u16,
    request: F,
) -> Sample
where
    F: Fn(usize) -> BareRequest + Sync,
{
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let workers = (0..concurrency).map(|_| async {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        stream.set_nodelay(true).expect("a TCP socket");
        let (mut sender, connection) = handshake(TokioIo::new(stream))
            .await
            .expect("an HTTP/1.1 handshake");
        let work = worker(&next, n, |i| {
            let answer = sender.send_request(request(i));
            async move {
                match answer.await {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        r.into_body().collect().await.is_ok() && status == expect
                    }
                    Err(_) => false,
                }
            }
        });
        tokio::select! {
            out = work => out,
            closed = connection => panic!("the server closed a kept-alive connection: {closed:?}"),
        }
    });
    sample(join_all(workers).await, started)
}

/// One worker of a measurement: takes the next index until `n` are taken, and times each
/// request. Its latencies and failures.
async fn worker<Fut>(
    next: &AtomicUsize,
    n: usize,
    mut request: impl FnMut(usize) -> Fut,
) -> (Vec<u64>, usize)
where
    Fut: Future<Output = bool>,
{
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
}

/// The workers' results as one sample, timed from `started`.
fn sample(results: Vec<(Vec<u64>, usize)>, started: Instant) -> Sample {
    let elapsed = started.elapsed();
    let errors = results.iter().map(|(_, e)| e).sum();
    let micros = results.into_iter().flat_map(|(m, _)| m).collect();
    Sample::new(micros, elapsed, errors)
}

/// Anteroom running in this process: `instances` servers on one scratch deployment (one
/// database, one Redis prefix), as a load balancer would see several hosts.
pub struct Deployment {
    /// Base URLs, one per instance.
    pub bases: Vec<String>,
    /// The first instance's state: its Redis connection, key names and database pool.
    pub state: AppState,
    shutdown: CancellationToken,
    servers: Vec<JoinHandle<()>>,
    scratch: Scratch,
}

impl Deployment {
    /// Starts `instances` servers on a fresh scratch deployment of `kind`, each on the
    /// configuration `tune` makes of the scratch one.
    pub async fn start(kind: &str, instances: usize, tune: impl Fn(&mut Config)) -> Self {
        let scratch = Scratch::new(kind);
        let shutdown = CancellationToken::new();
        let (mut bases, mut states, mut servers) = (Vec::new(), Vec::new(), Vec::new());
        // One after the other: the first one creates and migrates the database.
        for _ in 0..instances.max(1) {
            let mut config = scratch.config();
            tune(&mut config);
            let app = Application::build(config).await.expect("anteroom starts");
            bases.push(format!("http://{}", app.local_addr()));
            states.push(app.state().clone());
            let token = shutdown.clone();
            servers.push(tokio::spawn(async move {
                app.run(token).await.expect("anteroom serves");
            }));
        }
        Self {
            bases,
            state: states.swap_remove(0),
            shutdown,
            servers,
            scratch,
        }
    }

    pub fn admin_token(&self) -> &str {
        self.scratch.admin_token()
    }

    pub fn database_name(&self) -> &str {
        self.scratch.database_name()
    }

    /// Stops every instance (draining requests, releasing ticker locks), then removes the
    /// database, the Redis keys and the data folder.
    pub async fn stop(self) {
        self.shutdown.cancel();
        for server in self.servers {
            let _ = server.await;
        }
        self.scratch.cleanup().await;
    }
}

/// `POST /api/admin/events`: the created event.
pub async fn create_event(
    client: &reqwest::Client,
    base: &str,
    admin_token: &str,
    event: &NewEvent,
) -> Result<Event, String> {
    let r = client
        .post(format!("{base}/api/admin/events"))
        .bearer_auth(admin_token)
        .json(event)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.status().is_success() {
        return Err(format!(
            "creating the event: {} {}",
            r.status(),
            r.text().await.unwrap_or_default()
        ));
    }
    r.json().await.map_err(|e| e.to_string())
}

/// `n` buyer sessions, the i-th created on `bases[i % len]`, `concurrency` at a time.
/// Fails if any creation fails (the rate limit of the target is the usual cause).
pub async fn sessions(
    client: &reqwest::Client,
    bases: &[String],
    n: usize,
    concurrency: usize,
) -> Result<Vec<SessionCreated>, String> {
    let made = Mutex::new(vec![None; n]);
    let failure = Mutex::new(None);
    let sample = measure(n, concurrency, |i| {
        let req = client
            .post(format!("{}/api/session", bases[i % bases.len()]))
            .json(&serde_json::json!({}));
        let (made, failure) = (&made, &failure);
        async move {
            let result = match req.send().await {
                Ok(r) if r.status().is_success() => {
                    r.json::<SessionCreated>().await.map_err(|e| e.to_string())
                }
                Ok(r) => Err(format!(
                    "{} {}",
                    r.status(),
                    r.text().await.unwrap_or_default()
                )),
                Err(e) => Err(e.to_string()),
            };
            match result {
                Ok(session) => {
                    made.lock().expect("not poisoned")[i] = Some(session);
                    true
                }
                Err(e) => {
                    *failure.lock().expect("not poisoned") = Some(e);
                    false
                }
            }
        }
    })
    .await;
    if sample.errors > 0 {
        let why = failure
            .into_inner()
            .expect("not poisoned")
            .unwrap_or_default();
        return Err(format!("{} sessions failed, e.g. {why}", sample.errors));
    }
    Ok(made
        .into_inner()
        .expect("not poisoned")
        .into_iter()
        .flatten()
        .collect())
}

/// The bytes Redis uses for `keys` together (`MEMORY USAGE`, every element counted).
pub async fn redis_bytes(
    redis: &mut impl redis::aio::ConnectionLike,
    keys: &[String],
) -> redis::RedisResult<u64> {
    let mut bytes = 0;
    for key in keys {
        let b: Option<u64> = redis::cmd("MEMORY")
            .arg("USAGE")
            .arg(key)
            .arg("SAMPLES")
            .arg(0)
            .query_async(redis)
            .await?;
        bytes += b.unwrap_or(0);
    }
    Ok(bytes)
}
