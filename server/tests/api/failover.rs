//! A Redis Cluster failover in the middle of an on-sale: the master that holds the event's slot
//! is killed after taking joins and an admission tick that its replica never received (Redis
//! replicates asynchronously: this is what a failover loses), the replica is promoted, and the
//! line continues. The buyers the lost writes concerned bring their proofs (place receipt,
//! admission token) and get their places back, told so; nobody is moved back silently.

use std::time::{Duration, Instant};

use anteroom::admission::ticker::{Tick, Ticker};
use reqwest::{Method, StatusCode};
use serde_json::Value;

use testkit::cluster::{Cluster, cli, wait_until};

use crate::helpers::{
    TestApp, eventually_every, test_config_on_cluster, two_instances_and_an_event,
};

/// A buyer as a client that keeps what the line hands out: the place receipt of the last
/// waiting answer and the admission token.
struct Buyer {
    session: String,
    receipt: Option<String>,
    admission: Option<String>,
}

impl Buyer {
    async fn new(app: &TestApp) -> Self {
        let (_, session) = app.session().await;
        Self {
            session,
            receipt: None,
            admission: None,
        }
    }

    async fn join(&mut self, app: &TestApp, event: &str) -> (StatusCode, Value) {
        self.queue(app, Method::POST, event, true).await
    }

    async fn poll(&mut self, app: &TestApp, event: &str) -> (StatusCode, Value) {
        self.queue(app, Method::GET, event, true).await
    }

    /// A poll from a client that keeps nothing (no cookies, no headers but the session).
    async fn poll_bare(&self, app: &TestApp, event: &str) -> (StatusCode, Value) {
        let r = app
            .client
            .get(app.url(&format!("/api/events/{event}/queue")))
            .bearer_auth(&self.session)
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    async fn queue(
        &mut self,
        app: &TestApp,
        method: Method,
        event: &str,
        with_proof: bool,
    ) -> (StatusCode, Value) {
        let mut req = app
            .client
            .request(method, app.url(&format!("/api/events/{event}/queue")))
            .bearer_auth(&self.session);
        if with_proof {
            if let Some(receipt) = &self.receipt {
                req = req.header("place-token", receipt);
            }
            if let Some(token) = &self.admission {
                req = req.header("admission-token", token);
            }
        }
        let Ok(r) = req.send().await else {
            return (StatusCode::BAD_GATEWAY, Value::Null);
        };
        let status = r.status();
        let place_cookie = format!("anteroom_place_{event}=");
        if let Some(receipt) = r
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(|c| c.strip_prefix(&place_cookie))
        {
            self.receipt = Some(receipt.split(';').next().unwrap().to_owned());
        }
        let body: Value = r.json().await.unwrap_or(Value::Null);
        if let Some(token) = body["admission_token"].as_str() {
            self.admission = Some(token.to_owned());
        }
        (status, body)
    }
}

async fn buyers(app: &TestApp, n: usize) -> Vec<Buyer> {
    let mut all = Vec::new();
    for _ in 0..n {
        all.push(Buyer::new(app).await);
    }
    all
}

/// Joins `buyers` in order; asserts they are at `first`, `first + 1`, ...
async fn join_in_order(app: &TestApp, event: &str, buyers: &mut [Buyer], first: u64) {
    for (i, b) in buyers.iter_mut().enumerate() {
        let (status, body) = b.join(app, event).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        assert_eq!(body["position"], first + i as u64);
    }
}

async fn poll_all(app: &TestApp, event: &str, buyers: &mut [Buyer]) -> Vec<Value> {
    let mut answers = Vec::new();
    for b in buyers.iter_mut() {
        let (status, body) = b.poll(app, event).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        answers.push(body);
    }
    answers
}

fn replication_offset(port: u16, field: &str) -> Option<u64> {
    cli(port, &["INFO", "replication"])
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().parse().ok())
}

