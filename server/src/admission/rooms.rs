//! Room settings as this instance knows them. Postgres is the source of truth; every instance
//! re-reads all rooms every `room_refresh_ms` (default 500 ms), so an operator's change applies
//! everywhere within a second, and the hot paths (join, poll, the gate) never query Postgres
//! for a known event.

use std::{collections::HashMap, sync::RwLock};

use app::wire::{Event, Room, RoomUpdate};
use sqlx::{PgConnection, PgPool};

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

    /// Keeps `event`'s room as this instance's copy (a new event, or one just changed here).
    pub fn remember(&self, event: &Event) {
        self.map
            .write()
            .expect("not poisoned")
            .insert(event.id.clone(), event.room.clone());
    }

    /// Events whose room is on: the ones the ticker ticks (and admits for unless paused).
    pub fn ticking(&self) -> Vec<(String, Room)> {
        self.map
            .read()
            .expect("not poisoned")
            .iter()
            .filter(|(_, r)| r.enabled)
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

    /// Applies `update` in Postgres inside the caller's transaction `tx`, and answers the room
    /// before and the event after. The caller records the change in the audit before committing, then
    /// [`remember`](Self::remember)s the new room here; other instances see it at their next
    /// refresh.
    pub async fn apply(
        tx: &mut PgConnection,
        event_id: &str,
        update: &RoomUpdate,
    ) -> Result<(Room, Event)> {
        update
            .validate()
            .map_err(|e| Error::Unprocessable(e.message))?;
        let before = events::lock_event(tx, event_id).await?.room;
        let query = sqlx::query_as(
            "update event set \
                room_enabled = coalesce($2, room_enabled), \
                room_paused = coalesce($3, room_paused), \
                admit_rate_per_second = coalesce($4, admit_rate_per_second), \
                tick_ms = coalesce($5, tick_ms), \
                hold_ttl_seconds = coalesce($6, hold_ttl_seconds), \
                seats_per_buyer = coalesce($7, seats_per_buyer), \
                hold_sweep_seconds = coalesce($8, hold_sweep_seconds), \
                join_pow_bits = coalesce($9, join_pow_bits), \
                updated_at = now() \
             where id = $1 returning id",
        )
        .bind(event_id);
        let _: (String,) = events::bind_room(query, update).fetch_one(&mut *tx).await?;
        let after = events::get_event(&mut *tx, event_id).await?;
        Ok((before, after))
    }
}
