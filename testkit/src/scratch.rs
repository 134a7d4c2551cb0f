//! Scratch deployments for tests and benchmarks: a Postgres database, a Redis key prefix and a
//! data folder of their own, so that many run side by side on one Redis and one Postgres and
//! none sees another's data. Names carry their creation time, so that what a killed run left
//! behind is found and removed by a later one.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anteroom::{
    config::{Config, Secret},
    redis::{Keys, masters},
};
use rand::Rng;
use sqlx::{Connection, PgConnection};

/// Scratch databases older than this are a killed run's leftovers.
const STALE_AFTER: Duration = Duration::from_secs(3600);

#[derive(Clone)]
pub struct Scratch {
    kind: String,
    database: String,
    prefix: String,
    data_dir: std::path::PathBuf,
    /// The server part of `DATABASE_URL` (as configured), without the database name.
    pg_root: String,
    redis_url: String,
    /// The Redis Cluster's nodes when the deployment runs on one (then `redis_url` is unused).
    cluster_nodes: Vec<String>,
    /// One session secret for every instance of the deployment (their sessions, receipts and
    /// operators' keys are each other's).
    session_secret: String,
}

impl Scratch {
    /// New names for a scratch deployment; `kind` (letters only) groups them.
    pub fn new(kind: &str) -> Self {
        let defaults = Config::defaults();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .expect("after 1970")
            .as_secs();
        let tag: u64 = rand::thread_rng().r#gen();
        let url = defaults.database_url.expose().to_owned();
        let pg_root = url
            .rsplit_once('/')
            .map_or(url.clone(), |(root, _)| root.to_owned());
        Self {
            kind: kind.to_owned(),
            database: format!("anteroom_{kind}_{now}_{tag:x}"),
            prefix: format!("{kind}{tag:x}"),
            data_dir: std::env::temp_dir().join(format!("anteroom-{kind}-{tag:x}")),
            pg_root,
            redis_url: defaults.redis_url.expose().to_owned(),
            cluster_nodes: Vec::new(),
            session_secret: anteroom::ids::random_id(32),
        }
    }

    /// The scratch deployment that `config` (made by [`Scratch::config`]) points at.
    pub fn of(config: &Config) -> Self {
        let url = config.database_url.expose();
        let (pg_root, database) = url.rsplit_once('/').unwrap_or((url, ""));
        Self {
            kind: database.split('_').nth(1).unwrap_or("").to_owned(),
            database: database.to_owned(),
            prefix: config.redis_prefix.clone(),
            data_dir: config.data_dir.clone(),
            pg_root: pg_root.to_owned(),
            redis_url: config.redis_url.expose().to_owned(),
            cluster_nodes: config
                .redis_cluster_nodes
                .iter()
                .map(|n| n.expose().to_owned())
                .collect(),
            session_secret: config
                .session_secret
                .as_ref()
                .map(|t| t.expose().to_owned())
                .unwrap_or_default(),
        }
    }

    /// A configuration pointing at this scratch deployment, on port 0, with fixed secrets, in
    /// development mode (plain-HTTP cookies; the fake payment provider when none is set).
    pub fn config(&self) -> Config {
        let mut config = Config::defaults();
        config.dev = true;
        config.addr = "127.0.0.1:0".parse().expect("a valid address");
        config.metrics_addr = "127.0.0.1:0".parse().expect("a valid address");
        config.database_url = Secret::new(format!("{}/{}", self.pg_root, self.database));
        config.redis_url = Secret::new(self.redis_url.clone());
        config.redis_cluster_nodes = self.cluster_nodes.iter().map(Secret::new).collect();
        config.redis_prefix = self.prefix.clone();
        config.session_secret = Some(Secret::new(self.session_secret.clone()));
        config.data_dir = self.data_dir.clone();
        config.leptos_config = concat!(env!("CARGO_MANIFEST_DIR"), "/../Leptos.toml").into();
        config
    }

    pub fn database_name(&self) -> &str {
        &self.database
    }

    /// Drops the database, deletes the Redis keys and the data folder (each idempotent); then
    /// removes stale scratch databases of the same kind.
    pub async fn cleanup(&self) {
        if let Ok(mut conn) = PgConnection::connect(&format!("{}/postgres", self.pg_root)).await {
            drop_database(&mut conn, &self.database).await;
            drop_stale(&mut conn, &self.kind).await;
        }
        let masters = masters(&self.redis_url, &self.cluster_nodes)
            .await
            .unwrap_or_default();
        for master in masters {
            let _ = delete_prefix(&master, &self.prefix).await;
        }
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }

    /// [`Scratch::cleanup`] from code that cannot await, such as a `Drop` inside a runtime
    /// (which cannot block on itself): on a thread with a runtime of its own, waited for.
    pub fn cleanup_blocking(&self) {
        let scratch = self.clone();
        std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a runtime")
                .block_on(scratch.cleanup());
        })
        .join()
        .ok();
    }
}

/// Deletes every key under `prefix` on one Redis node: SCAN (a cluster node answers for its
/// own keys only, hence one call per master), then DEL one key at a time in a pipeline (keys
/// of different events live in different slots, which one DEL may not span on a cluster).
async fn delete_prefix(node_url: &str, prefix: &str) -> redis::RedisResult<()> {
    let mut conn = redis::Client::open(node_url)?
        .get_multiplexed_async_connection()
        .await?;
    let mut cursor: u64 = 0;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(Keys::new(prefix).everything())
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut conn)
            .await?;
        if !keys.is_empty() {
            let mut pipe = redis::pipe();
            for key in &keys {
                pipe.del(key).ignore();
            }
            let () = pipe.query_async(&mut conn).await?;
        }
        if next == 0 {
            return Ok(());
        }
        cursor = next;
    }
}

async fn drop_database(conn: &mut PgConnection, name: &str) {
    let _ = sqlx::query(&format!("drop database if exists \"{name}\" with (force)"))
        .execute(conn)
        .await;
}

async fn drop_stale(conn: &mut PgConnection, kind: &str) {
    let names: Vec<String> =
        sqlx::query_scalar("select datname from pg_database where datname like $1")
            .bind(format!("anteroom\\_{kind}\\_%"))
            .fetch_all(&mut *conn)
            .await
            .unwrap_or_default();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    for name in names {
        let created: Option<u64> = name.split('_').nth(2).and_then(|t| t.parse().ok());
        if created.is_some_and(|t| now.saturating_sub(t) > STALE_AFTER.as_secs()) {
            drop_database(conn, &name).await;
        }
    }
}
