//! Moving a place to another device (API.md "Moving a place to another device"): the waiting
//! buyer's session asks for a one-time code (`POST .../queue/move`), another session claims it
//! (`POST .../queue/claim`) and the place is that session's from then on.
//!
//! Invariants:
//! - A code is 10 symbols of Crockford's base32 (50 bits from the operating system's
//!   randomness), lives 10 minutes and moves one place once: the claim script deletes it in the
//!   step that moves the place (`claim.lua`). Asking again while it lives gives the same code.
//!   Claims count against their network's limit a minute, so codes cannot be guessed.
//! - The move is one script: every record of the place (arrival number, admission expiry,
//!   shopping and seen marks, the skip while away, how it joined, a pre-queue ticket, the
//!   device binding) goes to the claimer unchanged, so the position is the same; the claimer's
//!   own place, if any, is given up in that step. The place is never in two sessions nor lost.
//! - A place moves at most once (DESIGN.md 1: one place per buyer, never duplicated): neither
//!   the session it left nor the one it went to gets a code for it again (409).
//! - The session a place left never gets it back, nor a new one: `locate.lua` answers 'moved'
//!   before an admission token or a place receipt could put it back (a failover's restore
//!   path) and before a join could make a new place, so its page learns where the place went
//!   (404 `not_in_queue` with `moved`).
//! - No pre-queue entrant's place moves (nor is given up by a claimer who is one) from the
//!   opening until the draw is made: the draw reads the entrants, then puts them in line, and
//!   a rename between the two would lose the place. The code stays good for after the draw.
//! - In a room that binds tokens only the place's device asks for a code (a proof from the
//!   bound key), an admitted place does not move (its admission is the bound device's), and a
//!   claim must bring a DPoP proof: the place is bound to the claimer's key in the same step
//!   (the old device's key is forgotten).
//! - The claim answers as a join does (200 admitted / 202 waiting, and the same cookies):
//!   after the script, it is the poll of the claimer, by the same code path.

use app::wire::{BuyerId, ClaimRequest, EventId, MoveCode};
use axum::{
    Json, Router,
    extract::State,
    http::{HeaderMap, Method, StatusCode, header},
    response::Response,
    routing::post,
};
use chrono::{DateTime, Utc};
use qrcode::{QrCode, render::svg};
use rand::RngCore;

use crate::{
    client::Client,
    error::{Error, Result},
    extract::{self, ApiJson},
    queue::state::Line,
    queue::{device, inventory::Inventory, poll, respond},
    ratelimit,
    redis::scripts::{Claim, OfferMove},
    responses::{NoMoveCode, RateLimited, Session, WrongShape},
    tokens::{Buyer, cookies::Cookie},
};

/// How long a move code lives.
pub const CODE_LIFE_MS: u64 = 10 * 60 * 1000;

/// The symbols of a code: Crockford's base32 (no I, L, O or U, which read as other symbols).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Symbols in a code: 50 bits.
const CODE_LEN: usize = 10;

/// The longest claimed code read at all (blanks and dashes included); longer is no code.
const MAX_TYPED_LEN: usize = 64;

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Line: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/api/events/{event_id}/queue/move", post(move_handler))
        .route(
            "/api/events/{event_id}/queue/claim",
            post(claim_handler).get(preview_handler),
        )
}

/// A fresh code, as stored (no dashes).
fn new_code() -> String {
    let mut bytes = [0u8; CODE_LEN];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    // 256 is a multiple of 32: the low five bits of a random byte are uniform.
    bytes
        .iter()
        .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
        .collect()
}

/// A stored code as people read it: `K7QMF-3XWD9`.
fn shown(code: &str) -> String {
    let (a, b) = code.split_at(code.len() / 2);
    format!("{a}-{b}")
}

