//! The reverse proxy's gate (`GET /api/gate/check`, API.md "The gate"): nginx `auth_request`,
//! Traefik `forwardAuth` or Envoy `ext_authz` ask before each request to the ticketer's site
//! whether it may pass.
//!
//! Invariants: the host and the path are compared in one spelling each
//! ([`canonical_host`], [`canonical_path`]: case, trailing dot, default port, escapes, `//`,
//! dot segments), and the original URI is read from the configured proxy's header only; the
//! proxy asks only about the paths it protects, so a request no room covers is refused (401
//! to the host's room, 403 where no room has the host), as is one whose path does not
//! normalise cleanly (fail closed); a protected path passes only with an
//! admission token of this deployment for an event that protects it (where two sales protect
//! the same path, either's admission), valid now, of the
//! room's present epoch, for a buyer the site has not reported done (or while that room is
//! off); everything else is 401 with where the buyer's room is. The answer comes from the
//! token and this instance's memory: the rooms (`events::rooms`, re-read twice a second) and
//! the reported buyers (`origin::revoked`, read at most once a second per event); no Postgres
//! call ever, and Redis only for that once-a-second read and for a hand-over's one use. A
//! hand-over token in the original URI (`anteroom_token`, a buyer arriving from the room at a
//! site on another host) is used up here and answered with the admission as a cookie for that
//! host, so the token in the address admits nobody a second time. Every answer is counted by
//! its outcome (`anteroom_gate_checks_total`).

use app::wire::{AdmissionClaims, EventId, HandoverClaims, Room, canonical_host, canonical_path};
use axum::{
    extract::State,
    http::{HeaderMap, HeaderName, HeaderValue, header},
    response::{IntoResponse, Response},
};
use chrono::DateTime;

use crate::{
    error::{Error, Result},
    net::GateProxy,
    origin::{handoff, state::Origin},
    queue::state::Line,
    tokens::{
        cookies::{Cookie, admission_cookie_name},
        gate::{ADMISSION_HEADER, presented},
        jwt::HANDOFF_PARAM,
    },
};

/// The headers the proxy may forward to the site: who passed, into which event.
pub const BUYER_HEADER: HeaderName = HeaderName::from_static("anteroom-buyer");
pub const EVENT_HEADER: HeaderName = HeaderName::from_static("anteroom-event");

/// The request the proxy asks about: its host and its original URI.
struct Asked<'a> {
    host: String,
    path: &'a str,
    query: &'a str,
    uri: &'a str,
}

impl<'a> Asked<'a> {
    /// From the proxy's headers: the original URI in the configured proxy's header
    /// (`X-Original-URI` for nginx, `X-Forwarded-Uri` for Traefik; never the other's, which a
    /// client may send), else 400; `X-Forwarded-Host` (its first value), else `Host`.
    fn read(proxy: GateProxy, headers: &'a HeaderMap) -> Result<Self> {
        let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
        let uri = text(proxy.uri_header()).ok_or_else(|| {
            Error::BadRequest(format!(
                "the proxy must pass the original URI in {} (ANTEROOM_GATE_PROXY: {proxy:?})",
                proxy.uri_header()
            ))
        })?;
        let host = text("x-forwarded-host")
            .and_then(|h| h.split(',').next())
            .or_else(|| text("host"))
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
        Ok(Self {
            host,
            path,
            query,
            uri,
        })
    }

    /// The hand-over token in the query, if any.
    fn handover(&self) -> Option<String> {
        form_urlencoded::parse(self.query.as_bytes())
            .find(|(name, _)| name == HANDOFF_PARAM)
            .map(|(_, value)| value.into_owned())
    }

    /// The original URI without a hand-over token: where the room sends the buyer back.
    fn way_back(&self) -> String {
        if self.handover().is_none() {
            return self.uri.to_owned();
        }
        let query = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(
                form_urlencoded::parse(self.query.as_bytes())
                    .filter(|(name, _)| name != HANDOFF_PARAM),
            )
            .finish();
        if query.is_empty() {
            self.path.to_owned()
        } else {
            format!("{}?{query}", self.path)
        }
    }
}

