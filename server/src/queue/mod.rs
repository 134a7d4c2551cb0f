//! The line: `POST /api/events/{id}/queue` joins, `GET` polls, each one Redis round trip (one
//! script). Invariants (DESIGN.md 1, 2, 6): a buyer has at most one place per event and joining
//! again never moves them (ZADD NX on the buyer id); arrival order is a per-event arrival
//! number given inside the script, never an instance's clock; positions are 1-based; the
//! estimate (the model's, `ceil(position / N)` where seats do not bound the wait; N:
//! `rates::Board::in_force`) with its band ([`estimate`]) while the room runs, and
//! absent while it is paused; with the
//! room off, every buyer is admitted at once, for a short while and in the room's epoch only
//! (the gate refuses the token once the room is on), and uses up any place they had in the
//! line: a place is admitted once (DESIGN.md 3).
//!
//! Failover (Redis replicates asynchronously, so a promoted replica may lack the last joins
//! and admissions): every waiting answer hands the buyer a signed place receipt (arrival
//! number and position; the `anteroom_place_{E}` cookie, or the `Place-Token` header for API
//! clients). With it, a place the line lost is put back at its arrival number, an admission
//! it lost is marked again from the buyer's admission token, and an answer whose position is
//! larger than the receipt's says `recovered: true`: a buyer is never silently moved back.
//!
//! Sold out and the outlook (DESIGN.md): the line knows the inventory ([`inventory`]): seats
//! available, seats held (may come back) and when their holds end, seats sold, the holds so
//! far. When every seat is sold, join and poll answer `sold_out` (to the admitted too) and
//! nobody joins. The estimate, its band and the outlook come from one model
//! (`app::estimate::Model`) of the band ([`estimate`]) and the seats the script read with the
//! answer, with the admitted buyers who have not held yet ahead of everyone waiting.
//!
//! A place costs something (issue 16, finding 3): joins count against their network's limit
//! a minute (an IPv4 /24 or IPv6 /64, `crate::client`), a network is given at most
//! `places_per_network` places in one event's line (counted in the step that makes a place),
//! and a room may ask a proof of work for each new place ([`proof`]).
//!
//! A sale with an opening time (`opens_at`, see `crate::opening`): before its pre-queue opens
//! a join is refused (409 `not_open`) and stores nothing; in the pre-queue a join gets a random
//! ticket (the same one on every rejoin; the entry spends the network's share and the proof of
//! work as a place does) and no place; from the opening, joins take places behind every
//! entrant, whose places come with the draw. The windows are judged by Redis's clock inside the
//! same script, like arrival order (DESIGN.md 2); a join the instance's own clock already sees
//! before the pre-queue is refused without asking Redis.

pub mod device;
pub mod estimate;
pub mod inventory;
pub mod moving;
pub mod progress;
pub mod proof;
pub mod rates;
pub mod state;
pub mod wakes;

use app::{
    estimate::{Band, Model, Seats},
    presence::Schedule,
    wire::{BuyerId, EventId, QueueStatus, Room},
};
use axum::{
    Json, Router,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::post,
};
use chrono::{DateTime, Utc};
use redis::ScriptInvocation;

use crate::{
    accounts::eligible,
    client::{Client, Network},
    error::{Error, Result},
    extract, ids,
    queue::inventory::Inventory,
    queue::state::Line,
    redis::scripts::{Consume, Locate},
    responses::{NoEvent, RateLimited, Session},
    tokens::{
        Buyer,
        cookies::{Cookie, place_cookie_name},
        gate,
        session::Place as Receipt,
    },
};

/// The header in which API clients send back their place receipt.
pub const PLACE_HEADER: &str = "place-token";

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Line: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new().route(
        "/api/events/{event_id}/queue",
        post(join_handler).get(poll_handler),
    )
}

