//! What the two load tools (`bench` and `onsale`) share: latency samples and the one
//! [`quantile`] every figure is read with, a closed-loop driver of N requests from C workers,
//! and the few API calls every run begins with (an event, buyer sessions), through the `app`
//! wire types. Anteroom itself is started in-process by `testkit::deployment`, as the tests
//! start it.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use app::wire::{Event, NewEvent, SessionCreated};
use futures::future::join_all;
use http_body_util::{BodyExt, Empty};
use hyper::{body::Bytes, client::conn::http1::handshake};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

/// The `p` quantile (0 to 1) of `sorted` (ascending), interpolated between the two nearest
/// values (so the median of an even number is the mean of the middle two); 0 when empty.
pub fn quantile(sorted: &[f64], p: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return 0.0;
    };
    let at = last as f64 * p.clamp(0.0, 1.0);
    let (below, above) = (at.floor() as usize, at.ceil() as usize);
    sorted[below] + (sorted[above] - sorted[below]) * (at - below as f64)
}

/// `values` sorted ascending, for [`quantile`].
pub fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

/// One of the hot paths' budgets (issue 66), beside the figure measured against it.
pub enum Budget {
    /// The figure must stay at or below the budget (CPU a request, bytes, latency).
    AtMost(f64),
    /// The figure must stay at or above it (a ratio to raw Postgres, a throughput).
    AtLeast(f64),
}

/// The line `make bench` prints for one budget: `budget  <what>  <figure> <unit>  (budget
/// <= b)`, ending in `over budget` where the figure breaks it, so the next change that spends
/// a budget is seen the day it lands. A figure, never a test's assertion.
pub fn budget_line(what: &str, figure: f64, unit: &str, budget: Budget) -> String {
    let (sign, bound, kept) = match budget {
        Budget::AtMost(b) => ("<=", b, figure <= b),
        Budget::AtLeast(b) => (">=", b, figure >= b),
    };
    let verdict = if kept { "within" } else { "over budget" };
    format!("budget  {what:<38} {figure:>10.2} {unit:<6} (budget {sign} {bound}) {verdict}")
}

/// Latencies of one measurement, its length and its failures.
pub struct Sample {
    /// In ms, sorted, for [`quantile`].
    ms: Vec<f64>,
    elapsed: Duration,
    pub errors: usize,
    /// The CPU time of the client's own thread ([`measure_http`]'s; zero for [`measure`]).
    pub client_cpu: Duration,
}

impl Sample {
    pub fn new(micros: Vec<u64>, elapsed: Duration, errors: usize) -> Self {
        let ms = micros.into_iter().map(|us| us as f64 / 1000.0).collect();
        Self {
            ms: sorted(ms),
            elapsed,
            errors,
            client_cpu: Duration::ZERO,
        }
    }

    /// The `p` quantile (0 to 1) of the latencies, in ms; 0 for an empty sample.
    pub fn quantile_ms(&self, p: f64) -> f64 {
        quantile(&self.ms, p)
    }

    /// The measurements together, as one: their latencies pooled, their times added.
    pub fn pooled<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Self {
        let (mut ms, mut elapsed, mut errors) = (Vec::new(), Duration::ZERO, 0);
        let mut client_cpu = Duration::ZERO;
        for s in samples {
            ms.extend_from_slice(&s.ms);
            elapsed += s.elapsed;
            errors += s.errors;
            client_cpu += s.client_cpu;
        }
        Self {
            ms: sorted(ms),
            elapsed,
            errors,
            client_cpu,
        }
    }

    pub fn count(&self) -> usize {
        self.ms.len()
    }

    pub fn per_second(&self) -> f64 {
        self.ms.len() as f64 / self.elapsed.as_secs_f64()
    }

    /// One printed line: throughput, p50, p99, max and errors.
    pub fn line(&self, what: &str) -> String {
        format!(
            "{what:<28} {:>9.0}/s   p50 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   errors {}",
            self.per_second(),
            self.quantile_ms(0.5),
            self.quantile_ms(0.99),
            self.quantile_ms(1.0),
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
///
/// The client runs on a thread of its own with its own event loop (a current-thread runtime),
/// as `redis-benchmark` is a process of its own: driven from the caller's task, every answer
/// had the server's workers wake the caller's thread (two futex calls a request, a third of
/// the client's system calls). So this blocks its caller, which must be the benchmark's main
/// task, never a task of the server's runtime.
pub fn measure_http<F>(addr: &str, n: usize, concurrency: usize, expect: u16, request: F) -> Sample
where
    F: Fn(usize) -> BareRequest + Sync,
{
    let client = || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for the client");
        let cpu = thread_cpu();
        let mut sample = runtime.block_on(http_workers(addr, n, concurrency, expect, &request));
        sample.client_cpu = thread_cpu().saturating_sub(cpu);
        sample
    };
    std::thread::scope(|scope| {
        scope
            .spawn(client)
            .join()
            .expect("the client's thread does not panic")
    })
}

/// The CPU time the calling thread has run (Linux's `/proc/thread-self/schedstat`, exact to
/// the ns; zero where there is no such file).
pub fn thread_cpu() -> Duration {
    schedstat_ns("/proc/thread-self/schedstat").map_or(Duration::ZERO, Duration::from_nanos)
}

/// The CPU time the threads of this process alive now have run (their `schedstat`): the
/// server's workers while a measurement runs, since [`measure_http`]'s client thread has ended
/// by the time its caller reads this again. A thread that ended in between is not counted.
pub fn threads_cpu() -> Duration {
    let tasks = std::fs::read_dir("/proc/self/task").into_iter().flatten();
    Duration::from_nanos(
        tasks
            .flatten()
            .filter_map(|task| schedstat_ns(task.path().join("schedstat")))
            .sum(),
    )
}

/// The first field of a `schedstat` file: ns on the CPU.
fn schedstat_ns(path: impl AsRef<std::path::Path>) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// [`measure_http`]'s workers, on the client's own runtime.
async fn http_workers<F>(
    addr: &str,
    n: usize,
    concurrency: usize,
    expect: u16,
    request: &F,
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

/// `POST /api/admin/events`: the created event.
pub async fn create_event(
    client: &reqwest::Client,
    base: &str,
    admin_key: &str,
    event: &NewEvent,
) -> Result<Event, String> {
    let r = client
        .post(format!("{base}/api/admin/events"))
        .bearer_auth(admin_key)
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
    sessions_with(client, bases, n, concurrency, |_| serde_json::json!({})).await
}

/// [`sessions`], the i-th created with the body `body(i)` (an account's hand-over, say).
pub async fn sessions_with(
    client: &reqwest::Client,
    bases: &[String],
    n: usize,
    concurrency: usize,
    body: impl Fn(usize) -> serde_json::Value + Sync,
) -> Result<Vec<SessionCreated>, String> {
    let made = Mutex::new(vec![None; n]);
    let failure = Mutex::new(None);
    let sample = measure(n, concurrency, |i| {
        let req = client
            .post(format!("{}/api/session", bases[i % bases.len()]))
            .json(&body(i));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantile_interpolates_between_the_nearest_values() {
        assert_eq!(quantile(&[], 0.5), 0.0);
        assert_eq!(quantile(&[7.0], 0.99), 7.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0], 0.5), 2.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 10.0], 0.5), 2.5);
        assert_eq!(quantile(&[0.0, 10.0], 0.9), 9.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 10.0], 0.0), 1.0);
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 10.0], 1.0), 10.0);
    }
}
