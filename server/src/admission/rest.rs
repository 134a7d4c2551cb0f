//! Rooms at rest (issue 35): a room that is on but whose line has been empty, with nobody
//! admitted by its ticks and its night kept, costs no Redis command and no Postgres query per
//! tick; it wakes within a tick of the next buyer in line.
//!
//! How a room wakes: every waiting answer (join, poll, pre-queue) calls [`Wakes::waiting`],
//! which wakes this instance's ticker at once and, at most once per [`PUBLISH_EVERY`] per event
//! and instance, publishes the event on the deployment's wake channel (`Keys::wake_channel`),
//! to which every instance's ticker listens: an instance without a ticker, or whose ticker is
//! not the one at rest, still wakes the others. A room whose sale opens later rests until a
//! tick before its opening (its draw needs no buyer to wake it).
//!
//! Invariants: nobody waits on a resting room: a buyer in line asks for their place at least
//! every few seconds, and every such answer wakes every ticker, so a room with a buyer in line
//! is awake within a tick plus one publication after the next poll, even if its leader died
//! while everyone else rested; while this instance does not listen to the wake channel (not yet
//! subscribed, or Redis lost the subscription), no room rests here ([`Wakes::listening`]); a
//! room rests only after `rest_after_seconds` (the quiet time) of ticks that admitted nobody
//! with an empty line (never when it is 0), and once
//! its night was kept (`archive::close_if_idle` found nothing open), so the night archive
//! never waits on a resting room; a woken instance that cannot take the ticker lock (another
//! leads) goes back to rest after the quiet time without a wake.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use futures_util::StreamExt;

use super::ticker::Tick;
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
        let url = config.redis_cluster_nodes.first().map_or_else(
            || config.redis_url.expose().to_owned(),
            |n| n.expose().to_owned(),
        );
        loop {
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

/// One room as this instance's ticker sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Ticking. `quiet_since`: since when every tick found nothing to do (`None`: the last
    /// did something); `led_since`: since when this ticker failed to lead (`None`: it leads).
    Awake {
        quiet_since: Option<Instant>,
        follower_since: Option<Instant>,
    },
    /// Not ticking until woken (or, with a sale to open, until `until`).
    Resting { until: Option<Instant> },
}

impl Phase {
    pub const AWAKE: Self = Self::Awake {
        quiet_since: None,
        follower_since: None,
    };

    /// Whether the room ticks now.
    pub fn ticks(&self, now: Instant) -> bool {
        match self {
            Self::Awake { .. } => true,
            Self::Resting { until } => until.is_some_and(|u| now >= u),
        }
    }

    /// The phase after a tick that answered `tick` at `now`: `settled` when the room's night
    /// was kept (nothing open), `opens_in` the time until the sale opens (if later), `quiet`
    /// the time with nothing to do after which a room rests (zero: never).
    pub fn after(
        self,
        tick: &Tick,
        now: Instant,
        settled: bool,
        opens_in: Option<Duration>,
        quiet: Duration,
    ) -> Self {
        if quiet.is_zero() {
            return Self::AWAKE;
        }
        let (quiet_since, follower_since) = match self {
            Self::Awake {
                quiet_since,
                follower_since,
            } => (quiet_since, follower_since),
            Self::Resting { .. } => (None, None),
        };
        let long = |since: Option<Instant>| since.is_some_and(|s| now.duration_since(s) >= quiet);
        match tick {
            Tick::Admitted {
                count: 0,
                queue_length: 0,
            } => {
                let quiet_since = quiet_since.or(Some(now));
                if settled && long(quiet_since) {
                    Self::Resting { until: None }
                } else {
                    Self::Awake {
                        quiet_since,
                        follower_since: None,
                    }
                }
            }
            Tick::Admitted { .. } => Self::AWAKE,
            Tick::NotLeader => {
                let follower_since = follower_since.or(Some(now));
                if long(follower_since) {
                    Self::Resting { until: None }
                } else {
                    Self::Awake {
                        quiet_since: None,
                        follower_since,
                    }
                }
            }
            Tick::BeforeOpening => match opens_in {
                // A tick before the opening: the draw is made on time.
                Some(d) if d > quiet => Self::Resting {
                    until: Some(now + d - Duration::from_secs(1)),
                },
                _ => Self::AWAKE,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: Duration = Duration::from_secs(10);
    const QUIET_TICK: Tick = Tick::Admitted {
        count: 0,
        queue_length: 0,
    };

    #[test]
    fn a_room_rests_after_quiet_ticks_and_once_its_night_is_kept() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut phase = Phase::AWAKE.after(&QUIET_TICK, at(0), true, None, Q);
        assert!(
            matches!(phase, Phase::Awake { .. }),
            "quiet, not yet for long"
        );
        phase = phase.after(&QUIET_TICK, at(5), true, None, Q);
        assert!(matches!(phase, Phase::Awake { .. }));
        // Quiet for QUIET, but the night is still open: awake.
        let open = phase.after(&QUIET_TICK, at(10), false, None, Q);
        assert!(matches!(open, Phase::Awake { .. }));
        phase = open.after(&QUIET_TICK, at(11), true, None, Q);
        assert_eq!(phase, Phase::Resting { until: None });
        assert!(!phase.ticks(at(1000)), "at rest until woken");
    }

    #[test]
    fn a_buyer_in_line_or_an_admission_starts_the_quiet_again() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let phase = Phase::AWAKE.after(&QUIET_TICK, at(0), true, None, Q);
        let busy = Tick::Admitted {
            count: 0,
            queue_length: 3,
        };
        let phase = phase.after(&busy, at(9), true, None, Q);
        assert_eq!(phase, Phase::AWAKE);
        let phase = phase.after(&QUIET_TICK, at(12), true, None, Q);
        assert!(
            matches!(phase, Phase::Awake { .. }),
            "quiet again only since 12 s"
        );
        let admitting = Tick::Admitted {
            count: 1,
            queue_length: 0,
        };
        assert_eq!(phase.after(&admitting, at(30), true, None, Q), Phase::AWAKE);
    }

    #[test]
    fn a_follower_goes_back_to_rest_and_a_sale_to_open_rests_until_just_before() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let phase = Phase::AWAKE.after(&Tick::NotLeader, at(0), false, None, Q);
        assert!(matches!(phase, Phase::Awake { .. }));
        let phase = phase.after(&Tick::NotLeader, at(10), false, None, Q);
        assert_eq!(phase, Phase::Resting { until: None });

        let later = Phase::AWAKE.after(
            &Tick::BeforeOpening,
            at(0),
            false,
            Some(Duration::from_secs(60)),
            Q,
        );
        assert_eq!(
            later,
            Phase::Resting {
                until: Some(at(59))
            }
        );
        assert!(!later.ticks(at(58)) && later.ticks(at(59)));
        let soon = Phase::AWAKE.after(
            &Tick::BeforeOpening,
            at(0),
            false,
            Some(Duration::from_secs(3)),
            Q,
        );
        assert_eq!(
            soon,
            Phase::AWAKE,
            "opening within the quiet time: keep ticking"
        );
        let never = Phase::AWAKE.after(&QUIET_TICK, at(0), true, None, Duration::ZERO);
        assert_eq!(
            never.after(&QUIET_TICK, at(100), true, None, Duration::ZERO),
            Phase::AWAKE
        );
    }
}