/// Where a buyer stands in an event's line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Admitted {
        expires_at: DateTime<Utc>,
        /// The line had lost this admission and marked it again from the buyer's token.
        restored: bool,
    },
    Waiting {
        position: u64,
        arrival: u64,
        /// The line had lost this place and put it back from the buyer's receipt.
        restored: bool,
        /// The seats as the line knew them when it answered (with the admitted buyers still
        /// shopping), for the estimate and the outlook; `None` while it does not know them.
        seats: Option<Seats>,
        /// When the line answered (Redis's clock, unix ms): the holds' ends count from it.
        now_ms: i64,
        /// A drawn entrant's ticket.
        ticket: Option<String>,
    },
    /// In the pre-queue, with this ticket.
    PreQueue {
        ticket: String,
    },
    /// Before the pre-queue opens: nothing stored.
    NotOpen,
    /// Every seat is sold: the line is over.
    SoldOut,
    /// No place: the joiner's network has taken all the places one network may.
    NetworkFull,
    /// The place moved to another device at `at` ([`moving`]): this buyer has none here, and
    /// gets none again.
    Moved {
        at: DateTime<Utc>,
    },
    Absent,
}

/// What a buyer brings that proves where they stood, in case the line lost it: the place
/// receipt of their last waiting answer and their admission token, both signed by this
/// deployment (the forged or foreign are ignored).
#[derive(Debug, Clone, Default)]
pub struct Proof {
    receipt: Option<Receipt>,
    admitted_until: Option<DateTime<Utc>>,
    /// In a room that binds tokens: the thumbprint of the device key the place is bound to
    /// (`device`), which a token minted for it carries.
    pub device: Option<String>,
}

impl Proof {
    /// The proof in a request's headers or cookies, for `buyer` in the line of `event_id`
    /// whose room is `room` (a receipt or an admission token of another epoch proves nothing).
    fn from_headers(
        state: &Line,
        headers: &HeaderMap,
        buyer: &BuyerId,
        event_id: &EventId,
        room: &Room,
    ) -> Self {
        let receipt = gate::presented(
            &state.config,
            headers,
            PLACE_HEADER,
            &place_cookie_name(event_id),
        )
        .and_then(|r| state.sessions.verify_place(r, buyer, event_id))
        // A place of the line of another epoch (before the room was last turned on or off)
        // is no place in this one.
        .filter(|place| place.epoch == room.epoch);
        let admitted_until = gate::admission(state, headers, event_id, buyer, room)
            .and_then(|claims| DateTime::from_timestamp(claims.exp, 0));
        Self {
            receipt,
            admitted_until,
            device: None,
        }
    }
}

/// A join or poll answer, and the place receipt that goes with it (waiting answers only).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: QueueStatus,
    pub receipt: Option<String>,
}

/// Who is joining: the client, whose network the per-network limits count, and the
/// `Join-Proof` header they sent, if any.
pub struct Joiner<'a> {
    pub client: Client,
    pub work: Option<&'a str>,
}

/// A place the locate script may make: for the joiner's network, paid for by the proof of
/// work the room asks (none when it asks none).
pub struct NewPlace {
    /// The buckets the place counts in (`Client::networks`): each may be given its share of
    /// `places_per_network`.
    pub networks: Vec<crate::client::Network>,
    pub proof: Option<proof::Proven>,
}

/// Joins `buyer` to the line of `event_id` (or finds them where they already are): within the
/// joins a network may make a minute, the places it may take, and the room's proof of work.
/// In a room that takes accounts only, or only some, the buyer's account is checked first
/// (`accounts::eligible`), before anything is stored.
pub async fn join(
    state: &Line,
    buyer: &Buyer,
    event_id: &EventId,
    headers: &HeaderMap,
    joiner: &Joiner<'_>,
) -> Result<Answer> {
    let room = state.rooms.get(&state.db, event_id).await?;
    // On or off: a room with no line keeps its rules of who may come in.
    eligible::check(&state.base, &room, buyer, event_id).await?;
    locate(state, &room, &buyer.id, event_id, headers, Some(joiner)).await
}

/// The window of `joins_per_network_per_minute`.
const JOIN_WINDOW: std::time::Duration = std::time::Duration::from_secs(60);

