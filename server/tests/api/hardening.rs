//! Hardening (issue 16): each test plays one attack against the real server and proves it
//! no longer works.

use std::time::Duration;

use anteroom::{
    admission::{
        retire::{self, Retired},
        ticker::Ticker,
    },
    config::{Config, Secret},
    devdata::{self, Strictness},
    startup::{self, Application},
    tokens::keys::{self, AdmissionKeys},
};
use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{
    ADMIN_TOKEN, TestApp, eventually, expect_error, hold, hold_body, join, join_response, poll,
    put_room, spawn_app, spawn_with, test_config,
};

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
