//! Rotating admission keys without a moment where one instance signs tokens that another
//! rejects. Every instance reads its key folder again every [`RELOAD_EVERY`] and on SIGHUP,
//! and publishes in Redis which keys it holds; a key signs only once every live instance has
//! published it, and it has been published for `admission_key_publish_seconds` (longer than
//! verifiers may cache the JWKS, [`keys::JWKS_MAX_AGE`]), so neither a not-yet-restarted instance
//! nor another service's cached JWKS lacks it.
//!
//! Invariants: the signer is, in this order, the configured `admission_signing_kid`; else the
//! greatest kid every live instance holds and that was first published at least the publish
//! time ago; else, of the kids every live instance holds, the one published longest (the
//! established key goes on signing while a new one waits); else this instance's greatest kid
//! (no key in common: a misconfiguration, logged). A folder that cannot be read, or holds no
//! private key, leaves the keys in use as they are. An instance is live while it published
//! within [`LIVE_FOR`]; it withdraws its entry when it stops, and the next refresh of any
//! instance removes the entry of one that died.

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{
        Arc, Mutex, RwLock,
        atomic::{AtomicI64, Ordering},
    },
    time::Duration,
};

use ::redis::AsyncCommands;
use chrono::Utc;
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::keys::{self, AdmissionKeys, KeyMaterial};
use crate::{
    base::Base,
    config::Config,
    devdata::Strictness,
    error::{Error, Result},
    ids,
    redis::{Keys, Redis},
};

/// How often an instance reads its key folder again and renews its publication.
pub const RELOAD_EVERY: Duration = Duration::from_secs(10);
/// How long an instance counts as live after its last publication: three missed reloads.
pub const LIVE_FOR: Duration = Duration::from_secs(30);

/// What one instance publishes: when, and the kids it holds.
#[derive(Serialize, Deserialize)]
struct Publication {
    at_ms: i64,
    kids: Vec<String>,
}

/// The admission keys in use, replaced as the folder and the other instances change.
pub struct KeyRing {
    /// The folder read at every reload.
    dir: PathBuf,
    strictness: Strictness,
    /// The operator's choice of signer, which overrides the rotation's.
    configured_signer: Option<String>,
    audience: String,
    /// How long every instance must have published a key before it signs.
    publish_for: Duration,
    /// This instance's name in the publication.
    instance: String,
    /// The keys last read from the folder (a reload that fails keeps them).
    material: Mutex<Vec<KeyMaterial>>,
    /// The keys in use; a std lock held only to clone the `Arc`.
    current: RwLock<Arc<AdmissionKeys>>,
    /// When the signing key was first published (unix ms; 0 before the first refresh).
    signing_since_ms: AtomicI64,
}

/// The folder of the admission keys: the configured one, else `admission-keys` in the data
/// folder.
pub fn key_dir(config: &Config) -> std::path::PathBuf {
    config
        .admission_key_dir
        .clone()
        .unwrap_or_else(|| config.data_dir.join("admission-keys"))
}

