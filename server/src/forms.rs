//! The event page's forms, for browsers without JavaScript: hold (chosen seats, or best
//! available), release, pay, and claim a place moved here from another device. They are posted
//! as `application/x-www-form-urlencoded` and answered with `303 See Other` to the event's
//! page, which server rendering draws at the stage they led to (it finds the buyer's hold or
//! order). A hydrated page posts the same forms by script, to the JSON API.
//!
//! Invariants:
//! - No logic twice: each form calls the function its JSON endpoint calls ([`holds::hold`],
//!   [`holds::release`], [`checkout::pay`], [`moving::claim_counted`]) behind the same session
//!   and admission checks ([`Buyer`], [`AdmittedBuyer::check`]); every form opens the same way,
//!   by the `Posted` extractor (the fields read, the site, the session and the token checked).
//! - A post from another site changes nothing: a browser that says it is cross-site
//!   (`Sec-Fetch-Site`) or names another `Origin` is refused (403), and every form must carry
//!   the token signed for this session and event ([`form_token`]), which only a page of ours
//!   rendered for this buyer holds.
//! - Every refusal the buyer can meet leads back to the page with a [`Note`]: a fixed code the
//!   page turns into one sentence, never text from the request.
//! - A form reads at most the body limit (1 MiB, read before the handler runs) and names at
//!   most the per-buyer seat limit: past it, the form is refused before any query.

use app::{
    wire::{BuyerId, EventId, HoldRequest, PageForms, QueueStatus},
    words::Note,
};
use axum::{
    Router,
    body::Bytes,
    extract::{FromRef, FromRequest, FromRequestParts, Request, State},
    http::{HeaderMap, HeaderValue, Method, StatusCode, header},
    response::{IntoResponse, Response},
    routing::post,
};

use crate::{
    checkout,
    checkout::state::Checkout,
    client::Client,
    error::Error,
    extract::{self, HoldId},
    holds,
    queue::{self, moving},
    tokens::{Buyer, cookies::Cookie, gate::AdmittedBuyer, session::Sessions},
};

pub fn router<S>() -> Router<S>
where
    S: Clone + Send + Sync + 'static,
    Checkout: axum::extract::FromRef<S>,
    crate::tokens::state::Tokens: axum::extract::FromRef<S>,
    crate::base::Base: axum::extract::FromRef<S>,
{
    Router::new()
        .route("/events/{event_id}/hold", post(hold_form))
        .route(
            "/events/{event_id}/holds/{hold_id}/release",
            post(release_form),
        )
        .route("/events/{event_id}/holds/{hold_id}/pay", post(pay_form))
        .route("/events/{event_id}/claim", post(claim_form))
}

/// The purpose under which [`form_token`] is signed.
const PURPOSE: &str = "page-form";

/// The token of the page's forms for `buyer` at `event_id`: the same for every page the
/// session renders of the event, unknown to any other site.
pub fn form_token(sessions: &Sessions, buyer: &BuyerId, event_id: &EventId) -> String {
    sessions.sign_for(PURPOSE, buyer, event_id, "v1")
}

/// The hidden fields of one rendering of the event page.
pub fn page_forms(sessions: &Sessions, buyer: &BuyerId, event_id: &EventId) -> PageForms {
    PageForms {
        token: form_token(sessions, buyer, event_id),
        key: crate::ids::random_id(16),
    }
}

/// The event page of a form's path (`/events/{id}/...`) and which form it is, if it is one of
/// these forms' paths.
pub fn form_of(path: &str) -> Option<(String, Form)> {
    let rest = path.strip_prefix("/events/")?;
    let (event_id, action) = rest.split_once('/')?;
    let form = match action {
        "hold" => Form::Hold,
        "claim" => Form::Claim,
        _ => match action.strip_prefix("holds/")?.split_once('/')?.1 {
            "release" => Form::Release,
            "pay" => Form::Pay,
            _ => return None,
        },
    };
    crate::extract::is_event_id(event_id).then(|| (page(event_id), form))
}

fn page(event_id: &str) -> String {
    format!("/events/{event_id}")
}

/// `303 See Other` to `page`, with `note` for it to show.
pub fn see_other(page: &str, note: Option<(Note, Option<u64>)>) -> Response {
    let location = match note {
        None => page.to_owned(),
        Some((note, Some(retry))) if note.waits() => {
            format!("{page}?note={}&retry={retry}", note.code())
        }
        Some((note, _)) => format!("{page}?note={}", note.code()),
    };
    let mut response = StatusCode::SEE_OTHER.into_response();
    response.headers_mut().insert(
        header::LOCATION,
        HeaderValue::from_str(&location).expect("an event id and a fixed code"),
    );
    response
}

