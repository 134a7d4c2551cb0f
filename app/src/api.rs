//! How pages reach the data: the JSON API of API.md from the browser, the [`Backend`] trait
//! while rendering on the server. Every page goes through [`Api`], so a page has one code path
//! and the server has no second API for it.
//!
//! [`Backend`]: crate::backend::Backend

use serde::{Serialize, de::DeserializeOwned};

use crate::{
    pow,
    wire::{
        AuditEntry, BeaconUpdate, ClaimRequest, Deferred, Draw, ErrorBody, Event, EventEntry, Hold,
        HoldRequest, MoveCode, NewEvent, Night, NightPoint, Order, Payments, ProofChallenge,
        QueueStatus, Room, RoomUpdate, SeatMap, Stats,
    },
};

#[cfg(feature = "ssr")]
use crate::backend::{PageBuyer, SessionRefused, SharedBackend};

/// A handle for one page's data calls. Take it with [`Api::current`] while the component runs
/// (synchronously), then move it into async blocks.
#[derive(Clone)]
pub struct Api {
    #[cfg(feature = "ssr")]
    backend: Option<SharedBackend>,
    /// The buyer of the request being rendered.
    #[cfg(feature = "ssr")]
    buyer: Option<String>,
    /// Why there is none, when the session limit refused one.
    #[cfg(feature = "ssr")]
    refused: Option<SessionRefused>,
    /// Where server rendering adds response headers (the admission cookie).
    #[cfg(feature = "ssr")]
    response: Option<leptos_axum::ResponseOptions>,
}

impl Api {
    pub fn current() -> Self {
        #[cfg(feature = "ssr")]
        {
            use leptos::prelude::use_context;
            let parts = use_context::<http::request::Parts>();
            let buyer = parts
                .as_ref()
                .and_then(|p| p.extensions.get::<PageBuyer>().map(|b| b.0.clone()));
            let refused = parts.and_then(|p| p.extensions.get::<SessionRefused>().copied());
            Self {
                backend: use_context::<SharedBackend>(),
                buyer,
                refused,
                response: use_context::<leptos_axum::ResponseOptions>(),
            }
        }
        #[cfg(not(feature = "ssr"))]
        Self {}
    }

