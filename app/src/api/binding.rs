//! Tokens bound to the device (API.md "Tokens bound to the device"): which of this page's calls
//! carry a DPoP proof of the browser's key, and which the admission token with it. An event
//! whose room does not bind tokens is never registered, so its calls carry no proof and the
//! browser's key is never touched.

use super::Api;
use crate::wire::{ErrorBody, Event, EventEntry, QueueStatus, Room};

impl Api {
    /// Tells this page's calls about `entry`'s event: where its room binds tokens to the device
    /// ([`binds`]), joins, polls and claims carry a proof of the device key, and the seat map
    /// and holds carry the admission token of the latest admitted answer (the entry's, then
    /// every answer of the line) with a proof bound to it; the proofs are dated on the
    /// server's clock (`entry.now`). Elsewhere calls carry no proof and the browser's key is
    /// never touched.
    pub fn bind(&self, entry: &EventEntry) {
        bind_room(&entry.event);
        #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
        if binds(&entry.event.room) {
            crate::device::set_server_now(entry.now.timestamp());
            if let Some(queue) = &entry.queue {
                remember(&entry.event.id, queue);
            }
        }
    }
}

const ADMISSION_TOKEN: &str = "Admission-Token";

/// Whether `room` binds admission tokens to the device (as the server's pages decide it: only
/// while the room is on, since a room that is off admits everyone).
pub fn binds(room: &Room) -> bool {
    room.enabled && room.bind_tokens
}

#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
thread_local! {
    /// The events of this page whose room binds tokens ([`Api::bind`]), each with the
    /// admission token of its latest admitted answer (the page runs on one thread; a page
    /// shows one event, rarely a few, so a list). An event not here is unbound: its calls
    /// carry no proof.
    static BOUND: std::cell::RefCell<Vec<(String, Option<String>)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Registers `event` among this page's bound events if its room binds tokens ([`Api::bind`]).
pub(super) fn bind_room(event: &Event) {
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    if binds(&event.room) {
        BOUND.with_borrow_mut(|bound| {
            if !bound.iter().any(|(id, _)| *id == event.id) {
                bound.push((event.id.clone(), None));
            }
        });
    }
    #[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
    let _ = event;
}

/// Keeps the token of an admitted `status` in `event_id`, if its room binds tokens.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
fn remember(event_id: &str, status: &QueueStatus) {
    if let QueueStatus::Admitted {
        admission_token,
        handoff_url,
        ..
    } = status
    {
        // A room in front of the ticketer's site: the buyer goes there now (API.md "The gate").
        if let Some(url) = handoff_url {
            let _ = leptos::prelude::window().location().assign(url);
        }
        BOUND.with_borrow_mut(|bound| {
            if let Some((_, token)) = bound.iter_mut().find(|(id, _)| id == event_id) {
                *token = Some(admission_token.clone());
            }
        });
    }
}

/// [`crate::device::proof`], split out of the buyer's main WASM (`cargo leptos build --split`):
/// only a page in a room that binds tokens fetches it, at its first proof.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
#[leptos::lazy]
async fn device_proof(
    method: String,
    path: String,
    token: Option<String>,
) -> Result<String, ErrorBody> {
    crate::device::proof(&method, &path, token.as_deref()).await
}

/// A line's `answer`, its admission token remembered on the way ([`remember`]); an admission
/// with a hand-over takes the browser to the ticketer's site.
pub(super) fn remembered(
    event_id: &str,
    answer: Result<QueueStatus, ErrorBody>,
) -> Result<QueueStatus, ErrorBody> {
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    if let Ok(status) = &answer {
        remember(event_id, status);
    }
    #[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
    let _ = event_id;
    answer
}

/// What a `method` call of `path` in `event_id` carries to prove the device: nothing outside a
/// room that binds tokens; there a fresh DPoP proof, and for the `gated` seat map and holds
/// the admission token with a proof bound to it (`ath`).
pub(super) async fn device_headers(
    event_id: &str,
    method: &str,
    path: &str,
    gated: bool,
) -> Result<Vec<(&'static str, String)>, ErrorBody> {
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        let found = BOUND.with_borrow(|bound| {
            let found = bound.iter().find(|(id, _)| id == event_id);
            found.map(|(_, token)| token.clone())
        });
        let Some(token) = found else {
            return Ok(Vec::new());
        };
        let token = token.filter(|_| gated);
        let proof = device_proof(method.to_owned(), path.to_owned(), token.clone()).await?;
        let mut headers = vec![(crate::dpop::HEADER, proof)];
        headers.extend(token.map(|token| (ADMISSION_TOKEN, token)));
        Ok(headers)
    }
    #[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
    {
        let _ = (event_id, method, path, gated, ADMISSION_TOKEN);
        Ok(Vec::new())
    }
}
