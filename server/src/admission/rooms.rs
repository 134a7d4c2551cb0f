//! Room settings as this instance knows them. Postgres is the source of truth; every instance
//! re-reads all rooms every `room_refresh_ms` (default 500 ms), so an operator's change applies
//! everywhere within a second, and the hot paths (join, poll, the gate) never query Postgres
//! for a known event.

use std::{collections::HashMap, sync::RwLock};

use app::wire::{Event, Room, RoomUpdate};
use sqlx::PgPool;

use crate::{
    error::{Error, Result},
    events,
};

/// Event id -> room settings. A std `RwLock`: held for a map lookup only, never across `.await`.
#[derive(Default)]
pub struct Rooms {
    map: RwLock<HashMap<String, Room>>,
}

impl Rooms {
    /// Re-reads every event's room.
    pub async fn refresh(&self, db: &PgPool) -> Result<()> {
        let all = events::list(db).await?;
        let fresh: HashMap<String, Room> = all.into_iter().map(|e| (e.id, e.room)).collect();
        *self.map.write().expect("not poisoned") = fresh;
        Ok(())
    }

    /// The room of `event_id`: from memory, else from Postgres (a new event), else 404.
    pub async fn get(&self, db: &PgPool, event_id: &str) -> Result<Room> {
        if let Some(room) = self.map.read().expect("not poisoned").get(event_id) {
            return Ok(room.clone());
        }
        let event = events::get_event(db, event_id).await?;
        self.remember(&event);
        Ok(event.room)
    }

    fn remember(&self, event: &Event) {
        self.map
            .write()
            .expect("not poisoned")
            .insert(event.id.clone(), event.room.clone());
    }

    /// Events whose room is on and not paused: the ones the ticker admits for.
    pub fn admitting(&self) -> Vec<(String, Room)> {
        self.map
            .read()
            .expect("not poisoned")
            .iter()
            .filter(|(_, r)| r.enabled && !r.paused)
            .map(|(id, r)| (id.clone(), r.clone()))
            .collect()
    }

    /// How often the expiry sweep should run: the shortest interval among the events whose
    /// room is on, or `default` when none is.
    pub fn sweep_interval(&self, default: u32) -> u32 {
        self.map
            .read()
            .expect("not poisoned")
            .values()
            .filter(|r| r.enabled)
            .map(|r| r.hold_sweep_seconds)
            .min()
            .unwrap_or(default)
    }

    /// Applies `update` in Postgres and here; other instances see it at their next refresh.
    /// The change and `actor` are recorded in the audit table in the same transaction.
    pub async fn update(
        &self,
        db: &PgPool,
        event_id: &str,
        update: &RoomUpdate,
        actor: &str,
    ) -> Result<Room> {
        update
            .validate()
            .map_err(|e| Error::Unprocessable(e.message))?;
        let query = sqlx::query_as(
            "update event set \
                room_enabled = coalesce($2, room_enabled), \
                room_paused = coalesce($3, room_paused), \
                admit_rate_per_second = coalesce($4, admit_rate_per_second), \
                tick_ms = coalesce($5, tick_ms), \
                hold_ttl_seconds = coalesce($6, hold_ttl_seconds), \
                seats_per_buyer = coalesce($7, seats_per_buyer), \
                hold_sweep_seconds = coalesce($8, hold_sweep_seconds), \
                updated_at = now() \
             where id = $1 returning id",
        )
        .bind(event_id);
        let mut tx = db.begin().await?;
        let updated: Option<(String,)> = events::bind_room(query, update)
            .fetch_optional(&mut *tx)
            .await?;
        if updated.is_none() {
            return Err(Error::NotFound(format!("there is no event {event_id:?}")));
        }
        sqlx::query("insert into room_change (event_id, actor, change) values ($1, $2, $3)")
            .bind(event_id)
            .bind(actor)
            .bind(sqlx::types::Json(update))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        let event = events::get_event(db, event_id).await?;
        self.remember(&event);
        Ok(event.room)
    }
}