/// The stored form of a typed code: any case, with or without dashes and blanks, and the
/// symbols Crockford's base32 reads as others (O as 0, I and L as 1); `None` if it cannot be
/// a code.
fn canonical(typed: &str) -> Option<String> {
    if typed.len() > MAX_TYPED_LEN {
        return None;
    }
    let code = typed
        .chars()
        .filter(|c| *c != '-' && !c.is_whitespace())
        .map(|c| match c.to_ascii_uppercase() {
            'O' => Some('0'),
            'I' | 'L' => Some('1'),
            c if c.is_ascii() && ALPHABET.contains(&(c as u8)) => Some(c),
            _ => None,
        })
        .collect::<Option<String>>()?;
    (code.len() == CODE_LEN).then_some(code)
}

/// Whether a `Host` header value is a plain `host[:port]` we may put in a link.
fn sane_host(host: &str) -> bool {
    (1..=255).contains(&host.len())
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
}

/// The event page's address that claims `code`: absolute when the request names a sane host
/// (the scheme from `X-Forwarded-Proto` when it says exactly http or https), else relative.
fn claim_url(headers: &HeaderMap, event_id: &EventId, code: &str) -> String {
    let path = format!("/events/{event_id}?claim={code}");
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| sane_host(h));
    let Some(host) = host else {
        return path;
    };
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}{path}")
}

/// `url` as a QR code: an SVG of dark modules on white with the quiet zone around them,
/// announced as an image (the crate draws only rects and a path; nothing else is added).
fn qr_svg(url: &str) -> Result<String> {
    let code = QrCode::new(url.as_bytes())
        .map_err(|e| Error::Internal(format!("a claim link as a QR code: {e}")))?;
    let drawn = code
        .render::<svg::Color>()
        .quiet_zone(true)
        .min_dimensions(200, 200)
        .dark_color(svg::Color("#000000"))
        .light_color(svg::Color("#ffffff"))
        .build();
    // The crate writes an XML prolog (out of place inside HTML) and no accessible name.
    let start = drawn
        .find("<svg")
        .ok_or_else(|| Error::Internal("the QR code's SVG has no <svg>".into()))?;
    let svg = &drawn[start + "<svg".len()..];
    let open_end = svg
        .find('>')
        .ok_or_else(|| Error::Internal("the QR code's <svg> is not closed".into()))?;
    let (attributes, rest) = svg.split_at(open_end + 1);
    const LABEL: &str = "QR code of the link that moves your place to this device";
    Ok(format!(
        r#"<svg role="img" aria-label="{LABEL}"{attributes}<title>{LABEL}</title>{rest}"#
    ))
}

/// The offer script's answer: kind, code, when it expires (epoch ms).
type Offer = (String, String, i64);

