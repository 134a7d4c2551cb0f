//! The one error type at the HTTP boundary. Every variant maps to a status and a code of
//! API.md, the codes from one table ([`code_for_status`]); database, Redis and internal
//! failures are logged here and answered without details (DESIGN.md 10: a clear JSON error
//! with the right status; an unreachable Redis or Postgres is 503 with `Retry-After`, not 500).

use app::wire::{ErrorBody, Moved, Opening, ProofChallenge, Why};
use axum::{
    Json,
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("you have not been admitted from the waiting room yet")]
    NotAdmitted { event_id: String },
    /// In a room that binds tokens: the admission token came without a proof that passes
    /// (`tokens::dpop`); `reason` says which part failed.
    #[error("you have not been admitted on this device: {reason}")]
    NotProven {
        event_id: String,
        reason: &'static str,
    },
    /// The reverse proxy's gate (`GET /api/gate/check`): this request carries no admission to
    /// the event that protects its path: 401 `not_admitted` with the queue URL, and the
    /// address of the event's room (with the way back) in the `Anteroom-Room` header, where
    /// the proxy sends the buyer.
    #[error("this page is behind the waiting room: join its line first")]
    GateClosed { event_id: String, room_url: String },
    #[error("{0}")]
    Forbidden(String),
    /// A room that takes accounts only, joined without one: 401 with where to sign in.
    #[error("this sale is for signed-in accounts: sign in to join its line")]
    SignInRequired { event_id: String },
    /// An account the room's eligibility does not admit: 403 `forbidden`, reason
    /// `not_eligible`, before any place is taken.
    #[error("{0}")]
    NotEligible(String),
    /// A dangerous operator change without a sign-in in the last 300 s: 401 `unauthorized`,
    /// reason `step_up` (API.md "Operators").
    #[error("this change needs you to sign in again first (within the last 5 minutes)")]
    StepUp,
    #[error("{0}")]
    NotFound(String),
    #[error("you are not in this event's line; join it again")]
    NotInQueue,
    /// The buyer's place moved to another device (`queue::moving`): 404 `not_in_queue`, with
    /// `moved` and `moved_at` so that the page can say where the place went.
    #[error("your place in this line moved to another device at {at}; continue there")]
    Moved { at: chrono::DateTime<chrono::Utc> },
    #[error("some of these seats were just taken")]
    SeatUnavailable(Vec<String>),
    #[error("{0}")]
    Conflict(String),
    #[error("the sale has not opened yet; its pre-queue opens at {prequeue_opens_at}")]
    NotOpen {
        opens_at: chrono::DateTime<chrono::Utc>,
        prequeue_opens_at: chrono::DateTime<chrono::Utc>,
    },
    #[error("the payment was declined; your seats are still held, try another card")]
    PaymentDeclined,
    #[error("the request body is larger than 1 MiB")]
    PayloadTooLarge,
    #[error("the request body did not arrive in time")]
    RequestTimeout,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Unprocessable(String),
    #[error("too many requests; try again in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error(
        "this sale asks each new place in line for a little work from your device: solve the \
         challenge and join again with the proof"
    )]
    ProofRequired(ProofChallenge),
    #[error("{message}")]
    Unavailable {
        message: String,
        retry_after_secs: u64,
    },
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Redis(#[from] redis::RedisError),
    #[error("{0}")]
    Internal(String),
}

impl Error {
    pub fn status_code(&self) -> StatusCode {
        match self {
            Error::BadRequest(_) => StatusCode::BAD_REQUEST,
            Error::Unauthorized(_)
            | Error::SignInRequired { .. }
            | Error::StepUp
            | Error::GateClosed { .. } => StatusCode::UNAUTHORIZED,
            Error::NotAdmitted { .. }
            | Error::NotProven { .. }
            | Error::Forbidden(_)
            | Error::NotEligible(_) => StatusCode::FORBIDDEN,
            Error::NotFound(_) | Error::NotInQueue | Error::Moved { .. } => StatusCode::NOT_FOUND,
            Error::SeatUnavailable(_) | Error::Conflict(_) | Error::NotOpen { .. } => {
                StatusCode::CONFLICT
            }
            Error::PaymentDeclined => StatusCode::PAYMENT_REQUIRED,
            Error::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Error::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Error::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            Error::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Error::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Error::ProofRequired(_) => StatusCode::PRECONDITION_REQUIRED,
            Error::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            Error::Database(e) if db_unreachable(e) => StatusCode::SERVICE_UNAVAILABLE,
            Error::Redis(e) if redis_unreachable(e) => StatusCode::SERVICE_UNAVAILABLE,
            Error::Database(_) | Error::Redis(_) | Error::Internal(_) => {
                StatusCode::INTERNAL_SERVER_ERROR
            }
        }
    }

