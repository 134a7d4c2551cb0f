//! The wakes of resting rooms (`admission::rest`): every waiting answer of the line wakes its
//! event's tickers, this instance's at once and the others' through the deployment's wake
//! channel (Redis Pub/Sub, `Keys::wake_channel`).
//!
//! Invariants: one instance publishes at most one wake per event every [`PUBLISH_EVERY`]; the
//! events remembered (for that, and woken since the ticker last looked) are at most
//! [`MAX_EVENTS`]; [`Wakes::listening`] is true only while subscribed, so that a ticker lets
//! rooms rest only while it hears the others.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use futures_util::StreamExt;

use crate::{
    config::Config,
    redis::{Keys, Redis},
};

/// How often one instance publishes a wake for one event at most.
pub const PUBLISH_EVERY: Duration = Duration::from_secs(2);
/// How long after losing the wake channel the listener tries again.
const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// The wakes of this instance: what its answers saw, and what the channel brought.
pub struct Wakes {
    channel: String,
    redis: Redis,
    /// When this instance last published a wake, by event.
    published: Mutex<HashMap<String, Instant>>,
    /// Events woken since the ticker last looked.
    woken: Mutex<HashSet<String>>,
    /// True while the listener is subscribed to the wake channel.
    listening: AtomicBool,
}

impl Wakes {
    pub fn new(keys: &Keys, redis: Redis) -> Self {
        Self {
            channel: keys.wake_channel(),
            redis,
            published: Mutex::default(),
            woken: Mutex::default(),
            listening: AtomicBool::new(false),
        }
    }

    /// A buyer is in `event_id`'s line (or its pre-queue): wake this instance's ticker, and
    /// the others' through the channel at most once per [`PUBLISH_EVERY`].
    pub fn waiting(&self, event_id: &str) {
        let now = Instant::now();
        {
            let mut published = self.published.lock().expect("not poisoned");
            match published.get_mut(event_id) {
                Some(at) if now.duration_since(*at) < PUBLISH_EVERY => return,
                Some(at) => *at = now,
                None => {
                    if published.len() >= MAX_EVENTS {
                        published.retain(|_, at| now.duration_since(*at) < PUBLISH_EVERY);
                    }
                    published.insert(event_id.to_owned(), now);
                }
            }
        }
        self.wake(event_id);
        let (mut redis, channel, event) = (
            self.redis.clone(),
            self.channel.clone(),
            event_id.to_owned(),
        );
        tokio::spawn(async move {
            let published: ::redis::RedisResult<i64> = ::redis::cmd("PUBLISH")
                .arg(&channel)
                .arg(&event)
                .query_async(&mut redis)
                .await;
            if let Err(e) = published {
                tracing::warn!(event = %event, error = %e, "could not publish a wake");
            }
        });
    }

    /// Wakes this instance's ticker for `event_id`.
    pub fn wake(&self, event_id: &str) {
        let mut woken = self.woken.lock().expect("not poisoned");
        if woken.len() < MAX_EVENTS {
            woken.insert(event_id.to_owned());
        }
    }

    /// The events woken since the last call.
    pub fn take(&self) -> HashSet<String> {
        std::mem::take(&mut *self.woken.lock().expect("not poisoned"))
    }

    /// Whether this instance hears the others' wakes: a room may rest only then.
    pub fn listening(&self) -> bool {
        self.listening.load(Ordering::Acquire)
    }

    /// Listens to the wake channel until `shutdown`, subscribing again after a loss.
    pub async fn listen(&self, config: &Config, shutdown: tokio_util::sync::CancellationToken) {
        // On a cluster any node hears every publication (its bus carries them): a lost node
        // is passed over for the next one.
        let urls: Vec<String> = match config.redis_cluster_nodes.is_empty() {
            true => vec![config.redis_url.expose().to_owned()],
            false => (config.redis_cluster_nodes.iter())
                .map(|n| n.expose().to_owned())
                .collect(),
        };
        for url in urls.iter().cycle() {
            let subscribed = async {
                let mut pubsub = ::redis::Client::open(url.as_str())?
                    .get_async_pubsub()
                    .await?;
                pubsub.subscribe(&self.channel).await?;
                Ok::<_, ::redis::RedisError>(pubsub)
            };
            let pubsub = tokio::select! {
                _ = shutdown.cancelled() => return,
                s = subscribed => s,
            };
            match pubsub {
                Ok(pubsub) => {
                    // While not listening no room rested here (the ticker keeps every room
                    // awake then), so no wake published before this moment is missed.
                    self.listening.store(true, Ordering::Release);
                    let mut messages = pubsub.into_on_message();
                    loop {
                        let message = tokio::select! {
                            _ = shutdown.cancelled() => return,
                            m = messages.next() => m,
                        };
                        let Some(message) = message else { break };
                        if let Ok(event_id) = message.get_payload::<String>() {
                            self.wake(&event_id);
                        }
                    }
                    self.listening.store(false, Ordering::Release);
                    tracing::warn!("lost the wake channel: no room rests until it is back");
                }
                Err(e) => {
                    tracing::warn!(error = %e, "could not listen to the wake channel");
                }
            }
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tokio::time::sleep(RECONNECT_EVERY) => {}
            }
        }
    }
}

/// The most events the wakes remember (a bound on what requests can make us store; more
/// events than this on one instance each still wake, their debounce is forgotten sooner).
const MAX_EVENTS: usize = 100_000;
