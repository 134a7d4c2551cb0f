//! The one Redis handle every part of Anteroom talks through: a single Redis (one URL) or a
//! Redis Cluster (a list of nodes), behind the same `redis::aio::ConnectionLike`, so every call
//! site (commands, pipelines, scripts) is the same code for both.
//!
//! Invariants: every multi-key command, pipeline and script names keys of one hash slot only
//! (the event's `{E}` tag, see `keys.rs`), so on a cluster each runs on the one node that owns
//! the event and never fails with CROSSSLOT; a call waits at most the configured connection
//! and response timeouts (`ANTEROOM_REDIS_*_TIMEOUT_MS`; plus the cluster client's few short
//! retries while a failover moves a slot), never indefinitely. Scripts are sent by SHA; a node that lacks one (a promoted replica)
//! answers NOSCRIPT and `redis::Script` loads it on every master before retrying.

use std::time::Duration;

use ::redis::{
    Cmd, Pipeline, RedisFuture, RedisResult, Value,
    aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig},
    cluster::ClusterClientBuilder,
    cluster_async::ClusterConnection,
};

use tracing::Instrument;

use crate::config::Config;

/// Retries of the cluster client after MOVED, TRYAGAIN or a lost node: enough to follow a slot
/// to its new owner, few enough (and short enough, 50-500 ms apart) that a buyer waiting on a
/// failover gets an answer (503 and Retry-After) within seconds, not minutes.
const CLUSTER_RETRIES: u32 = 3;
const CLUSTER_MIN_RETRY_WAIT_MS: u64 = 50;
const CLUSTER_MAX_RETRY_WAIT_MS: u64 = 500;

/// A Redis or a Redis Cluster; cheap to clone (both variants are handles on shared
/// multiplexed connections that reconnect by themselves).
#[derive(Clone)]
pub enum Redis {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
}

impl Redis {
    /// Connects as `config` says: to the cluster of `redis_cluster_nodes` when there are any,
    /// else to `redis_url`.
    pub async fn connect(config: &Config) -> RedisResult<Self> {
        let connection_timeout = Duration::from_millis(config.redis_connect_timeout_ms);
        let response_timeout = Duration::from_millis(config.redis_response_timeout_ms);
        if config.redis_cluster_nodes.is_empty() {
            let manager = ::redis::Client::open(config.redis_url.expose())?
                .get_connection_manager_with_config(
                    ConnectionManagerConfig::new()
                        .set_connection_timeout(connection_timeout)
                        .set_response_timeout(response_timeout)
                        // No retries inside a request: while Redis is down each call makes
                        // one connection attempt and fails fast (503), and the first call
                        // after Redis is back reconnects.
                        .set_number_of_retries(0),
                )
                .await?;
            return Ok(Self::Single(manager));
        }
        let nodes = config.redis_cluster_nodes.iter().map(|n| n.expose());
        let cluster = ClusterClientBuilder::new(nodes)
            .connection_timeout(connection_timeout)
            .response_timeout(response_timeout)
            .retries(CLUSTER_RETRIES)
            .min_retry_wait(CLUSTER_MIN_RETRY_WAIT_MS)
            .max_retry_wait(CLUSTER_MAX_RETRY_WAIT_MS)
            .build()?
            .get_async_connection()
            .await?;
        Ok(Self::Cluster(cluster))
    }
}

/// With traces on, every command and pipeline is a span of its own (`telemetry`): its
/// command's name, and a script's first key (which names its event). Off, the span is a
/// disabled callsite's check and the call is not wrapped.
impl ConnectionLike for Redis {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        let call = match self {
            Self::Single(c) => c.req_packed_command(cmd),
            Self::Cluster(c) => c.req_packed_command(cmd),
        };
        let span = tracing::debug_span!(
            target: "anteroom::trace",
            "redis",
            otel.name = %format_args!("redis {}", arg(cmd, 0)),
            otel.kind = "client",
            db.system = "redis",
            db.key = %first_key(cmd),
        );
        if span.is_disabled() {
            return call;
        }
        Box::pin(call.instrument(span))
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        let call = match self {
            Self::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Self::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        };
        let span = tracing::debug_span!(
            target: "anteroom::trace",
            "redis",
            otel.name = "redis pipeline",
            otel.kind = "client",
            db.system = "redis",
            db.commands = pipeline.cmd_iter().count(),
        );
        if span.is_disabled() {
            return call;
        }
        Box::pin(call.instrument(span))
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(c) => c.get_db(),
            Self::Cluster(c) => c.get_db(),
        }
    }
}

