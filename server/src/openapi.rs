//! The OpenAPI 3.1 document of the HTTP API (`GET /api/openapi.json`), generated from the code
//! with utoipa: each handler carries its operation (`#[utoipa::path]`: its path, parameters,
//! body and every status it answers itself), each capability's module lists its handlers in
//! an `Api`, and the schemas are `app::wire`'s own types (`ToSchema`, derived in the server's
//! build only, so the buyer's WASM carries none of it). Here they are put together, with what
//! no single handler says:
//! - the security schemes: the buyer's session, the admission token, the operator's session
//!   and API keys;
//! - the answers any operation may give from the layers in front of every handler: 408 (a
//!   body too slow to arrive), 413 (a body above 1 MiB), 500 and 503 (shed under load, or
//!   Redis or Postgres unreachable), each with the error body;
//! - the answers of the operators' guard (operators/guard.rs) on every operator route: 401,
//!   403, and 415 on a change without a JSON body;
//! - ([`crate::extract::EventPath`], the `{event_id}` of every route that has one, lies
//!   with the extractor of that id, below every capability that declares it.)
//!
//! These answers, like the ones handlers share, are response sets of [`crate::responses`];
//! where a handler describes one of their statuses itself, its description stands.
//!
//! Invariant: every route of the API's router is an operation of the document with the same
//! method, and every operation is a route (server/tests/api/openapi.rs asks the router for
//! each; a route added without its operation fails there).

use std::sync::OnceLock;

use axum::{
    Router,
    http::header,
    response::{IntoResponse, Response},
    routing::get,
};
use utoipa::{
    IntoResponses, Modify, OpenApi,
    openapi::{
        self,
        security::{ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityScheme},
    },
};

use crate::responses::{Layers, OperatorChange, OperatorCredential};

/// The document's frame: its title, version and the additions above. Its operations come
/// from each capability's `Api`, merged in [`document`].
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Anteroom",
        description = "A virtual waiting room and on-sale: the line, the seat map, holds, \
                       checkout, the night's report, and the operators' API. The contract in \
                       prose is API.md; every 4xx/5xx has the body ErrorBody.",
    ),
    components(schemas(app::wire::ErrorBody))
)]
struct Frame;

/// The whole document, built once.
pub fn document() -> &'static openapi::OpenApi {
    static DOCUMENT: OnceLock<openapi::OpenApi> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let parts = [
            crate::tokens::buyer::Api::openapi(),
            crate::tokens::gate::Api::openapi(),
            crate::accounts::routes::Api::openapi(),
            crate::events::Api::openapi(),
            crate::queue::Api::openapi(),
            crate::queue::progress::Api::openapi(),
            crate::queue::device::Api::openapi(),
            crate::queue::moving::Api::openapi(),
            crate::opening::Api::openapi(),
            crate::origin::handoff::Api::openapi(),
            crate::origin::check::Api::openapi(),
            crate::origin::done::Api::openapi(),
            crate::report::Api::openapi(),
            crate::seatmap::Api::openapi(),
            crate::holds::Api::openapi(),
            crate::checkout::Api::openapi(),
            crate::checkout::payments::Api::openapi(),
            crate::checkout::stripe::webhook::Api::openapi(),
            crate::operators::routes::Api::openapi(),
            crate::operators::passkeys::Api::openapi(),
            crate::operators::oidc::Api::openapi(),
            crate::admin::openapi(),
            crate::ops::Api::openapi(),
            ThisDocument::openapi(),
        ];
        let mut document = Frame::openapi();
        for part in parts {
            document.merge(part);
        }
        Everywhere.modify(&mut document);
        document
    })
}

/// `GET /api/openapi.json`.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route("/api/openapi.json", get(openapi_json))
}

#[utoipa::path(
    get,
    path = "/api/openapi.json",
    tag = "ops",
    summary = "This document",
    responses((status = 200, description = "The OpenAPI 3.1 document", content_type = "application/json")),
)]
async fn openapi_json() -> Response {
    static JSON: OnceLock<String> = OnceLock::new();
    let json = JSON.get_or_init(|| document().to_json().expect("the document writes as JSON"));
    ([(header::CONTENT_TYPE, "application/json")], json.as_str()).into_response()
}

#[derive(OpenApi)]
#[openapi(paths(openapi_json))]
struct ThisDocument;

/// What every operation shares: the security schemes, and the answers of the layers in front
/// of every handler (and of the operators' guard in front of theirs).
struct Everywhere;

impl Modify for Everywhere {
    fn modify(&self, document: &mut openapi::OpenApi) {
        let components = document.components.get_or_insert_with(Default::default);
        let bearer = |what: &str| {
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some(what))
                    .build(),
            )
        };
        components.add_security_scheme(
            "session",
            bearer("The buyer's session token of POST /api/session (or its cookie)"),
        );
        components.add_security_scheme(
            "admission",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                "Admission-Token",
                "The admission token of an admitted buyer's poll (or the admission cookie)",
            ))),
        );
        components.add_security_scheme(
            "operator_session",
            SecurityScheme::ApiKey(ApiKey::Cookie(ApiKeyValue::with_description(
                "__Host-anteroom-op",
                "A signed-in operator's session",
            ))),
        );
        components.add_security_scheme(
            "api_key",
            bearer("An operator's API key (ak_...), scoped to its events and permissions"),
        );
        for item in document.paths.paths.values_mut() {
            for (write, operation) in operations(item) {
                // The operators' guard (operators/guard.rs) answers for every operator route:
                // who is asking, whether their role and scope allow it, and (a change) that it
                // comes as JSON, which a form of another site cannot send.
                let operators = operation
                    .security
                    .iter()
                    .flatten()
                    .any(|s| serde_json::to_value(s).is_ok_and(|s| s.get("api_key").is_some()));
                let sets = [
                    (operators, OperatorCredential::responses()),
                    (operators && write, OperatorChange::responses()),
                    (true, Layers::responses()),
                ];
                let answers = sets
                    .into_iter()
                    .filter(|(applies, _)| *applies)
                    .flat_map(|(_, answers)| answers);
                // A handler's own description of a status stands.
                for (status, response) in answers {
                    operation
                        .responses
                        .responses
                        .entry(status)
                        .or_insert(response);
                }
            }
        }
    }
}

/// The operations of one path, each with whether it changes something with a body (POST,
/// PUT, PATCH).
fn operations(
    item: &mut openapi::PathItem,
) -> impl Iterator<Item = (bool, &mut openapi::path::Operation)> {
    [
        (false, &mut item.get),
        (true, &mut item.put),
        (true, &mut item.post),
        (false, &mut item.delete),
        (true, &mut item.patch),
    ]
    .into_iter()
    .filter_map(|(write, operation)| Some((write, operation.as_mut()?)))
}
