//! Room settings as this instance knows them. Postgres is the source of truth; every instance
//! re-reads all rooms every `room_refresh_ms` (default 500 ms), so an operator's change applies
//! everywhere within a second, and the hot paths (join, poll, the gate) never query Postgres
//! for a known event. With each room comes what Postgres keeps of its line (`event_line`: the
//! greatest arrival number ever admitted), which the line consults when Redis forgot it.

use std::{collections::HashMap, sync::RwLock};

use app::wire::{Event, Room, RoomUpdate};
use sqlx::{PgConnection, PgPool};

use crate::{
    error::{Error, Result},
    events,
};

/// Event id -> what this instance knows of it. A std `RwLock`: held for a map lookup only,
/// never across `.await`.
#[derive(Default)]
pub struct Rooms {
    map: RwLock<HashMap<String, Known>>,
}

/// One event's room, and its line as Postgres keeps it.
#[derive(Clone)]
struct Known {
    room: Room,
    /// The greatest arrival number ever admitted to the event, as Postgres knows it.
    admitted_through: u64,
}

impl Rooms {
    /// Re-reads every event's room and what Postgres keeps of its line.
    pub async fn refresh(&self, db: &PgPool) -> Result<()> {
        let all = events::list(db).await?;
        let lines: HashMap<String, i64> =
            sqlx::query_as::<_, (String, i64)>("select event_id, admitted_through from event_line")
                .fetch_all(db)
                .await?
                .into_iter()
                .collect();
        let fresh: HashMap<String, Known> = all
            .into_iter()
            .map(|e| {
                let admitted_through = lines.get(&e.id).map_or(0, |&a| a.max(0) as u64);
                let known = Known {
                    room: e.room,
                    admitted_through,
                };
                (e.id, known)
            })
            .collect();
        *self.map.write().expect("not poisoned") = fresh;
        Ok(())
    }

    /// The room of `event_id`: from memory, else from Postgres (a new event), else 404.
    pub async fn get(&self, db: &PgPool, event_id: &str) -> Result<Room> {
        if let Some(known) = self.map.read().expect("not poisoned").get(event_id) {
            return Ok(known.room.clone());
        }
        let event = events::get_event(db, event_id).await?;
        self.remember(&event);
        Ok(event.room)
    }

    /// Keeps `event`'s room as this instance's copy (a new event, or one just changed here).
    pub fn remember(&self, event: &Event) {
        let mut map = self.map.write().expect("not poisoned");
        let admitted_through = map.get(&event.id).map_or(0, |k| k.admitted_through);
        map.insert(
            event.id.clone(),
            Known {
                room: event.room.clone(),
                admitted_through,
            },
        );
    }

    /// The greatest arrival number admitted to `event_id` as Postgres knows it (0: none, or
    /// an event this instance has not read yet).
    pub fn admitted_through(&self, event_id: &str) -> u64 {
        self.map
            .read()
            .expect("not poisoned")
            .get(event_id)
            .map_or(0, |k| k.admitted_through)
    }

    /// Events whose room is on and not paused: the ones the ticker admits for.
    pub fn admitting(&self) -> Vec<(String, Room)> {
        self.matching(|r| r.enabled && !r.paused)
    }

    /// Events whose room is off: the ones whose line may be retired.
    pub fn off(&self) -> Vec<String> {
        self.matching(|r| !r.enabled)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    fn matching(&self, wanted: impl Fn(&Room) -> bool) -> Vec<(String, Room)> {
        self.map
            .read()
            .expect("not poisoned")
            .iter()
            .filter(|(_, k)| wanted(&k.room))
            .map(|(id, k)| (id.clone(), k.room.clone()))
            .collect()
    }

    /// How often the expiry sweep should run: the shortest interval among the events whose
    /// room is on, or `default` when none is.
    pub fn sweep_interval(&self, default: u32) -> u32 {
        self.map
            .read()
            .expect("not poisoned")
            .values()
            .filter(|k| k.room.enabled)
            .map(|k| k.room.hold_sweep_seconds)
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
                updated_at = now() \
             where id = $1 returning id",
        )
        .bind(event_id);
        let _: (String,) = events::bind_room(query, update).fetch_one(&mut *tx).await?;
        let after = events::get_event(&mut *tx, event_id).await?;
        Ok((before, after))
    }
}