/// The `n`th argument of `cmd` as text (empty when it has none, or not text).
fn arg(cmd: &Cmd, n: usize) -> &str {
    match cmd.args_iter().nth(n) {
        Some(::redis::Arg::Simple(bytes)) => std::str::from_utf8(bytes).unwrap_or(""),
        _ => "",
    }
}

/// The first key of a script's call (EVALSHA sha numkeys key...), or of a plain command.
fn first_key(cmd: &Cmd) -> &str {
    let key = match arg(cmd, 0) {
        "EVALSHA" | "EVAL" | "evalsha" | "eval" => arg(cmd, 3),
        _ => arg(cmd, 1),
    };
    // A move code moves a place to whoever types it: its key goes to traces without it.
    match key.find(MOVE_KEY) {
        Some(at) => &key[..at + MOVE_KEY.len()],
        None => key,
    }
}

/// What names a move code's key (`Keys::move_code`): the code follows it.
const MOVE_KEY: &str = "}:move:";

/// The URLs of the masters that hold the data of a deployment: `redis_url` alone, or every
/// master of the cluster as the first reachable node of `cluster_nodes` sees it (for work that
/// must visit every key, such as deleting a prefix: SCAN runs per node on a cluster).
pub async fn masters(redis_url: &str, cluster_nodes: &[String]) -> RedisResult<Vec<String>> {
    if cluster_nodes.is_empty() {
        return Ok(vec![redis_url.to_owned()]);
    }
    let mut last_error = None;
    for node in cluster_nodes {
        let answer: RedisResult<String> = async {
            let mut conn = ::redis::Client::open(node.as_str())?
                .get_multiplexed_async_connection()
                .await?;
            ::redis::cmd("CLUSTER")
                .arg("NODES")
                .query_async(&mut conn)
                .await
        }
        .await;
        match answer {
            Ok(nodes) => return Ok(masters_of(&nodes)),
            Err(e) => last_error = Some(e),
        }
    }
    Err(last_error.expect("at least one node was tried"))
}

/// The `redis://host:port` of each healthy master in a `CLUSTER NODES` answer (lines of
/// `<id> <host:port@bus-port> <flags,...> ...`).
fn masters_of(cluster_nodes: &str) -> Vec<String> {
    cluster_nodes
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let address = fields.nth(1)?;
            let flags: Vec<&str> = fields.next()?.split(',').collect();
            let healthy = flags.contains(&"master") && !flags.iter().any(|f| f.starts_with("fail"));
            let host_port = address.split('@').next()?;
            healthy.then(|| format!("redis://{host_port}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_codes_key_reaches_traces_without_its_code() {
        let keys = crate::redis::keys::Keys::new("ar");
        let code_key = keys.move_code("ev1", "K7Q2-M9XP");
        let get = ::redis::cmd("GET").arg(&code_key).clone();
        assert_eq!(first_key(&get), "ar:{ev1}:move:");
        let script = ::redis::cmd("EVALSHA")
            .arg("sha")
            .arg(1)
            .arg(&code_key)
            .clone();
        assert!(!first_key(&script).contains("K7Q2"));
        let queue = ::redis::cmd("ZCARD").arg(keys.queue("ev1")).clone();
        assert_eq!(first_key(&queue), keys.queue("ev1"));
    }

    #[test]
    fn the_healthy_masters_are_read_from_cluster_nodes() {
        let nodes = "\
a1 127.0.0.1:7001@17001 myself,master - 0 0 1 connected 0-5460
b2 127.0.0.1:7002@17002 master - 0 0 2 connected 5461-10922
c3 127.0.0.1:7003@17003 master,fail - 0 0 3 connected
d4 127.0.0.1:7004@17004 slave a1 0 0 1 connected
e5 127.0.0.1:7005@17005 master - 0 0 4 connected 10923-16383
";
        assert_eq!(
            masters_of(nodes),
            vec![
                "redis://127.0.0.1:7001",
                "redis://127.0.0.1:7002",
                "redis://127.0.0.1:7005"
            ]
        );
    }
}