#[tokio::test]
async fn after_a_failover_the_line_continues_and_buyers_whose_writes_were_lost_are_put_back_and_told()
 {
    let cluster = tokio::task::spawn_blocking(|| Cluster::start(3, 1, 1000))
        .await
        .unwrap();
    let (a, b, event) = two_instances_and_an_event(test_config_on_cluster(&cluster)).await;
    let room = a.state.rooms.get(&a.state.db, &event).await.unwrap();
    let ticker = Ticker::new(a.state.line.clone());
    let queue_key = a.state.keys.queue(&event);
    let master = cluster.master_of(&queue_key);
    let replica = cluster.replica_of(master);

    // Safe writes: 30 join, a tick admits the first 10, who poll and get their tokens; the
    // replica has all of it.
    let mut line = buyers(&a, 40).await;
    // Sessions of the buyers who arrive during the failover, made now (session creation
    // counts against a rate limit in Redis, which will be failing over).
    let mut spare = buyers(&a, 5).await;
    join_in_order(&a, &event, &mut line[..30], 1).await;
    assert!(matches!(
        ticker.tick(&event, &room, 0).await.unwrap(),
        Tick::Admitted { count: 10, .. }
    ));
    for answer in poll_all(&b, &event, &mut line[..10]).await {
        assert_eq!(answer["status"], "admitted");
    }
    assert!(wait_until(Duration::from_secs(5), || {
        replication_offset(master, "master_repl_offset")
            == replication_offset(replica, "slave_repl_offset")
    }));

    // The writes the failover will lose: the replica stops receiving (frozen, its link cut),
    // then 10 more buyers join (places 31-40, positions 21-30) and a tick admits places 11-20, who poll and
    // get tokens. Every one of these buyers was answered.
    cluster.signal(replica, "STOP");
    assert_eq!(cli(master, &["CLIENT", "KILL", "TYPE", "replica"]), "1");
    join_in_order(&b, &event, &mut line[30..], 21).await;
    assert!(matches!(
        ticker.tick(&event, &room, 1).await.unwrap(),
        Tick::Admitted { count: 10, .. }
    ));
    for answer in poll_all(&a, &event, &mut line[10..20]).await {
        assert_eq!(answer["status"], "admitted");
    }
    let told: Vec<u64> = poll_all(&a, &event, &mut line[20..30])
        .await
        .iter()
        .map(|w| w["position"].as_u64().unwrap())
        .collect();
    assert_eq!(told, (1..=10).collect::<Vec<_>>());

    // The master dies; its replica, which lacks all of the above, wakes up and takes over
    // while new buyers keep arriving and the ticker keeps ticking.
    cluster.signal(master, "KILL");
    let killed = Instant::now();
    cluster.signal(replica, "CONT");
    let mut newcomers: Vec<Buyer> = Vec::new();
    let mut refused = Vec::new();
    let mut tick_errors = 0;
    let a_join = async || {
        let mut newcomer = spare.pop().expect("enough spare sessions");
        let (status, _) = newcomer.join(&b, &event).await;
        if status == StatusCode::ACCEPTED {
            newcomers.push(newcomer);
            return Some(killed.elapsed());
        }
        refused.push(status);
        spare.push(newcomer);
        // The ticker keeps ticking; within the node timeout (1 s) no failover can have
        // happened yet, so these ticks surely fail (later ones might re-admit the lost
        // admissions first, which the checks below do not expect).
        if killed.elapsed() < Duration::from_millis(800) {
            assert!(ticker.tick(&event, &room, 2).await.is_err());
            tick_errors += 1;
        }
        None
    };
    let every = Duration::from_millis(100);
    let back = eventually_every(
        "the line comes back",
        Duration::from_secs(30),
        every,
        a_join,
    )
    .await;
    let promoted = cluster.master_of(&queue_key);
    assert_eq!(promoted, replica, "the replica took over the event's slot");
    for _ in 0..4 {
        let mut newcomer = spare.pop().unwrap();
        let (status, _) = newcomer.join(&a, &event).await;
        assert_eq!(status, StatusCode::ACCEPTED);
        newcomers.push(newcomer);
    }
    eprintln!(
        "failover: the line answered joins again {back:?} after the kill; meanwhile joins \
         answered {refused:?} and {tick_errors} ticks failed"
    );
    assert!(
        refused
            .iter()
            .all(|s| *s == StatusCode::SERVICE_UNAVAILABLE),
        "while the slot has no master, buyers get 503 (and Retry-After): {refused:?}"
    );

    // What the promoted replica lost: the joins of places 31-40 and the admissions of
    // places 11-20 (they are back in line, ahead of everyone).
    let lost_joins: u64 = redis::cmd("ZCARD")
        .arg(&queue_key)
        .query_async(&mut a.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(
        lost_joins,
        20 + 5,
        "places 11-30 and the 5 newcomers; 31-40 lost"
    );

    // A client that kept nothing and whose join was lost hears so plainly: not in line.
    let (status, body) = line[35].poll_bare(&a, &event).await;
    assert_eq!(
        (status, body["error"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_in_queue"))
    );

    // Places 21-30 were told 1-10; the 10 lost admissions are ahead of them again: their
    // positions went back, and the answer says so.
    for (i, answer) in poll_all(&b, &event, &mut line[20..30])
        .await
        .iter()
        .enumerate()
    {
        assert_eq!(answer["position"], 11 + i as u64);
        assert_eq!(answer["recovered"], true, "{answer}");
    }
    // Places 11-20 bring their admission tokens: admitted again, told it was recovered.
    for answer in poll_all(&a, &event, &mut line[10..20]).await {
        assert_eq!(answer["status"], "admitted", "{answer}");
        assert_eq!(answer["recovered"], true);
    }
    // Places 21-30 are back at 1-10, which is no news.
    for (i, answer) in poll_all(&a, &event, &mut line[20..30])
        .await
        .iter()
        .enumerate()
    {
        assert_eq!(answer["position"], 1 + i as u64);
        assert!(answer.get("recovered").is_none(), "{answer}");
    }
    // Places 31-40 bring their receipts: put back where they were, ahead of the newcomers
    // who joined after the failover, and told.
    for (i, answer) in poll_all(&b, &event, &mut line[30..])
        .await
        .iter()
        .enumerate()
    {
        assert_eq!(answer["position"], 11 + i as u64, "{answer}");
        assert_eq!(answer["recovered"], true);
    }
    for (i, answer) in poll_all(&a, &event, &mut newcomers)
        .await
        .iter()
        .enumerate()
    {
        // Joined at 21-25 behind the 10 lost admissions; now the lost places 31-40 stand where
        // those were: the same positions, so nothing to tell.
        assert_eq!(answer["position"], 21 + i as u64, "{answer}");
        assert!(answer.get("recovered").is_none(), "{answer}");
    }

    // The line continues in arrival order: places 21-30, then 31-40, then the newcomers.
    for (round, first) in [(3, 20), (4, 30)] {
        let admitted = &mut line[first..first + 10];
        assert!(matches!(
            ticker.tick(&event, &room, round).await.unwrap(),
            Tick::Admitted { count: 10, .. }
        ));
        for answer in poll_all(&b, &event, admitted).await {
            assert_eq!(answer["status"], "admitted", "{answer}");
        }
        assert_eq!(
            newcomers[0].poll(&a, &event).await.1["status"],
            "waiting",
            "no newcomer before an earlier arrival"
        );
    }
    assert!(matches!(
        ticker.tick(&event, &room, 5).await.unwrap(),
        Tick::Admitted {
            count: 5,
            queue_length: 0
        }
    ));
    for answer in poll_all(&b, &event, &mut newcomers).await {
        assert_eq!(answer["status"], "admitted");
    }
    drop((a, b));
    drop(cluster);
}
