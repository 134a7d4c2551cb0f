//! Real Redis Clusters for the tests that opt in: `redis-server` processes in cluster mode on
//! free ports of this machine, joined with `redis-cli --cluster create`.
//!
//! Invariants: one shared 3-master cluster per test process ([`shared`]), started by the first
//! test that asks and reused by the others; a test that breaks a cluster (failover) starts its
//! own ([`Cluster::start`]) and kills it when dropped. Every cluster lives in a folder of its
//! own (configs, logs, pidfiles) with a watchdog shell that kills its nodes and removes the
//! folder as soon as the test process is gone, however it ended; folders whose watchdog was
//! killed too are cleaned by the next run. Ports are probed free (node port and bus port)
//! from a random base, so parallel test runs on this machine do not collide.

use std::{
    net::TcpListener,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::OnceLock,
    thread::sleep,
    time::{Duration, Instant},
};

use rand::Rng;

/// The cluster bus of a node listens on its port plus this.
const BUS_OFFSET: u16 = 10_000;
/// Node ports are picked in [FIRST_PORT, FIRST_PORT + PORT_SPAN).
const FIRST_PORT: u16 = 21_000;
const PORT_SPAN: u16 = 8_000;
/// Folder names start with this, then the test process id.
const DIR_PREFIX: &str = "anteroom-cluster-";

pub struct Cluster {
    dir: PathBuf,
    /// The node ports, masters first (as `--cluster create` was given them).
    pub ports: Vec<u16>,
}

/// The shared 3-master cluster (no replicas), started on first use.
pub fn shared() -> &'static Cluster {
    static SHARED: OnceLock<Cluster> = OnceLock::new();
    SHARED.get_or_init(|| Cluster::start(3, 0, 2000))
}

impl Cluster {
    /// Starts `masters` masters with `replicas` replicas each, nodes timing out after
    /// `node_timeout_ms` (the failure detection time of a failover); returns once every node
    /// reports `cluster_state:ok` and every replica is in sync with its master.
    pub fn start(masters: usize, replicas: usize, node_timeout_ms: u64) -> Self {
        remove_leftovers();
        let count = masters * (1 + replicas);
        for _attempt in 0..5 {
            let ports = free_ports(count);
            let dir = std::env::temp_dir().join(format!(
                "{DIR_PREFIX}{}-{}",
                std::process::id(),
                ports[0]
            ));
            std::fs::create_dir_all(&dir).expect("a cluster folder");
            let cluster = Self { dir, ports };
            cluster.watch();
            if cluster.launch(node_timeout_ms) {
                cluster.create(replicas);
                return cluster;
            }
            // A port was taken between the probe and the start: try other ports.
            drop(cluster);
        }
        panic!("could not start a Redis Cluster on free ports");
    }

    /// `redis://127.0.0.1:<port>` of every node: the configuration's cluster node list.
    pub fn nodes(&self) -> Vec<String> {
        self.ports
            .iter()
            .map(|p| format!("redis://127.0.0.1:{p}"))
            .collect()
    }

    fn launch(&self, node_timeout_ms: u64) -> bool {
        for port in &self.ports {
            let status = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--cluster-enabled", "yes"])
                .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
                .args(["--cluster-node-timeout", &node_timeout_ms.to_string()])
                // A replica may always take over, however long its master was silent.
                .args(["--cluster-replica-validity-factor", "0"])
                // Events on the other masters keep going while one slot range fails over.
                .args(["--cluster-require-full-coverage", "no"])
                .args(["--save", "", "--appendonly", "no"])
                .args(["--dir", self.dir.to_str().expect("a UTF-8 temp dir")])
                .args(["--daemonize", "yes"])
                .args(["--pidfile", &self.pidfile(*port).to_string_lossy()])
                .args(["--logfile", &format!("{port}.log")])
                .stdout(Stdio::null())
                .status()
                .expect("redis-server is installed");
            if !status.success() {
                return false;
            }
        }
        self.ports
            .iter()
            .all(|p| wait_until(Duration::from_secs(5), || cli(*p, &["PING"]) == "PONG"))
    }

    fn create(&self, replicas: usize) {
        let addresses: Vec<String> = self
            .ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        let out = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", &replicas.to_string(), "--cluster-yes"])
            .output()
            .expect("redis-cli is installed");
        assert!(
            out.status.success(),
            "redis-cli --cluster create: {}",
            String::from_utf8_lossy(&out.stdout)
        );
        let ready = wait_until(Duration::from_secs(20), || {
            self.ports.iter().all(|p| {
                cli(*p, &["CLUSTER", "INFO"]).contains("cluster_state:ok")
                    && (cli(*p, &["ROLE"]).starts_with("master")
                        || cli(*p, &["INFO", "replication"]).contains("master_link_status:up"))
            })
        });
        assert!(ready, "the cluster did not become ready");
    }

