//! `spawn_app()`: a real Anteroom on port 0 with its own Postgres database and its own Redis
//! key prefix (a `testkit::scratch::Scratch`), both removed when the test ends, so tests run
//! in parallel and never see what another run left behind. And the steps of the buyer's path
//! and the operator's that many tests take (join, poll, open an event, hold, put a room,
//! check out). And [`eventually`]: a test waits for what it waits for, not for a time.

use std::{
    ops::{Deref, DerefMut},
    time::{Duration, Instant},
};

use anteroom::{
    checkout::fake::{self, FakeSettings},
    config::{Config, Secret},
};
use app::wire::{Events, Role};
use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use testkit::{
    cluster::{self, Cluster},
    deployment::Server,
    scratch::Scratch,
};

/// A break-glass token, for the tests that turn it on (it is off unless configured).
pub const BREAK_GLASS: &str = "test-break-glass-token-of-thirty-two-characters";

/// One instance under test (its base URL, state and shutdown through `Deref`), with a client.
pub struct TestApp {
    server: Server,
    pub client: Client,
    /// An API key with every scope on every event (made in the app's database at spawn).
    pub admin_key: String,
    /// Removed when the app is dropped (idempotent: instances of one deployment share it).
    scratch: Scratch,
}

impl Deref for TestApp {
    type Target = Server;

    fn deref(&self) -> &Server {
        &self.server
    }
}

impl DerefMut for TestApp {
    fn deref_mut(&mut self) -> &mut Server {
        &mut self.server
    }
}

/// The configuration of a test app: its own database and Redis prefix,
/// generous session, network and in-flight limits (tests that check limits lower them; bursts of a
/// thousand requests at once are no storm here), and no running ticker: tests
/// drive admission ticks themselves, so what they see does not depend on timing (the test of
/// the running ticker turns it on).
pub fn test_config() -> Config {
    let mut config = Scratch::new("t").config();
    config.ticker = false;
    config.sessions_per_minute = 1_000_000;
    // Every test buyer comes from 127.0.0.1, one network; the tests of those limits lower them.
    config.joins_per_network_per_minute = 1_000_000;
    config.places_per_network = 1_000_000;
    // A thousand calls queued on one connection of a debug build on a busy machine can take
    // over the production second; the fault tests kill Redis instead of hanging it.
    config.redis_response_timeout_ms = 5_000;
    // And connecting to the three cluster nodes while a dozen other tests start.
    config.redis_connect_timeout_ms = 2_000;
    // Likewise two hundred holds racing for the pool: a debug build on a loaded CI machine
    // can keep a connection busy past the production three seconds. The Postgres fault test
    // sets its own short bound.
    config.db_acquire_timeout_ms = 30_000;
    // And so the request deadline, which must not cut what that wait allows.
    config.request_timeout_ms = 60_000;
    for bound in [
        &mut config.in_flight_general,
        &mut config.in_flight_admitted,
        &mut config.in_flight_join,
        &mut config.in_flight_poll,
        &mut config.in_flight_seatmap,
        &mut config.in_flight_hold,
        &mut config.in_flight_checkout,
    ] {
        *bound = 100_000;
    }
    config
}

pub async fn spawn_app() -> TestApp {
    spawn_with(test_config()).await
}

/// Which Redis a test runs against.
#[derive(Clone, Copy, Debug)]
pub enum Backend {
    /// This machine's Redis on 127.0.0.1:6379.
    Single,
    /// The shared 3-master Redis Cluster of this test process ([`cluster::shared`]).
    Cluster,
}

/// [`test_config`] on `backend`.
pub fn test_config_on(backend: Backend) -> Config {
    match backend {
        Backend::Single => test_config(),
        Backend::Cluster => test_config_on_cluster(cluster::shared()),
    }
}

/// [`test_config`] on the Redis Cluster `cluster`.
pub fn test_config_on_cluster(cluster: &Cluster) -> Config {
    let mut config = test_config();
    config.redis_cluster_nodes = cluster.nodes().into_iter().map(Secret::new).collect();
    config
}

