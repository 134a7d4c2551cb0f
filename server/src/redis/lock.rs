//! A lock shared by all instances: one Redis key whose value is its holder's owner token and
//! whose time to live is the holder's lease. The admission ticker, a seat map rebuild, the
//! expiry sweep and a payment each run under one.
//!
//! Invariants: at most one owner holds a lock at a time (taken only with `SET NX PX`, atomic
//! in Redis); a holder that crashes or stalls loses it when its lease ends, and then anyone
//! may take it; only the owner renews or releases (both are scripts that compare the token
//! and act in one step, so a holder whose lease ended cannot extend or delete its
//! successor's lock). A lease that ended while its holder still works is not noticed by the
//! holder: work that must not run twice checks the token in the same script that does it
//! (fencing, as the ticker's admit script does with [`Lock::key`] and [`Lock::owner`];
//! DESIGN.md 4).

use std::{
    sync::{
        Arc, LazyLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use ::redis::{RedisResult, Script};

use super::store::Redis;
use crate::ids;

/// `PEXPIRE` the lock if the token still holds it. Private to the lock, so no caller can
/// renew or release without comparing the token.
static RENEW: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("scripts/renew_lock.lua")));
/// `DEL` the lock if the token still holds it.
static RELEASE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("scripts/release_lock.lua")));

/// One lock (its key, from `Keys`) as seen by one would-be owner.
#[derive(Clone, Debug)]
pub struct Lock {
    /// The key, built by `Keys` (an event's locks carry its hash tag).
    key: String,
    /// What this owner writes into the key: tells it apart from every other owner, and tells
    /// the operator who holds the lock when it names the process.
    owner: String,
}

impl Lock {
    /// The lock at `key` under a fresh random owner token.
    pub fn new(key: String) -> Self {
        Self::with_owner(key, ids::random_id(8))
    }

    /// The lock at `key` under `owner`, a token no other would-be owner uses.
    pub fn with_owner(key: String, owner: String) -> Self {
        Self { key, owner }
    }

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// Takes the lock for `lease` if nobody holds it. True when this owner took it; false when
    /// it is held, by another owner or already by this one (use [`Lock::renew`] to keep it).
    pub async fn acquire(&self, redis: &Redis, lease: Duration) -> RedisResult<bool> {
        let taken: Option<String> = ::redis::cmd("SET")
            .arg(&self.key)
            .arg(&self.owner)
            .arg("NX")
            .arg("PX")
            .arg(lease_ms(lease))
            .query_async(&mut redis.clone())
            .await?;
        Ok(taken.is_some())
    }

    /// Extends the lease to `lease` from now if this owner still holds the lock; false (and
    /// nothing changed) otherwise.
    pub async fn renew(&self, redis: &Redis, lease: Duration) -> RedisResult<bool> {
        let renewed: i64 = RENEW
            .key(&self.key)
            .arg(&self.owner)
            .arg(lease_ms(lease))
            .invoke_async(&mut redis.clone())
            .await?;
        Ok(renewed == 1)
    }

    /// Holds the lock for the next `lease`: renews it if this owner has it, else takes it if it
    /// is free. False when another owner holds it.
    pub async fn hold(&self, redis: &Redis, lease: Duration) -> RedisResult<bool> {
        Ok(self.renew(redis, lease).await? || self.acquire(redis, lease).await?)
    }

    /// Keeps holding the lock for as long as the answer lives: renews it every third of
    /// `lease`, in a task of its own, so that long work (a draw of a hundred thousand
    /// entrants) does not lose it to a lapsed lease between its own steps. Once a renewal
    /// fails (another owner took the lock, or Redis did not answer) it stops, and
    /// [`Kept::lost`] says so; work that must not run twice still checks the token in its
    /// final script (fencing).
    pub fn keep(&self, redis: &Redis, lease: Duration) -> Kept {
        let lost = Arc::new(AtomicBool::new(false));
        let (lock, redis, flag) = (self.clone(), redis.clone(), lost.clone());
        let renewals = tokio::spawn(async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                if !matches!(lock.hold(&redis, lease).await, Ok(true)) {
                    flag.store(true, Ordering::Relaxed);
                    return;
                }
            }
        });
        Kept { lost, renewals }
    }

    /// Gives the lock up if this owner still holds it, so the next owner need not wait for the
    /// lease to end. True when it was released; false (and nothing changed) otherwise.
    pub async fn release(&self, redis: &Redis) -> RedisResult<bool> {
        let released: i64 = RELEASE
            .key(&self.key)
            .arg(&self.owner)
            .invoke_async(&mut redis.clone())
            .await?;
        Ok(released == 1)
    }
}

/// A lock being kept ([`Lock::keep`]); dropping it stops the renewals (the lease then runs out
/// unless renewed or released otherwise).
pub struct Kept {
    /// Set by the renewal task when a renewal failed.
    lost: Arc<AtomicBool>,
    renewals: tokio::task::JoinHandle<()>,
}

impl Kept {
    /// Whether the lock may have been lost since it was kept.
    pub fn lost(&self) -> bool {
        self.lost.load(Ordering::Relaxed)
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        self.renewals.abort();
    }
}

/// A lease in whole milliseconds, at least one (`PX 0` is an error in Redis).
fn lease_ms(lease: Duration) -> u64 {
    u64::try_from(lease.as_millis()).unwrap_or(u64::MAX).max(1)
}