/// A code that moves `buyer`'s place in the line of `event_id`, or the one given before while
/// it lives: (stored code, when it expires).
pub async fn offer(
    state: &Line,
    buyer: &BuyerId,
    event_id: &EventId,
    headers: &HeaderMap,
) -> Result<(String, DateTime<Utc>)> {
    let room = state.rooms.get(&state.db, event_id).await?;
    if !room.enabled {
        return Err(Error::Conflict(
            "this sale has no line now: any device gets in at once".into(),
        ));
    }
    // In a room that binds tokens only the place's device moves it: a copied session cannot
    // move the place to the copier's key.
    let path = format!("/api/events/{event_id}/queue/move");
    device::prove_owner(
        state,
        &room,
        buyer,
        event_id,
        (&Method::POST, &path),
        headers,
    )
    .await?;
    // Seats held are the session's (holds have an owner); its place stays with them.
    let held: bool = sqlx::query_scalar(
        "select exists(select 1 from hold where event_id = $1 and buyer_id = $2)",
    )
    .bind(event_id.as_str())
    .bind(buyer.as_str())
    .fetch_one(&state.db)
    .await?;
    if held {
        return Err(Error::Conflict(
            "you have held seats with this place: it stays on this device".into(),
        ));
    }
    let keys = &state.keys;
    let mut redis = state.redis.clone();
    // Another ask racing this one, or a code another buyer holds (50 bits: all but never),
    // makes the script answer 'taken': a few tries settle it.
    for _ in 0..3 {
        let given: Option<String> = redis::cmd("HGET")
            .arg(keys.moving(event_id))
            .arg(buyer.as_str())
            .query_async(&mut redis)
            .await?;
        let code = new_code();
        let (kind, code, expiry_ms): Offer = OfferMove {
            event_id,
            code: &code,
            given: given.as_deref(),
            buyer,
            life: std::time::Duration::from_millis(CODE_LIFE_MS),
            sold_out_field: Inventory::FIELDS[0],
            binds_tokens: room.bind_tokens,
        }
        .invocation(&state.scripts, keys)
        .invoke_async(&mut redis)
        .await?;
        match kind.as_str() {
            "code" => {
                let expires_at = DateTime::from_timestamp_millis(expiry_ms).ok_or_else(|| {
                    Error::Internal(format!("move code expiry {expiry_ms} out of range"))
                })?;
                return Ok((code, expires_at));
            }
            "taken" => continue,
            "sold_out" => {
                return Err(Error::Conflict(
                    "every seat is sold: there is no place to move".into(),
                ));
            }
            "moved" => {
                return Err(Error::Conflict(
                    "this place has moved from one device to another already; a place moves \
                     once"
                        .into(),
                ));
            }
            "absent" => return Err(Error::NotInQueue),
            "admitted" => {
                return Err(Error::Conflict(
                    "you are admitted on this device, and this sale binds an admission to the \
                     device it was given to: it cannot move"
                        .into(),
                ));
            }
            other => return Err(Error::Internal(format!("move script answered {other:?}"))),
        }
    }
    Err(Error::Unavailable {
        message: "could not make a move code just now; try again".into(),
        retry_after_secs: 1,
    })
}

/// `POST /api/events/{id}/queue/move`: 201 and the code.
#[utoipa::path(
    post,
    path = "/api/events/{event_id}/queue/move",
    tag = "queue",
    summary = "A one-time code to move this place to another device (10 minutes)",
    params(crate::extract::EventPath, ("DPoP" = Option<String>, Header, description = "A proof JWT, in a room that binds tokens")),
    security(("session" = [])),
    responses(
        (status = 201, description = "The code", body = app::wire::MoveCode),
        (status = 400, description = "No DPoP proof, or a bad one, in a room that binds tokens", body = app::wire::ErrorBody),
        (status = 404, description = "not_in_queue: no place to move, or no such event", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: the place has moved already", body = app::wire::ErrorBody),
        Session, RateLimited,
    )
)]
async fn move_handler(
    State(state): State<Line>,
    buyer: Buyer,
    extract::EventId(event_id): extract::EventId,
    headers: HeaderMap,
) -> Result<(StatusCode, Json<MoveCode>)> {
    let event_id = EventId::from(event_id);
    let (code, expires_at) = offer(&state, &buyer.id, &event_id, &headers).await?;
    let code = shown(&code);
    let claim_url = claim_url(&headers, &event_id, &code);
    let qr_svg = qr_svg(&claim_url)?;
    Ok((
        StatusCode::CREATED,
        Json(MoveCode {
            code,
            expires_at,
            claim_url,
            qr_svg,
        }),
    ))
}

/// What a used, expired or unknown code is told.
fn no_such_code() -> Error {
    Error::NotFound(
        "there is no such move code: it may have expired or been used; ask for a new one on \
         the device that has the place"
            .into(),
    )
}

