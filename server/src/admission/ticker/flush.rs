//! What the ticks leave for Postgres, written at most [`super::FLUSH_EVERY`] after them: the
//! heads the ticks moved (greatest wins, so a late or repeated write never takes one back),
//! the admission logs and the seconds of the series of each event this ticker led, and the
//! night kept once the line was quiet. What fails to be written is kept for the next flush.

use app::wire::Room;

use super::Ticker;
use crate::{
    admission::{archive, log},
    error::Result,
};

impl Ticker {
    /// Writes the heads this ticker moved since the last flush to Postgres, in one statement
    /// (greatest wins, so a late or repeated write never takes a head back). On failure they
    /// are kept for the next flush.
    pub async fn flush(&self) -> Result<()> {
        let led = std::mem::take(&mut *self.led.lock().expect("not poisoned"));
        let mut failed = None;
        for (event_id, room) in led {
            let moved = log::flush(&self.state, &event_id).await;
            let kept = self.keep_seconds(&event_id, &room).await;
            if let Err(e) = moved.and(kept) {
                self.led
                    .lock()
                    .expect("not poisoned")
                    .insert(event_id, room);
                failed = Some(e);
            }
        }
        self.flush_heads().await?;
        failed.map_or(Ok(()), Err)
    }

    /// Keeps the seconds of `event_id`'s series that ended since this ticker last kept them
    /// (on its first time, the last ten minutes).
    async fn keep_seconds(&self, event_id: &str, room: &Room) -> Result<()> {
        let last = chrono::Utc::now().timestamp() - 1;
        let from = self
            .kept
            .lock()
            .expect("not poisoned")
            .get(event_id)
            .map_or(i64::MIN, |k| k + 1);
        let active = archive::keep(&self.state, event_id, room, from, last).await?;
        self.kept
            .lock()
            .expect("not poisoned")
            .insert(event_id.to_owned(), last);
        let idle = self.state.config.night_idle_seconds;
        let settled = |ticker: &Self, settled: bool| {
            let mut events = ticker.settled.lock().expect("not poisoned");
            match settled {
                true => events.insert(event_id.to_owned()),
                false => events.remove(event_id),
            };
        };
        if active.is_some_and(|t| last - t < i64::from(idle)) {
            // Something happened within the idle time in the seconds just kept (the seconds
            // after it, up to `last`, are fewer than the idle time): the night goes on, no
            // need to ask Postgres.
            settled(self, false);
            return Ok(());
        }
        match archive::close_if_idle(&self.state, event_id, room, idle).await? {
            archive::Idle::Open => settled(self, false),
            archive::Idle::Nothing => settled(self, true),
            archive::Idle::Closed(night) => {
                settled(self, true);
                tracing::info!(event = %event_id, night = night.id, "the line was quiet: the night is kept");
            }
        }
        Ok(())
    }

    /// The heads part of [`Ticker::flush`].
    async fn flush_heads(&self) -> Result<()> {
        let heads = std::mem::take(&mut *self.heads.lock().expect("not poisoned"));
        if heads.is_empty() {
            return Ok(());
        }
        let (events, values): (Vec<&str>, Vec<i64>) = heads
            .iter()
            .map(|(event, head)| (event.as_str(), i64::try_from(*head).unwrap_or(i64::MAX)))
            .unzip();
        let written = sqlx::query(
            "insert into event_line as l (event_id, admitted_through) \
             select * from unnest($1::text[], $2::bigint[]) \
             on conflict (event_id) do update set \
                 admitted_through = greatest(l.admitted_through, excluded.admitted_through), \
                 updated_at = now()",
        )
        .bind(&events)
        .bind(&values)
        .execute(&self.state.db)
        .await;
        if let Err(e) = written {
            for (event, head) in heads {
                self.remember_head(event, head);
            }
            return Err(e.into());
        }
        Ok(())
    }

    pub(super) fn remember_head(&self, event_id: String, head: u64) {
        let mut heads = self.heads.lock().expect("not poisoned");
        let kept = heads.entry(event_id).or_default();
        *kept = (*kept).max(head);
    }
}
