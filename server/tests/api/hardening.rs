//! Hardening (issue 16): each test plays one attack against the real server and proves it
//! no longer works.

use std::time::{Duration, Instant};

use anteroom::{
    admission::{
        retire::{self, Retired},
        ticker::Ticker,
    },
    checkout::fake,
    config::{Config, Secret},
    devdata::{self, Strictness},
    startup::{self, Application},
    tokens::keys::{self, AdmissionKeys},
};
use reqwest::{Method, StatusCode};
use serde_json::json;
use tokio::{
    io::{AsyncReadExt, AsyncWriteExt},
    net::TcpStream,
};

use crate::helpers::{
    ADMIN_TOKEN, TestApp, event_body, eventually, expect_error, hold, hold_body, join,
    join_response, open_event, poll, put_room, quick, spawn_app, spawn_with, test_config,
};

/// A raw connection to `app`, for clients that misbehave below what reqwest lets one do.
async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .unwrap()
}

/// Everything the server sends on `read` until it closes the connection, or `None` when it
/// has not closed it within `within`.
async fn until_closed(
    mut read: tokio::net::tcp::OwnedReadHalf,
    within: Duration,
) -> Option<String> {
    let mut all = Vec::new();
    let mut buf = [0u8; 4096];
    tokio::time::timeout(within, async {
        loop {
            match read.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await
    .ok()?;
    Some(String::from_utf8_lossy(&all).into_owned())
}

/// Writes `piece` every 100 ms until the connection breaks or 10 s have passed.
fn trickle(mut write: tokio::net::tcp::OwnedWriteHalf, piece: &'static [u8]) {
    tokio::spawn(async move {
        for _ in 0..100 {
            // The slow client under test, not a wait.
            tokio::time::sleep(Duration::from_millis(100)).await;
            if write.write_all(piece).await.is_err() {
                return;
            }
        }
    });
}

#[tokio::test]
async fn requests_with_made_up_methods_add_no_series_to_the_metrics() {
    let app = spawn_app().await;
    let before = app.metrics_text().await.lines().count();
    for i in 0..50 {
        let method = Method::from_bytes(format!("X{i:04}{}", "Q".repeat(200)).as_bytes()).unwrap();
        app.client
            .request(method, app.url("/api/events"))
            .send()
            .await
            .unwrap();
    }
    let text = app.metrics_text().await;
    assert!(!text.contains("QQQQ"), "a raw method reached a label");
    assert!(
        text.contains(
            r#"anteroom_http_requests_total{method="other",route="/api/events",status="405"} 50"#
        ),
        "{text}"
    );
    // One new counter series and one histogram (its buckets, sum and count) at most, whatever
    // the number of methods, plus the scrape's own GET.
    let added = text.lines().count() - before;
    assert!(added < 40, "{added} lines added by 50 made-up methods");
}

#[tokio::test]
async fn a_client_that_trickles_its_headers_is_cut_off() {
    let mut config = test_config();
    config.header_read_timeout_ms = 500;
    let app = spawn_with(config).await;
    let started = Instant::now();
    let mut stream = connect(&app).await;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nhost: anteroom\r\n")
        .await
        .unwrap();
    let (read, write) = stream.into_split();
    trickle(write, b"x-slow: 1\r\n");
    let answer = until_closed(read, Duration::from_secs(5))
        .await
        .expect("the server closes a connection whose headers never end");
    assert!(!answer.contains("200 OK"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_body_trickled_a_byte_at_a_time_gets_408() {
    let mut config = test_config();
    config.body_read_timeout_ms = 500;
    let app = spawn_with(config).await;
    let started = Instant::now();
    let mut stream = connect(&app).await;
    stream
        .write_all(
            b"POST /api/session HTTP/1.1\r\nhost: anteroom\r\ncontent-type: application/json\r\n\
              content-length: 1000\r\n\r\n{",
        )
        .await
        .unwrap();
    let (read, write) = stream.into_split();
    trickle(write, b" ");
    let answer = until_closed(read, Duration::from_secs(5))
        .await
        .expect("the server answers and closes within the body deadline");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains(r#""error":"request_timeout""#), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_thousand_slow_uploads_do_not_take_the_budget_of_joins() {
    let mut config = test_config();
    config.in_flight_general = 200;
    config.body_read_timeout_ms = 5_000;
    let app = spawn_with(config).await;
    let event = app.room_event(10).await;
    let (_, token) = app.session().await;
    let mut uploads = Vec::new();
    for _ in 0..1000 {
        let mut stream = connect(&app).await;
        stream
            .write_all(
                b"POST /api/session HTTP/1.1\r\nhost: anteroom\r\n\
                  content-type: application/json\r\ncontent-length: 100\r\n\r\n{",
            )
            .await
            .unwrap();
        uploads.push(stream);
    }
    // Long enough for the server to have routed every one of them (time: nothing shows that
    // the server has read an upload's headers).
    tokio::time::sleep(Duration::from_millis(1000)).await;
    for _ in 0..3 {
        let r = app
            .client
            .post(app.url(&format!("/api/events/{event}/queue")))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        // Joins spread over the uploads' wait, by design.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    drop(uploads);
}

#[tokio::test]
async fn answers_that_carry_a_token_say_no_store() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 2, json!({"enabled": false})))
        .await;
    let event = event["id"].as_str().unwrap();
    let r = app.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let token = r.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    let queue = format!("/api/events/{event}/queue");
    let r = app
        .client
        .post(app.url(&queue))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::OK,
        "the room is off: admitted at once"
    );
    assert_eq!(r.headers()["cache-control"], "no-store");
    let r = app.get(&queue, &token).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-store");
    // The event page of an admitted buyer carries the admission token in its hydration data.
    let r = app
        .client
        .get(app.url(&format!("/events/{event}")))
        .header("cookie", format!("anteroom_session={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let r = app.sign_in(crate::helpers::ADMIN_TOKEN).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(r.headers()["cache-control"], "no-store");
    // What carries no token stays cacheable.
    let r = app.client.get(app.url("/api/events")).send().await.unwrap();
    assert!(r.headers().get("cache-control").is_none());
}

#[tokio::test]
async fn an_idempotency_key_reused_on_another_event_makes_a_hold_of_that_event() {
    let app = spawn_app().await;
    let (first, first_seats) = open_event(&app, 1, 2).await;
    let (second, second_seats) = open_event(&app, 1, 2).await;
    let (_, session) = app.session().await;
    let one = |id: i64| json!({"seat_ids": [id.to_string()]});
    let r = hold(&app, &first, &session, "key-1", one(first_seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let first_hold: serde_json::Value = r.json().await.unwrap();
    let r = hold(&app, &second, &session, "key-1", one(second_seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let second_hold: serde_json::Value = r.json().await.unwrap();
    assert_eq!(second_hold["event_id"], second.as_str(), "{second_hold}");
    assert_ne!(second_hold["hold_id"], first_hold["hold_id"]);
    assert_eq!(
        app.count("select count(*) from hold").await,
        2,
        "one hold on each event"
    );
}

#[tokio::test]
async fn an_idempotency_key_reused_with_another_body_is_422_and_holds_nothing() {
    let app = spawn_app().await;
    let (event, seats) = open_event(&app, 1, 3).await;
    let (_, session) = app.session().await;
    let one = |id: i64| json!({"seat_ids": [id.to_string()]});
    let r = hold(&app, &event, &session, "key-1", one(seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = hold(&app, &event, &session, "key-1", one(seats[1])).await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    let r = hold(
        &app,
        &event,
        &session,
        "key-1",
        json!({"section": "A", "quantity": 1}),
    )
    .await;
    expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    assert_eq!(app.count("select count(*) from hold").await, 1);
    let (status, _): (String, Option<String>) =
        sqlx::query_as("select status, hold_id from seat where id = $1")
            .bind(seats[1])
            .fetch_one(&app.state.db)
            .await
            .unwrap();
    assert_eq!(status, "available");
    // The same body again is still the replay.
    let r = hold(&app, &event, &session, "key-1", one(seats[0])).await;
    assert_eq!(r.status(), StatusCode::CREATED);
}

#[tokio::test]
async fn the_metrics_are_not_served_on_the_public_address() {
    let app = spawn_app().await;
    let r = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert!(!r.text().await.unwrap().contains("# TYPE"));
    let r = app
        .client
        .get(format!("{}/metrics", app.metrics_base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.text()
            .await
            .unwrap()
            .contains("anteroom_http_requests_total")
    );
}

#[tokio::test]
async fn a_generated_admin_token_is_shown_once_with_where_it_is_kept() {
    let mut config = test_config();
    config.admin_token = None;
    let dir = config.data_dir.clone();
    let first = startup::admin_token_notice(&config)
        .unwrap()
        .expect("the first start shows the token it generated");
    let kept = std::fs::read_to_string(dir.join("admin_token")).unwrap();
    assert!(first.contains(kept.trim()), "{first}");
    assert!(first.contains(&dir.join("admin_token").display().to_string()));
    assert_eq!(
        startup::admin_token_notice(&config).unwrap(),
        None,
        "only once"
    );
    // A configured token is never printed.
    config.admin_token = Some(Secret::new(ADMIN_TOKEN));
    assert_eq!(startup::admin_token_notice(&config).unwrap(), None);
    std::fs::remove_dir_all(dir).ok();
}

#[tokio::test]
async fn a_configured_admin_token_under_32_characters_is_refused_at_start() {
    let mut config = test_config();
    config.admin_token = Some(Secret::new("x".repeat(31)));
    let refused = Application::build(config).await.err().expect("refused");
    assert!(refused.to_string().contains("32"), "{refused}");
}

/// Signs in to the dashboard: its cookie pair.
async fn dashboard_cookie(app: &TestApp) -> String {
    let r = app.sign_in(ADMIN_TOKEN).await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let cookie = r.headers()["set-cookie"].to_str().unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

#[tokio::test]
async fn a_cross_site_or_non_json_admin_write_changes_nothing() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let room = app.url(&format!("/api/admin/events/{event}/room"));
    let cookie = dashboard_cookie(&app).await;
    let paused = |app: &TestApp| {
        let db = app.state.db.clone();
        let event = event.clone();
        async move {
            sqlx::query_scalar::<_, bool>("select room_paused from event where id = $1")
                .bind(event)
                .fetch_one(&db)
                .await
                .unwrap()
        }
    };
    let body = r#"{"paused": true}"#;
    // With the dashboard's cookie: (content type, extra headers, expected status, code).
    let cookie_writes = [
        // A form on another site: text/plain, the cookie goes along.
        (
            "text/plain",
            vec![
                ("origin", "https://evil.example"),
                ("sec-fetch-site", "cross-site"),
            ],
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
        // JSON from another site's script.
        (
            "application/json",
            vec![("origin", "https://evil.example")],
            StatusCode::FORBIDDEN,
            "forbidden",
        ),
    ];
    let with_cookie = |content_type: &str, extra: &[(&str, &str)]| {
        let mut req = app
            .client
            .put(&room)
            .header("cookie", &cookie)
            .header("content-type", content_type);
        for (name, value) in extra {
            req = req.header(*name, *value);
        }
        req.body(body)
    };
    for (content_type, extra, status, code) in &cookie_writes {
        let r = with_cookie(content_type, extra).send().await.unwrap();
        expect_error(r, *status, code).await;
    }
    // The bearer token without JSON.
    let r = app
        .admin(app.client.put(&room))
        .header("content-type", "text/plain")
        .body(body)
        .send()
        .await
        .unwrap();
    expect_error(
        r,
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
    )
    .await;
    assert!(!paused(&app).await, "nothing changed");
    // The dashboard's own page: same origin, JSON.
    let r = with_cookie("application/json", &[("sec-fetch-site", "same-origin")])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(paused(&app).await);
}

#[tokio::test]
async fn guessing_the_admin_token_is_throttled_per_address() {
    let mut config = test_config();
    config.admin_sign_ins_per_minute = 5;
    let app = spawn_with(config).await;
    for _ in 0..5 {
        let r = app.sign_in("guess").await;
        expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    }
    // Even the right token waits now: the limit counts attempts, not failures.
    let r = app.sign_in(ADMIN_TOKEN).await;
    assert!(r.headers().contains_key("retry-after"));
    expect_error(r, StatusCode::TOO_MANY_REQUESTS, "rate_limited").await;
}

#[tokio::test]
async fn an_event_named_like_a_script_renders_escaped_under_a_policy_with_a_nonce() {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"enabled": false}));
    let name = "</title><script>alert(1)</script>";
    body["name"] = json!(name);
    let event = app.create_event(body).await;
    let event = event["id"].as_str().unwrap();
    for path in ["/".to_owned(), format!("/events/{event}")] {
        let r = app.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let policy = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let html = r.text().await.unwrap();
        assert!(
            !html.contains(name),
            "{path}: the name reached the HTML raw"
        );
        assert!(!html.contains("<script>alert(1)"), "{path}");
        assert!(
            html.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}"
        );
        // The policy allows the page's own inline scripts, by their nonce, and no others.
        let nonce = policy
            .split(['\'', ' ', ';'])
            .find_map(|part| part.strip_prefix("nonce-"))
            .expect("a nonce in the policy")
            .to_owned();
        let script_src = policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src "))
            .expect("a script-src directive");
        assert!(script_src.contains(&format!("'nonce-{nonce}'")), "{policy}");
        assert!(!script_src.contains("unsafe-inline"), "{policy}");
        let scripts = html.matches("<script").count();
        let with_nonce = html
            .matches(&format!("<script type=\"module\" nonce=\"{nonce}\""))
            .count()
            + html.matches(&format!("<script nonce=\"{nonce}\"")).count();
        assert!(scripts > 0, "{path}: the hydration script is inline");
        assert_eq!(
            with_nonce, scripts,
            "{path}: every inline script carries the nonce\n{html}"
        );
    }
}

#[tokio::test]
async fn a_production_server_without_a_payment_provider_refuses_to_start() {
    let mut config = test_config();
    config.dev = false;
    config.payments_url = None;
    let refused = Application::build(config)
        .await
        .err()
        .expect("no fake that takes orders and no money");
    assert!(
        refused.to_string().contains("ANTEROOM_PAYMENTS_URL"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_production_server_sets_secure_host_cookies_and_ignores_a_planted_one() {
    let payments = fake::spawn(quick(), "127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let mut config = test_config();
    config.dev = false;
    config.payments_url = Some(payments);
    anteroom::startup::write_secrets(&config).unwrap();
    let app = spawn_with(config).await;
    let r = app.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("__Host-anteroom_session="), "{cookie}");
    assert!(
        cookie.contains("; Path=/;") && cookie.ends_with("; Secure"),
        "{cookie}"
    );
    assert!(!cookie.to_lowercase().contains("domain="), "{cookie}");
    let session = |cookie: String| {
        app.client
            .get(app.url("/api/session"))
            .header("cookie", cookie)
            .send()
    };
    let pair = cookie.split(';').next().unwrap().to_owned();
    assert_eq!(
        session(pair.clone()).await.unwrap().status(),
        StatusCode::OK
    );
    // The same token under the plain name, as a sibling subdomain or a plain-HTTP page could
    // plant it (session fixation): not read.
    let planted = pair.trim_start_matches("__Host-").to_owned();
    let r = session(planted).await.unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let r = app.sign_in(ADMIN_TOKEN).await;
    let admin = r.headers()["set-cookie"].to_str().unwrap();
    assert!(
        admin.starts_with("__Host-anteroom_admin=") && admin.ends_with("; Secure"),
        "{admin}"
    );
}

/// Why `Application::build` refuses to start on `config` (it must refuse).
async fn refused(config: Config) -> String {
    Application::build(config)
        .await
        .err()
        .expect("refused")
        .to_string()
}

/// A production configuration (no `--dev`) whose secrets live in files of its data folder,
/// with a payment provider's URL that `Application::build` never calls.
fn production_config_with_secret_files() -> Config {
    let mut config = test_config();
    config.dev = false;
    config.payments_url = Some("http://127.0.0.1:9".into());
    config.session_secret = None;
    config
}

/// Review finding 11: outside `--dev`, a server with no configured or kept admin token,
/// session secret or admission key refused nothing and generated its own, so instances behind
/// one load balancer refused each other's sessions and tokens. Now it refuses to start, saying
/// what is missing; `anteroom secrets` writes them once, and then every instance starts and
/// accepts the others' sessions.
#[tokio::test]
async fn a_production_server_without_its_shared_secrets_refuses_to_start_and_generates_none() {
    let mut config = production_config_with_secret_files();
    config.admin_token = None;
    let why = refused(config.clone()).await;
    assert!(why.contains("ANTEROOM_ADMIN_TOKEN"), "{why}");
    assert!(
        !config.data_dir.join("admin_token").exists(),
        "a refused start wrote a secret"
    );
    let mut with_token = config.clone();
    with_token.admin_token = Some(Secret::new(ADMIN_TOKEN));
    let why = refused(with_token.clone()).await;
    assert!(why.contains("ANTEROOM_SESSION_SECRET"), "{why}");
    with_token.session_secret = Some(Secret::new(anteroom::ids::random_id(32)));
    let why = refused(with_token).await;
    assert!(why.contains("admission signing key"), "{why}");
    assert!(
        keys::read_dir(&config.data_dir.join("admission-keys"), Strictness::Refuse)
            .unwrap()
            .is_empty(),
        "a refused start generated a key"
    );
    let written = anteroom::startup::write_secrets(&config).unwrap();
    assert_eq!(written.len(), 3, "{written:?}");
    let again = anteroom::startup::write_secrets(&config).unwrap();
    assert!(again.iter().all(|l| l.contains("already")), "{again:?}");
    // Two instances on the written folder: a session of one is a session of the other.
    let a = spawn_with(config.clone()).await;
    let b = spawn_with(config).await;
    let r = a.new_session().await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let token = r.json::<serde_json::Value>().await.unwrap()["token"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(b.get("/api/session", &token).await.status(), StatusCode::OK);
}

fn set_mode(path: &std::path::Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[tokio::test]
async fn a_secret_or_key_file_other_users_may_read_is_refused_at_start() {
    let config = production_config_with_secret_files();
    let dir = config.data_dir.clone();
    let key_dir = dir.join("admission-keys");
    // What an earlier start left: the session secret and a key, then opened up by hand.
    devdata::secret_file(&dir, "session_secret", Strictness::Refuse).unwrap();
    keys::load_or_generate(&key_dir, Strictness::Refuse).unwrap();
    let key = key_file(&key_dir);
    set_mode(&dir.join("session_secret"), 0o644);
    let why = refused(config.clone()).await;
    assert!(
        why.contains("session_secret") && why.contains("chmod 600"),
        "{why}"
    );
    set_mode(&dir.join("session_secret"), 0o600);
    set_mode(&key, 0o640);
    let why = refused(config.clone()).await;
    assert!(why.contains(".key") && why.contains("chmod 600"), "{why}");
    set_mode(&key, 0o600);
    set_mode(&key_dir, 0o755);
    let why = refused(config.clone()).await;
    assert!(
        why.contains("admission-keys") && why.contains("chmod 700"),
        "{why}"
    );
    set_mode(&key_dir, 0o700);
    set_mode(&dir, 0o777);
    let why = refused(config.clone()).await;
    assert!(why.contains("chmod 700"), "{why}");
    set_mode(&dir, 0o700);
    // Closed again: it starts.
    let app = spawn_with(config).await;
    assert_eq!(
        app.client
            .get(app.url("/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
}

#[test]
fn instances_starting_together_on_an_empty_data_folder_share_one_secret_and_one_key() {
    const INSTANCES: usize = 8;
    for _ in 0..20 {
        let dir =
            std::env::temp_dir().join(format!("anteroom-together-{}", anteroom::ids::random_id(6)));
        let start = std::sync::Arc::new(std::sync::Barrier::new(INSTANCES));
        let instances: Vec<_> = (0..INSTANCES)
            .map(|_| {
                let (dir, start) = (dir.clone(), start.clone());
                std::thread::spawn(move || {
                    start.wait();
                    let (secret, _) =
                        devdata::secret_file(&dir, "session_secret", Strictness::Refuse).unwrap();
                    let material =
                        keys::load_or_generate(&dir.join("admission-keys"), Strictness::Refuse)
                            .unwrap();
                    let keys = AdmissionKeys::new(&material, None, "anteroom").unwrap();
                    (secret, keys.jwks().clone())
                })
            })
            .collect();
        let seen: Vec<_> = instances.into_iter().map(|i| i.join().unwrap()).collect();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            seen.iter().all(|s| s.0 == seen[0].0),
            "instances started with different session secrets"
        );
        assert!(
            seen.iter().all(|s| s.1 == seen[0].1),
            "instances generated different admission keys"
        );
        assert_eq!(seen[0].1["keys"].as_array().unwrap().len(), 1);
    }
}

/// Every Redis key of `event` on `app`'s deployment, with its time to live in ms (-1: none).
async fn event_keys(app: &TestApp, event: &str) -> Vec<(String, i64)> {
    let mut redis = app.state.redis.clone();
    let pattern = app.state.keys.event(event, "*");
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(&pattern)
        .query_async(&mut redis)
        .await
        .unwrap();
    let mut ttls = Vec::new();
    for key in keys {
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&key)
            .query_async(&mut redis)
            .await
            .unwrap();
        ttls.push((key, ttl));
    }
    ttls
}

async fn admitted_total(app: &TestApp, event: &str) -> serde_json::Value {
    let stats: serde_json::Value = app
        .get(&format!("/api/admin/events/{event}/stats"), ADMIN_TOKEN)
        .await
        .json()
        .await
        .unwrap();
    stats["admitted_total"].clone()
}

#[tokio::test]
async fn the_line_of_a_room_turned_off_expires_once_empty_and_its_count_stays() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let mut receipts = Vec::new();
    for _ in 0..3 {
        let (_, session) = app.session().await;
        receipts.push((session.clone(), place_receipt(&app, &event, &session).await));
    }
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    // A seat changes too (its generation is a key of the event).
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (_, session) = app.session().await;
    let seats: Vec<i64> = sqlx::query_scalar("select id from seat where event_id = $1 limit 1")
        .bind(&event)
        .fetch_all(&app.state.db)
        .await
        .unwrap();
    let r = hold(&app, &event, &session, "k", hold_body(&seats)).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let forever = |keys: &[(String, i64)]| -> Vec<String> {
        keys.iter()
            .filter(|(_, ttl)| *ttl == -1)
            .map(|(k, _)| k.clone())
            .collect()
    };
    assert!(!forever(&event_keys(&app, &event).await).is_empty());

    let retired = retire::retire(&app.state, &event).await.unwrap();
    assert!(
        matches!(retired, Retired::Expiring { admissions: 3, .. }),
        "{retired:?}"
    );
    let keys = event_keys(&app, &event).await;
    assert!(
        forever(&keys).is_empty(),
        "keys without a time to live: {keys:?}"
    );
    let admission_ttl = i64::from(app.state.config.admission_ttl_seconds) * 1000;
    assert!(keys.iter().all(|(_, ttl)| *ttl <= 24 * 3600 * 1000));
    assert!(
        keys.iter()
            .any(|(k, ttl)| k.ends_with(":admitted") && *ttl <= admission_ttl),
        "{keys:?}"
    );
    // The night's count is in the archive, once, however often the line is retired.
    assert_eq!(admitted_total(&app, &event).await, 3);
    retire::retire(&app.state, &event).await.unwrap();
    assert_eq!(admitted_total(&app, &event).await, 3);
    let through: i64 =
        sqlx::query_scalar("select admitted_through from event_line where event_id = $1")
            .bind(&event)
            .fetch_one(&app.state.db)
            .await
            .unwrap();
    assert!(
        through > 0,
        "the greatest arrival admitted is kept in Postgres"
    );

    // The keys gone (their time to live over) and the room on again for another night: a
    // receipt of the old line names a place already used, and puts nobody back in line.
    lose_the_line(&app, &event).await;
    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    let (session, receipt) = &receipts[2];
    let r = poll_with_receipt(&app, &event, session, receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
}

/// Joins `event` as the buyer of `session`: the place receipt the waiting answer hands out.
async fn place_receipt(app: &TestApp, event: &str, session: &str) -> String {
    let r = join_response(app, event, session).await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let cookie = r.headers()["set-cookie"].to_str().unwrap();
    let (name, value) = cookie.split(';').next().unwrap().split_once('=').unwrap();
    assert_eq!(name, format!("anteroom_place_{event}"));
    value.to_owned()
}

#[tokio::test]
async fn a_room_turned_off_with_buyers_in_line_keeps_its_line() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, session) = app.session().await;
    assert_eq!(join(&app, &event, &session).await.0, StatusCode::ACCEPTED);
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        retire::retire(&app.state, &event).await.unwrap(),
        Retired::Busy
    );
    let keys = event_keys(&app, &event).await;
    assert!(
        keys.iter()
            .any(|(k, ttl)| k.ends_with(":queue") && *ttl == -1),
        "{keys:?}"
    );
    // Turned on again, the buyer is where they were.
    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let (status, body) = poll(&app, &event, &session).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["position"], 1);
}

/// A Postgres connection of the test's own to `app`'s database: what watches the app's pool
/// must not take a connection of it.
async fn watcher(app: &TestApp) -> sqlx::PgConnection {
    use sqlx::Connection;
    let url = app.state.config.database_url.expose();
    sqlx::PgConnection::connect(url).await.unwrap()
}

/// The number of Postgres sessions of `db`'s database waiting for a lock.
async fn waiting_on_a_lock(db: &mut sqlx::PgConnection) -> i64 {
    sqlx::query_scalar(
        "select count(*) from pg_stat_activity \
         where datname = current_database() and wait_event_type = 'Lock'",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

/// Whether a hold transaction waits for a lock (at its insert of the hold) in `db`'s database.
async fn hold_waits_on_the_lock(db: &mut sqlx::PgConnection) -> bool {
    sqlx::query_scalar(
        "select exists (select 1 from pg_stat_activity \
         where datname = current_database() and wait_event_type = 'Lock' \
           and query like 'insert into hold %')",
    )
    .fetch_one(db)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_flood_of_reads_of_unknown_events_leaves_the_hold_path_its_connections() {
    let mut config = test_config();
    config.db_pool_size = 4;
    config.db_public_connections = 1;
    config.db_acquire_timeout_ms = 1_500;
    let app = spawn_with(config).await;
    let (event, seats) = open_event(&app, 1, 2).await;
    let (_, session) = app.session().await;
    let mut watch = watcher(&app).await;
    // Postgres is slow to answer anything about events: every read of the table waits.
    let mut blocker = app.state.db.begin().await.unwrap();
    sqlx::query("lock table event in access exclusive mode")
        .execute(&mut *blocker)
        .await
        .unwrap();
    let flood: Vec<_> = (0..40)
        .map(|i| {
            let req = app
                .client
                .get(app.url(&format!("/api/events/no-such-event-{i}")));
            tokio::spawn(async move { req.send().await.map(|r| r.status()) })
        })
        .collect();
    eventually(
        "the flood waits on the lock",
        Duration::from_secs(30),
        async || waiting_on_a_lock(&mut watch).await > 0,
    )
    .await;
    // Time for the rest of the flood to queue for the public connection, which nothing shows.
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Known events are answered from memory meanwhile.
    for path in [
        "/api/events".to_owned(),
        format!("/api/events/{event}"),
        "/".to_owned(),
    ] {
        let r = app
            .client
            .get(app.url(&path))
            .timeout(Duration::from_secs(5))
            .send()
            .await
            .unwrap_or_else(|e| panic!("{path} waited on Postgres: {e}"));
        assert_eq!(r.status(), StatusCode::OK, "{path}");
    }
    // A hold asks for a connection while the flood waits: it gets one (and its own wait for
    // the lock ends when the lock goes).
    let holding = {
        let req = app
            .client
            .post(app.url(&format!("/api/events/{event}/holds")))
            .bearer_auth(&session)
            .header("idempotency-key", "k")
            .json(&hold_body(&seats[..1]));
        tokio::spawn(async move { req.send().await.unwrap().status() })
    };
    // It has a connection once its insert (its foreign key to the event) waits on the lock;
    // starved of one, it ends with 503 within the acquire timeout.
    eventually(
        "the hold has a connection",
        Duration::from_secs(30),
        async || holding.is_finished() || hold_waits_on_the_lock(&mut watch).await,
    )
    .await;
    blocker.rollback().await.unwrap();
    assert_eq!(holding.await.unwrap(), StatusCode::CREATED);
    for read in flood {
        let status = read.await.unwrap().unwrap();
        assert!(
            [StatusCode::NOT_FOUND, StatusCode::SERVICE_UNAVAILABLE].contains(&status),
            "{status}"
        );
    }
}

#[tokio::test]
async fn an_unknown_event_asked_again_at_once_is_answered_without_postgres() {
    let app = spawn_app().await;
    let rooms = &app.state.rooms;
    let missing = rooms
        .event(&app.state.db, "no-such-event")
        .await
        .unwrap_err();
    assert_eq!(missing.status_code(), StatusCode::NOT_FOUND);
    // Postgres out of reach: the same question is answered from memory.
    let unreachable = sqlx::postgres::PgPoolOptions::new()
        .acquire_timeout(Duration::from_millis(200))
        .connect_lazy("postgres://postgres@127.0.0.1:1/none")
        .unwrap();
    let again = rooms
        .event(&unreachable, "no-such-event")
        .await
        .unwrap_err();
    assert_eq!(again.status_code(), StatusCode::NOT_FOUND, "{again}");
    let other = rooms.event(&unreachable, "another-one").await.unwrap_err();
    assert_eq!(
        other.status_code(),
        StatusCode::SERVICE_UNAVAILABLE,
        "{other}"
    );
}

/// The (first) private key file in the key folder `dir`.
fn key_file(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "key"))
        .expect("a .key file")
}

/// A fresh signing key: its `.key` file's contents.
fn new_key() -> Vec<u8> {
    let scratch =
        std::env::temp_dir().join(format!("anteroom-key-{}", anteroom::ids::random_id(6)));
    keys::load_or_generate(&scratch, Strictness::Refuse).unwrap();
    let pem = std::fs::read(key_file(&scratch)).unwrap();
    std::fs::remove_dir_all(scratch).unwrap();
    pem
}

/// Puts `key` as `<kid>.key` in each of `dirs` (made private if new), as an operator copies
/// one key to every host.
fn install_key(key: &[u8], kid: &str, dirs: &[&std::path::Path]) {
    for dir in dirs {
        devdata::private_dir(dir, Strictness::Refuse).unwrap();
        devdata::create_private(&dir.join(format!("{kid}.key")), key).unwrap();
    }
}

/// The kid in the header of a JWT.
fn kid_of(token: &str) -> String {
    jsonwebtoken::decode_header(token).unwrap().kid.unwrap()
}

/// An admission token for a new buyer of `event` (room on), minted by `app`.
async fn admitted_on(app: &TestApp, event: &str) -> (String, String) {
    let (_, session) = app.session().await;
    assert_eq!(join(app, event, &session).await.0, StatusCode::ACCEPTED);
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    ticker.tick(event, &room, 0).await.unwrap();
    // So that the next call's ticker ticks at once.
    ticker.release(event).await.unwrap();
    let (status, body) = poll(app, event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted")),
        "{body}"
    );
    (
        session,
        body["admission_token"].as_str().unwrap().to_owned(),
    )
}

/// `GET path` as the buyer of `session`, with one more `header`.
async fn get_with(
    app: &TestApp,
    path: &str,
    session: &str,
    (name, value): (&str, &str),
) -> reqwest::Response {
    app.client
        .get(app.url(path))
        .bearer_auth(session)
        .header(name, value)
        .send()
        .await
        .unwrap()
}

/// What `app`'s gate says to `token` of the buyer of `session`.
async fn gate_status(app: &TestApp, event: &str, session: &str, token: &str) -> StatusCode {
    let path = format!("/api/events/{event}/admission");
    get_with(app, &path, session, ("admission-token", token))
        .await
        .status()
}

/// The kids of the JWKS at `base`.
async fn jwks_kids(base: &str) -> Vec<String> {
    served_kids(base).await.expect("the JWKS answers")
}

/// The kids of the JWKS at `base`, or `None` when nothing answers there.
async fn served_kids(base: &str) -> Option<Vec<String>> {
    let r = reqwest::get(format!("{base}/.well-known/jwks.json"))
        .await
        .ok()?;
    let jwks: serde_json::Value = r.json().await.ok()?;
    Some(
        jwks["keys"]
            .as_array()?
            .iter()
            .map(|k| k["kid"].as_str().unwrap().to_owned())
            .collect(),
    )
}

#[tokio::test]
async fn an_instance_restarted_with_a_new_key_signs_with_the_old_one_until_every_instance_has_it() {
    let mut config = test_config();
    config.admission_key_publish_seconds = 0;
    let (dir_a, dir_b) = (
        config.data_dir.join("keys-a"),
        config.data_dir.join("keys-b"),
    );
    let (old, new) = (new_key(), new_key());
    install_key(&old, "k1-old", &[&dir_a, &dir_b]);
    // B was restarted with the new key; A runs on with the old one only.
    install_key(&new, "k2-new", &[&dir_b]);
    let a = spawn_with(Config {
        admission_key_dir: Some(dir_a.clone()),
        ..config.clone()
    })
    .await;
    let b = spawn_with(Config {
        admission_key_dir: Some(dir_b.clone()),
        ..config
    })
    .await;
    let event = a.room_event(10).await;
    let (session, token) = admitted_on(&b, &event).await;
    assert_eq!(kid_of(&token), "k1-old", "A does not hold k2-new yet");
    assert_eq!(
        gate_status(&a, &event, &session, &token).await,
        StatusCode::OK
    );

    // A gets the new key too and reads its folder again (every 10 s, or on SIGHUP).
    install_key(&new, "k2-new", &[&dir_a]);
    a.state
        .keyring
        .refresh(&a.state.redis, &a.state.keys)
        .await
        .unwrap();
    assert_eq!(jwks_kids(&a.base).await, ["k1-old", "k2-new"]);
    b.state
        .keyring
        .refresh(&b.state.redis, &b.state.keys)
        .await
        .unwrap();
    let (session, token) = admitted_on(&b, &event).await;
    assert_eq!(kid_of(&token), "k2-new", "every instance holds it now");
    assert_eq!(
        gate_status(&a, &event, &session, &token).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_new_key_is_published_at_once_but_signs_only_after_the_jwks_could_be_cached() {
    let mut config = test_config();
    config.admission_key_publish_seconds = 3600;
    let dir = config.data_dir.join("keys");
    install_key(&new_key(), "k1-old", &[&dir]);
    config.admission_key_dir = Some(dir.clone());
    let app = spawn_with(config).await;
    install_key(&new_key(), "k2-new", &[&dir]);
    app.state
        .keyring
        .refresh(&app.state.redis, &app.state.keys)
        .await
        .unwrap();
    let r = reqwest::get(app.url("/.well-known/jwks.json"))
        .await
        .unwrap();
    assert_eq!(r.headers()["cache-control"], "public, max-age=300");
    assert_eq!(jwks_kids(&app.base).await, ["k1-old", "k2-new"]);
    let event = app.room_event(10).await;
    let (_, token) = admitted_on(&app, &event).await;
    assert_eq!(kid_of(&token), "k1-old", "k2-new is not an hour old");
}

#[tokio::test]
async fn sighup_makes_a_running_server_read_its_key_folder_again() {
    let app = spawn_app().await;
    let config = app.state.config.clone();
    let process = testkit::procs::Instance::serve(env!("CARGO_BIN_EXE_anteroom"), &config).await;
    let before = jwks_kids(&process.base).await;
    assert_eq!(before.len(), 1);
    // Made as the README's rotation says.
    let made = config.data_dir.join("zz-added.key");
    let openssl = std::process::Command::new("openssl")
        .args(["genpkey", "-algorithm", "ed25519", "-out"])
        .arg(&made)
        .status()
        .unwrap();
    assert!(openssl.success());
    let key = std::fs::read(&made).unwrap();
    install_key(&key, "zz-added", &[&config.data_dir.join("admission-keys")]);
    process.signal("HUP");
    // Before it reads the folder again (or if SIGHUP killed it), the key is not served.
    let kids = eventually("a second key served", Duration::from_secs(10), async || {
        served_kids(&process.base).await.filter(|k| k.len() == 2)
    })
    .await;
    assert!(kids.contains(&"zz-added".to_owned()), "{kids:?}");
}

#[tokio::test]
async fn an_admission_handed_out_while_the_room_was_off_is_no_admission_once_it_is_on() {
    let app = spawn_app().await;
    let event = app.room_event(10).await;
    let (_, session) = app.session().await;
    let receipt = place_receipt(&app, &event, &session).await;
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // With the room off, a poll admits at once, briefly.
    let (status, body) = poll(&app, &event, &session).await;
    assert_eq!(
        (status, body["status"].as_str()),
        (StatusCode::OK, Some("admitted"))
    );
    let token = body["admission_token"].as_str().unwrap().to_owned();
    let expires_at: chrono::DateTime<chrono::Utc> =
        body["expires_at"].as_str().unwrap().parse().unwrap();
    assert!(
        expires_at <= chrono::Utc::now() + chrono::Duration::seconds(60),
        "{body}"
    );

    let r = put_room(&app, &event, json!({"enabled": true})).await;
    assert_eq!(r.status(), StatusCode::OK);
    // The token does not pass the gate of the room on.
    let seats = format!("/api/events/{event}/seats");
    let r = get_with(&app, &seats, &session, ("admission-token", &token)).await;
    expect_error(r, StatusCode::FORBIDDEN, "not_admitted").await;
    // Nor does it bring the admission back, the place it used up is not in line any more,
    // and its receipt puts nobody back.
    let queue = format!("/api/events/{event}/queue");
    let r = get_with(&app, &queue, &session, ("admission-token", &token)).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let r = poll_with_receipt(&app, &event, &session, &receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let tick = Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    assert_eq!(
        tick,
        anteroom::admission::ticker::Tick::Admitted {
            count: 0,
            queue_length: 0
        },
        "nobody left in line to admit a second time"
    );
}

#[tokio::test]
async fn a_weak_session_secret_is_refused_at_start() {
    let mut config = test_config();
    config.session_secret = Some(Secret::new("change-me-too-please-it-is-long-enough"));
    let refused = Application::build(config).await.err().expect("refused");
    assert!(refused.to_string().contains("32 random bytes"), "{refused}");
}

#[tokio::test]
async fn rotating_the_admin_token_ends_the_dashboard_sessions_signed_before() {
    let config = test_config();
    let before = spawn_with(config.clone()).await;
    let cookie = dashboard_cookie(&before).await;
    let audit = |app: &TestApp| {
        app.client
            .get(app.url("/api/admin/audit"))
            .header("cookie", cookie.clone())
            .send()
    };
    assert_eq!(audit(&before).await.unwrap().status(), StatusCode::OK);
    // The same deployment restarted with a new admin token (the old one leaked).
    let rotated = "a-new-admin-token-of-more-than-thirty-two-characters";
    let after = spawn_with(Config {
        admin_token: Some(Secret::new(rotated)),
        ..config
    })
    .await;
    let r = audit(&after).await.unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    assert_eq!(
        after.sign_in(rotated).await.status(),
        StatusCode::NO_CONTENT
    );
}

#[tokio::test]
async fn the_session_secret_itself_signs_nothing() {
    let app = spawn_app().await;
    let secret = app.state.config.session_secret.clone().unwrap();
    // A session as the server once signed them: HS256 with the secret as the key.
    let now = chrono::Utc::now().timestamp();
    let claims = json!({"sub": "someone", "aud": "anteroom-session", "iat": now, "exp": now + 600});
    let forged = jsonwebtoken::encode(
        &jsonwebtoken::Header::new(jsonwebtoken::Algorithm::HS256),
        &claims,
        &jsonwebtoken::EncodingKey::from_secret(secret.expose().as_bytes()),
    )
    .unwrap();
    let r = app.get("/api/session", &forged).await;
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
    let (_, session) = app.session().await;
    assert_eq!(
        app.get("/api/session", &session).await.status(),
        StatusCode::OK
    );
}

/// What a Redis failover to a replica that had none of the line leaves of it (or the line's
/// keys once they expired): nothing.
async fn lose_the_line(app: &TestApp, event: &str) {
    for (key, _) in event_keys(app, event).await {
        let () = redis::cmd("DEL")
            .arg(&key)
            .query_async(&mut app.state.redis.clone())
            .await
            .unwrap();
    }
}

/// `GET /api/events/{event}/queue` as the buyer of `session`, with their place receipt.
async fn poll_with_receipt(
    app: &TestApp,
    event: &str,
    session: &str,
    receipt: &str,
) -> reqwest::Response {
    let path = format!("/api/events/{event}/queue");
    get_with(app, &path, session, ("place-token", receipt)).await
}

#[tokio::test]
async fn a_receipt_of_a_place_already_admitted_puts_nobody_back_after_redis_lost_the_line() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let (_, first) = app.session().await;
    let first_receipt = place_receipt(&app, &event, &first).await;
    let (_, second) = app.session().await;
    let second_receipt = place_receipt(&app, &event, &second).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    ticker.tick(&event, &room, 0).await.unwrap();
    // The first buyer was admitted; the ticker keeps the head in Postgres too.
    ticker.flush().await.unwrap();
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    lose_the_line(&app, &event).await;
    // The used place stays used ...
    let r = poll_with_receipt(&app, &event, &first, &first_receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
    // ... while a place still waiting is put back where it was.
    let r = poll_with_receipt(&app, &event, &second, &second_receipt).await;
    assert_eq!(r.status(), StatusCode::OK);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (body["position"].as_u64(), body["recovered"].as_bool()),
        (Some(1), Some(true)),
        "{body}"
    );
}

#[tokio::test]
async fn a_receipt_lives_one_night_and_only_in_the_room_it_was_given_in() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let (_, session) = app.session().await;
    let receipt = place_receipt(&app, &event, &session).await;
    // arrival.position.epoch.exp.mac
    let exp: i64 = receipt.split('.').nth(3).unwrap().parse().unwrap();
    let night = chrono::Utc::now().timestamp() + 12 * 3600;
    assert!(exp <= night, "a receipt outlives the night: {receipt}");
    for enabled in [false, true] {
        let r = put_room(&app, &event, json!({"enabled": enabled})).await;
        assert_eq!(r.status(), StatusCode::OK);
    }
    lose_the_line(&app, &event).await;
    let r = poll_with_receipt(&app, &event, &session, &receipt).await;
    expect_error(r, StatusCode::NOT_FOUND, "not_in_queue").await;
}