    pub async fn events(&self) -> Result<Vec<Event>, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.events().await;
        #[cfg(not(feature = "ssr"))]
        return call("GET", "/api/events", None::<&()>, &[]).await;
    }

    pub async fn event(&self, id: String) -> Result<Event, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.event(id).await;
        #[cfg(not(feature = "ssr"))]
        return call("GET", &format!("/api/events/{id}"), None::<&()>, &[]).await;
    }

    /// The event page's start: join the line (or find one's place), and the seat map once in.
    pub async fn enter(&self, event_id: String) -> Result<EventEntry, ErrorBody> {
        #[cfg(feature = "ssr")]
        {
            let buyer = self.buyer.clone().ok_or_else(|| self.no_buyer())?;
            let (entry, cookie) = self.backend()?.enter(buyer, event_id).await?;
            if let (Some(cookie), Some(response)) = (cookie, &self.response)
                && let Ok(value) = http::HeaderValue::from_str(&cookie)
            {
                response.append_header(http::header::SET_COOKIE, value);
            }
            Ok(entry)
        }
        #[cfg(not(feature = "ssr"))]
        {
            self.enter_joining(event_id, None, None)
                .await
                .map(|(entry, _)| entry)
        }
    }

    /// [`Api::enter`] from the browser, joining the line; with the challenge of a proof of work
    /// the server already gave (`asked`), the proof is made before the first join, which then
    /// goes through at once. With a `claim` code (a place moved here from another device), it
    /// claims that place instead of joining; a code the server refused (used, expired or
    /// unknown) comes back beside the entry, which then joined as usual.
    #[cfg(not(feature = "ssr"))]
    pub async fn enter_joining(
        &self,
        event_id: String,
        asked: Option<ProofChallenge>,
        claim: Option<String>,
    ) -> Result<(EventEntry, Option<ErrorBody>), ErrorBody> {
        let event = self.event(event_id.clone()).await?;
        bind_room(&event);
        let (claimed, refused) = match claim {
            Some(code) => match self.claim(&event_id, &code).await {
                Ok(status) => (Some(status), None),
                Err(e) if e.error == "not_found" => (None, Some(e)),
                Err(e) => return Err(e),
            },
            None => (None, None),
        };
        let mut moved_at = None;
        let queue = match claimed {
            Some(status) => Some(status),
            None => match self.join_proving(&event_id, asked).await {
                Ok(queue) => Some(queue),
                // Not open yet: the page counts down (nothing was stored).
                Err(e) if e.error == "not_open" => None,
                // This session's place went to another device: the page says where.
                Err(ErrorBody {
                    moved: Some(moved), ..
                }) => {
                    moved_at = Some(moved.moved_at);
                    None
                }
                Err(e) => return Err(e),
            },
        };
        let seats = match queue {
            Some(QueueStatus::Admitted { .. }) => Some(self.seats(&event_id).await?),
            _ => None,
        };
        let entry = EventEntry {
            event,
            queue,
            seats,
            now: chrono::Utc::now(),
            arriving: false,
            hold: None,
            order: None,
            forms: None,
            moved_at,
        };
        Ok((entry, refused))
    }

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

    /// Joins the line (or finds one's place). Where the room asks a proof of work for a new
    /// place, the browser makes it and joins again with it.
    pub async fn join(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        self.join_proving(event_id, None).await
    }

    /// [`Api::join`], starting from the challenge `asked` when the page already has one. In a
    /// room that binds tokens, a browser that cannot make a device key still joins once
    /// without a proof (the server counts that refusal, for the operator), and gets
    /// `no_device_key`.
    pub async fn join_proving(
        &self,
        event_id: &str,
        asked: Option<ProofChallenge>,
    ) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue");
        let device = match device_headers(event_id, "POST", &path, false).await {
            Ok(device) => device,
            Err(no_key) => {
                let _ = call::<_, QueueStatus>("POST", &path, Some(&()), &[]).await;
                return Err(no_key);
            }
        };
        let asked = match asked {
            Some(asked) => asked,
            None => match call("POST", &path, Some(&()), &device).await {
                Err(ErrorBody {
                    proof: Some(asked), ..
                }) => *asked,
                answer => return remembered(event_id, answer),
            },
        };
        let nonce = solve(asked.challenge.clone(), asked.bits).await;
        let work = format!("{}:{nonce}", asked.challenge);
        // A device proof is good for one request: the second join makes its own.
        let mut headers = device_headers(event_id, "POST", &path, false).await?;
        headers.push((JOIN_PROOF, work));
        remembered(event_id, call("POST", &path, Some(&()), &headers).await)
    }

    pub async fn poll(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue");
        let device = device_headers(event_id, "GET", &path, false).await?;
        remembered(event_id, call("GET", &path, None::<&()>, &device).await)
    }

    /// Asks for a one-time code that moves this buyer's place to another device (API.md
    /// "Moving a place to another device").
    /// In a room that binds tokens the ask carries a proof of this device's key: only the
    /// place's device moves it.
    pub async fn move_place(&self, event_id: &str) -> Result<MoveCode, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue/move");
        let device = device_headers(event_id, "POST", &path, false).await?;
        call("POST", &path, Some(&serde_json::json!({})), &device).await
    }

    /// Where the place another device moves with `code` stands, without taking it.
    pub async fn claim_preview(
        &self,
        event_id: &str,
        code: &str,
    ) -> Result<crate::wire::ClaimPreview, ErrorBody> {
        let code: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        call(
            "GET",
            &format!("/api/events/{event_id}/queue/claim?code={code}"),
            None::<&()>,
            &[],
        )
        .await
    }

    /// Takes the place another device moved with `code`: answered like a join.
    pub async fn claim(&self, event_id: &str, code: &str) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue/claim");
        let device = device_headers(event_id, "POST", &path, false).await?;
        let body = ClaimRequest {
            code: code.trim().to_owned(),
        };
        remembered(event_id, call("POST", &path, Some(&body), &device).await)
    }

    /// The seat map, unread: the turn's stages read it ([`Deferred`]).
    pub async fn seats(&self, event_id: &str) -> Result<Deferred<SeatMap>, ErrorBody> {
        let path = format!("/api/events/{event_id}/seats");
        let device = device_headers(event_id, "GET", &path, true).await?;
        call("GET", &path, None::<&()>, &device).await
    }

    pub async fn hold(
        &self,
        event_id: &str,
        request: &HoldRequest,
        key: &str,
    ) -> Result<Hold, ErrorBody> {
        let path = format!("/api/events/{event_id}/holds");
        let mut headers = device_headers(event_id, "POST", &path, true).await?;
        headers.push((IDEMPOTENCY_KEY, key.to_owned()));
        call("POST", &path, Some(request), &headers).await
    }

    /// Releases a hold of `event_id` (in a room that binds tokens, with a proof of this
    /// device's key).
    pub async fn release(&self, event_id: &str, hold_id: &str) -> Result<(), ErrorBody> {
        let path = format!("/api/holds/{hold_id}");
        let device = device_headers(event_id, "DELETE", &path, false).await?;
        call("DELETE", &path, None::<&()>, &device).await
    }

    /// Pays a hold of `event_id` (in a room that binds tokens, with a proof of this device's
    /// key).
    pub async fn checkout(
        &self,
        event_id: &str,
        hold_id: &str,
        key: &str,
    ) -> Result<Order, ErrorBody> {
        let path = format!("/api/holds/{hold_id}/checkout");
        let mut headers = device_headers(event_id, "POST", &path, false).await?;
        headers.push((IDEMPOTENCY_KEY, key.to_owned()));
        call("POST", &path, Some(&()), &headers).await
    }

    /// Whether this browser is signed in as the operator.
    pub async fn admin_check(&self) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("GET", "/api/admin/session", None, &[])
            .await
            .map(|_| ())
    }

    pub async fn admin_sign_in(&self, token: &str) -> Result<(), ErrorBody> {
        call(
            "POST",
            "/api/admin/session",
            Some(&serde_json::json!({ "token": token })),
            &[],
        )
        .await
    }

    pub async fn stats(&self, event_id: &str) -> Result<Stats, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/stats"),
            None::<&()>,
            &[],
        )
        .await
    }

    pub async fn payments(&self, event_id: &str) -> Result<Payments, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/payments"),
            None::<&()>,
            &[],
        )
        .await
    }

    /// The nights kept of an event, newest first.
    pub async fn nights(&self, event_id: &str) -> Result<Vec<Night>, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/nights"),
            None::<&()>,
            &[],
        )
        .await
    }

    /// One kept night's seconds.
    pub async fn night_series(
        &self,
        event_id: &str,
        night: i64,
    ) -> Result<Vec<NightPoint>, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/nights/{night}/series"),
            None::<&()>,
            &[],
        )
        .await
    }

    pub async fn audit(&self, event_id: &str) -> Result<Vec<AuditEntry>, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/audit"),
            None::<&()>,
            &[],
        )
        .await
    }

    pub async fn update_room(
        &self,
        event_id: &str,
        update: &RoomUpdate,
    ) -> Result<Room, ErrorBody> {
        call(
            "PUT",
            &format!("/api/admin/events/{event_id}/room"),
            Some(update),
            &[],
        )
        .await
    }

    /// The event's draw as published (`GET /api/events/{id}/draw`).
    pub async fn draw(&self, event_id: &str) -> Result<Draw, ErrorBody> {
        call(
            "GET",
            &format!("/api/events/{event_id}/draw"),
            None::<&()>,
            &[],
        )
        .await
    }

    pub async fn set_beacon(&self, event_id: &str, beacon: &str) -> Result<Draw, ErrorBody> {
        call(
            "PUT",
            &format!("/api/admin/events/{event_id}/draw"),
            Some(&BeaconUpdate {
                beacon: Some(beacon.to_owned()),
                ..BeaconUpdate::default()
            }),
            &[],
        )
        .await
    }

    pub async fn create_event(&self, event: &NewEvent) -> Result<Event, ErrorBody> {
        call("POST", "/api/admin/events", Some(event), &[]).await
    }

    /// Why the page has no buyer: the session limit (then the answer is 429 with Retry-After,
    /// and the page says when to come back), or a store that did not answer (503).
    #[cfg(feature = "ssr")]
    fn no_buyer(&self) -> ErrorBody {
        let (status, retry_after_secs, body) = match self.refused {
            Some(SessionRefused::Limit { retry_after_secs }) => (
                http::StatusCode::TOO_MANY_REQUESTS,
                retry_after_secs,
                ErrorBody::new(
                    "rate_limited",
                    format!(
                        "Many visitors from your network arrived in the last minute, more than \
                         we take from one address, so we could not give you a place in line \
                         yet. Please come back in {retry_after_secs} seconds and reload this \
                         page."
                    ),
                ),
            ),
            // The middleware names a buyer or a refusal for every page; without either, what
            // failed was ours.
            Some(SessionRefused::Unavailable) | None => (
                http::StatusCode::SERVICE_UNAVAILABLE,
                RETRY_UNAVAILABLE_SECS,
                ErrorBody::new(
                    "unavailable",
                    format!(
                        "Part of Anteroom is not answering just now, so we could not give you \
                         a place in line. Please try again in {RETRY_UNAVAILABLE_SECS} seconds."
                    ),
                ),
            ),
        };
        if let Some(response) = &self.response {
            response.set_status(status);
            response.insert_header(http::header::RETRY_AFTER, retry_after_secs.into());
        }
        body
    }

    #[cfg(feature = "ssr")]
    fn backend(&self) -> Result<&SharedBackend, ErrorBody> {
        self.backend
            .as_ref()
            .ok_or_else(|| ErrorBody::new("internal", "no backend in the rendering context"))
    }
}

