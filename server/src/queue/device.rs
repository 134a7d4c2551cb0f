//! The device each place is bound to, in a room that binds tokens (API.md "Tokens bound to the
//! device").
//!
//! Invariants:
//! - A place is bound once, to the key whose proof first came with it (`HSETNX`): the join's
//!   proof, or, for a place made before the room bound tokens, the proof of a poll that finds
//!   it admitted. A join or poll that proves another key does not rebind it; it is refused
//!   (403), and nothing changes. A waiting poll neither needs a proof nor reads the binding.
//! - A join without a proof is refused (400) and counted as a refusal the operator sees (a
//!   browser that could not make a key). A proof that does not pass is refused (400) and
//!   changes nothing.
//! - A token minted for a bound place carries its key's thumbprint (`cnf.jkt`), so only that
//!   key's proofs take it past the gate (`tokens::gate`). Moving the place, releasing its hold
//!   and paying need a proof from that key too ([`prove_owner`]): the session alone is not
//!   the device.

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
    queue::state::Line,
    responses::NoEvent,
    tokens::dpop::{self, ProofFor, Refused},
};

/// What a refused join without a device key is counted as, in the event's refusals.
pub const NO_KEY: &str = "no_key";

/// The thumbprint of the key a join's place in `event_id` is bound to: the key of the join's
/// proof (a request to `path`), which the place is bound to unless it was bound before.
/// `None` outside a bound room.
pub async fn bind_join(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    headers: &HeaderMap,
    path: &str,
) -> Result<Option<String>> {
    if !room.bind_tokens {
        return Ok(None);
    }
    prove_and_bind(state, buyer, event_id, (&Method::POST, path), headers)
        .await
        .map(Some)
}

/// The thumbprint of the key an admitted `buyer`'s place is bound to, for their token. A place
/// made before the room bound tokens is bound to nothing: a poll (a GET of `path`) that brings
/// a proof binds it then. `None` outside a bound room, or while bound to nothing.
pub async fn bound_to(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    headers: &HeaderMap,
    path: &str,
) -> Result<Option<String>> {
    if !room.bind_tokens {
        return Ok(None);
    }
    let found: Option<String> = state
        .redis
        .clone()
        .hget(state.keys.bound(event_id), buyer.as_str())
        .await?;
    if found.is_some() || !headers.contains_key(app::dpop::HEADER) {
        return Ok(found);
    }
    prove_and_bind(state, buyer, event_id, (&Method::GET, path), headers)
        .await
        .map(Some)
}

/// In a room that binds tokens (and is on), that a request acting for `buyer`'s place, hold or
/// payment comes from the device the place is bound to: a valid proof of this `method` request
/// of `path` from the bound key (a place bound to nothing yet is bound to it now). Moving a
/// place, releasing a hold and paying ask it, so a copied session alone does none of them (400
/// without a proof, 403 from another key). Elsewhere there is nothing to prove.
pub async fn prove_owner(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    request: (&Method, &str),
    headers: &HeaderMap,
) -> Result<()> {
    if !app::api::binds(room) {
        return Ok(());
    }
    prove_and_bind(state, buyer, event_id, request, headers)
        .await
        .map(|_| ())
}

/// Checks the proof of a `method` request of `path` in `headers` and binds `buyer`'s place to
/// its key (unless bound before): the key's thumbprint. Refusals as [`prove`]'s.
pub async fn prove_and_bind(
    state: &Line,
    buyer: &BuyerId,
    event_id: &EventId,
    request: (&Method, &str),
    headers: &HeaderMap,
) -> Result<String> {
    let jkt = prove(state, event_id, request, headers).await?;
    bind(state, buyer, event_id, jkt).await
}