/// Moves the place whose code is `typed` to `buyer` (who claims it): the time it moved. Callers
/// go through [`claim_counted`], which counts the claim first.
async fn claim(
    state: &Line,
    buyer: &BuyerId,
    event_id: &EventId,
    typed: &str,
    headers: &HeaderMap,
) -> Result<DateTime<Utc>> {
    let code = canonical(typed).ok_or_else(no_such_code)?;
    let room = state.rooms.get(&state.db, event_id).await?;
    if !room.enabled {
        return Err(Error::Conflict(
            "this sale has no line now: any device gets in at once".into(),
        ));
    }
    let device = if room.bind_tokens {
        let path = format!("/api/events/{event_id}/queue/claim");
        Some(device::prove(state, event_id, (&Method::POST, &path), headers).await?)
    } else {
        None
    };
    let (kind, at): (String, i64) = Claim {
        event_id,
        code: &code,
        buyer,
        device: device.as_deref(),
        opens_at: room.opens_at,
    }
    .invocation(&state.scripts, &state.keys)
    .invoke_async(&mut state.redis.clone())
    .await?;
    match kind.as_str() {
        "claimed" => DateTime::from_timestamp_millis(at)
            .ok_or_else(|| Error::Internal(format!("move time {at} out of range"))),
        "unknown" | "gone" => Err(no_such_code()),
        "own" => Err(Error::Conflict(
            "this is your own move code: open it on the other device".into(),
        )),
        "claimer_moved" => Err(Error::Conflict(
            "this device's place has moved once already: it cannot take another by a code".into(),
        )),
        "claimer_admitted" => Err(Error::Conflict(
            "you are admitted on this device already: a moved place would take that away".into(),
        )),
        "drawing" => Err(Error::Conflict(
            "the sale is opening and the draw is being made: the code stays good, claim again \
             in a few seconds"
                .into(),
        )),
        other => Err(Error::Internal(format!("claim script answered {other:?}"))),
    }
}

/// Refuses (403 `not_admitted`) a buyer whose place moved away: their admission token, minted
/// before the move, is still valid until it expires, but the seats are held by the session the
/// place went to. One Redis read, on the hold path only (the seat map shows nothing to hold).
pub async fn not_moved_away(state: &Line, buyer: &BuyerId, event_id: &EventId) -> Result<()> {
    let moved: bool = redis::cmd("HEXISTS")
        .arg(state.keys.moved(event_id))
        .arg(buyer.as_str())
        .query_async(&mut state.redis.clone())
        .await?;
    if moved {
        return Err(Error::NotAdmitted {
            event_id: event_id.to_string(),
        });
    }
    Ok(())
}

/// A claim as a buyer makes it, by the API or by the page's form: counted against the claims
/// a minute of the buyer's network first (a code is guessed no faster), then [`claim`].
pub async fn claim_counted(
    state: &Line,
    who: &Buyer,
    client: &Client,
    event_id: &EventId,
    typed: &str,
    headers: &HeaderMap,
) -> Result<DateTime<Utc>> {
    count_claim(state, client).await?;
    // A place keeps its room's rules when it moves: the claimer must be one the room would
    // let join (refused before the code is touched, so it stays good).
    let room = state.rooms.get(&state.db, event_id).await?;
    crate::accounts::eligible::check(&state.base, &room, who, event_id).await?;
    let buyer = &who.id;
    let at = claim(state, buyer, event_id, typed, headers).await?;
    tracing::info!(event = %event_id, %buyer, %at, "a place moved to another device");
    Ok(at)
}

/// Counts a claim (or a look at a code) against the network's claims a minute: a code is
/// guessed no faster one way than the other.
async fn count_claim(state: &Line, client: &Client) -> Result<()> {
    ratelimit::check_networks(
        state,
        "claim",
        &client.networks(),
        state.config.claims_per_network_per_minute,
        std::time::Duration::from_secs(60),
    )
    .await
}

