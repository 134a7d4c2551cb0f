//! Prometheus metrics of this instance. HTTP requests are counted and timed per route
//! template (`/api/events/{event_id}`), never per concrete path, and per method from a fixed
//! set (anything else is `other`): hyper accepts any token as a method, so a label taken from
//! the request as sent would let a client add series without bound.

use prometheus::{
    Encoder, Gauge, GaugeVec, Histogram, HistogramOpts, HistogramVec, IntCounter, IntCounterVec,
    IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_duration: HistogramVec,
    /// Seat maps built from Postgres (cache misses and refreshes).
    pub seatmap_builds: IntCounter,
    /// Hold attempts by outcome: ok, conflict, limited, invalid.
    pub holds: IntCounterVec,
    /// Checkout outcomes: ok, declined, refunded, provider_429, breaker_open.
    pub checkouts: IntCounterVec,
    /// Queue calls by kind: join, poll.
    pub queue_calls: IntCounterVec,
    /// DPoP proofs checked in rooms that bind tokens, by outcome: ok, missing, invalid,
    /// replayed.
    pub proofs: IntCounterVec,
    /// The proxy's gate (`origin::check`) by outcome: passed, handed_over (a hand-over used
    /// at the gate), refused, unprotected (no room protects the path), room_off.
    pub gate_checks: IntCounterVec,
    /// Buyers admitted by this instance's ticker, per event.
    pub admissions: IntCounterVec,
    /// The line's length per event, as the last tick saw it.
    pub queue_length: IntGaugeVec,
    /// 1 while this instance holds the event's ticker lock.
    pub ticker_lock_held: IntGaugeVec,
    /// Postgres pool connections: open, and idle (set when scraped).
    pub db_connections: IntGauge,
    pub db_idle: IntGauge,
    /// Requests answered 503 at once by load shedding, by lane (ops/shed.rs).
    pub shed: IntCounterVec,
    /// Payments of every event by state, from Postgres (set when scraped): `pending` that
    /// stays above zero is money reconciliation has not settled.
    pub payments: IntGaugeVec,
    /// The hold transaction's own duration (from its first statement to its commit), apart
    /// from the route's.
    pub hold_transaction: Histogram,
    /// How long the hold transaction waited for a pooled Postgres connection.
    pub db_acquire_wait: Histogram,
    /// The tokio event loop's lag: how late a 100 ms sleep wakes (the last sample).
    pub loop_lag: Gauge,
    /// How close each signal of the hold path is to its limit (1 = at it), by signal:
    /// `hold_p99` (against the lowest target of a ticking room), `db_acquire_wait` (against a
    /// tenth of the acquire timeout), `loop_lag` (against `loop_lag_limit_ms`). Set once a
    /// second by the ticker loop.
    pub limit_ratio: GaugeVec,
    /// How late each admission tick started after it was due (the ticker's lag behind its
    /// tick: a busy loop, a slow Postgres count or Redis script).
    pub ticker_lateness: Histogram,
    /// 1 while a dependency answers within a second (`redis`, `postgres`), 0 when not; set
    /// when scraped.
    pub dependency_up: IntGaugeVec,
    /// How long the key that signs admission tokens has been published (set when scraped):
    /// the rotation's clock.
    pub admission_key_age: IntGauge,
    /// Rooms on whose ticks this instance's ticker skips: at rest (`admission::rest`).
    pub rooms_resting: IntGauge,
}

fn histogram(registry: &Registry, name: &str, help: &str) -> Histogram {
    let buckets = vec![
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
    ];
    let metric = Histogram::with_opts(HistogramOpts::new(name, help).buckets(buckets))
        .expect("valid metric");
    registry
        .register(Box::new(metric.clone()))
        .expect("registered once");
    metric
}

fn counter_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntCounterVec {
    let metric = IntCounterVec::new(Opts::new(name, help), labels).expect("valid metric");
    registry
        .register(Box::new(metric.clone()))
        .expect("registered once");
    metric
}

fn gauge_vec(registry: &Registry, name: &str, help: &str, labels: &[&str]) -> IntGaugeVec {
    let metric = IntGaugeVec::new(Opts::new(name, help), labels).expect("valid metric");
    registry
        .register(Box::new(metric.clone()))
        .expect("registered once");
    metric
}

fn gauge(registry: &Registry, name: &str, help: &str) -> IntGauge {
    let metric = IntGauge::new(name, help).expect("valid metric");
    registry
        .register(Box::new(metric.clone()))
        .expect("registered once");
    metric
}

