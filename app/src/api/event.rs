//! The events, and the event page's start: the entry the server renders from, or the browser
//! builds by joining (or claiming a place moved here).

use super::Api;
#[cfg(not(feature = "ssr"))]
use super::{binding::bind_room, call};
use crate::wire::{ErrorBody, Event, EventEntry};
#[cfg(not(feature = "ssr"))]
use crate::wire::{ProofChallenge, QueueStatus};

impl Api {
    pub async fn events(&self) -> Result<Vec<Event>, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.events().await;
        #[cfg(not(feature = "ssr"))]
        return call("GET", "/api/events", None::<&()>, &[]).await;
    }

    pub async fn event(&self, id: String) -> Result<Event, ErrorBody> {
        #[cfg(feature = "ssr")]
        return self.backend()?.event(id).await;
        #[cfg(not(feature = "ssr"))]
        return call("GET", &format!("/api/events/{id}"), None::<&()>, &[]).await;
    }

    /// The event page's start: join the line (or find one's place), and the seat map once in.
    pub async fn enter(&self, event_id: String) -> Result<EventEntry, ErrorBody> {
        #[cfg(feature = "ssr")]
        {
            let buyer = self.buyer.clone().ok_or_else(|| self.no_buyer())?;
            let (entry, cookie) = self.backend()?.enter(buyer, event_id).await?;
            if let (Some(cookie), Some(response)) = (cookie, &self.response)
                && let Ok(value) = http::HeaderValue::from_str(&cookie)
            {
                response.append_header(http::header::SET_COOKIE, value);
            }
            Ok(entry)
        }
        #[cfg(not(feature = "ssr"))]
        {
            self.enter_joining(event_id, None, None)
                .await
                .map(|(entry, _)| entry)
        }
    }

    /// [`Api::enter`] from the browser, joining the line; with the challenge of a proof of work
    /// the server already gave (`asked`), the proof is made before the first join, which then
    /// goes through at once. With a `claim` code (a place moved here from another device), it
    /// claims that place instead of joining; a code the server refused (used, expired or
    /// unknown) comes back beside the entry, which then joined as usual.
    #[cfg(not(feature = "ssr"))]
    pub async fn enter_joining(
        &self,
        event_id: String,
        asked: Option<ProofChallenge>,
        claim: Option<String>,
    ) -> Result<(EventEntry, Option<ErrorBody>), ErrorBody> {
        let event = self.event(event_id.clone()).await?;
        bind_room(&event);
        let (claimed, refused) = match claim {
            Some(code) => match self.claim(&event_id, &code).await {
                Ok(status) => (Some(status), None),
                Err(e) if e.error == "not_found" => (None, Some(e)),
                Err(e) => return Err(e),
            },
            None => (None, None),
        };
        let mut moved_at = None;
        let queue = match claimed {
            Some(status) => Some(status),
            None => match self.join_proving(&event_id, asked).await {
                Ok(queue) => Some(queue),
                // Not open yet: the page counts down (nothing was stored).
                Err(e) if e.error == "not_open" => None,
                // This session's place went to another device: the page says where.
                Err(ErrorBody {
                    moved: Some(moved), ..
                }) => {
                    moved_at = Some(moved.moved_at);
                    None
                }
                Err(e) => return Err(e),
            },
        };
        let seats = match queue {
            Some(QueueStatus::Admitted { .. }) => Some(self.seats(&event_id).await?),
            _ => None,
        };
        let entry = EventEntry {
            event,
            queue,
            seats,
            now: chrono::Utc::now(),
            arriving: false,
            hold: None,
            order: None,
            forms: None,
            moved_at,
        };
        Ok((entry, refused))
    }
}
