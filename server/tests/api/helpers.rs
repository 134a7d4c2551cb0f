//! `spawn_app()`: a real Anteroom on port 0 with its own Postgres database and its own Redis
//! key prefix, both removed when the test ends, so tests run in parallel and never see what
//! another run left behind.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anteroom::{
    config::{Config, Secret},
    startup::Application,
    state::AppState,
};
use rand::Rng;
use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub const ADMIN_TOKEN: &str = "test-admin-token";
const PG_ROOT: &str = "postgres://postgres@127.0.0.1:5432";

pub struct TestApp {
    pub base: String,
    pub client: Client,
    pub state: AppState,
    pub shutdown: CancellationToken,
    pub server: Option<JoinHandle<()>>,
    db_name: String,
    prefix: String,
}

/// The configuration of a test app: unique database and prefix, fixed secrets, generous
/// session limit (tests that check limits lower it).
pub fn test_config() -> Config {
    let mut config = Config::defaults();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let tag: u64 = rand::thread_rng().r#gen();
    config.addr = "127.0.0.1:0".parse().unwrap();
    config.database_url = Secret::new(format!("{PG_ROOT}/anteroom_t_{now}_{tag:x}"));
    config.redis_url = Secret::new("redis://127.0.0.1:6379");
    config.redis_prefix = format!("t{tag:x}");
    config.admin_token = Some(Secret::new(ADMIN_TOKEN));
    config.session_secret = Some(Secret::new("test-session-secret"));
    config.sessions_per_minute = 1_000_000;
    config.data_dir = std::env::temp_dir().join(format!("anteroom-test-{tag:x}"));
    config.leptos_config = concat!(env!("CARGO_MANIFEST_DIR"), "/../Leptos.toml").into();
    config
}

pub async fn spawn_app() -> TestApp {
    spawn_with(test_config()).await
}

pub async fn spawn_with(config: Config) -> TestApp {
    drop_stale_databases().await;
    let db_name = config
        .database_url
        .expose()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    let prefix = config.redis_prefix.clone();
    let app = Application::build(config).await.expect("the app builds");
    let base = format!("http://{}", app.local_addr());
    let state = app.state().clone();
    let shutdown = CancellationToken::new();
    let token = shutdown.clone();
    let server = tokio::spawn(async move {
        app.run(token).await.expect("the server runs");
    });
    TestApp {
        base,
        client: Client::new(),
        state,
        shutdown,
        server: Some(server),
        db_name,
        prefix,
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub fn admin(&self, req: RequestBuilder) -> RequestBuilder {
        req.bearer_auth(ADMIN_TOKEN)
    }

    /// A new buyer session: (buyer id, token).
    pub async fn session(&self) -> (String, String) {
        let r = self
            .client
            .post(self.url("/api/session"))
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        let body: Value = r.json().await.unwrap();
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

    pub async fn count(&self, sql: &str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&self.state.db)
            .await
            .unwrap()
    }
}

/// A small layout: sections A and B, `rows` x `seats` each.
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
        self.shutdown.cancel();
        if let Some(server) = self.server.take() {
            server.abort();
        }
        let db_name = self.db_name.clone();
        let prefix = self.prefix.clone();
        // Drop runs inside the test's runtime, which cannot block on itself: clean up from a
        // thread with a runtime of its own.
        std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(cleanup(&db_name, &prefix));
        })
        .join()
        .ok();
    }
}

async fn cleanup(db_name: &str, prefix: &str) {
    if let Ok(mut conn) = admin_connection().await {
        let _ = sqlx::query(&format!(
            "drop database if exists \"{db_name}\" with (force)"
        ))
        .execute(&mut conn)
        .await;
    }
    if let Ok(client) = redis::Client::open("redis://127.0.0.1:6379")
        && let Ok(mut conn) = client.get_multiplexed_async_connection().await
    {
        let keys: Vec<String> = redis::cmd("KEYS")
            .arg(format!("{prefix}:*"))
            .query_async(&mut conn)
            .await
            .unwrap_or_default();
        for chunk in keys.chunks(500) {
            let _: Result<(), _> = redis::cmd("DEL").arg(chunk).query_async(&mut conn).await;
        }
    }
}

async fn admin_connection() -> Result<sqlx::PgConnection, sqlx::Error> {
    use sqlx::Connection;
    sqlx::PgConnection::connect(&format!("{PG_ROOT}/postgres")).await
}

/// Removes databases of test runs that ended without cleaning up (killed, crashed) an hour ago
/// or more; their names carry their creation time.
async fn drop_stale_databases() {
    let Ok(mut conn) = admin_connection().await else {
        return;
    };
    let names: Vec<String> =
        sqlx::query_scalar("select datname from pg_database where datname like 'anteroom_t_%'")
            .fetch_all(&mut conn)
            .await
            .unwrap_or_default();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    for name in names {
        let created: u64 = name
            .split('_')
            .nth(2)
            .and_then(|t| t.parse().ok())
            .unwrap_or(u64::MAX);
        if now.saturating_sub(created) > Duration::from_secs(3600).as_secs() {
            let _ = sqlx::query(&format!("drop database if exists \"{name}\" with (force)"))
                .execute(&mut conn)
                .await;
        }
    }
}
