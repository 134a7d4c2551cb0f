//! How pages reach the data: the JSON API of API.md from the browser, the [`Backend`] trait
//! while rendering on the server. Every page goes through [`Api`], so a page has one code path
//! and the server has no second API for it.
//!
//! [`Backend`]: crate::backend::Backend

use serde::{Serialize, de::DeserializeOwned};

use crate::{
    pow,
    wire::{
        AuditEntry, BeaconUpdate, Draw, ErrorBody, Event, EventEntry, Hold, HoldRequest, NewEvent,
        Night, NightPoint, Order, Payments, ProofChallenge, QueueStatus, Room, RoomUpdate, SeatMap,
        Stats,
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
        return call("GET", "/api/events", None::<&()>, None).await;
    }

    pub async fn event(&self, id: String) -> Result<Event, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.event(id).await;
        #[cfg(not(feature = "ssr"))]
        return call("GET", &format!("/api/events/{id}"), None::<&()>, None).await;
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
            self.enter_joining(event_id, None).await
        }
    }

    /// [`Api::enter`] from the browser, joining the line; with the challenge of a proof of work
    /// the server already gave (`asked`), the proof is made before the first join, which then
    /// goes through at once.
    #[cfg(not(feature = "ssr"))]
    pub async fn enter_joining(
        &self,
        event_id: String,
        asked: Option<ProofChallenge>,
    ) -> Result<EventEntry, ErrorBody> {
        let event = self.event(event_id.clone()).await?;
        let queue = match self.join_proving(&event_id, asked).await {
            Ok(queue) => Some(queue),
            // Not open yet: the page counts down (nothing was stored).
            Err(e) if e.error == "not_open" => None,
            Err(e) => return Err(e),
        };
        let seats = match queue {
            Some(QueueStatus::Admitted { .. }) => Some(self.seats(&event_id).await?),
            _ => None,
        };
        Ok(EventEntry {
            event,
            queue,
            seats,
            now: chrono::Utc::now(),
            arriving: false,
            hold: None,
            order: None,
            forms: None,
        })
    }

    /// Joins the line (or finds one's place). Where the room asks a proof of work for a new
    /// place, the browser makes it and joins again with it.
    pub async fn join(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        self.join_proving(event_id, None).await
    }

    /// [`Api::join`], starting from the challenge `asked` when the page already has one.
    pub async fn join_proving(
        &self,
        event_id: &str,
        asked: Option<ProofChallenge>,
    ) -> Result<QueueStatus, ErrorBody> {
        let path = format!("/api/events/{event_id}/queue");
        let asked = match asked {
            Some(asked) => asked,
            None => match call("POST", &path, Some(&()), None).await {
                Err(ErrorBody {
                    proof: Some(asked), ..
                }) => *asked,
                answer => return answer,
            },
        };
        let proof = format!("{}:{}", asked.challenge, solve(&asked).await);
        call("POST", &path, Some(&()), Some((JOIN_PROOF, &proof))).await
    }

    pub async fn poll(&self, event_id: &str) -> Result<QueueStatus, ErrorBody> {
        call(
            "GET",
            &format!("/api/events/{event_id}/queue"),
            None::<&()>,
            None,
        )
        .await
    }

    pub async fn seats(&self, event_id: &str) -> Result<SeatMap, ErrorBody> {
        call(
            "GET",
            &format!("/api/events/{event_id}/seats"),
            None::<&()>,
            None,
        )
        .await
    }

    pub async fn hold(
        &self,
        event_id: &str,
        request: &HoldRequest,
        key: &str,
    ) -> Result<Hold, ErrorBody> {
        call(
            "POST",
            &format!("/api/events/{event_id}/holds"),
            Some(request),
            Some((IDEMPOTENCY_KEY, key)),
        )
        .await
    }

    pub async fn release(&self, hold_id: &str) -> Result<(), ErrorBody> {
        call(
            "DELETE",
            &format!("/api/holds/{hold_id}"),
            None::<&()>,
            None,
        )
        .await
    }

    pub async fn checkout(&self, hold_id: &str, key: &str) -> Result<Order, ErrorBody> {
        call(
            "POST",
            &format!("/api/holds/{hold_id}/checkout"),
            Some(&()),
            Some((IDEMPOTENCY_KEY, key)),
        )
        .await
    }

    /// Whether this browser is signed in as the operator.
    pub async fn admin_check(&self) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("GET", "/api/admin/session", None, None)
            .await
            .map(|_| ())
    }

    pub async fn admin_sign_in(&self, token: &str) -> Result<(), ErrorBody> {
        call(
            "POST",
            "/api/admin/session",
            Some(&serde_json::json!({ "token": token })),
            None,
        )
        .await
    }

    pub async fn stats(&self, event_id: &str) -> Result<Stats, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/stats"),
            None::<&()>,
            None,
        )
        .await
    }

    pub async fn payments(&self, event_id: &str) -> Result<Payments, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/payments"),
            None::<&()>,
            None,
        )
        .await
    }

    /// The nights kept of an event, newest first.
    pub async fn nights(&self, event_id: &str) -> Result<Vec<Night>, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/nights"),
            None::<&()>,
            None,
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
            None,
        )
        .await
    }

    pub async fn audit(&self, event_id: &str) -> Result<Vec<AuditEntry>, ErrorBody> {
        call(
            "GET",
            &format!("/api/admin/events/{event_id}/audit"),
            None::<&()>,
            None,
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
            None,
        )
        .await
    }

    /// The event's draw as published (`GET /api/events/{id}/draw`).
    pub async fn draw(&self, event_id: &str) -> Result<Draw, ErrorBody> {
        call(
            "GET",
            &format!("/api/events/{event_id}/draw"),
            None::<&()>,
            None,
        )
        .await
    }

    pub async fn set_beacon(&self, event_id: &str, beacon: &str) -> Result<Draw, ErrorBody> {
        call(
            "PUT",
            &format!("/api/admin/events/{event_id}/draw"),
            Some(&BeaconUpdate {
                beacon: beacon.to_owned(),
            }),
            None,
        )
        .await
    }

    pub async fn create_event(&self, event: &NewEvent) -> Result<Event, ErrorBody> {
        call("POST", "/api/admin/events", Some(event), None).await
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

/// The nonce that answers `asked`, found in steps of the shared search (`pow`), the page
/// painting between steps (it says "getting your place…" meanwhile).
async fn solve(asked: &ProofChallenge) -> u64 {
    const STEP: u64 = 1 << 16;
    let mut from = 0;
    loop {
        if let Some(nonce) = pow::search(&asked.challenge, asked.bits, from, STEP) {
            return nonce;
        }
        from += STEP;
        // Browser timers are not `Send`; the page runs on one thread, which SendWrapper checks.
        #[cfg(feature = "hydrate")]
        send_wrapper::SendWrapper::new(gloo_timers::future::TimeoutFuture::new(0)).await;
    }
}

/// A call of the JSON API from the browser (the session and admission cookies go along), with
/// one more `header` if given; an error answer becomes its [`ErrorBody`], whose message is
/// written for people.
#[cfg(all(feature = "hydrate", not(feature = "ssr")))]
async fn call<B: Serialize, T: DeserializeOwned>(
    method: &str,
    path: &str,
    body: Option<&B>,
    header: Option<(&str, &str)>,
) -> Result<T, ErrorBody> {
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
    if let Some((name, value)) = header {
        builder = builder.header(name, value);
    }
    let request = match body {
        Some(body) => builder.json(body).map_err(network)?,
        None => builder.build().map_err(network)?,
    };
    // Browser futures are not `Send`; the page runs on one thread, which SendWrapper checks.
    send_wrapper::SendWrapper::new(async move {
        let resp = request.send().await.map_err(network)?;
        let text = resp.text().await.map_err(network)?;
        if resp.ok() {
            serde_json::from_str(if text.is_empty() { "null" } else { &text }).map_err(|e| {
                ErrorBody::new("internal", format!("An answer we did not understand: {e}"))
            })
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
    _header: Option<(&str, &str)>,
) -> Result<T, ErrorBody> {
    Err(ErrorBody::new(
        "internal",
        format!("{path} is called from the browser only"),
    ))
}