/// `GET /api/gate/check`, counted by outcome (`anteroom_gate_checks_total`).
#[utoipa::path(
    get,
    path = "/api/gate/check",
    tag = "gate",
    summary = "For nginx auth_request and its like: may this request pass to the ticketer's site?",
    params(("X-Original-URI" = Option<String>, Header, description = "The original request's URI"), ("X-Forwarded-Host" = Option<String>, Header, description = "The original request's host"), ("Admission-Token" = Option<String>, Header, description = "The admission token (or its cookie)")),
    responses(
        (status = 200, description = "Passes: an admission to the event whose room covers the path (Anteroom-Buyer and Anteroom-Event headers), or a room that is off"),
        (status = 400, description = "bad_request: the proxy passed no original URI", body = app::wire::ErrorBody),
        (status = 401, description = "not_admitted, with queue_url: no admission, a path no room covers on a room's host, or a path that does not normalise cleanly", body = app::wire::ErrorBody),
        (status = 403, description = "forbidden: no room protects this host (the gate refuses what it does not recognise)", body = app::wire::ErrorBody),
    )
)]
pub async fn check(State(origin): State<Origin>, headers: HeaderMap) -> Result<Response> {
    let (outcome, answer) = decide(&origin, &headers).await;
    origin
        .line
        .metrics
        .gate_checks
        .with_label_values(&[outcome])
        .inc();
    answer
}

/// The gate's answer to the proxy's question in `headers`, and its outcome's name.
async fn decide(origin: &Origin, headers: &HeaderMap) -> (&'static str, Result<Response>) {
    let state = &origin.line;
    let asked = match Asked::read(state.config.gate_proxy, headers) {
        Ok(asked) => asked,
        Err(e) => return ("bad_request", Err(e)),
    };
    // Compared as the proxy routes and the origin serves them: one spelling of each.
    let host = canonical_host(&asked.host);
    let rooms = match (&host, canonical_path(asked.path)) {
        (Some(host), Some(path)) => state.rooms.protecting(host, &path),
        _ => Vec::new(),
    };
    let Some((first, _)) = rooms.first() else {
        // The proxy asks only about what it protects: what no room covers, or what cannot be
        // compared, is refused, never passed. To the host's room if it has one.
        let Some(event_id) = host.and_then(|h| state.rooms.on_host(&h)) else {
            let refusal = Error::Forbidden(
                "no room protects this host: the gate refuses what it does not recognise".into(),
            );
            return ("unknown", Err(refusal));
        };
        let event_id = EventId::from(event_id);
        let refusal = Error::GateClosed {
            room_url: room_url(state, &event_id, &asked.way_back()),
            event_id: event_id.into(),
        };
        return ("uncovered", Err(refusal));
    };
    let refused_to = EventId::from(first.clone());
    // Where two sales protect the same path, an admission to either passes.
    for (event_id, room) in &rooms {
        let event_id = EventId::from(event_id.as_str());
        if !room.enabled {
            return ("room_off", Ok(passed(None, Some(&event_id))));
        }
        let token = presented(
            &state.config,
            headers,
            ADMISSION_HEADER,
            &admission_cookie_name(&event_id),
        );
        if let Some(claims) = token.and_then(|t| admits(state, t, &event_id, room)) {
            match origin
                .revoked
                .contains(&state.base, &event_id, claims.sub.as_str())
                .await
            {
                Ok(false) => return ("passed", Ok(passed(Some(&claims), Some(&event_id)))),
                Ok(true) => {}
                Err(e) => return ("error", Err(e)),
            }
        }
    }
    // A buyer from a room on another host: the hand-over of one of these sales, used here.
    let handover = asked
        .handover()
        .and_then(|token| state.keyring.current().verify_handover(&token));
    if let Some(claims) = handover
        && let Some((_, room)) = rooms.iter().find(|(id, _)| *id == claims.evt.as_str())
        && handoff::fits(&claims, room)
    {
        match handoff::first_use(state, &claims).await {
            Ok(true) => return ("handed_over", Ok(hand_over(state, &claims))),
            Ok(false) => {}
            Err(e) => return ("error", Err(e)),
        }
    }
    let refusal = Error::GateClosed {
        room_url: room_url(state, &refused_to, &asked.way_back()),
        event_id: refused_to.into(),
    };
    ("refused", Err(refusal))
}

