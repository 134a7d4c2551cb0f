//! Rate limits shared by all instances: a fixed-window counter per subject in Redis, counted
//! by one script, so two instances never both let the limit+1-th request through. A window
//! starts at a subject's first attempt and its counter expires with it, so a limit never
//! keeps a key longer than one window. It stands above `base` (it takes the shared handles),
//! beside the capabilities that count in it, not in the Redis layer below.

use std::time::Duration;

use crate::redis::scripts::RateLimit;
use crate::{base::Handles, client::Network, error::Error};

/// Counts one attempt of `subject` against `limit` per `window`; refuses with 429 and the
/// seconds until the window ends once the count is above `limit`.
pub async fn check(
    state: &Handles,
    name: &str,
    subject: &str,
    limit: u32,
    window: Duration,
) -> Result<(), Error> {
    let (count, ttl_ms): (u64, u64) = RateLimit {
        name,
        subject,
        window,
    }
    .invocation(&state.scripts, &state.keys)
    .invoke_async(&mut state.redis.clone())
    .await?;
    if count > u64::from(limit) {
        return Err(Error::RateLimited {
            retry_after_secs: ttl_ms.div_ceil(1000).max(1),
        });
    }
    Ok(())
}

/// [`check`] for each bucket a client counts in (`Client::networks`), each against its share
/// of `limit`: refused at the first that is over (an IPv4 client has one bucket, an IPv6 one
/// three; their keys lie on different cluster slots, so they are separate calls).
pub async fn check_networks(
    state: &Handles,
    name: &str,
    networks: &[Network],
    limit: u32,
    window: Duration,
) -> Result<(), Error> {
    for network in networks {
        check(state, name, &network.cidr, network.limit(limit), window).await?;
    }
    Ok(())
}