impl KeyRing {
    /// The keys of the configured folder (generated there on first run), signing with the
    /// configured kid or the greatest one until the first [`KeyRing::refresh`].
    pub fn load(config: &Config) -> std::io::Result<Self> {
        let dir = key_dir(config);
        let strictness = Strictness::for_dev(config.dev);
        // Outside `--dev` a key is never generated at start: each instance would sign with
        // its own, and the others would refuse its tokens until the rotation published it.
        let material = if config.dev {
            keys::load_or_generate(&dir, strictness)?
        } else {
            let material = keys::read_dir(&dir, strictness)?;
            if !keys::signs(&material) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    format!(
                        "no admission signing key in {}: put the deployment's key there \
                         (ANTEROOM_ADMISSION_KEY_DIR, shared by every instance) or run \
                         `anteroom secrets` once; outside --dev none is generated at start",
                        dir.display()
                    ),
                ));
            }
            material
        };
        let current = AdmissionKeys::new(
            &material,
            config.admission_signing_kid.as_deref(),
            &config.admission_audience,
        )?;
        Ok(Self {
            dir,
            strictness,
            configured_signer: config.admission_signing_kid.clone(),
            audience: config.admission_audience.clone(),
            publish_for: Duration::from_secs(config.admission_key_publish_seconds),
            instance: ids::random_id(9),
            material: Mutex::new(material),
            current: RwLock::new(Arc::new(current)),
            signing_since_ms: AtomicI64::new(0),
        })
    }

    /// How long the signing key has been published, as of `now_ms`; `None` before the first
    /// refresh.
    pub fn signing_key_age(&self, now_ms: i64) -> Option<Duration> {
        match self.signing_since_ms.load(Ordering::Relaxed) {
            0 => None,
            since => Some(Duration::from_millis((now_ms - since).max(0) as u64)),
        }
    }

    /// The keys in use now.
    pub fn current(&self) -> Arc<AdmissionKeys> {
        self.current.read().expect("not poisoned").clone()
    }

    /// Reads the folder again, publishes the kids this instance holds, and chooses the signer
    /// from what every live instance published. Returns the signing kid.
    pub async fn refresh(&self, redis: &Redis, keys: &Keys) -> Result<String> {
        self.reread();
        let material = self.material.lock().expect("not poisoned").clone();
        let now = Utc::now().timestamp_millis();
        let mine = Publication {
            at_ms: now,
            kids: material.iter().map(|k| k.kid.clone()).collect(),
        };
        let (instances, since) = (keys.jwks_instances(), keys.jwks_since());
        let mut pipe = ::redis::pipe();
        pipe.hset(
            &instances,
            &self.instance,
            serde_json::to_string(&mine).expect("plain data"),
        )
        .ignore();
        for kid in &mine.kids {
            pipe.hset_nx(&since, kid, now).ignore();
        }
        pipe.hgetall(&instances).hgetall(&since);
        let (published, first_published): (HashMap<String, String>, HashMap<String, i64>) =
            pipe.query_async(&mut redis.clone()).await?;
        let (live, gone): (Vec<_>, Vec<_>) = published
            .into_iter()
            .map(|(instance, p)| (instance, serde_json::from_str::<Publication>(&p).ok()))
            .partition(|(_, p)| {
                p.as_ref()
                    .is_some_and(|p| now - p.at_ms < LIVE_FOR.as_millis() as i64)
            });
        let live: Vec<Publication> = live.into_iter().filter_map(|(_, p)| p).collect();
        if !gone.is_empty() {
            // Instances that died without withdrawing: their entries go, so the hash holds
            // the live ones only, however often instances restart.
            let gone: Vec<String> = gone.into_iter().map(|(instance, _)| instance).collect();
            let _: i64 = redis.clone().hdel(&instances, gone).await?;
        }
        let signer = self.choose(&material, &live, &first_published, now);
        let since = first_published.get(&signer).copied().unwrap_or(now);
        self.signing_since_ms.store(since, Ordering::Relaxed);
        let mut in_use = AdmissionKeys::new(&material, Some(&signer), &self.audience)
            .map_err(|e| Error::Internal(format!("admission keys: {e}")))?;
        in_use.keep_verified(&self.current());
        let previous = std::mem::replace(
            &mut *self.current.write().expect("not poisoned"),
            Arc::new(in_use),
        );
        if previous.signing_kid() != signer {
            tracing::info!(kid = %signer, "admission tokens are now signed with a new key");
        }
        Ok(signer)
    }

    /// Replaces the material with the folder's, unless the folder cannot be read or holds no
    /// private key (a half-copied file, a mistaken deletion): then the keys in use stay.
    fn reread(&self) {
        match keys::read_dir(&self.dir, self.strictness) {
            Ok(material) if keys::signs(&material) => {
                *self.material.lock().expect("not poisoned") = material;
            }
            Ok(_) => {
                tracing::warn!(dir = %self.dir.display(), "the admission key folder holds no private key; keeping the keys in use")
            }
            Err(e) => {
                tracing::warn!(dir = %self.dir.display(), error = %e, "could not read the admission key folder; keeping the keys in use")
            }
        }
    }

    /// The signer by the rules of the module's header.
    fn choose(
        &self,
        material: &[KeyMaterial],
        live: &[Publication],
        first_published: &HashMap<String, i64>,
        now: i64,
    ) -> String {
        let private = || material.iter().filter(|k| k.pkcs8.is_some());
        if let Some(kid) = &self.configured_signer
            && private().any(|k| &k.kid == kid)
        {
            return kid.clone();
        }
        let held_by_all = |kid: &str| live.iter().all(|p| p.kids.iter().any(|k| k == kid));
        let since = |kid: &str| first_published.get(kid).copied().unwrap_or(now);
        let common: Vec<&KeyMaterial> = private().filter(|k| held_by_all(&k.kid)).collect();
        let settled = common
            .iter()
            .filter(|k| now - since(&k.kid) >= self.publish_for.as_millis() as i64)
            .map(|k| &k.kid)
            .max();
        let established = || {
            common
                .iter()
                .min_by(|a, b| since(&a.kid).cmp(&since(&b.kid)).then(b.kid.cmp(&a.kid)))
                .map(|k| &k.kid)
        };
        if let Some(kid) = settled.or_else(established) {
            return kid.clone();
        }
        let kid = private()
            .map(|k| &k.kid)
            .max()
            .expect("the material holds a private key");
        tracing::warn!(%kid, "no admission key is held by every instance; signing with this one");
        kid.clone()
    }

    /// Withdraws this instance's publication (it stops: the others need not wait for it).
    async fn withdraw(&self, redis: &Redis, keys: &Keys) -> Result<()> {
        let _: i64 = redis
            .clone()
            .hdel(keys.jwks_instances(), &self.instance)
            .await?;
        Ok(())
    }
}

/// Refreshes the key ring every [`RELOAD_EVERY`] and on SIGHUP until `shutdown`, then
/// withdraws this instance's publication.
pub async fn run(keyring: Arc<KeyRing>, base: Base, shutdown: CancellationToken) {
    let mut hangup = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()) {
        Ok(signal) => Some(signal),
        Err(e) => {
            tracing::warn!(error = %e, "no SIGHUP handler: the key folder is re-read on schedule only");
            None
        }
    };
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(RELOAD_EVERY) => {}
            Some(()) = async { match hangup.as_mut() { Some(h) => h.recv().await, None => None } } => {
                tracing::info!("SIGHUP: reading the admission key folder again");
            }
        }
        if let Err(e) = keyring.refresh(&base.redis, &base.keys).await {
            tracing::warn!(error = %e, "could not refresh the admission keys");
        }
    }
    if let Err(e) = keyring.withdraw(&base.redis, &base.keys).await {
        tracing::warn!(error = %e, "could not withdraw this instance's admission keys");
    }
}