/// Two instances of one deployment on `config` and an event of theirs admitting 10 a second
/// in ticks of a second: the event's id.
pub async fn two_instances_and_an_event(config: Config) -> (TestApp, TestApp, String) {
    let a = spawn_with(config.clone()).await;
    let b = spawn_with(config).await;
    let event = a
        .create_event(plenty(
            json!({"admit_rate_per_second": 10, "tick_ms": 1000}),
        ))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    (a, b, event)
}

pub async fn spawn_on(backend: Backend) -> TestApp {
    spawn_with(test_config_on(backend)).await
}

/// Declares the test `body` (an `async fn(Backend)` of the calling module) twice: as
/// `<body>::single` against the single Redis and as `<body>::cluster` against the Redis
/// Cluster, so one test body proves both.
macro_rules! on_single_and_cluster {
    ($($body:ident),+ $(,)?) => {$(
        mod $body {
            #[tokio::test]
            async fn single() {
                super::$body(crate::helpers::Backend::Single).await
            }

            #[tokio::test]
            async fn cluster() {
                super::$body(crate::helpers::Backend::Cluster).await
            }
        }
    )+};
}
pub(crate) use on_single_and_cluster;

/// Starts an app on `config`. Every app cleans up its scratch deployment when dropped; apps
/// that share one (instances of one deployment) are dropped together at the test's end.
pub async fn spawn_with(config: Config) -> TestApp {
    let scratch = Scratch::of(&config);
    let server = Server::start(config.clone()).await;
    let admin_key = testkit::operators::admin_key(&config).await;
    TestApp {
        server,
        client: Client::new(),
        admin_key,
        scratch,
    }
}

impl TestApp {
    pub fn admin(&self, req: RequestBuilder) -> RequestBuilder {
        req.bearer_auth(&self.admin_key)
    }

    /// `n` new buyer sessions, at most 64 being made at once: a test about holds should not
    /// also be a test of 2,000 simultaneous connections on a loaded machine.
    pub async fn sessions(&self, n: usize) -> Vec<(String, String)> {
        use futures::StreamExt;
        futures::stream::iter((0..n).map(|_| self.session()))
            .buffered(64)
            .collect()
            .await
    }

    /// `POST /api/session` with `{}`: the answer, its headers and all.
    pub async fn new_session(&self) -> reqwest::Response {
        self.client
            .post(self.url("/api/session"))
            .json(&json!({}))
            .send()
            .await
            .unwrap()
    }

    /// A new buyer session: (buyer id, token).
    pub async fn session(&self) -> (String, String) {
        let r = self.new_session().await;
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        (
            body["buyer_id"].as_str().unwrap().to_owned(),
            body["token"].as_str().unwrap().to_owned(),
        )
    }

    /// Creates an event through the admin API and returns its JSON.
    pub async fn create_event(&self, body: Value) -> Value {
        let r = self
            .admin(self.client.post(self.url("/api/admin/events")))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let body: Value = r.json().await.unwrap();
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body
    }

    /// An event of 2 x 5 seats with its room on at `admit_rate_per_second`; returns its id.
    pub async fn room_event(&self, admit_rate_per_second: u32) -> String {
        let event = self
            .create_event(event_body(
                1,
                5,
                json!({"admit_rate_per_second": admit_rate_per_second}),
            ))
            .await;
        event["id"].as_str().unwrap().to_owned()
    }

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&self.state.db)
            .await
            .unwrap()
    }
}

/// Sends a request and reads its JSON body: the step most tests repeat.
pub trait JsonBody {
    async fn json_body<T: serde::de::DeserializeOwned>(self) -> T;
}

impl JsonBody for RequestBuilder {
    async fn json_body<T: serde::de::DeserializeOwned>(self) -> T {
        self.send().await.unwrap().json().await.unwrap()
    }
}

impl TestApp {
    /// An operator's audit, newest first, as `GET path` (`/api/admin/audit?...` or an event's).
    pub async fn audit(&self, path: &str) -> Vec<serde_json::Value> {
        self.admin(self.client.get(self.url(path)))
            .json_body()
            .await
    }

    /// An event's operator stats (`GET /api/admin/events/{event}/stats`) as JSON.
    pub async fn stats(&self, event: &str) -> Value {
        self.admin(
            self.client
                .get(self.url(&format!("/api/admin/events/{event}/stats"))),
        )
        .json_body()
        .await
    }

