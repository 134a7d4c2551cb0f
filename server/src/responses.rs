//! The error answers the API's operations share, as response sets of the OpenAPI document:
//! each set is a type implementing `utoipa::IntoResponses`, named for what a handler takes or
//! checks, that a `#[utoipa::path]` lists among its own answers, e.g.
//! `responses((status = 201, description = "Held", body = Hold), Admitted, NoEvent, RateLimited)`.
//! - what a handler reads: [`JsonBody`] (400 malformed, 422 of the wrong shape),
//!   [`CheckedBody`] (400 malformed, 422 a value out of range or an unknown field: an
//!   operator's change), [`WrongShape`] (422 alone, beside a handler's own 400);
//! - what it looks up: [`NoEvent`] (404 of an `{event_id}`), [`NoNight`], [`NoHold`],
//!   [`NoMoveCode`], [`NoOperator`];
//! - who may ask: [`Session`] (401: the buyer's session), [`Admitted`] (401, and 403 without
//!   an admission), [`PasskeyCeremony`] (401: a passkey ceremony's link, challenge or credential),
//!   [`RateLimited`] (429);
//! - the OpenID Connect sign-ins' redirects, buyers' and operators' alike, which answer a
//!   browser with a page: [`SignInStart`] (404 without a provider, 429), [`SignInCallback`]
//!   (400);
//! - what `openapi.rs` adds to every operation they stand in front of: the operators' guard
//!   ([`OperatorCredential`]: 401, 403; [`OperatorChange`]: 415 on a change) and the layers
//!   in front of every handler ([`Layers`]: 408, 413, 500, 503).
//!
//! A status or description of one handler alone stays a tuple in its annotation.
//!
//! Invariant: every error status a handler can answer is documented, with the `ErrorBody`
//! schema (a sign-in redirect's: an HTML page); a description more than one handler gives is
//! written here, once. This file imports only `app::wire` and utoipa.

use std::collections::BTreeMap;

use app::wire::ErrorBody;
use utoipa::{
    IntoResponses, ToSchema,
    openapi::{Content, ContentBuilder, Ref, RefOr, Response, ResponseBuilder},
};

/// One error answer: its status and its description.
type Answer = (u16, &'static str);

/// The answers more than one set gives.
const MALFORMED: Answer = (400, "A malformed body");
const WRONG_SHAPE: Answer = (422, "unprocessable: a body of the wrong shape");
const NO_SESSION: Answer = (401, "No session, or a bad one: unauthorized");
const RATE_LIMITED: Answer = (429, "rate_limited, with Retry-After");

/// Declares each set: a unit struct whose responses are its answers, each with the error body
/// as JSON (`errors`) or as an HTML page (`pages`).
macro_rules! sets {
    ($($(#[$doc:meta])* $name:ident = $kind:ident[$($answer:expr),+ $(,)?];)+) => {$(
        $(#[$doc])*
        pub struct $name;

        impl IntoResponses for $name {
            fn responses() -> BTreeMap<String, RefOr<Response>> {
                $kind(&[$($answer),+])
            }
        }
    )+};
}

sets! {
    /// A JSON body (`extract::ApiJson`): 400 when it is not JSON, 422 when it does not fit.
    JsonBody = errors[MALFORMED, WRONG_SHAPE];
    /// A JSON body whose values are checked too, unknown fields refused (an operator's change).
    CheckedBody = errors[MALFORMED, (422, "unprocessable: a value out of range, or an unknown field")];
    /// A JSON body of the wrong shape, beside a handler's own 400.
    WrongShape = errors[WRONG_SHAPE];
    /// The `{event_id}` of the path names no event.
    NoEvent = errors[(404, "No such event")];
    /// The `{hold_id}` of the path names no hold of this buyer.
    NoHold = errors[(404, "No such hold of this buyer")];
    /// The `{night_id}` of the path names no night of the event, or the event is none.
    NoNight = errors[(404, "No such event or night")];
    /// A move code names no place to move now, or the event is none.
    NoMoveCode = errors[(404, "not_found: a used, expired or unknown code; or no such event")];
    /// The `{operator_id}` of the path names no operator.
    NoOperator = errors[(404, "No such operator")];
    /// The buyer's session.
    Session = errors[NO_SESSION];
    /// The buyer's session and their admission to the event.
    Admitted = errors[NO_SESSION, (403, "not_admitted, with queue_url")];
    /// A step of a passkey ceremony.
    PasskeyCeremony = errors[(401, "unauthorized: an unknown, used or expired link or ceremony, or a bad credential")];
    /// The limits per address or per buyer.
    RateLimited = errors[RATE_LIMITED];
    /// The start of an OpenID Connect sign-in (a buyer's or an operator's), a page.
    SignInStart = pages[(404, "not_found: no provider is configured"), RATE_LIMITED];
    /// The provider's way back to an OpenID Connect sign-in, a page.
    SignInCallback = pages[(400, "A bad or unknown state or code")];
    /// The operators' guard (operators/guard.rs), on every operator route: who is asking, and
    /// whether their role and scope allow it.
    OperatorCredential = errors[
        (401, "unauthorized: not signed in, or a bad key (a buyer's session is not an operator's)"),
        (403, "forbidden: out of role or out of scope"),
    ];
    /// The operators' guard on a change (POST, PUT, PATCH): it comes as JSON, which a form of
    /// another site cannot send.
    OperatorChange = errors[(415, "unsupported_media_type: a change without a JSON body")];
    /// The layers in front of every handler: a body too slow or too large, a failure, shedding.
    Layers = errors[
        (408, "request_timeout: the request's body was too slow to arrive"),
        (413, "payload_too_large: a body above 1 MiB; nothing was read further or changed"),
        (500, "internal: something went wrong on our side (no details)"),
        (503, "unavailable, with Retry-After: shed under load, or Redis or Postgres unreachable"),
    ];
}

/// The responses of `answers`, each with the error body as JSON.
fn errors(answers: &[Answer]) -> BTreeMap<String, RefOr<Response>> {
    let body = || {
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(ErrorBody::name())))
            .build()
    };
    responses(answers, "application/json", body)
}

/// The responses of `answers`, each an HTML page (the sign-in redirects answer a person's
/// browser, not a client).
fn pages(answers: &[Answer]) -> BTreeMap<String, RefOr<Response>> {
    responses(answers, "text/html", || ContentBuilder::new().build())
}

/// The responses of `answers`, each with `content` as `content_type`.
fn responses(
    answers: &[Answer],
    content_type: &str,
    content: impl Fn() -> Content,
) -> BTreeMap<String, RefOr<Response>> {
    answers
        .iter()
        .map(|&(status, description)| {
            let response = ResponseBuilder::new()
                .description(description)
                .content(content_type, content())
                .build();
            (status.to_string(), response.into())
        })
        .collect()
}
