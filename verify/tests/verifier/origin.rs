//! The example origin (`examples/origin.rs`), run as the nginx end-to-end test runs it: the
//! binary `cargo test` builds beside the tests.

use std::{path::PathBuf, process::Stdio, time::Instant};

use reqwest::StatusCode;
use serde_json::Value;
use tokio::{
    io::{AsyncBufReadExt, BufReader},
    process::{Child, Command},
};

use crate::support::{AUD, JwksServer, SigningKey, claims, now};

/// The example's binary: `target/<profile>/examples/origin`, next to `deps/` where this test
/// runs from.
fn binary() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(|deps| deps.parent()).unwrap();
    let path = profile.join("examples").join("origin");
    assert!(
        path.exists(),
        "{} is missing: `cargo test -p anteroom-verify` builds it (or `cargo build -p anteroom-verify --example origin`)",
        path.display()
    );
    path
}

/// The origin started with `args` on a free port, and its base URL.
async fn start(args: &[&str]) -> (Child, String) {
    let mut child = Command::new(binary())
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .unwrap()
        .expect("the origin says where it listens");
    let base = line.strip_prefix("listening on ").unwrap().to_owned();
    (child, base)
}

#[tokio::test]
async fn the_origin_shows_the_buyer_and_event_the_gate_forwards() {
    let (_origin, base) = start(&[]).await;
    let page = reqwest::Client::new()
        .get(format!("{base}/shop/seats/A?x=1"))
        .header("Anteroom-Buyer", "b-<1>")
        .header("Anteroom-Event", "e-2026")
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap();
    assert!(html.contains("<h1>The ticketer's shop</h1>"), "{html}");
    assert!(html.contains(r#"<p id="buyer">b-&lt;1&gt;</p>"#), "{html}");
    assert!(html.contains(r#"<p id="event">e-2026</p>"#), "{html}");
    let home = reqwest::get(format!("{base}/"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(home.contains(r#"<p id="buyer"></p>"#), "{home}");
    let open: Value = reqwest::get(format!("{base}/api/whoami"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(open, Value::Null, "without --jwks /api is open");
}

#[tokio::test]
async fn the_origin_answers_health_as_slowly_as_it_was_told() {
    let (_origin, base) = start(&[]).await;
    let http = reqwest::Client::new();
    let health = || async {
        let started = Instant::now();
        let r = http.get(format!("{base}/health")).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.text().await.unwrap(), "ok");
        started.elapsed()
    };
    let slow = |ms: &'static str| http.post(format!("{base}/slow?ms={ms}")).send();
    assert!(health().await.as_millis() < 300);
    assert_eq!(slow("400").await.unwrap().status(), StatusCode::OK);
    assert!(health().await.as_millis() >= 400);
    slow("0").await.unwrap();
    assert!(health().await.as_millis() < 300);
    assert_eq!(
        slow("soon").await.unwrap().status(),
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn the_origin_protects_its_api_and_reads_handoff_tokens_with_a_jwks() {
    let key = SigningKey::ed25519("k1");
    let jwks = JwksServer::start(&[&key]).await;
    let (_origin, base) = start(&[
        "--jwks",
        &jwks.url,
        "--audience",
        AUD,
        "--audience",
        "http://shop.test",
    ])
    .await;
    let http = reqwest::Client::new();
    let refused = http.get(format!("{base}/api/whoami")).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "not_admitted");

    let admitted = http
        .get(format!("{base}/api/whoami"))
        .bearer_auth(key.sign(&claims()))
        .send()
        .await
        .unwrap();
    assert_eq!(admitted.status(), StatusCode::OK);
    let body: Value = admitted.json().await.unwrap();
    assert_eq!(body["sub"], "buyer-1");

    let mut handoff = claims();
    handoff["aud"] = "http://shop.test".into();
    handoff["until"] = (now() + 600).into();
    let page = http
        .get(format!(
            "{base}/shop/?anteroom_token={}",
            key.sign(&handoff)
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(r#"<p id="handoff">admitted buyer-1 to e-2026</p>"#),
        "{page}"
    );
    let page = http
        .get(format!("{base}/?anteroom_token=forged"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains(r#"<p id="handoff">refused: "#), "{page}");
}