/// `GET /api/events/{id}/queue/claim?code=`: where the place `code` would move here stands
/// (a page with a place of its own shows both, and claims only when the buyer chooses).
/// Counted against the network's claims a minute like a claim, so codes are guessed no faster
/// by looking; changes nothing. A used, expired or unknown code: 404; the buyer's own: 409.
#[utoipa::path(
    get,
    path = "/api/events/{event_id}/queue/claim",
    tag = "queue",
    summary = "What a move code would bring (without taking it)",
    params(crate::extract::EventPath, ("code" = String, Query, description = "The move code")),
    security(("session" = [])),
    responses(
        (status = 200, description = "The place the code moves", body = app::wire::ClaimPreview),
        (status = 400, description = "No code", body = app::wire::ErrorBody),
        (status = 409, description = "conflict: the buyer's own move code (it is opened on the other device)", body = app::wire::ErrorBody),
        Session, NoMoveCode, RateLimited,
    )
)]
async fn preview_handler(
    State(state): State<Line>,
    buyer: Buyer,
    client: Client,
    extract::EventId(event_id): extract::EventId,
    query: std::result::Result<
        axum::extract::Query<std::collections::HashMap<String, String>>,
        axum::extract::rejection::QueryRejection,
    >,
) -> Result<Json<app::wire::ClaimPreview>> {
    let axum::extract::Query(query) = query.map_err(|e| Error::BadRequest(e.body_text()))?;
    let event_id = EventId::from(event_id);
    count_claim(&state, &client).await?;
    let code = query
        .get("code")
        .and_then(|typed| canonical(typed))
        .ok_or_else(no_such_code)?;
    let keys = &state.keys;
    let mut redis = state.redis.clone();
    let owner: Option<String> = redis::cmd("GET")
        .arg(keys.move_code(&event_id, &code))
        .query_async(&mut redis)
        .await?;
    let owner = owner.ok_or_else(no_such_code)?;
    if owner == buyer.id.as_str() {
        return Err(Error::Conflict(
            "this is your own move code: open it on the other device".into(),
        ));
    }
    type Found = (Option<u64>, Option<f64>, Option<String>, Option<f64>);
    let (rank, expiry, ticket, away): Found = redis::pipe()
        .zrank(keys.queue(&event_id), &owner)
        .zscore(keys.admitted(&event_id), &owner)
        .hget(keys.entrants(&event_id), &owner)
        .zscore(keys.away(&event_id), &owner)
        .query_async(&mut redis)
        .await?;
    let now_ms = Utc::now().timestamp_millis() as f64;
    use app::wire::MovingPlace;
    let (status, position) = match (rank, expiry, ticket, away) {
        (Some(rank), ..) => (MovingPlace::Waiting, Some(rank + 1)),
        // Skipped while its page was gone: first in line at its next poll.
        (None, _, _, Some(_)) => (MovingPlace::Waiting, Some(1)),
        (None, Some(expiry), ..) if expiry > now_ms => (MovingPlace::Admitted, None),
        (None, _, Some(_), _) => (MovingPlace::PreQueue, None),
        _ => return Err(no_such_code()),
    };
    Ok(Json(app::wire::ClaimPreview { status, position }))
}

