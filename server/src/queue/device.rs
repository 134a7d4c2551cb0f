//! The device each place is bound to, in a room that binds tokens (API.md "Tokens bound to the
//! device").
//!
//! Invariants:
//! - A place is bound once, to the key whose proof first came with it (`HSETNX`): the join's
//!   proof, or a poll's for a place made before the room bound tokens. A join or poll that
//!   proves another key does not rebind it; it is refused (403), and nothing changes.
//! - A join without a proof is refused (400) and counted as a refusal the operator sees (a
//!   browser that could not make a key). A proof that does not pass is refused (400) and
//!   changes nothing.
//! - A token minted for a bound place carries its key's thumbprint (`cnf.jkt`), so only that
//!   key's proofs take it past the gate (`tokens::gate`).

use app::wire::{BuyerId, EventId, Room};
use axum::{
    Router,
    extract::State,
    http::{HeaderMap, Method, StatusCode},
    routing::get,
};
use redis::AsyncCommands;

use crate::{
    error::{Error, Result},
    extract,
    state::AppState,
    tokens::dpop::{self, ProofFor, Refused},
};

/// What a refused join without a device key is counted as, in the event's refusals.
pub const NO_KEY: &str = "no_key";
/// A page of a bound room opened without JavaScript (its `<noscript>` image asks for it).
pub const NO_SCRIPT: &str = "no_script";

/// The thumbprint of the key `buyer`'s place in `event_id` is bound to, binding it to the key
/// of the proof in `headers` if it has none yet (`None` outside a bound room, or while the
/// place is bound to nothing). `joining`: the request is a join (which must carry a proof).
pub async fn bind(
    state: &AppState,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    headers: &HeaderMap,
    (method, path): (&Method, &str),
) -> Result<Option<String>> {
    if !room.bind_tokens {
        return Ok(None);
    }
    let key = state.keys.bound(event_id);
    let request = ProofFor {
        method,
        path,
        headers,
        token: None,
    };
    let jkt = match dpop::check(state, event_id, &request).await? {
        Ok(jkt) => jkt,
        // A poll needs no proof: it reads what the place is bound to.
        Err(Refused::Missing) if method == Method::GET => {
            return Ok(state.redis.clone().hget(&key, buyer.as_str()).await?);
        }
        Err(Refused::Missing) => {
            refused(state, event_id, NO_KEY).await;
            return Err(Error::BadRequest(format!(
                "{}: this room binds each place to the device that takes it, with a key only \
                 that device holds (a DPoP proof, RFC 9449)",
                Refused::Missing.reason()
            )));
        }
        Err(refusal) => {
            state.metrics.proofs.with_label_values(&["invalid"]).inc();
            return Err(Error::BadRequest(refusal.reason().to_owned()));
        }
    };
    let (bound,): (String,) = redis::pipe()
        .hset_nx(&key, buyer.as_str(), &jkt)
        .ignore()
        .hget(&key, buyer.as_str())
        .query_async(&mut state.redis.clone())
        .await?;
    if bound != jkt {
        return Err(Error::Forbidden(
            "your place in this line is bound to the device that took it, and this request \
             was signed by another; continue on that device, or move your place from it"
                .into(),
        ));
    }
    state.metrics.proofs.with_label_values(&["ok"]).inc();
    Ok(Some(bound))
}

pub fn router() -> Router<AppState> {
    Router::new().route("/api/events/{event_id}/refusals/no-script", get(no_script))
}

/// `GET /api/events/{id}/refusals/no-script`: asked by the `<noscript>` image of a bound
/// room's page, which a browser without JavaScript loads; counts it and answers 204.
async fn no_script(
    State(state): State<AppState>,
    extract::EventId(event_id): extract::EventId,
) -> Result<StatusCode> {
    let event_id = EventId::from(event_id);
    if state.rooms.get(&state.db, &event_id).await?.bind_tokens {
        refused(&state, &event_id, NO_SCRIPT).await;
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Counts one refusal of a buyer who could not bind a place, as `kind` ([`NO_KEY`],
/// [`NO_SCRIPT`]), for the operator's panel. Best effort: a count is not worth failing for.
pub async fn refused(state: &AppState, event_id: &EventId, kind: &str) {
    state.metrics.proofs.with_label_values(&["missing"]).inc();
    let counted: redis::RedisResult<i64> = state
        .redis
        .clone()
        .hincr(state.keys.refusals(event_id), kind, 1)
        .await;
    if let Err(e) = counted {
        tracing::warn!(event = %event_id, error = %e, "could not count a refusal of an unbound device");
    }
}

/// The refusals counted so far in `event_id`: (no key, no script).
pub async fn refusals(state: &AppState, event_id: &EventId) -> Result<(u64, u64)> {
    let (no_key, no_script): (Option<u64>, Option<u64>) = state
        .redis
        .clone()
        .hget(state.keys.refusals(event_id), &[NO_KEY, NO_SCRIPT])
        .await?;
    Ok((no_key.unwrap_or(0), no_script.unwrap_or(0)))
}
