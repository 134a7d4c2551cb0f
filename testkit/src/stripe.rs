//! A real Stripe-compatible server for tests: `localstripe` (PyPI, installed by
//! `scripts/setup.sh` in `target/localstripe-venv`), a stateful server of Stripe's API with its
//! own Stripe.js stand-in, on a free loopback port. Invariants: each [`TestStripe`] is a
//! process of its own (its objects and webhooks are nobody else's), started from scratch, and
//! killed when dropped.

use std::{
    path::PathBuf,
    process::{Child, Command, Stdio},
    time::Duration,
};

use crate::procs::free_port;

/// The secret API key Anteroom is given (localstripe takes any `sk_test_` key).
pub const SECRET_KEY: &str = "sk_test_anteroom";
/// The key a page's Stripe.js is given.
pub const PUBLISHABLE_KEY: &str = "pk_test_anteroom";
/// The webhook endpoint's signing secret.
pub const WEBHOOK_SECRET: &str = "whsec_anteroom_test";

pub struct TestStripe {
    /// `http://127.0.0.1:<port>`: the API's base and, under `/js.stripe.com/v3/`, Stripe.js.
    pub url: String,
    child: Child,
}

/// localstripe's program: `ANTEROOM_LOCALSTRIPE`, else the one `scripts/setup.sh` installs.
fn program() -> PathBuf {
    std::env::var_os("ANTEROOM_LOCALSTRIPE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../target/localstripe-venv/bin/localstripe")
        })
}

impl TestStripe {
    /// A new localstripe; returns once it answers.
    pub async fn start() -> Self {
        let port = free_port();
        let child = Command::new(program())
            .arg("--port")
            .arg(port.to_string())
            .arg("--from-scratch")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("localstripe runs (scripts/setup.sh --browser installs it)");
        let url = format!("http://127.0.0.1:{port}");
        let mut stripe = Self { url, child };
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return stripe;
            }
            if let Ok(Some(status)) = stripe.child.try_wait() {
                panic!("localstripe stopped at its start: {status}");
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("localstripe did not listen on {port} within 15 s");
    }
}

impl Drop for TestStripe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
