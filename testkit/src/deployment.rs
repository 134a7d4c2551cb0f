//! Anteroom started in this process: the one way the tests, the benchmark and the simulator
//! start it. A [`Server`] is one instance on port 0; a [`Deployment`] is several instances on
//! one fresh scratch deployment (one database, one Redis prefix), as a load balancer would see
//! several hosts.
//!
//! Invariants: a [`Server`] never outlives its owner (dropping it aborts its task); a
//! [`Deployment`] owns its scratch deployment, and [`Deployment::stop`] stops every instance
//! before it removes the database and the keys, so nothing outlives the run.

use anteroom::{config::Config, startup::Application, state::AppState};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::scratch::Scratch;

/// One Anteroom server running on a task of the caller's runtime.
pub struct Server {
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// `http://127.0.0.1:<port>` of the metrics address (`/metrics` is not on `base`).
    pub metrics_base: String,
    /// The instance's state: its Redis connection, key names, database pool and settings, for
    /// callers that look behind the API.
    pub state: AppState,
    /// Cancel it to stop the server the way SIGTERM does: it stops accepting, drains the
    /// requests in flight and releases its ticker locks.
    pub shutdown: CancellationToken,
    /// The serving task; `None` once a caller took it to watch the server end.
    pub task: Option<JoinHandle<()>>,
}

impl Server {
    /// Builds Anteroom on `config` (migrating its database) and serves it on a new task.
    pub async fn start(config: Config) -> Self {
        let app = Application::build(config).await.expect("anteroom builds");
        let base = format!("http://{}", app.local_addr());
        let metrics_base = format!("http://{}", app.metrics_addr());
        let state = app.state().clone();
        let shutdown = CancellationToken::new();
        let token = shutdown.clone();
        let task = tokio::spawn(async move {
            app.run(token).await.expect("anteroom serves");
        });
        Self {
            base,
            metrics_base,
            state,
            shutdown,
            task: Some(task),
        }
    }

    /// The URL of `path` ("/api/session") on this server.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Stops the server at once, in-flight requests and all.
    pub fn abort(&mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }

    /// Stops the server gracefully and waits until it has drained.
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.abort();
    }
}

/// Several servers on one scratch deployment of their own.
pub struct Deployment {
    /// The instances, in the order they started (the first created and migrated the database).
    pub servers: Vec<Server>,
    scratch: Scratch,
    /// An API key with every scope on every event.
    admin_key: String,
}

impl Deployment {
    /// Starts `instances` (at least one) servers on a fresh scratch deployment of `kind`, each
    /// on the configuration `tune` makes of the scratch one.
    pub async fn start(kind: &str, instances: usize, tune: impl Fn(&mut Config)) -> Self {
        let scratch = Scratch::new(kind);
        let mut servers = Vec::new();
        // One after the other: the first one creates and migrates the database.
        let mut first = None;
        for _ in 0..instances.max(1) {
            let mut config = scratch.config();
            tune(&mut config);
            servers.push(Server::start(config.clone()).await);
            first.get_or_insert(config);
        }
        let admin_key = crate::operators::admin_key(&first.expect("one instance at least")).await;
        Self {
            servers,
            scratch,
            admin_key,
        }
    }

    /// Base URLs, one per instance.
    pub fn bases(&self) -> Vec<String> {
        self.servers.iter().map(|s| s.base.clone()).collect()
    }

    /// The first instance's state.
    pub fn state(&self) -> &AppState {
        &self.servers[0].state
    }

    /// An API key with every scope on every event.
    pub fn admin_key(&self) -> &str {
        &self.admin_key
    }

    pub fn database_name(&self) -> &str {
        self.scratch.database_name()
    }

    /// Stops every instance (draining requests, releasing ticker locks), then removes the
    /// database, the Redis keys and the data folder.
    pub async fn stop(self) {
        let Self {
            servers, scratch, ..
        } = self;
        // All at once first: the drains run side by side.
        for server in &servers {
            server.shutdown.cancel();
        }
        for server in servers {
            server.stop().await;
        }
        scratch.cleanup().await;
    }
}