/// Where `buyer` stands, without joining; 404 `not_in_queue` if nowhere. A room that is off
/// admits whoever asks, so there the buyer's account is checked first, as at a join (in a
/// room that is on, a place was checked when it was taken).
pub async fn poll(
    state: &Line,
    buyer: &Buyer,
    event_id: &EventId,
    headers: &HeaderMap,
) -> Result<Answer> {
    let room = state.rooms.get(&state.db, event_id).await?;
    if !room.enabled {
        eligible::check(&state.base, &room, buyer, event_id).await?;
    }
    locate(state, &room, &buyer.id, event_id, headers, None).await
}

/// One round trip to Redis: the locate script, which joins the buyer if asked and puts back
/// what the line lost of them if the proof in `headers` shows it.
async fn locate(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    headers: &HeaderMap,
    joiner: Option<&Joiner<'_>>,
) -> Result<Answer> {
    state
        .metrics
        .queue_calls
        .with_label_values(&[if joiner.is_some() { "join" } else { "poll" }])
        .inc();
    if !room.enabled {
        return Ok(Answer {
            status: admitted_now(state, room, buyer, event_id).await,
            receipt: None,
        });
    }
    let mut proof = Proof::from_headers(state, headers, buyer, event_id, room);
    // In a room that binds tokens a join binds its place to the device at once; a poll looks
    // for the binding only once admitted (a waiting poll costs nothing more).
    let path = format!("/api/events/{event_id}/queue");
    if joiner.is_some() {
        proof.device = device::bind_join(state, room, buyer, event_id, headers, &path).await?;
    }
    let now = Utc::now();
    if joiner.is_some() && room.prequeue_opens_at.is_some_and(|t| now < t) {
        let band = Band::exact(state.rates.in_force(event_id.as_str(), room).max(1));
        return answer(state, room, buyer, event_id, Place::NotOpen, &proof, &band);
    }
    // The joiner's networks, computed once: the join counts against them, a new place in them.
    let join_networks = joiner.map_or_else(Vec::new, |j| j.client.networks());
    let new_place =
        joiner.and_then(|j| new_place(state, room, buyer, event_id, j, &join_networks, now));
    let band = state.bands.get(state, &state.rates, event_id, room).await;
    let reply: Reply = locate_script(
        state,
        room,
        buyer,
        event_id,
        &proof,
        (&join_networks, new_place.as_ref()),
        &band,
    )
    .invoke_async(&mut state.redis.clone())
    .await?;
    let place = place(reply)?;
    if matches!(
        place,
        Place::Admitted { restored: true, .. } | Place::Waiting { restored: true, .. }
    ) {
        state
            .metrics
            .queue_calls
            .with_label_values(&["restored"])
            .inc();
        tracing::warn!(event = %event_id, %buyer, ?place, "put back a place the line had lost");
    }
    if place == Place::Absent && joiner.is_some() && room.join_pow_bits > 0 {
        // A join finds no place only when it could not make one: it brought no valid proof,
        // or one already used.
        let challenge = proof::challenge(&state.sessions, buyer, event_id, room.join_pow_bits, now);
        return Err(Error::ProofRequired(challenge));
    }
    if matches!(place, Place::Admitted { .. }) && proof.device.is_none() {
        proof.device = device::bound_to(state, room, buyer, event_id, headers, &path).await?;
    }
    if matches!(place, Place::Waiting { .. } | Place::PreQueue { .. }) {
        // Someone is in line: a room at rest wakes (`admission::rest`).
        state.wakes.waiting(event_id.as_str());
    }
    answer(state, room, buyer, event_id, place, &proof, &band)
}

/// The place a join may make, if any: with the room's proof of work, only when the join
/// brought a valid one (without, the script only finds a place already held).
fn new_place(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    joiner: &Joiner<'_>,
    networks: &[Network],
    now: DateTime<Utc>,
) -> Option<NewPlace> {
    let proof = match room.join_pow_bits {
        0 => None,
        bits => Some(proof::check(
            &state.sessions,
            joiner.work?,
            buyer,
            event_id,
            bits,
            now,
        )?),
    };
    Some(NewPlace {
        networks: networks.to_vec(),
        proof,
    })
}

