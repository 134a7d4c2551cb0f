//! The lock with a lease that the ticker, the seat map rebuild, the expiry sweep and checkout
//! run under (`anteroom::redis::Lock`): one holder at a time, only the holder renews or
//! releases, and a lease that ended is anyone's to take. Against a single Redis and a Cluster.

use std::time::Duration;

use anteroom::redis::Lock;
use futures::future::join_all;

use crate::helpers::{Backend, TestApp, eventually, on_single_and_cluster, spawn_on};

on_single_and_cluster!(
    of_fifty_tasks_racing_for_a_free_lock_exactly_one_takes_it,
    a_release_by_another_owner_changes_nothing_and_the_holders_release_frees_the_lock,
    only_the_holder_renews_and_a_renewal_extends_its_lease,
    a_lease_that_ended_is_taken_over_and_the_old_holder_can_neither_renew_nor_release,
    hold_takes_a_free_lock_keeps_its_own_and_refuses_another_owners,
);

const LONG: Duration = Duration::from_secs(30);

/// The lock of one test: a fresh key of this app's prefix (every event's rebuild lock is one).
fn key(app: &TestApp, name: &str) -> String {
    app.state.keys.seatmap_lock(name)
}

async fn holder(app: &TestApp, lock: &Lock) -> Option<String> {
    redis::cmd("GET")
        .arg(lock.key())
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap()
}

async fn lease_left_ms(app: &TestApp, lock: &Lock) -> i64 {
    redis::cmd("PTTL")
        .arg(lock.key())
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap()
}

async fn of_fifty_tasks_racing_for_a_free_lock_exactly_one_takes_it(backend: Backend) {
    let app = spawn_on(backend).await;
    let key = key(&app, "race");
    let locks: Vec<Lock> = (0..50).map(|_| Lock::new(key.clone())).collect();
    let taken = join_all(locks.iter().map(|lock| {
        let redis = app.state.redis.clone();
        let lock = lock.clone();
        tokio::spawn(async move { lock.acquire(&redis, LONG).await.unwrap() })
    }))
    .await;
    let winners: Vec<&Lock> = locks
        .iter()
        .zip(&taken)
        .filter(|(_, taken)| *taken.as_ref().unwrap())
        .map(|(lock, _)| lock)
        .collect();
    assert_eq!(winners.len(), 1, "exactly one of 50 takes the lock");
    assert_eq!(
        holder(&app, &locks[0]).await.as_deref(),
        Some(winners[0].owner())
    );
}

async fn a_release_by_another_owner_changes_nothing_and_the_holders_release_frees_the_lock(
    backend: Backend,
) {
    let app = spawn_on(backend).await;
    let redis = &app.state.redis;
    let key = key(&app, "release");
    let holder_lock = Lock::new(key.clone());
    let other = Lock::new(key);
    assert!(holder_lock.acquire(redis, LONG).await.unwrap());

    assert!(!other.release(redis).await.unwrap());
    assert_eq!(
        holder(&app, &holder_lock).await.as_deref(),
        Some(holder_lock.owner())
    );
    assert!(!other.acquire(redis, LONG).await.unwrap(), "still held");

    assert!(holder_lock.release(redis).await.unwrap());
    assert_eq!(holder(&app, &holder_lock).await, None);
    assert!(
        !holder_lock.release(redis).await.unwrap(),
        "nothing to release twice"
    );
    assert!(other.acquire(redis, LONG).await.unwrap(), "free at once");
}

async fn only_the_holder_renews_and_a_renewal_extends_its_lease(backend: Backend) {
    let app = spawn_on(backend).await;
    let redis = &app.state.redis;
    let key = key(&app, "renew");
    let holder_lock = Lock::new(key.clone());
    let other = Lock::new(key);
    assert!(
        !holder_lock.renew(redis, LONG).await.unwrap(),
        "a free lock is not renewed"
    );
    assert_eq!(
        holder(&app, &holder_lock).await,
        None,
        "nor taken by a renewal"
    );

    assert!(
        holder_lock
            .acquire(redis, Duration::from_secs(2))
            .await
            .unwrap()
    );
    assert!(!other.renew(redis, LONG).await.unwrap());
    let left = lease_left_ms(&app, &holder_lock).await;
    assert!(
        (1..=2_000).contains(&left),
        "another owner's renewal left the lease as it was: {left} ms"
    );
    assert_eq!(
        holder(&app, &holder_lock).await.as_deref(),
        Some(holder_lock.owner())
    );

    assert!(holder_lock.renew(redis, LONG).await.unwrap());
    let left = lease_left_ms(&app, &holder_lock).await;
    assert!(
        left > 2_000 && left <= 30_000,
        "the holder's renewal extended the lease: {left} ms"
    );
}

async fn a_lease_that_ended_is_taken_over_and_the_old_holder_can_neither_renew_nor_release(
    backend: Backend,
) {
    let app = spawn_on(backend).await;
    let redis = &app.state.redis;
    let key = key(&app, "takeover");
    let old = Lock::new(key.clone());
    let new = Lock::new(key);
    assert!(
        old.acquire(redis, Duration::from_millis(100))
            .await
            .unwrap()
    );
    assert!(!new.acquire(redis, LONG).await.unwrap(), "the lease holds");

    // The old holder stalls past its lease: its key expires.
    eventually("the old lease ends", LONG, async || {
        holder(&app, &old).await.is_none()
    })
    .await;
    assert!(new.acquire(redis, LONG).await.unwrap(), "taken over");
    assert!(!old.renew(redis, LONG).await.unwrap());
    assert!(!old.release(redis).await.unwrap());
    assert!(!old.acquire(redis, LONG).await.unwrap());
    assert_eq!(holder(&app, &new).await.as_deref(), Some(new.owner()));
    assert!(
        lease_left_ms(&app, &new).await > 20_000,
        "the new lease stands"
    );
}

async fn hold_takes_a_free_lock_keeps_its_own_and_refuses_another_owners(backend: Backend) {
    let app = spawn_on(backend).await;
    let redis = &app.state.redis;
    let key = key(&app, "hold");
    let first = Lock::with_owner(key.clone(), "first".into());
    let second = Lock::with_owner(key, "second".into());
    assert!(first.hold(redis, Duration::from_secs(2)).await.unwrap());
    assert!(first.hold(redis, LONG).await.unwrap(), "kept, and renewed");
    assert!(lease_left_ms(&app, &first).await > 2_000);
    assert!(!second.hold(redis, LONG).await.unwrap());
    assert_eq!(holder(&app, &first).await.as_deref(), Some("first"));
}