    /// A person of `role` on `events`, signed in (as a passkey would have signed them in):
    /// their operator id and session cookie's value.
    pub async fn operator(&self, role: Role, events: Events) -> (String, String) {
        testkit::operators::signed_in(&self.state.config, role, events).await
    }

    /// `POST /api/operator/sign-out` (with no cookie: it clears one all the same).
    pub async fn sign_out(&self) -> reqwest::Response {
        self.client
            .post(self.url("/api/operator/sign-out"))
            .send()
            .await
            .unwrap()
    }

    /// `req` with an operator's session cookie, from the dashboard's own page.
    pub fn as_operator(&self, req: RequestBuilder, cookie: &str) -> RequestBuilder {
        req.header("cookie", format!("anteroom-op={cookie}"))
            .header("sec-fetch-site", "same-origin")
    }

    /// The Prometheus text of `/metrics`, from the metrics address.
    pub async fn metrics_text(&self) -> String {
        self.client
            .get(format!("{}/metrics", self.server.metrics_base))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// `GET path` as the buyer of session `token`.
    pub async fn get(&self, path: &str, token: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }
}

/// A small layout: sections A and B, `rows` x `seats` each.
/// An event of 2,000 seats (two sections of 25 rows of 40), for tests of the line's and the
/// ticker's mechanics: its free seats never bound the admissions (the ticker admits no more
/// than the free seats less those of the buyers on the seat map).
pub fn plenty(room: Value) -> Value {
    event_body(25, 40, room)
}

pub fn event_body(rows: u32, seats: u32, room: Value) -> Value {
    json!({
        "name": "Test night",
        "starts_at": "2026-12-01T19:00:00Z",
        "sections": [
            {"name": "A", "rows": rows, "seats_per_row": seats, "price_cents": 5000},
            {"name": "B", "rows": rows, "seats_per_row": seats, "price_cents": 3000}
        ],
        "room": room
    })
}

/// Asserts the JSON error of API.md and returns its body.
pub async fn expect_error(r: reqwest::Response, status: StatusCode, code: &str) -> Value {
    assert_eq!(r.status(), status);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], code, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    body
}

impl Drop for TestApp {
    fn drop(&mut self) {
        // The server first, so that nothing writes to the scratch deployment while it goes.
        self.server.abort();
        self.scratch.cleanup_blocking();
    }
}

/// Three instances on one database and one Redis prefix, tickers off (tests drive them).
pub async fn three_instances(backend: Backend) -> Vec<TestApp> {
    let config = test_config_on(backend);
    let mut apps = Vec::new();
    for _ in 0..3 {
        apps.push(spawn_with(config.clone()).await);
    }
    apps
}