/// The locate script's call for `buyer` in the line of `event_id`: a join counted against
/// the joiner's networks (none for a poll), making `new_place` if the buyer has none (the line
/// benchmark fills lines with it too).
pub fn locate_script<'a>(
    state: &'a Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    proof: &Proof,
    (join_networks, new_place): (&[Network], Option<&NewPlace>),
    band: &Band,
) -> ScriptInvocation<'a> {
    let work = new_place.and_then(|p| p.proof.as_ref());
    // Only an entry in a pre-queue keeps a ticket: a poll, or a join to a sale without an
    // opening time, draws none (a draw from the OS is a system call, on the hot path).
    let ticket = if new_place.is_some() && room.opens_at.is_some() {
        ids::random_hex(16)
    } else {
        String::new()
    };
    Locate {
        event_id,
        proof_id: work.map(|w| w.id.as_str()),
        buyer,
        join: new_place.is_some(),
        receipt_arrival: proof.receipt.map(|r| r.arrival),
        admitted_until: proof.admitted_until,
        admitted_through: state.rooms.admitted_through(event_id),
        networks: new_place.map_or(&[], |p| &p.networks),
        places_per_network: state.config.places_per_network,
        proof_expires_at: work.map(|w| w.expires_at),
        prequeue_opens_at: room.prequeue_opens_at,
        opens_at: room.opens_at,
        ticket: &ticket,
        band: &band.record(),
        presence: schedule(state, band),
        join_networks,
        joins_per_network: state.config.joins_per_network_per_minute,
        join_window: JOIN_WINDOW,
        inventory_fields: &Inventory::FIELDS,
    }
    .invocation(&state.scripts, &state.keys)
}

/// The line's schedule of asks and presence (`app::presence`) at the rate of `band`.
fn schedule(state: &Line, band: &Band) -> Schedule {
    Schedule {
        rate: band.rate,
        floor_ms: u64::from(state.config.away_after_seconds) * 1000,
    }
}

/// The locate script's answer: kind, value, arrival, restored, the live admissions without a
/// hold, the inventory's values, an entrant's ticket ('' for none), and Redis's clock (ms).
type Reply = (String, i64, i64, i64, u64, Vec<Option<i64>>, String, i64);

fn place(
    (kind, value, arrival, restored, shopping, inventory, ticket, now_ms): Reply,
) -> Result<Place> {
    let restored = restored == 1;
    match kind.as_str() {
        "admitted" => DateTime::from_timestamp_millis(value)
            .map(|expires_at| Place::Admitted {
                expires_at,
                restored,
            })
            .ok_or_else(|| Error::Internal(format!("admission expiry {value} out of range"))),
        "waiting" => {
            let position = value.max(1) as u64;
            Ok(Place::Waiting {
                position,
                arrival: arrival.max(0) as u64,
                restored,
                seats: Inventory::from_values(&inventory).map(|i| i.seats(shopping)),
                now_ms,
                ticket: (!ticket.is_empty()).then_some(ticket),
            })
        }
        "moved" => DateTime::from_timestamp_millis(value)
            .map(|at| Place::Moved { at })
            .ok_or_else(|| Error::Internal(format!("move time {value} out of range"))),
        "pre_queue" => Ok(Place::PreQueue { ticket }),
        "not_open" => Ok(Place::NotOpen),
        "sold_out" => Ok(Place::SoldOut),
        "network_full" => Ok(Place::NetworkFull),
        "absent" => Ok(Place::Absent),
        "rate_limited" => Err(Error::RateLimited {
            retry_after_secs: (value.max(0) as u64).div_ceil(1000).max(1),
        }),
        other => Err(Error::Internal(format!("queue script answered {other:?}"))),
    }
}

