//! A real OpenID provider for tests (`oidc-provider` from the npm registry, run by Node from
//! `end2end/oidc/provider.mjs`) on a free loopback port, with Anteroom as its confidential
//! client. Invariants: the process is killed when dropped, and its file of group changes
//! ([`TestProvider::set_groups`]) removed.

use std::{
    io::{BufRead, BufReader},
    path::PathBuf,
    process::{Child, Command, Stdio},
};

use crate::procs::free_port;

/// The client Anteroom is at the test provider.
pub const CLIENT_ID: &str = "anteroom";
pub const CLIENT_SECRET: &str = "anteroom-test-secret";

pub struct TestProvider {
    pub issuer: String,
    pub port: u16,
    child: Child,
    /// The accounts whose groups a test changed (JSON, read at every sign-in).
    groups: PathBuf,
}

impl TestProvider {
    /// A provider at a port chosen now, not started: its issuer goes into Anteroom's
    /// configuration before Anteroom starts (it discovers the provider only at a sign-in),
    /// and Anteroom's address into the provider's ([`TestProvider::start_on`]).
    pub fn reserve() -> u16 {
        free_port()
    }

    /// The provider on `port`, sending buyers back to `redirect_uris`; returns once it listens.
    pub fn start_on(port: u16, redirect_uris: &[String]) -> Self {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../end2end");
        let groups = std::env::temp_dir().join(format!("anteroom-oidc-groups-{port}.json"));
        let _ = std::fs::remove_file(&groups);
        let mut child = Command::new("node")
            .env("ANTEROOM_TEST_GROUPS", &groups)
            .arg("oidc/provider.mjs")
            .arg(port.to_string())
            .arg(redirect_uris.join(","))
            .current_dir(&dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node runs (scripts/setup.sh installs end2end's npm packages)");
        let stdout = child.stdout.take().expect("piped");
        let mut stdout = BufReader::new(stdout);
        let mut line = String::new();
        stdout
            .read_line(&mut line)
            .expect("the provider says it is ready");
        // The provider writes a line now and then; a closed pipe would kill it (EPIPE).
        std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
        assert!(
            line.starts_with("ready "),
            "the OpenID provider did not start: {line:?} (is oidc-provider installed in end2end/?)"
        );
        Self {
            issuer: format!("http://127.0.0.1:{port}"),
            port,
            child,
            groups,
        }
    }

    /// From now on, account `login` is in `groups` (a person moved in or out of a group at
    /// the company: the next sign-in's claims say so).
    pub fn set_groups(&self, login: &str, groups: &[&str]) {
        let mut all: serde_json::Map<String, serde_json::Value> = std::fs::read(&self.groups)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default();
        all.insert(login.to_owned(), serde_json::json!(groups));
        std::fs::write(&self.groups, serde_json::to_vec(&all).unwrap()).unwrap();
    }
}

impl Drop for TestProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.groups);
    }
}