const IDEMPOTENCY_KEY: &str = "Idempotency-Key";
/// When a page that could not start a session (a store did not answer) tries again.
#[cfg(feature = "ssr")]
const RETRY_UNAVAILABLE_SECS: u64 = 5;
const JOIN_PROOF: &str = "Join-Proof";
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
fn bind_room(event: &Event) {
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
        admission_token, ..
    } = status
    {
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

/// A line's `answer`, its admission token remembered on the way ([`remember`]).
fn remembered(
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
async fn device_headers(
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

/// The nonce that proves `bits` of work for `challenge`, found in steps of the shared search
/// (`pow`), the page painting between steps (it says "getting your place…" meanwhile). Split
/// out of the buyer's main WASM (`cargo leptos build --split`): only a page in a room that asks
/// for work fetches it, at its first join.
#[leptos::lazy]
async fn solve(challenge: String, bits: u32) -> u64 {
    const STEP: u64 = 1 << 16;
    let mut from = 0;
    loop {
        if let Some(nonce) = pow::search(&challenge, bits, from, STEP) {
            return nonce;
        }
        from += STEP;
        // Browser timers are not `Send`; the page runs on one thread, which SendWrapper checks.
        #[cfg(feature = "hydrate")]
        send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(0)).await;
    }
}

/// A call of the JSON API from the browser (the session and admission cookies go along), with
/// the extra `headers`; an error answer becomes its [`ErrorBody`], whose message is written
/// for people. Only the JSON is per type: the request itself is [`send`], once in the WASM
/// (each type's copy of it weighed in the buyer's download).
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn call<B: Serialize, T: DeserializeOwned>(
    method: &str,
    path: &str,
    body: Option<&B>,
    headers: &[(&str, String)],
) -> Result<T, ErrorBody> {
    let body = body
        .map(serde_json::to_string)
        .transpose()
        .map_err(|e| ErrorBody::new("internal", format!("A request we could not write: {e}")))?;
    let text = send(method, path, body, headers).await?;
    serde_json::from_str(if text.is_empty() { "null" } else { &text })
        .map_err(|e| ErrorBody::new("internal", format!("An answer we did not understand: {e}")))
}

/// One request of the JSON API with its JSON `body`: the answer's text when it succeeded, else
/// its [`ErrorBody`].
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn send(
    method: &str,
    path: &str,
    body: Option<String>,
    headers: &[(&str, String)],
) -> Result<String, ErrorBody> {
    use gloo_net::http::{Method, RequestBuilder};
    let network = |e: gloo_net::Error| {
        ErrorBody::new(
            "network",
            format!(
                "We could not reach Anteroom ({e}). Check your connection; we will keep trying."
            ),
        )
    };
    let method = match method {
        "POST" => Method::POST,
        "DELETE" => Method::DELETE,
        "PUT" => Method::PUT,
        _ => Method::GET,
    };
    let mut builder = RequestBuilder::new(path).method(method);
    for (name, value) in headers {
        builder = builder.header(name, value);
    }
    let request = match body {
        Some(body) => builder
            .header("Content-Type", "application/json")
            .body(body)
            .map_err(network)?,
        None => builder.build().map_err(network)?,
    };
    // Browser futures are not `Send`; the page runs on one thread, which SendWrapper checks.
    send_wrapper::SendWrapper::new(async move {
        let resp = request.send().await.map_err(network)?;
        let text = resp.text().await.map_err(network)?;
        if resp.ok() {
            Ok(text)
        } else {
            Err(serde_json::from_str(&text).unwrap_or_else(|_| {
                ErrorBody::new("internal", format!("Anteroom answered {}", resp.status()))
            }))
        }
    })
    .await
}

/// While rendering on the server, the page reads through the backend; calls made by buttons
/// and timers happen only in the browser.
#[cfg(any(feature = "ssr", not(feature = "hydrate")))]
async fn call<B: Serialize, T: DeserializeOwned>(
    _method: &str,
    path: &str,
    _body: Option<&B>,
    _headers: &[(&str, String)],
) -> Result<T, ErrorBody> {
    Err(ErrorBody::new(
        "internal",
        format!("{path} is called from the browser only"),
    ))
}