/// The page with the note a refusal of one of these forms (`what`) means; a refusal that is
/// not the form's (the request was shed) comes here too.
pub fn refused(page: &str, what: Form, e: &Error) -> Response {
    let note = match e {
        Error::SeatUnavailable(ids) if ids.is_empty() => Note::NotTogether,
        Error::SeatUnavailable(_) => Note::SeatTaken,
        Error::Unprocessable(_) | Error::BadRequest(_) | Error::PayloadTooLarge => Note::BadForm,
        Error::Unauthorized(_) => Note::NoSession,
        Error::NotFound(_) if what == Form::Claim => Note::ClaimRefused,
        Error::Conflict(_) if what == Form::Claim => Note::ClaimConflict,
        Error::NotFound(_) => Note::NoHold,
        Error::NotOpen { .. } => Note::NotOpen,
        Error::PaymentDeclined => Note::Declined,
        Error::RateLimited { .. } => Note::RateLimited,
        Error::Conflict(_) if what == Form::Release => Note::AlreadyPaid,
        Error::Conflict(_) => Note::HoldEnded,
        Error::Unavailable { .. } if what == Form::Pay => Note::PayNotDone,
        Error::Unavailable { .. } => Note::Busy,
        e if e.status_code() == StatusCode::SERVICE_UNAVAILABLE => Note::Unavailable,
        e => {
            if e.status_code().is_server_error() {
                tracing::error!(error = %e, debug = ?e, "a page form failed");
            }
            Note::Failed
        }
    };
    let retry = match e {
        Error::RateLimited { retry_after_secs }
        | Error::Unavailable {
            retry_after_secs, ..
        } => Some(*retry_after_secs),
        _ => Some(1),
    };
    see_other(page, Some((note, retry)))
}

/// Which form was posted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Hold,
    Release,
    Pay,
    Claim,
}

/// The most fields a form may carry: the seats of the largest hold and a few more. A longer
/// form is refused before its seats are looked at.
const MAX_FIELDS: usize = 256;

/// The fields of a posted form, read once.
struct Fields {
    pairs: Vec<(String, String)>,
}

impl Fields {
    fn parse(body: &[u8]) -> Result<Self, Error> {
        let pairs: Vec<_> = form_urlencoded::parse(body)
            .take(MAX_FIELDS + 1)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if pairs.len() > MAX_FIELDS {
            return Err(Error::Unprocessable("the form has too many fields".into()));
        }
        Ok(Self { pairs })
    }