    /// The port of the master that owns `key`'s slot now.
    pub fn master_of(&self, key: &str) -> u16 {
        let slot: u16 = self
            .ports
            .iter()
            .find_map(|p| cli(*p, &["CLUSTER", "KEYSLOT", key]).parse().ok())
            .expect("a node that answers");
        self.ports
            .iter()
            .copied()
            .find(|p| {
                cli(*p, &["ROLE"]).starts_with("master")
                    && owns_slot(&cli(*p, &["CLUSTER", "NODES"]), slot)
            })
            .expect("a master owns every slot")
    }

    /// The port of the replica of the master on `master_port`.
    pub fn replica_of(&self, master_port: u16) -> u16 {
        let id = cli(master_port, &["CLUSTER", "MYID"]);
        let replicas = cli(master_port, &["CLUSTER", "REPLICAS", &id]);
        replicas
            .split_whitespace()
            .nth(1)
            .and_then(|address| address.split('@').next())
            .and_then(|host_port| host_port.rsplit(':').next())
            .and_then(|port| port.parse().ok())
            .expect("the master has a replica")
    }

    /// Sends `signal` (`KILL`, `STOP`, `CONT`) to the node on `port`.
    pub fn signal(&self, port: u16, signal: &str) {
        let pid = std::fs::read_to_string(self.pidfile(port)).expect("the node's pidfile");
        let status = Command::new("kill")
            .args([&format!("-{signal}"), pid.trim()])
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} {pid}");
    }

    fn pidfile(&self, port: u16) -> PathBuf {
        self.dir.join(format!("{port}.pid"))
    }

    /// A shell that waits for this test process to end, then kills the nodes and removes the
    /// folder: teardown even when the process is killed or a static is never dropped.
    fn watch(&self) {
        // Started in the background of a shell that exits at once: the watchdog belongs to
        // init, not to this process, so it outlives it (and is no zombie of ours).
        let script = format!(
            "(while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {kill}) &",
            pid = std::process::id(),
            kill = kill_script(&self.dir)
        );
        let started = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("sh runs");
        assert!(started.success(), "the cluster's watchdog started");
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new("sh")
            .args(["-c", &kill_script(&self.dir)])
            .status();
    }
}

/// Shell that kills every node whose pidfile is in `dir`, then removes `dir`.
fn kill_script(dir: &Path) -> String {
    let dir = dir.to_string_lossy();
    format!(
        "for f in '{dir}'/*.pid; do [ -f \"$f\" ] && kill -9 $(cat \"$f\") 2>/dev/null; done; rm -rf '{dir}'"
    )
}

/// Kills and removes clusters of earlier test processes that are gone (their watchdog died
/// with them, e.g. on a machine reboot of the container or a kill of the whole group).
fn remove_leftovers() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(owner) = name
            .strip_prefix(DIR_PREFIX)
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if !Path::new("/proc").join(owner).exists() {
            let _ = Command::new("sh")
                .args(["-c", &kill_script(&entry.path())])
                .status();
        }
    }
}

/// `count` consecutive ports from a random base whose node and bus ports are all free now.
fn free_ports(count: usize) -> Vec<u16> {
    let mut rng = rand::thread_rng();
    loop {
        let base = FIRST_PORT + rng.gen_range(0..PORT_SPAN - count as u16);
        let ports: Vec<u16> = (base..base + count as u16).collect();
        let free = ports
            .iter()
            .all(|p| port_free(*p) && port_free(*p + BUS_OFFSET));
        if free {
            return ports;
        }
    }
}

fn port_free(port: u16) -> bool {
    TcpListener::bind(("127.0.0.1", port)).is_ok()
}

/// `redis-cli -p <port> <args>`, trimmed; empty when the node does not answer.
pub fn cli(port: u16, args: &[&str]) -> String {
    Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn owns_slot(cluster_nodes: &str, slot: u16) -> bool {
    let Some(me) = cluster_nodes.lines().find(|l| l.contains("myself")) else {
        return false;
    };
    me.split_whitespace().skip(8).any(|range| {
        let (first, last) = range.split_once('-').unwrap_or((range, range));
        match (first.parse::<u16>(), last.parse::<u16>()) {
            (Ok(first), Ok(last)) => (first..=last).contains(&slot),
            _ => false,
        }
    })
}

/// Checks `done` every 50 ms until it holds (true) or `limit` passes (false).
pub fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        sleep(Duration::from_millis(50));
    }
    false
}
