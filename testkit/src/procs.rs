//! What the fault tests start besides the app: a redis-server of their own (AOF on, in a folder
//! of its own, on a free port), `anteroom serve` processes (the real binary, killed with real
//! signals), and a TCP proxy in front of Postgres that can cut every connection and refuse new
//! ones.
//!
//! Invariant: each is stopped, and its files removed, when dropped.

use std::{
    io::{BufRead, BufReader},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{Arc, Mutex},
    time::Duration,
};

use anteroom::config::Config;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub async fn wait_for_port(port: u16) {
    for _ in 0..250 {
        if TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("nothing listens on {port}");
}

/// A redis-server of the test's own, appending every write to its AOF (fsync every second, as
/// production runs it).
pub struct OwnRedis {
    pub port: u16,
    /// The AOF's folder: kept across restarts, removed on drop.
    dir: PathBuf,
    /// `None` while killed.
    child: Option<Child>,
}

impl OwnRedis {
    pub async fn start() -> Self {
        let port = free_port();
        let dir =
            std::env::temp_dir().join(format!("anteroom-redis-{port}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut redis = Self {
            port,
            dir,
            child: None,
        };
        redis.restart().await;
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts (again) on the same port and folder: what the AOF kept comes back.
    pub async fn restart(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
            ])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server is installed");
        self.child = Some(child);
        wait_for_port(self.port).await;
        // Ready once the AOF is loaded: PING answers LOADING before that.
        let client = redis::Client::open(self.url()).unwrap();
        for _ in 0..250 {
            if let Ok(mut c) = client.get_multiplexed_async_connection().await
                && redis::cmd("PING")
                    .query_async::<String>(&mut c)
                    .await
                    .is_ok()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("redis on {} did not load", self.port);
    }

    /// SIGKILL: no shutdown, no last save; only what the AOF already has survives.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().ok();
            child.wait().ok();
        }
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.kill();
        std::fs::remove_dir_all(&self.dir).ok();
    }
}

/// A running `anteroom serve` process.
pub struct Instance {
    /// `http://127.0.0.1:<port>`, as the process printed it.
    pub base: String,
    child: Child,
}

impl Instance {
    /// Starts the `anteroom` binary at `binary` on `config` (every setting through its
    /// environment variable) and waits until it serves. Cargo tells only the server's own
    /// tests where it built the binary (`CARGO_BIN_EXE_anteroom`), hence the parameter.
    pub async fn serve(binary: impl AsRef<Path>, config: &Config) -> Self {
        Self::serve_with(binary, config, &[]).await
    }

    /// [`Instance::serve`] with more environment variables (e.g. `OTEL_*`).
    pub async fn serve_with(
        binary: impl AsRef<Path>,
        config: &Config,
        env: &[(&str, &str)],
    ) -> Self {
        let mut command = Command::new(binary.as_ref());
        command
            .arg("serve")
            .env("ANTEROOM_ADDR", "127.0.0.1:0")
            .env("ANTEROOM_METRICS_ADDR", "127.0.0.1:0")
            .env("DATABASE_URL", config.database_url.expose())
            .env("REDIS_URL", config.redis_url.expose())
            .env("ANTEROOM_REDIS_PREFIX", &config.redis_prefix)
            .env("ANTEROOM_DATA_DIR", &config.data_dir)
            .env("ANTEROOM_LEPTOS_CONFIG", &config.leptos_config)
            .env(
                "ANTEROOM_TICKER_LEASE_MS",
                config.ticker_lease_ms.to_string(),
            )
            .env("ANTEROOM_TICKER", config.ticker.to_string())
            .env("ANTEROOM_DEV", config.dev.to_string())
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(url) = &config.payments_url {
            command.env("ANTEROOM_PAYMENTS_URL", url);
        }
        for (name, secret) in [
            ("ANTEROOM_ADMIN_TOKEN", &config.admin_token),
            ("ANTEROOM_SESSION_SECRET", &config.session_secret),
        ] {
            if let Some(s) = secret {
                command.env(name, s.expose());
            }
        }
        command.envs(env.iter().copied());
        let mut child = command.spawn().expect("the anteroom binary starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = tokio::sync::oneshot::channel();
        // Reads stdout to its end (so the process never blocks on a full pipe) and hands over
        // the address it prints.
        std::thread::spawn(move || {
            let mut tx = Some(tx);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix("Anteroom serving on ")
                    && let Some(tx) = tx.take()
                {
                    tx.send(url.trim().to_owned()).ok();
                }
            }
        });
        let base = tokio::time::timeout(Duration::from_secs(30), rx)
            .await
            .expect("anteroom starts within 30 s")
            .expect("anteroom printed its address");
        Self { base, child }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// Sends `signal` (e.g. "KILL", "TERM") to the process.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits for the process to exit and returns whether it exited by itself with success.
    pub async fn exited_cleanly(&mut self) -> bool {
        for _ in 0..500 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.success();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("anteroom did not exit within 10 s");
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// A TCP proxy to `target`: while up it forwards; `cut()` closes every connection and refuses
/// new ones until `restore()`. It runs on a thread and runtime of its own, so it keeps
/// forwarding while the test's runtime is blocked (in the app's cleanup on drop).
pub struct Proxy {
    pub port: u16,
    /// Cancelled at a cut; a new one is put in at a restore.
    up: Arc<Mutex<CancellationToken>>,
}

impl Proxy {
    pub fn start(target: u16) -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let up = Arc::new(Mutex::new(CancellationToken::new()));
        let current = up.clone();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        std::thread::spawn(move || {
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                while let Ok((mut client, _)) = listener.accept().await {
                    let up = current.lock().unwrap().clone();
                    if up.is_cancelled() {
                        continue; // dropped: the connection is closed at once
                    }
                    tokio::spawn(async move {
                        let Ok(mut server) = TcpStream::connect(("127.0.0.1", target)).await else {
                            return;
                        };
                        tokio::select! {
                            _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                            _ = up.cancelled() => {}
                        }
                    });
                }
            })
        });
        Self { port, up }
    }

    pub fn cut(&self) {
        self.up.lock().unwrap().cancel();
    }

    pub fn restore(&self) {
        *self.up.lock().unwrap() = CancellationToken::new();
    }
}
