//! The operator's calls (the admin API, behind the operator's session cookie): signing in with
//! a passkey (the browser's half is `passkey`) and out, the live stats, payments, nights and
//! audit, the room's settings, the draw's beacon and new events.

use super::{Api, call};
use crate::wire::{
    ApiKey, ApiKeyCreated, AuditEntry, BeaconUpdate, Draw, Enrolment, ErrorBody, Event, NewApiKey,
    NewEvent, NewOperator, Night, NightPoint, OperatorAccount, OperatorSession, PasskeyStarted,
    Payments, Room, RoomUpdate, SignInMethods, Stats, Whoami,
};

impl Api {
    /// Whether this browser is signed in as the operator.
    pub async fn admin_check(&self) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("GET", "/api/admin/session", None, &[])
            .await
            .map(|_| ())
    }

    /// The operators' sign-ins this Anteroom offers.
    pub async fn sign_in_methods(&self) -> Result<SignInMethods, ErrorBody> {
        call::<(), SignInMethods>("GET", "/api/operator/sign-in-methods", None, &[]).await
    }

    /// Who this browser is signed in as.
    pub async fn whoami(&self) -> Result<Whoami, ErrorBody> {
        call::<(), Whoami>("GET", "/api/admin/session", None, &[]).await
    }

    /// Signs in with the passkey of the operator `email`.
    pub async fn passkey_sign_in(&self, email: &str) -> Result<(), ErrorBody> {
        let started: PasskeyStarted = call(
            "POST",
            "/api/operator/passkey/authenticate/start",
            Some(&serde_json::json!({ "email": email })),
            &[],
        )
        .await?;
        let credential = super::passkey::ceremony(false, &started.options).await?;
        call::<_, serde_json::Value>(
            "POST",
            "/api/operator/passkey/authenticate/finish",
            Some(&serde_json::json!({ "ceremony": started.ceremony, "credential": credential })),
            &[],
        )
        .await
        .map(|_| ())
    }

    /// Enrols a passkey with the one-time link's `token`, and signs in with it.
    pub async fn passkey_enrol(&self, token: &str) -> Result<(), ErrorBody> {
        let started: PasskeyStarted = call(
            "POST",
            "/api/operator/passkey/register/start",
            Some(&serde_json::json!({ "token": token })),
            &[],
        )
        .await?;
        let credential = super::passkey::ceremony(true, &started.options).await?;
        call::<_, serde_json::Value>(
            "POST",
            "/api/operator/passkey/register/finish",
            Some(&serde_json::json!({
                "token": token,
                "ceremony": started.ceremony,
                "credential": credential,
            })),
            &[],
        )
        .await
        .map(|_| ())
    }

    /// Ends this browser's session, on every instance.
    pub async fn sign_out(&self) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("POST", "/api/operator/sign-out", None, &[])
            .await
            .map(|_| ())
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

    /// Every operator (admins only).
    pub async fn operators(&self) -> Result<Vec<OperatorAccount>, ErrorBody> {
        call::<(), _>("GET", "/api/admin/operators", None, &[]).await
    }

    /// Adds an operator.
    pub async fn add_operator(&self, new: &NewOperator) -> Result<OperatorAccount, ErrorBody> {
        call("POST", "/api/admin/operators", Some(new), &[]).await
    }

    /// A new one-time enrolment link for operator `id`.
    pub async fn enrolment(&self, id: &str) -> Result<Enrolment, ErrorBody> {
        call(
            "POST",
            &format!("/api/admin/operators/{id}/enrolment"),
            Some(&serde_json::json!({})),
            &[],
        )
        .await
    }

    /// Every session signed in now.
    pub async fn operator_sessions(&self) -> Result<Vec<OperatorSession>, ErrorBody> {
        call::<(), _>("GET", "/api/admin/sessions", None, &[]).await
    }

    /// Ends session `id`.
    pub async fn end_session(&self, id: &str) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("DELETE", &format!("/api/admin/sessions/{id}"), None, &[])
            .await
            .map(|_| ())
    }

    /// Every API key (never a secret).
    pub async fn api_keys(&self) -> Result<Vec<ApiKey>, ErrorBody> {
        call::<(), _>("GET", "/api/admin/keys", None, &[]).await
    }

    /// A new API key: its secret is in this answer only.
    pub async fn add_api_key(&self, new: &NewApiKey) -> Result<ApiKeyCreated, ErrorBody> {
        call("POST", "/api/admin/keys", Some(new), &[]).await
    }

    /// Revokes key `id`.
    pub async fn revoke_api_key(&self, id: &str) -> Result<(), ErrorBody> {
        call::<(), serde_json::Value>("DELETE", &format!("/api/admin/keys/{id}"), None, &[])
            .await
            .map(|_| ())
    }

    /// The audit, newest first: of one person or key (`actor_id`), of one event, or all.
    pub async fn audit_of(
        &self,
        actor_id: Option<&str>,
        event_id: Option<&str>,
    ) -> Result<Vec<AuditEntry>, ErrorBody> {
        let mut query = vec!["limit=200".to_owned()];
        for (name, value) in [("actor_id", actor_id), ("event_id", event_id)] {
            if let Some(value) = value.filter(|v| !v.is_empty()) {
                let value = plain_id(value);
                query.push(format!("{name}={value}"));
            }
        }
        call::<(), _>(
            "GET",
            &format!("/api/admin/audit?{}", query.join("&")),
            None,
            &[],
        )
        .await
    }
}

/// An id for a query string: ids are letters, digits, `-` and `_`; anything else is dropped.
fn plain_id(value: &str) -> String {
    value
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}
