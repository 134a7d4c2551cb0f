//! The waiting room: the buyer's place, the band of the wait, the outlook and the progress since
//! joining, and the browser following the line ([`follow_the_line`]), which moves the page on by
//! the stage each answer decides ([`after_line`], [`after_refusal`]).
//!
//! [`after_line`]: super::stage::Stage::after_line
//! [`after_refusal`]: super::stage::Stage::after_refusal

use leptos::prelude::*;

use super::noscript::noscript_refresh;
#[cfg(feature = "hydrate")]
use super::stage::Stage;
#[cfg(feature = "hydrate")]
use crate::{api::Api, presence::POLL_NEAR_MS, wire::QueueStatus};
use crate::{
    wire::Outlook,
    words::{grouped, outlook_in_words, wait_range_in_words},
};

#[component]
pub(super) fn WaitingRoom(
    position: u64,
    estimate: Option<[u64; 2]>,
    outlook: Option<Outlook>,
    drawn: Option<(String, u64)>,
    event_id: String,
    start: u64,
    paused: bool,
    about: bool,
    refresh: u64,
) -> impl IntoView {
    // Without script: again on the line's schedule (`crate::presence`), at the page without a
    // form's note (said once already).
    let every = refresh_in_words(refresh);
    let refresh = format!("{refresh}; url=/events/{event_id}");
    let done = start.saturating_sub(position) as f64;
    let progress = if start > 1 {
        (done / (start - 1) as f64 * 100.0).clamp(0.0, 100.0)
    } else {
        100.0
    };
    view! {
        <section class="waiting card" aria-labelledby="place">
            <p class="eyebrow">"You are in the waiting room"</p>
            <p id="place" class="place">"You are "<strong>{format!("{}#{}", if about { "about " } else { "" }, grouped(position))}</strong>" in line"</p>
            {if paused {
                view! {
                    <p class="wait paused">"The sale is paused for a moment. You keep your place; no one can pass you."</p>
                }.into_any()
            } else {
                view! {
                    <p class="wait">"Your turn comes in "<strong>{wait_band_in_words(estimate)}</strong>"."</p>
                }.into_any()
            }}
            {outlook.map(|o| view! { <p class="outlook">{outlook_in_words(o)}</p> })}
            <div class="progress" role="progressbar" aria-label="Progress since you joined"
                aria-valuemin="0" aria-valuemax="100" aria-valuenow=format!("{progress:.0}")>
                <div class="progress-bar" style=format!("width: {progress:.1}%")></div>
            </div>
            {drawn.map(|(ticket, place)| view! { <DrawnPlace ticket place event_id/> })}
            <p class="muted">"Keep this page open: it moves by itself ("{every}"), and it lets you in when it is your turn. Refreshing or opening more tabs does not change your place."</p>
            {noscript_refresh(refresh, "This page refreshes itself, less often while your turn is far.")}
        </section>
    }
}

/// A drawn entrant's confirmation of their place: the ticket, where the draw put it, and how
/// to check that without trusting us.
#[component]
fn DrawnPlace(ticket: String, place: u64, event_id: String) -> impl IntoView {
    let draw = format!("/api/events/{event_id}/draw");
    let link = draw.clone();
    view! {
        <div class="drawn">
            <p>"Your place comes from the draw: ticket "<code class="ticket">{ticket.clone()}</code>
                " was drawn at place "<strong data-drawn-place="">{grouped(place)}</strong>"."</p>
            <p class="muted">"Check it yourself: the draw is published at "
                <a href=link>{draw}</a>
                " (the secret committed to before the pre-queue opened, the beacon, the seed, and every ticket in order). Anyone can recompute it, or run "
                <code>{format!("anteroom verify-draw --url <this site> --event {event_id} --ticket {ticket}")}</code>"."</p>
        </div>
    }
}

/// How often the page refreshes, in words ("every 3 seconds", "every minute").
fn refresh_in_words(seconds: u64) -> String {
    match seconds {
        60 => "every minute".into(),
        s => format!("every {s} seconds"),
    }
}

/// The band of a wait in words ("about 3 to 4 minutes").
fn wait_band_in_words(band: Option<[u64; 2]>) -> String {
    let [low, high] = band.unwrap_or([0, 0]);
    wait_range_in_words(low, high)
}

/// What the page says when the line answers `recovered` (API notes in the README).
#[cfg(feature = "hydrate")]
const RECOVERED: &str = "The waiting room recovered from a failure of its store a moment ago. \
    Your place is kept in the order you arrived; your position may have gone back while \
    admissions lost in the failure are made again.";