fn answer(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
    place: Place,
    proof: &Proof,
    band: &Band,
) -> Result<Answer> {
    match place {
        Place::Admitted {
            expires_at,
            restored,
        } => Ok(Answer {
            status: state.keyring.current().mint(
                buyer,
                event_id,
                room,
                expires_at,
                restored,
                proof.device.clone(),
            ),
            receipt: None,
        }),
        Place::Waiting {
            position,
            arrival,
            restored,
            seats,
            now_ms,
            ticket,
        } => {
            // Positions only shrink as the line moves; a larger one than the buyer was told
            // for the same place means the line lost admissions (they are made again first).
            let moved_back = proof
                .receipt
                .is_some_and(|r| r.arrival == arrival && r.position < position);
            // The buyer already holds a receipt that says exactly this: no new one to sign
            // and send (a paused or slow line answers most polls this way).
            let current = Receipt {
                arrival,
                position,
                epoch: room.epoch,
            };
            let receipt = (proof.receipt != Some(current))
                .then(|| state.sessions.issue_place(buyer, event_id, current));
            // The same model the locate script recorded with a place it made just now.
            let model = Model {
                band: *band,
                seats,
                now_ms,
            };
            let (estimate, range) = model.wait(position);
            let asks = schedule(state, band);
            Ok(Answer {
                status: QueueStatus::Waiting {
                    position,
                    estimated_wait_seconds: (!room.paused).then_some(estimate),
                    estimate_range_seconds: (!room.paused).then_some(range),
                    paused: room.paused,
                    recovered: restored || moved_back,
                    arrival: Some(arrival),
                    outlook: model.outlook(position),
                    ticket,
                    poll_within_seconds: Some(asks.next_poll_ms(position) / 1000),
                    refresh_seconds: Some(asks.refresh_ms(position) / 1000),
                },
                receipt,
            })
        }
        Place::PreQueue { ticket } => Ok(Answer {
            status: QueueStatus::PreQueue {
                opens_at: room
                    .opens_at
                    .ok_or_else(|| Error::Internal("a pre-queue without an opening".into()))?,
                ticket,
                position: None,
                estimated_wait_seconds: None,
            },
            receipt: None,
        }),
        Place::NotOpen => Err(match (room.opens_at, room.prequeue_opens_at) {
            (Some(opens_at), Some(prequeue_opens_at)) => Error::NotOpen {
                opens_at,
                prequeue_opens_at,
            },
            _ => Error::Internal("not open, without an opening".into()),
        }),
        Place::SoldOut => Ok(Answer {
            status: QueueStatus::SoldOut,
            receipt: None,
        }),
        Place::NetworkFull => Err(Error::Forbidden(format!(
            "your network has taken the {} places in this line that one network may (an IPv6 \
             /56 four times that, a /48 sixteen times); join from another connection",
            state.config.places_per_network
        ))),
        Place::Moved { at } => Err(Error::Moved { at }),
        Place::Absent => Err(Error::NotInQueue),
    }
}

/// With the room off there is no line: a token at once, for [`ROOM_OFF_ADMISSION_SECS`].
async fn admitted_now(
    state: &Line,
    room: &Room,
    buyer: &BuyerId,
    event_id: &EventId,
) -> QueueStatus {
    // The buyer's place in the line, if they kept one from when the room was on, is used up
    // by this admission. Best effort: with Redis unreachable the room off still admits (that
    // is what it is for), and the place may then be admitted again once the room is on.
    let consumed: std::result::Result<i64, _> = Consume {
        event_id,
        second: Utc::now().timestamp(),
        buyer,
        logged_through: state.rooms.logged_through(event_id),
        life: std::time::Duration::from_secs(ROOM_OFF_ADMISSION_SECS.into()),
    }
    .invocation(&state.scripts, &state.keys)
    .invoke_async(&mut state.redis.clone())
    .await;
    if let Err(e) = consumed {
        tracing::warn!(event = %event_id, %buyer, error = %e, "could not use up a place in the line of a room that is off");
    }
    // Short: it admits to nothing more than the room off does, and no longer than needed
    // once the room is on again (its epoch differs then anyway).
    let ttl = state
        .config
        .admission_ttl_seconds
        .min(ROOM_OFF_ADMISSION_SECS);
    let expires_at = Utc::now() + chrono::Duration::seconds(i64::from(ttl));
    state
        .keyring
        .current()
        .mint(buyer, event_id, room, expires_at, false, None)
}

/// The life of an admission handed out at once while the room is off.
pub const ROOM_OFF_ADMISSION_SECS: u32 = 60;