impl Metrics {
    /// Over 120 lines, for a reason: the registry's table, one registration per metric and
    /// its help text, read top to bottom beside `/metrics`.
    pub fn new() -> Self {
        let registry =
            Registry::new_custom(Some("anteroom".into()), None).expect("a valid metric prefix");
        let http_requests = IntCounterVec::new(
            Opts::new("http_requests_total", "HTTP requests answered"),
            &["method", "route", "status"],
        )
        .expect("valid metric");
        let http_duration = HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "HTTP request latency").buckets(
                vec![
                    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                ],
            ),
            &["method", "route"],
        )
        .expect("valid metric");
        let seatmap_builds =
            IntCounter::new("seatmap_builds_total", "Seat maps built from Postgres")
                .expect("valid metric");
        let holds = IntCounterVec::new(
            Opts::new("holds_total", "Hold attempts by outcome"),
            &["outcome"],
        )
        .expect("valid metric");
        let checkouts = IntCounterVec::new(
            Opts::new("checkouts_total", "Checkout outcomes"),
            &["outcome"],
        )
        .expect("valid metric");
        registry
            .register(Box::new(checkouts.clone()))
            .expect("registered once");
        registry
            .register(Box::new(seatmap_builds.clone()))
            .expect("registered once");
        registry
            .register(Box::new(holds.clone()))
            .expect("registered once");
        registry
            .register(Box::new(http_requests.clone()))
            .expect("registered once");
        registry
            .register(Box::new(http_duration.clone()))
            .expect("registered once");
        let queue_calls = counter_vec(&registry, "queue_calls_total", "Joins and polls", &["call"]);
        let proofs = counter_vec(
            &registry,
            "dpop_proofs_total",
            "DPoP proofs checked in rooms that bind tokens",
            &["outcome"],
        );
        let gate_checks = counter_vec(
            &registry,
            "gate_checks_total",
            "The reverse proxy's questions to the gate, by outcome",
            &["outcome"],
        );
        let admissions = counter_vec(&registry, "admissions_total", "Buyers admitted", &["event"]);
        let queue_length = gauge_vec(&registry, "queue_length", "Buyers in line", &["event"]);
        let ticker_lock_held = gauge_vec(
            &registry,
            "ticker_lock_held",
            "1 while this instance admits for the event",
            &["event"],
        );
        let db_connections = gauge(
            &registry,
            "db_pool_connections",
            "Postgres connections open",
        );
        let db_idle = gauge(&registry, "db_pool_idle", "Postgres connections idle");
        let shed = counter_vec(
            &registry,
            "shed_total",
            "Requests shed with 503 at the concurrency bounds",
            &["lane"],
        );
        let payments = gauge_vec(
            &registry,
            "payments",
            "Payments by state (pending, succeeded, declined, refunded, failed)",
            &["state"],
        );
        let hold_transaction = histogram(
            &registry,
            "hold_transaction_seconds",
            "The hold transaction's own duration",
        );
        let db_acquire_wait = histogram(
            &registry,
            "db_acquire_wait_seconds",
            "Wait for a pooled Postgres connection (hold transactions)",
        );
        let loop_lag = Gauge::new("event_loop_lag_seconds", "How late a 100 ms sleep wakes")
            .expect("valid metric");
        registry
            .register(Box::new(loop_lag.clone()))
            .expect("registered once");
        let limit_ratio = GaugeVec::new(
            Opts::new(
                "limit_ratio",
                "How close a signal of the hold path is to its limit (1 = at it)",
            ),
            &["signal"],
        )
        .expect("valid metric");
        registry
            .register(Box::new(limit_ratio.clone()))
            .expect("registered once");
        let ticker_lateness = histogram(
            &registry,
            "ticker_lateness_seconds",
            "How late an admission tick started after it was due",
        );
        let dependency_up = gauge_vec(
            &registry,
            "dependency_up",
            "1 while the dependency answers within a second",
            &["dependency"],
        );
        let admission_key_age = gauge(
            &registry,
            "admission_signing_key_age_seconds",
            "How long the admission signing key has been published",
        );
        let rooms_resting = gauge(
            &registry,
            "rooms_resting",
            "Rooms on at rest: no tick, no Redis command until a buyer is in line",
        );
        Self {
            rooms_resting,
            ticker_lateness,
            dependency_up,
            admission_key_age,
            hold_transaction,
            db_acquire_wait,
            loop_lag,
            limit_ratio,
            payments,
            shed,
            queue_calls,
            proofs,
            gate_checks,
            admissions,
            queue_length,
            ticker_lock_held,
            db_connections,
            db_idle,
            registry,
            http_requests,
            http_duration,
            seatmap_builds,
            holds,
            checkouts,
        }
    }

    /// Everything in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("text encoding into a Vec cannot fail");
        String::from_utf8(buf).expect("the text format is UTF-8")
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}
