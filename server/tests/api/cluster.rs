//! The Redis Cluster harness itself (`testkit::cluster`): what a scratch deployment leaves on
//! a cluster.

use testkit::cluster::{cli, shared};

use crate::helpers::{Backend, event_body, join, spawn_on};

#[tokio::test]
async fn a_scratch_deployment_on_the_cluster_leaves_no_key_on_any_master() {
    let app = spawn_on(Backend::Cluster).await;
    let prefix = app.state.keys.prefix().to_owned();
    for _ in 0..10 {
        let event = app
            .create_event(event_body(1, 1, serde_json::json!({"paused": true})))
            .await;
        let (_, session) = app.session().await;
        join(&app, event["id"].as_str().unwrap(), &session).await;
    }
    let keys_per_master = || {
        shared()
            .ports
            .iter()
            .map(|p| {
                cli(*p, &["--scan", "--pattern", &format!("{prefix}:*")])
                    .lines()
                    .count()
            })
            .collect::<Vec<_>>()
    };
    let before = keys_per_master();
    assert!(
        before.iter().filter(|n| **n > 0).count() >= 2,
        "ten events spread over the masters: {before:?}"
    );
    drop(app);
    assert_eq!(keys_per_master(), vec![0, 0, 0]);
}