/// `POST /api/events/{id}/queue/claim`: the place moves here, and the answer is a join's.
#[utoipa::path(
    post,
    path = "/api/events/{event_id}/queue/claim",
    tag = "queue",
    summary = "Take a place moved from another device",
    params(crate::extract::EventPath, ("DPoP" = Option<String>, Header, description = "A proof JWT, in a room that binds tokens")),
    request_body = app::wire::ClaimRequest,
    security(("session" = [])),
    responses(
        (status = 200, description = "Admitted, or sold out", body = app::wire::QueueStatus),
        (status = 202, description = "Waiting, at the same position or less", body = app::wire::QueueStatus),
        (status = 400, description = "A malformed body or a bad DPoP proof", body = app::wire::ErrorBody),
        (status = 409, description = "conflict", body = app::wire::ErrorBody),
        Session, NoMoveCode, WrongShape, RateLimited,
    )
)]
async fn claim_handler(
    State(state): State<Line>,
    buyer: Buyer,
    client: Client,
    extract::EventId(event_id): extract::EventId,
    headers: HeaderMap,
    ApiJson(request): ApiJson<ClaimRequest>,
) -> Result<Response> {
    // A link on another site must not move a place by script behind the buyer's back.
    if extract::cross_site(&headers) {
        return Err(Error::Forbidden(
            "a place is claimed from this site's own page or an app, not from another site".into(),
        ));
    }
    let event_id = EventId::from(event_id);
    claim_counted(&state, &buyer, &client, &event_id, &request.code, &headers).await?;
    // The claimer's own headers prove nothing of this place (a receipt or a token they carry
    // is of a place they gave up): the poll reads the line alone, and hands out a receipt and
    // a token (bound to the key the script stored) for the place as it is now.
    let answer = poll(&state, &buyer, &event_id, &HeaderMap::new()).await?;
    let no_receipt = answer.receipt.is_none();
    let mut response = respond(&state, &event_id, answer, true);
    if no_receipt {
        // A receipt this browser holds is of the place it gave up: an answer without a new
        // one (admitted, in the pre-queue) does not replace it, and kept, it could put that
        // place back once an admission ends (the failover's restore path).
        Cookie::PlaceGone {
            event_id: &event_id,
        }
        .set(&state.config, response.headers_mut());
    }
    Ok(response)
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(move_handler, claim_handler, preview_handler))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_read_in_any_case_with_or_without_dashes_and_blanks() {
        let code = new_code();
        assert_eq!(code.len(), CODE_LEN);
        assert_eq!(canonical(&code).as_deref(), Some(code.as_str()));
        assert_eq!(canonical(&shown(&code)).as_deref(), Some(code.as_str()));
        let typed = format!(" {} ", shown(&code).to_lowercase().replace('-', " - "));
        assert_eq!(canonical(&typed).as_deref(), Some(code.as_str()));
        assert_eq!(canonical("oil0o-11111").as_deref(), Some("0110011111"));
    }

    #[test]
    fn anything_else_is_no_code() {
        for typed in [
            "",
            "ABCDE-FGHJ",
            "ABCDE-FGHJKM",
            "ABCDE-FGHJU",
            "ABCDE/FGHJK",
            "ÄBCDE-FGHJK",
            &"-".repeat(65),
        ] {
            assert_eq!(canonical(typed), None, "{typed:?}");
        }
    }

    #[test]
    fn the_claim_link_names_the_host_only_when_it_is_a_plain_host() {
        let event = EventId::from("e1".to_owned());
        let mut headers = HeaderMap::new();
        assert_eq!(claim_url(&headers, &event, "A-B"), "/events/e1?claim=A-B");
        headers.insert(header::HOST, "t.example:3000".parse().unwrap());
        assert_eq!(
            claim_url(&headers, &event, "A-B"),
            "http://t.example:3000/events/e1?claim=A-B"
        );
        headers.insert("x-forwarded-proto", "https".parse().unwrap());
        assert!(claim_url(&headers, &event, "A-B").starts_with("https://t.example:3000/"));
        headers.insert("x-forwarded-proto", "javascript".parse().unwrap());
        assert!(claim_url(&headers, &event, "A-B").starts_with("http://"));
        for bad in ["a b", "evil.example/x", "x\"y", &"h".repeat(256)] {
            headers.insert(header::HOST, bad.parse().unwrap());
            assert_eq!(claim_url(&headers, &event, "A-B"), "/events/e1?claim=A-B");
        }
    }

    #[test]
    fn the_qr_code_is_an_image_with_a_name_and_no_script() {
        let svg = qr_svg("http://t.example/events/e1?claim=ABCDE-FGHJK").unwrap();
        assert!(svg.starts_with(r#"<svg role="img" aria-label=""#), "{svg}");
        assert!(svg.contains("<title>"));
        assert!(svg.contains(r##"fill="#ffffff""##) && svg.contains(r##"fill="#000000""##));
        assert!(!svg.contains("<?xml") && !svg.to_lowercase().contains("script"));
        assert!(svg.ends_with("</svg>"));
    }
}