/// The cookie that goes with an answer: an admission's token, so that browsers carry it
/// without script, or a waiting answer's place receipt.
pub fn answer_cookie<'a>(event_id: &'a EventId, answer: &'a Answer) -> Option<Cookie<'a>> {
    match (&answer.status, &answer.receipt) {
        (
            QueueStatus::Admitted {
                admission_token,
                expires_at,
                ..
            },
            _,
        ) => Some(Cookie::Admission {
            event_id,
            token: admission_token,
            expires_at: *expires_at,
        }),
        (QueueStatus::Waiting { .. }, Some(receipt)) => Some(Cookie::Place { event_id, receipt }),
        (QueueStatus::Waiting { .. } | QueueStatus::PreQueue { .. } | QueueStatus::SoldOut, _) => {
            None
        }
    }
}

/// The HTTP answer: 202 for a waiting join (in line or in the pre-queue), 200 otherwise, with
/// the answer's cookie.
fn respond(state: &Line, event_id: &EventId, answer: Answer, joining: bool) -> Response {
    let waiting = matches!(
        answer.status,
        QueueStatus::Waiting { .. } | QueueStatus::PreQueue { .. }
    );
    let code = if joining && waiting {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    let mut response = (code, Json(&answer.status)).into_response();
    if let Some(cookie) = answer_cookie(event_id, &answer) {
        cookie.set(&state.config, response.headers_mut());
    }
    response
}

#[utoipa::path(
    post,
    path = "/api/events/{event_id}/queue",
    tag = "queue",
    summary = "Join the line (or answer where the buyer stands)",
    params(crate::extract::EventPath, ("Join-Proof" = Option<String>, Header, description = "challenge:nonce, when the room asks for proof of work"), ("DPoP" = Option<String>, Header, description = "A proof JWT (RFC 9449), in a room that binds tokens")),
    security(("session" = [])),
    responses(
        (status = 200, description = "Admitted (or the room is off), or sold out", body = app::wire::QueueStatus),
        (status = 202, description = "Waiting, or in the pre-queue", body = app::wire::QueueStatus),
        (status = 400, description = "A bad DPoP proof, or none in a room that binds tokens", body = app::wire::ErrorBody),
        (status = 403, description = "Not eligible for this room", body = app::wire::ErrorBody),
        (status = 409, description = "not_open: before the pre-queue opens (with opens_at and prequeue_opens_at)", body = app::wire::ErrorBody),
        (status = 428, description = "proof_required: the room asks for proof of work (with challenge, bits, expires_at)", body = app::wire::ErrorBody),
        Session, NoEvent, RateLimited,
    )
)]
async fn join_handler(
    State(state): State<Line>,
    buyer: Buyer,
    client: Client,
    extract::EventId(event_id): extract::EventId,
    headers: HeaderMap,
) -> Result<Response> {
    let event_id = EventId::from(event_id);
    let joiner = Joiner {
        client,
        work: headers.get(proof::HEADER).and_then(|v| v.to_str().ok()),
    };
    let answer = join(&state, &buyer, &event_id, &headers, &joiner).await?;
    Ok(respond(&state, &event_id, answer, true))
}

#[utoipa::path(
    get,
    path = "/api/events/{event_id}/queue",
    tag = "queue",
    summary = "Where the buyer stands in the line",
    params(crate::extract::EventPath),
    security(("session" = [])),
    responses(
        (status = 200, description = "Waiting, in the pre-queue, admitted or sold out", body = app::wire::QueueStatus),
        (status = 404, description = "not_in_queue: never joined, admission expired, or the place moved (moved: true); or no such event", body = app::wire::ErrorBody),
        Session, RateLimited,
    )
)]
async fn poll_handler(
    State(state): State<Line>,
    buyer: Buyer,
    extract::EventId(event_id): extract::EventId,
    headers: HeaderMap,
) -> Result<Response> {
    let event_id = EventId::from(event_id);
    let answer = poll(&state, &buyer, &event_id, &headers).await?;
    Ok(respond(&state, &event_id, answer, false))
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(join_handler, poll_handler))]
pub struct Api;
