//! The operator's calls (the admin API, behind the admin cookie): signing in, the live stats,
//! payments, nights and audit, the room's settings, the draw's beacon and new events.

use super::{Api, call};
use crate::wire::{
    AuditEntry, BeaconUpdate, Draw, ErrorBody, Event, NewEvent, Night, NightPoint, Payments, Room,
    RoomUpdate, Stats,
};

impl Api {
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
}