/// The claims of the admission `token` if it admits to `event_id` in `room`'s epoch now.
fn admits(state: &Line, token: &str, event_id: &EventId, room: &Room) -> Option<AdmissionClaims> {
    state
        .keyring
        .current()
        .verify_for_event(token, event_id)
        .filter(|claims| claims.epc == room.epoch)
}

/// The pass of a buyer whose hand-over `claims` was just used: the admission behind it as the
/// cookie of the site's host.
fn hand_over(state: &Line, claims: &HandoverClaims) -> Response {
    let (token, admission) = state.keyring.current().reissue(claims);
    let mut response = passed(Some(&admission), Some(&admission.evt));
    if let Some(expires_at) = DateTime::from_timestamp(claims.until, 0) {
        Cookie::Admission {
            event_id: &admission.evt,
            token: &token,
            expires_at,
        }
        .set(&state.config, response.headers_mut());
    }
    response
}

/// 200, naming the buyer and the event when there are.
fn passed(claims: Option<&AdmissionClaims>, event_id: Option<&EventId>) -> Response {
    let mut response = ().into_response();
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    for (name, value) in [
        (BUYER_HEADER, claims.map(|c| c.sub.as_str())),
        (EVENT_HEADER, event_id.map(|e| e.as_str())),
    ] {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(v).ok()) {
            headers.insert(name, value);
        }
    }
    response
}

/// The event's room, with the way back (`return`): absolute under the configured public URL,
/// else a path on the proxy's own host (Anteroom behind the same proxy).
fn room_url(state: &Line, event_id: &EventId, back: &str) -> String {
    let base = state
        .config
        .public_url
        .as_deref()
        .unwrap_or_default()
        .trim_end_matches('/');
    let back: String = form_urlencoded::byte_serialize(back.as_bytes()).collect();
    format!("{base}/events/{event_id}?return={back}")
}

/// This module's operations, for the OpenAPI document (`crate::openapi`).
#[derive(utoipa::OpenApi)]
#[openapi(paths(check))]
pub struct Api;

#[cfg(test)]
mod tests {
    use super::*;

    fn proxied(uri: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-original-uri", uri.parse().unwrap());
        headers.insert(
            "x-forwarded-host",
            "Shop.Example:8443, proxy".parse().unwrap(),
        );
        headers
    }

    #[test]
    fn the_proxy_names_the_host_and_the_original_uri() {
        let headers = proxied("/shop/x?a=1&anteroom_token=t.o.k&b=2");
        let asked = Asked::read(GateProxy::Nginx, &headers).unwrap();
        assert_eq!(asked.host, "shop.example:8443");
        assert_eq!(
            (asked.path, asked.query),
            ("/shop/x", "a=1&anteroom_token=t.o.k&b=2")
        );
        assert_eq!(asked.handover().as_deref(), Some("t.o.k"));
        assert_eq!(asked.way_back(), "/shop/x?a=1&b=2");

        let headers = proxied("/shop/x?a=1");
        let plain = Asked::read(GateProxy::Nginx, &headers).unwrap();
        assert_eq!(plain.handover(), None);
        assert_eq!(plain.way_back(), "/shop/x?a=1");

        let headers = proxied("/shop/x?anteroom_token=t");
        assert_eq!(
            Asked::read(GateProxy::Nginx, &headers).unwrap().way_back(),
            "/shop/x"
        );
        assert!(
            Asked::read(GateProxy::Nginx, &HeaderMap::new()).is_err(),
            "no original URI"
        );
        // Under Traefik a client's own X-Original-URI is never read, whatever it says.
        let mut headers = proxied("/shop/x");
        headers.insert("x-forwarded-uri", "/checkout/pay".parse().unwrap());
        let asked = Asked::read(GateProxy::Traefik, &headers).unwrap();
        assert_eq!(asked.path, "/checkout/pay");
        headers.remove("x-forwarded-uri");
        assert!(Asked::read(GateProxy::Traefik, &headers).is_err());
    }
}