/// Follows the line from the browser until the seat map (or sold out): before the pre-queue
/// opens it waits for the server's clock (`now`) to reach it and joins; then it polls every
/// 3 s in the pre-queue, and in line on the line's schedule (`crate::presence`): it refreshes
/// every `refresh` seconds of the last answer, from the line's public progress while its turn
/// is far and its last ask recent enough, else by asking for its place.
#[cfg(feature = "hydrate")]
pub(super) async fn follow_the_line(
    event_id: String,
    stage: RwSignal<Stage>,
    paused: RwSignal<bool>,
    message: RwSignal<Option<String>>,
    now: RwSignal<i64>,
) {
    use gloo_timers::future::TimeoutFuture;
    let api = Api::current();
    // The ms since the page last asked for its place: between asks, a page far from the front
    // reads the public progress.
    let mut since_ask = 0;
    loop {
        let was_waiting = matches!(stage.get_untracked(), Stage::Waiting { .. });
        let answer = match stage.get_untracked() {
            Stage::NotOpen {
                prequeue_opens_at, ..
            } => {
                TimeoutFuture::new(1_000).await;
                // A second past it: the page's clock counts whole seconds and may be a second
                // ahead of the server's, and a join a moment early is refused (409).
                if now.get_untracked() <= prequeue_opens_at.timestamp() + 1 {
                    continue;
                }
                api.join(&event_id).await
            }
            Stage::PreQueue { .. } => {
                TimeoutFuture::new(POLL_NEAR_MS as u32).await;
                api.poll(&event_id).await
            }
            Stage::Waiting {
                refresh,
                drawn,
                arrival,
                poll_within,
                ..
            } => {
                let refresh_ms = refresh.max(1) * 1000;
                TimeoutFuture::new(refresh_ms as u32).await;
                since_ask += refresh_ms;
                if let Some(arrival) =
                    arrival.filter(|_| since_ask + refresh_ms <= poll_within * 1000)
                    && let Some(at) = api.standing(&event_id, arrival).await.filter(|at| !at.near)
                {
                    paused.set(at.paused);
                    stage.set(Stage::Waiting {
                        position: at.position,
                        estimate: (!at.paused).then_some(at.range),
                        outlook: at.outlook,
                        drawn,
                        about: !at.exact,
                        refresh: at.refresh_seconds,
                        arrival: Some(arrival),
                        poll_within,
                    });
                    continue;
                }
                since_ask = 0;
                api.poll(&event_id).await
            }
            _ => return,
        };
        match answer {
            // Handed over to the ticketer's site: the browser is on its way there.
            Ok(QueueStatus::Admitted {
                handoff_url: Some(_),
                ..
            }) => return,
            Ok(QueueStatus::Admitted { .. }) => match api.seats(&event_id).await {
                Ok(map) => {
                    message.set(None);
                    stage.set(Stage::Choosing(map));
                }
                Err(e) => message.set(Some(e.message)),
            },
            Ok(status) => {
                // The notice of a recovery stays while the buyer waits; other notes go.
                if let QueueStatus::Waiting {
                    recovered: true, ..
                } = status
                {
                    message.set(Some(RECOVERED.to_owned()));
                } else if message.get_untracked().as_deref() != Some(RECOVERED) {
                    message.set(None);
                }
                if let QueueStatus::Waiting {
                    paused: is_paused, ..
                } = status
                {
                    paused.set(is_paused);
                }
                if let Some(next) = Stage::after_line(&status) {
                    stage.set(next);
                }
            }
            // A refusal: first the stage it decides, if any.
            Err(e) => match Stage::after_refusal(&e) {
                // The place went to another device: this page has none, and takes no new one.
                Some(moved @ Stage::Moved(_)) => {
                    message.set(None);
                    stage.set(moved);
                    return;
                }
                // Still closed (the opening was postponed, or this clock ran ahead): count again.
                Some(next) => stage.set(next),
                // Still closed, without its times: the countdown goes on.
                None if e.error == "not_open" => {}
                // This browser cannot prove its device: said once, no retrying.
                None if e.error == "no_device_key" => {
                    message.set(Some(e.message));
                    return;
                }
                None if e.error == "not_in_queue" => match api.join(&event_id).await {
                    Ok(status) => {
                        if was_waiting {
                            message.set(Some(
                                "Your turn passed without a choice, so you are back in line."
                                    .into(),
                            ));
                        }
                        if let Some(next) = Stage::after_line(&status) {
                            stage.set(next);
                        }
                    }
                    Err(e) => message.set(Some(e.message)),
                },
                None => message.set(Some(e.message)),
            },
        }
    }
}