    fn one(&self, name: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.trim())
    }

    fn all(&self, name: &str) -> impl Iterator<Item = &str> {
        self.pairs
            .iter()
            .filter(move |(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

fn forbidden() -> Response {
    (
        StatusCode::FORBIDDEN,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "This form was sent from another site, so nothing was changed.\n",
    )
        .into_response()
}

/// Why a form is refused before anything is done.
enum Refusal {
    /// From another site: 403.
    CrossSite,
    /// Back to the page with a note.
    Back(Note),
}

impl Refusal {
    fn answer(self, page: &str) -> Response {
        match self {
            Refusal::CrossSite => forbidden(),
            Refusal::Back(note) => see_other(page, Some((note, None))),
        }
    }
}

/// What every form checks first: not cross-site, a session, the form's token.
fn check(
    state: &Checkout,
    headers: &HeaderMap,
    event_id: &EventId,
    fields: &Fields,
) -> Result<Buyer, Refusal> {
    if crate::extract::cross_site(headers) {
        return Err(Refusal::CrossSite);
    }
    let Some(buyer) = state.sessions.buyer_of(&state.config, headers) else {
        return Err(Refusal::Back(Note::NoSession));
    };
    let token_ok = fields.one("token").is_some_and(|t| {
        state
            .sessions
            .signed_fields(PURPOSE, &buyer.id, event_id, t)
            == Some("v1")
    });
    if !token_ok {
        // From our own page (the browser says so) with an old token: the page again. From
        // anywhere else: refused.
        let ours = headers
            .get("sec-fetch-site")
            .is_some_and(|v| v.as_bytes() == b"same-origin");
        return Err(if ours {
            Refusal::Back(Note::StaleForm)
        } else {
            Refusal::CrossSite
        });
    }
    Ok(buyer)
}

/// A form's post, opened as every form opens: the path's `{event_id}` (then what else of the
/// path `P` names, as `HoldId`), the event's page, the request's headers, and the body read
/// into its fields and checked ([`check`]) for its buyer. A post that does not open is
/// answered here: the path's 404, the body's refusal, or the page with the refusal's note.
struct Posted<P = ()> {
    event_id: EventId,
    page: String,
    part: P,
    headers: HeaderMap,
    fields: Fields,
    buyer: Buyer,
}

impl<S, P> FromRequest<S> for Posted<P>
where
    S: Send + Sync,
    Checkout: FromRef<S>,
    P: FromRequestParts<S> + Send,
    P::Rejection: IntoResponse,
{
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> Result<Self, Response> {
        let (mut parts, body) = req.into_parts();
        let extract::EventId(event_id) = extract::EventId::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let part = P::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        // The route matched a form's path, but its event id may be spelt another way (escaped):
        // refused, never passed on to a form it does not name.
        let (page, form) = form_of(parts.uri.path())
            .ok_or_else(|| Error::NotFound("no such form".into()).into_response())?;
        let headers = parts.headers.clone();
        let body = Bytes::from_request(Request::from_parts(parts, body), state)
            .await
            .map_err(IntoResponse::into_response)?;
        let event_id = EventId::from(event_id);
        let fields = Fields::parse(&body).map_err(|e| refused(&page, form, &e))?;
        let buyer = check(&Checkout::from_ref(state), &headers, &event_id, &fields)
            .map_err(|r| r.answer(&page))?;
        Ok(Self {
            event_id,
            page,
            part,
            headers,
            fields,
            buyer,
        })
    }
}

/// The form's idempotency key, as the JSON API's header would carry it.
fn key(fields: &Fields) -> Result<String, Error> {
    let mut headers = HeaderMap::new();
    if let Some(value) = fields
        .one("key")
        .and_then(|k| HeaderValue::from_str(k).ok())
    {
        headers.insert("idempotency-key", value);
    }
    holds::idempotency_key(&headers)
}

/// `POST /events/{id}/hold`: `seat` (repeated) for chosen seats, or `section` and `quantity`
/// for the best available; `token` and `key` always.
async fn hold_form(
    State(state): State<Checkout>,
    Posted {
        event_id,
        page,
        headers,
        fields,
        buyer,
        ..
    }: Posted,
) -> Response {
    let who = buyer.clone();
    let path = format!("/events/{event_id}/hold");
    let request = (&axum::http::Method::POST, path.as_str());
    let admitted = match AdmittedBuyer::check(&state, buyer, event_id.clone(), request, &headers)
        .await
    {
        Ok(admitted) => admitted,
        // A form carries no proof of the device: a bound room needs the page's script.
        Err(Error::NotProven { .. }) => return see_other(&page, Some((Note::NeedsDevice, None))),
        Err(Error::NotAdmitted { .. }) => {
            // Why, by the line: still waiting (their turn has not come), admitted (the form
            // came without the admission), or not in it (their turn ran out; the page joins
            // them again).
            let status = queue::poll(&state, &who, &event_id, &headers)
                .await
                .map(|answer| answer.status);
            let note = match status {
                Ok(QueueStatus::Waiting { .. } | QueueStatus::PreQueue { .. }) => Note::NotYourTurn,
                Ok(QueueStatus::Admitted { .. }) => Note::AdmissionMissing,
                _ => Note::AdmissionEnded,
            };
            return see_other(&page, Some((note, None)));
        }
        Err(e) => return refused(&page, Form::Hold, &e),
    };
    let limit = admitted.room.seats_per_buyer as usize;
    let request = match hold_request(&fields, limit) {
        Ok(request) => request,
        Err(note) => return see_other(&page, Some((note, None))),
    };
    let answer = match key(&fields) {
        Ok(key) => holds::hold(&state, &admitted, &key, &request).await,
        Err(e) => Err(e),
    };
    match answer {
        Ok(_) => see_other(&page, None),
        Err(e) => refused(&page, Form::Hold, &e),
    }
}

/// The hold a form asks for: its seats (at most `limit`), or a section and a quantity.
fn hold_request(fields: &Fields, limit: usize) -> Result<HoldRequest, Note> {
    let seats: Vec<String> = fields
        .all("seat")
        .take(limit + 1)
        .map(str::to_owned)
        .collect();
    let section = fields.one("section");
    if seats.len() > limit {
        return Err(Note::TooManySeats);
    }
    let request = match (seats.is_empty(), section) {
        (false, _) => HoldRequest {
            seat_ids: Some(seats),
            ..HoldRequest::default()
        },
        (true, Some(section)) => {
            let quantity: u32 = fields
                .one("quantity")
                .and_then(|q| q.parse().ok())
                .ok_or(Note::BadForm)?;
            if quantity as usize > limit {
                return Err(Note::TooManySeats);
            }
            HoldRequest {
                section: Some(section.to_owned()),
                quantity: Some(quantity),
                ..HoldRequest::default()
            }
        }
        (true, None) => return Err(Note::NoSeats),
    };
    request.choice().map_err(|_| Note::BadForm)?;
    Ok(request)
}

/// `POST /events/{id}/holds/{hold}/release`: `token`.
async fn release_form(
    State(state): State<Checkout>,
    Posted {
        event_id,
        page,
        part: HoldId(hold_id),
        headers,
        buyer,
        ..
    }: Posted<HoldId>,
) -> Response {
    let path = format!("/events/{event_id}/holds/{}/release", hold_id.as_str());
    match holds::release(
        &state,
        &hold_id,
        &buyer.id,
        (&Method::POST, &path),
        &headers,
    )
    .await
    {
        Ok(()) => see_other(&page, Some((Note::Released, None))),
        Err(e) => refused(&page, Form::Release, &e),
    }
}

/// `POST /events/{id}/holds/{hold}/pay`: `token` and `key`.
async fn pay_form(
    State(state): State<Checkout>,
    Posted {
        event_id,
        page,
        part: HoldId(hold_id),
        headers,
        fields,
        buyer,
        ..
    }: Posted<HoldId>,
) -> Response {
    let answer = match key(&fields) {
        Ok(key) => {
            let path = format!("/events/{event_id}/holds/{}/pay", hold_id.as_str());
            checkout::pay(
                &state,
                &hold_id,
                &buyer.id,
                &key,
                (&Method::POST, &path),
                &headers,
            )
            .await
        }
        Err(e) => Err(e),
    };
    match answer {
        Ok(app::wire::CheckoutAnswer::Order(_)) => see_other(&page, None),
        // The card is confirmed in the provider's frames, which need the page's script.
        Ok(app::wire::CheckoutAnswer::Action(_)) => refused(
            &page,
            Form::Pay,
            &Error::Conflict("paying by card here needs JavaScript; your seats stay held".into()),
        ),
        Err(e) => refused(&page, Form::Pay, &e),
    }
}

/// `POST /events/{id}/claim`: `code` (a move code another device shows) and `token`. The place
/// moves to this browser's session as by `POST /api/events/{id}/queue/claim`. A room that binds
/// tokens takes a claim only with the device's proof, which a form cannot make.
async fn claim_form(
    State(state): State<Checkout>,
    client: Client,
    Posted {
        event_id,
        page,
        headers,
        fields,
        buyer,
        ..
    }: Posted,
) -> Response {
    let Some(code) = fields.one("code") else {
        return see_other(&page, Some((Note::BadForm, None)));
    };
    let answer = match state.rooms.get(&state.db, &event_id).await {
        Ok(room) if room.bind_tokens => return see_other(&page, Some((Note::NeedsDevice, None))),
        Ok(_) => moving::claim_counted(&state, &buyer, &client, &event_id, code, &headers).await,
        Err(e) => Err(e),
    };
    match answer {
        Ok(_) => {
            let mut response = see_other(&page, Some((Note::Claimed, None)));
            // A receipt this browser holds is of a place it gave up (as the API's claim).
            Cookie::PlaceGone {
                event_id: &event_id,
            }
            .set(&state.config, response.headers_mut());
            response
        }
        Err(e) => refused(&page, Form::Claim, &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_forms_paths_lead_back_to_their_page() {
        let page = |form| Some(("/events/e1".to_owned(), form));
        assert_eq!(form_of("/events/e1/hold"), page(Form::Hold));
        assert_eq!(form_of("/events/e1/holds/abc/pay"), page(Form::Pay));
        assert_eq!(form_of("/events/e1/holds/abc/release"), page(Form::Release));
        assert_eq!(form_of("/events/e1/claim"), page(Form::Claim));
        assert_eq!(form_of("/events/e1"), None);
        assert_eq!(form_of("/events/e1/holds/abc/delete"), None);
        assert_eq!(form_of("/api/events/e1/holds"), None);
        assert_eq!(form_of("/events/E%201/hold"), None);
    }

    #[test]
    fn a_form_names_at_most_the_limit_and_reads_as_the_api_would() {
        let body = b"token=t&key=k&seat=3&seat=1";
        let fields = Fields::parse(body).unwrap();
        let request = hold_request(&fields, 4).unwrap();
        assert_eq!(request.seat_ids, Some(vec!["3".into(), "1".into()]));
        assert_eq!(hold_request(&fields, 1), Err(Note::TooManySeats));
        let fields = Fields::parse(b"seat=x").unwrap();
        assert_eq!(hold_request(&fields, 4), Err(Note::BadForm));
        let fields = Fields::parse(b"section=A&quantity=9").unwrap();
        assert_eq!(hold_request(&fields, 4), Err(Note::TooManySeats));
        let fields = Fields::parse(b"section=A&quantity=two").unwrap();
        assert_eq!(hold_request(&fields, 4), Err(Note::BadForm));
        let fields = Fields::parse(b"token=t").unwrap();
        assert_eq!(hold_request(&fields, 4), Err(Note::NoSeats));
        let long = "seat=1&".repeat(MAX_FIELDS + 1);
        assert!(Fields::parse(long.as_bytes()).is_err());
    }
}