/// The thumbprint of the key whose proof of a `method` request of `path` is in `headers`.
/// Without a proof: 400, counted as a refusal of a device without a key; with one that does
/// not pass: 400. The join and the claim of a bound room ask it.
pub async fn prove(
    state: &Line,
    event_id: &EventId,
    (method, path): (&Method, &str),
    headers: &HeaderMap,
) -> Result<String> {
    let request = ProofFor {
        method,
        path,
        headers,
        token: None,
    };
    match dpop::check(state, event_id, &request).await? {
        Ok(jkt) => Ok(jkt),
        Err(Refused::Missing) => {
            refused(state, event_id, NO_KEY).await;
            Err(Error::BadRequest(format!(
                "{}: this room binds each place to the device that takes it, with a key only \
                 that device holds (a DPoP proof, RFC 9449)",
                Refused::Missing.reason()
            )))
        }
        Err(refusal) => Err(Error::BadRequest(refusal.reason().to_owned())),
    }
}

/// Binds `buyer`'s place to the key `jkt` unless it is bound already; the key it is bound to,
/// or 403 when that is another.
async fn bind(state: &Line, buyer: &BuyerId, event_id: &EventId, jkt: String) -> Result<String> {
    let key = state.keys.bound(event_id);
    let (bound,): (String,) = redis::pipe()
        .hset_nx(&key, buyer.as_str(), &jkt)
        .ignore()
        .hget(&key, buyer.as_str())
        .query_async(&mut state.redis.clone())
        .await?;
    if bound != jkt {
        dpop::wrong_key(state);
        return Err(Error::Forbidden(
            "your place in this line is bound to the device that took it, and this request \
             was signed by another; continue on that device, or move your place from it"
                .into(),
        ));
    }
    Ok(bound)
}

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Line: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new().route("/api/events/{event_id}/refusals/no-script", get(no_script))
}

/// `GET /api/events/{id}/refusals/no-script`: asked by the `<noscript>` image of a bound
/// room's page, which a browser without JavaScript loads; counts it and answers 204. Each
/// session (or, without one, each network) counts once however often its pages reload: the
/// count is the number of distinct askers in a HyperLogLog (about 1% off, 12 KiB at most),
/// so a reloading page or a script asking in a loop does not inflate the panel's figure.
#[utoipa::path(
    get,
    path = "/api/events/{event_id}/refusals/no-script",
    tag = "queue",
    summary = "Counts a page without script refused by a room that binds tokens (a beacon)",
    params(crate::extract::EventPath),
    responses(
        (status = 204, description = "Counted"),
        NoEvent,
    )
)]
async fn no_script(
    State(state): State<Line>,
    extract::EventId(event_id): extract::EventId,
    client: crate::client::Client,
    headers: HeaderMap,
) -> Result<StatusCode> {
    let event_id = EventId::from(event_id);
    if state.rooms.get(&state.db, &event_id).await?.bind_tokens {
        let asker = match state.sessions.buyer_of(&state.config, &headers) {
            Some(buyer) => format!("b:{}", buyer.id.as_str()),
            None => format!("n:{}", client.network()),
        };
        let counted: redis::RedisResult<()> = redis::cmd("PFADD")
            .arg(state.keys.no_script_seen(&event_id))
            .arg(asker)
            .query_async(&mut state.redis.clone())
            .await;
        if let Err(e) = counted {
            tracing::warn!(event = %event_id, error = %e, "could not count a page without script");
        }
    }
    Ok(StatusCode::NO_CONTENT)
}

/// Counts one refusal of a buyer who could not bind a place, as `kind` ([`NO_KEY`]), for the
/// operator's panel. Best effort: a count is not worth failing for.
pub async fn refused(state: &Line, event_id: &EventId, kind: &str) {
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
pub async fn refusals(state: &Line, event_id: &EventId) -> Result<(u64, u64)> {
    let (no_key, no_script): (Option<u64>, u64) = redis::pipe()
        .hget(state.keys.refusals(event_id), NO_KEY)
        .cmd("PFCOUNT")
        .arg(state.keys.no_script_seen(event_id))
        .query_async(&mut state.redis.clone())
        .await?;
    Ok((no_key.unwrap_or(0), no_script))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(no_script))]
pub struct Api;