    /// The API's error code: [`code_for_status`], except for the variants API.md gives a code
    /// of their own beside their status's general one.
    fn code(&self) -> &'static str {
        match self {
            Error::NotAdmitted { .. } | Error::NotProven { .. } | Error::GateClosed { .. } => {
                "not_admitted"
            }
            Error::NotInQueue | Error::Moved { .. } => "not_in_queue",
            Error::SeatUnavailable(_) => "seat_unavailable",
            Error::NotOpen { .. } => "not_open",
            _ => code_for_status(self.status_code()),
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            Error::RateLimited { retry_after_secs }
            | Error::Unavailable {
                retry_after_secs, ..
            } => Some(*retry_after_secs),
            _ if self.status_code() == StatusCode::SERVICE_UNAVAILABLE => Some(1),
            _ => None,
        }
    }

    /// The JSON body of this error, as the API answers it and as server rendering shows it.
    pub fn body(&self) -> ErrorBody {
        let message = match self.status_code() {
            StatusCode::INTERNAL_SERVER_ERROR => "something went wrong on our side".to_owned(),
            StatusCode::SERVICE_UNAVAILABLE if !matches!(self, Error::Unavailable { .. }) => {
                "Anteroom is briefly unavailable; try again in a moment".to_owned()
            }
            _ => self.to_string(),
        };
        let mut body = ErrorBody::new(self.code(), message);
        match self {
            Error::NotAdmitted { event_id }
            | Error::NotProven { event_id, .. }
            | Error::GateClosed { event_id, .. } => {
                body.queue_url = Some(format!("/api/events/{event_id}/queue"));
            }
            Error::SeatUnavailable(ids) => body.seat_ids = Some(ids.clone().into()),
            Error::SignInRequired { event_id } => {
                body.why = Some(Box::new(Why {
                    sign_in_url: Some(sign_in_url(event_id)),
                    reason: None,
                }));
            }
            Error::NotEligible(_) => {
                body.why = Some(Box::new(Why {
                    sign_in_url: None,
                    reason: Some("not_eligible".into()),
                }));
            }
            Error::StepUp => {
                body.why = Some(Box::new(Why {
                    sign_in_url: None,
                    reason: Some("step_up".into()),
                }));
            }
            Error::NotOpen {
                opens_at,
                prequeue_opens_at,
            } => {
                body.opening = Some(Box::new(Opening {
                    opens_at: *opens_at,
                    prequeue_opens_at: *prequeue_opens_at,
                }));
            }
            Error::ProofRequired(challenge) => body.proof = Some(Box::new(challenge.clone())),
            Error::Moved { at } => {
                body.moved = Some(Box::new(Moved {
                    moved: true,
                    moved_at: *at,
                }))
            }
            _ => {}
        }
        body
    }
}

/// Where a buyer signs in to join the line of `event_id` and comes back to its page (API.md
/// "Accounts"). Event ids are URL-safe (`extract::is_event_id`).
pub fn sign_in_url(event_id: &str) -> String {
    format!("/auth/sign-in?event={event_id}&return=/events/{event_id}")
}

fn db_unreachable(e: &sqlx::Error) -> bool {
    matches!(
        e,
        sqlx::Error::PoolTimedOut | sqlx::Error::Io(_) | sqlx::Error::PoolClosed
    )
}

fn redis_unreachable(e: &redis::RedisError) -> bool {
    e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout()
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status = self.status_code();
        if status.is_server_error() {
            tracing::error!(error = %self, debug = ?self, "request failed");
        }
        let mut response = (status, Json(self.body())).into_response();
        if let Some(secs) = self.retry_after_secs() {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let Error::GateClosed { room_url, .. } = &self
            && let Ok(value) = HeaderValue::from_str(room_url)
        {
            response.headers_mut().insert(ROOM_HEADER, value);
        }
        response
    }
}

/// The header of a gate's refusal that says where the buyer's room is.
pub const ROOM_HEADER: &str = "anteroom-room";

/// The API's error code for a status: the one table of API.md's codes. Handlers' errors use it
/// through [`Error::code`]; answers that did not come from a handler (an unknown route or
/// method, a rejected body) use it directly.
pub fn code_for_status(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::UNAUTHORIZED => "unauthorized",
        StatusCode::PAYMENT_REQUIRED => "payment_declined",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::CONFLICT => "conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "payload_too_large",
        StatusCode::REQUEST_TIMEOUT => "request_timeout",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
        StatusCode::PRECONDITION_REQUIRED => "proof_required",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        StatusCode::SERVICE_UNAVAILABLE => "unavailable",
        s if s.is_client_error() => "bad_request",
        _ => "internal",
    }
}

/// A refusal of `app::wire`'s own checks (a `validate` of a request body): 422 with its
/// message.
impl From<app::wire::ErrorBody> for Error {
    fn from(body: app::wire::ErrorBody) -> Self {
        Error::Unprocessable(body.message)
    }
}