/// `POST /api/events/{event}/queue` as the buyer of session `token`.
/// How many buyers are in the line of `event` (its Redis sorted set).
pub async fn line_length(app: &TestApp, event: &str) -> u64 {
    redis::cmd("ZCARD")
        .arg(app.state.keys.queue(event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap()
}

pub async fn join(app: &TestApp, event: &str, token: &str) -> (StatusCode, Value) {
    let r = join_response(app, event, token).await;
    (r.status(), r.json().await.unwrap())
}

/// [`join`]'s answer, its headers and all.
pub async fn join_response(app: &TestApp, event: &str, token: &str) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/events/{event}/queue")))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

/// `GET /api/events/{event}/queue` as the buyer of session `token`.
pub async fn poll(app: &TestApp, event: &str, token: &str) -> (StatusCode, Value) {
    let r = app.get(&format!("/api/events/{event}/queue"), token).await;
    (r.status(), r.json().await.unwrap())
}

/// An event with the room off (the gate open), `rows` x `seats` in sections A and B: its id
/// and its seat ids in order.
pub async fn open_event(app: &TestApp, rows: u32, seats: u32) -> (String, Vec<i64>) {
    let event = app
        .create_event(event_body(rows, seats, json!({"enabled": false})))
        .await;
    let id = event["id"].as_str().unwrap().to_owned();
    let seat_ids = seat_ids(app, &id).await;
    (id, seat_ids)
}

/// The ids of every seat of `event`, in order.
pub async fn seat_ids(app: &TestApp, event: &str) -> Vec<i64> {
    sqlx::query_scalar("select id from seat where event_id = $1 order by id")
        .bind(event)
        .fetch_all(&app.state.db)
        .await
        .unwrap()
}

/// `POST /api/events/{event}/holds` with `body`, as the buyer of `session`, under the
/// Idempotency-Key `key`.
pub async fn hold(
    app: &TestApp,
    event: &str,
    session: &str,
    key: &str,
    body: Value,
) -> reqwest::Response {
    hold_request(app, event, session, key, body)
        .send()
        .await
        .unwrap()
}

/// [`hold`] as an admitted buyer: with the admission token of their poll.
pub async fn hold_admitted(
    app: &TestApp,
    event: &str,
    (session, admission): (&str, &str),
    key: &str,
    body: Value,
) -> reqwest::Response {
    hold_request(app, event, session, key, body)
        .header("admission-token", admission)
        .send()
        .await
        .unwrap()
}

fn hold_request(
    app: &TestApp,
    event: &str,
    session: &str,
    key: &str,
    body: Value,
) -> RequestBuilder {
    app.client
        .post(app.url(&format!("/api/events/{event}/holds")))
        .bearer_auth(session)
        .header("idempotency-key", key)
        .json(&body)
}

/// The body of a hold of exactly the seats `ids`.
pub fn hold_body(ids: &[i64]) -> Value {
    json!({"seat_ids": ids.iter().map(|i| i.to_string()).collect::<Vec<_>>()})
}

/// `POST /api/holds/{hold_id}/checkout` as the buyer of `session`, under the Idempotency-Key
/// `key`.
pub async fn checkout(app: &TestApp, session: &str, hold_id: &str, key: &str) -> reqwest::Response {
    app.client
        .post(app.url(&format!("/api/holds/{hold_id}/checkout")))
        .bearer_auth(session)
        .header("idempotency-key", key)
        .send()
        .await
        .unwrap()
}

/// `PUT /api/admin/events/{event}/room` with `body`, as the operator.
pub async fn put_room(app: &TestApp, event: &str, body: Value) -> reqwest::Response {
    app.admin(
        app.client
            .put(app.url(&format!("/api/admin/events/{event}/room"))),
    )
    .json(&body)
    .send()
    .await
    .unwrap()
}

/// An app whose payment provider is a fake on port 0 with `settings`; returns the fake's URL.
pub async fn app_with_fake(settings: FakeSettings) -> (TestApp, String) {
    let url = fake::spawn(settings, "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut config = test_config();
    config.payments_url = Some(url.clone());
    config.breaker_open_ms = 300;
    (spawn_with(config).await, url)
}

pub fn quick() -> FakeSettings {
    FakeSettings {
        latency_ms: 20,
        ..FakeSettings::default()
    }
}

pub async fn ledger(url: &str) -> Value {
    reqwest::get(format!("{url}/ledger"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

/// A buyer holding `seats` seats: (session, hold id).
pub async fn holder(app: &TestApp, event: &str, seat_ids: &[i64]) -> (String, String) {
    let (_, session) = app.session().await;
    let r = hold(app, event, &session, "hold", hold_body(seat_ids)).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let body: Value = r.json().await.unwrap();
    (session, body["hold_id"].as_str().unwrap().to_owned())
}

/// A new buyer who joined the line of `event`: their session token.
pub async fn joined(app: &TestApp, event: &str) -> String {
    let (_, token) = app.session().await;
    let (status, body) = join(app, event, &token).await;
    assert_eq!(status, StatusCode::ACCEPTED, "{body}");
    token
}

/// `GET path` as a browser with `cookie` (or none): the page's HTML and the names=values
/// of the cookies it sets.
pub async fn page(app: &TestApp, path: &str, cookie: Option<&str>) -> (String, Vec<String>) {
    let mut req = app.client.get(app.url(path));
    if let Some(cookie) = cookie {
        req = req.header("cookie", cookie);
    }
    let r = req.send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let cookies = set_cookies(&r);
    (r.text().await.unwrap(), cookies)
}

/// The `name=value` of every cookie a response sets.
pub fn set_cookies(r: &reqwest::Response) -> Vec<String> {
    r.headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().split(';').next().unwrap().to_owned())
        .collect()
}

/// The value of one series (name and labels, as written) in a metrics text, if it is there.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// What a check of [`eventually`] answers: `true`, or `Some(value)`, once its condition holds.
pub trait Outcome {
    type Value;
    fn value(self) -> Option<Self::Value>;
}

impl Outcome for bool {
    type Value = ();

    fn value(self) -> Option<()> {
        self.then_some(())
    }
}

impl<T> Outcome for Option<T> {
    type Value = T;

    fn value(self) -> Option<T> {
        self
    }
}

/// Waits for a condition rather than for a time: runs `check` every 20 ms until it holds
/// (`true`, or `Some(value)`, which is returned) and fails the test, naming `what`, when it
/// still does not hold `within` after the first check began.
pub async fn eventually<R: Outcome>(
    what: &str,
    within: Duration,
    check: impl AsyncFnMut() -> R,
) -> R::Value {
    eventually_every(what, within, Duration::from_millis(20), check).await
}

/// [`eventually`], checking every `every`: for a test that must act at the first moment the
/// condition holds (a fault injected in the middle of a burst, a takeover timed).
pub async fn eventually_every<R: Outcome>(
    what: &str,
    within: Duration,
    every: Duration,
    mut check: impl AsyncFnMut() -> R,
) -> R::Value {
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = check().await.value() {
            return value;
        }
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(every).await;
    }
}

/// Redis's clock, ms: the one the scripts count presence windows and marks on.
pub async fn redis_ms(app: &TestApp) -> i64 {
    let (s, us): (i64, i64) = redis::cmd("TIME")
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    s * 1000 + us / 1000
}

/// The ms after the `@` of `buyer`'s record in the joins hash of `event` (`joining.lua`), if
/// the line has one: until when a waiting buyer is present, or when a skipped one was skipped.
pub async fn present_until(app: &TestApp, event: &str, buyer: &str) -> Option<i64> {
    let record: Option<String> = redis::cmd("HGET")
        .arg(app.state.keys.joins(event))
        .arg(buyer)
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    record?
        .rsplit_once('@')
        .map(|(_, until)| until.parse().unwrap())
}

/// Waits until Redis's clock is past `ms` (a presence window ended, a mark's floor over): the
/// moment it is, not a guess of the wall clock's; fails naming `what` if it is not within
/// five seconds of when it should be.
pub async fn redis_clock_past(app: &TestApp, what: &str, ms: i64) {
    let left = Duration::from_millis((ms - redis_ms(app).await).max(0) as u64);
    eventually(what, left + Duration::from_secs(5), async || {
        redis_ms(app).await > ms
    })
    .await;
}

/// The (first) private key file in the key folder `dir`.
pub fn key_file(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "key"))
        .expect("a .key file")
}

/// A new buyer of `event` (room on) admitted by one tick of a ticker of `app`: (buyer id,
/// session, the poll's admitted answer).
pub async fn admitted_answer(app: &TestApp, event: &str) -> (String, String, Value) {
    let (buyer, session) = app.session().await;
    assert_eq!(join(app, event, &session).await.0, StatusCode::ACCEPTED);
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let ticker = anteroom::admission::ticker::Ticker::new(app.state.line.clone());
    ticker.tick(event, &room, 0).await.unwrap();
    // So that the next call's ticker ticks at once.
    ticker.release(event).await.unwrap();
    let (status, body) = poll(app, event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted")),
        "{body}"
    );
    (buyer, session, body)
}

/// One steering step as the ticker loop makes it once a second, with this instance's
/// measurements of now, keeping the lock if this ticker holds it (the loop's ticks do that
/// between steps).
pub async fn steer(
    app: &TestApp,
    ticker: &anteroom::admission::ticker::Ticker,
    event: &str,
    room: &app::wire::Room,
) -> anteroom::queue::rates::InForce {
    ticker.acquire(event).await.unwrap();
    let measured = app
        .state
        .health
        .measure(chrono::Utc::now().timestamp_millis());
    ticker.steer(event, room, &measured).await.unwrap()
}
