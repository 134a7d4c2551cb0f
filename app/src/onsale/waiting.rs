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
    lang::{Arg, Part, Words},
    wire::Outlook,
    words::{outlook_in_words, wait_range_in_words},
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
    let w = Words::current();
    let every = w.n("waiting-refresh-every", refresh);
    let refresh = format!("{refresh}; url=/events/{event_id}");
    let done = start.saturating_sub(position) as f64;
    let progress = if start > 1 {
        (done / (start - 1) as f64 * 100.0).clamp(0.0, 100.0)
    } else {
        100.0
    };
    let place = if about {
        w.n("waiting-position-about", position)
    } else {
        w.n("waiting-position", position)
    };
    let (place_before, place_after) = w.around("waiting-place", "place", &[]);
    view! {
        <section class="waiting card" aria-labelledby="place">
            <p class="eyebrow">{w.t("waiting-in-room")}</p>
            <p id="place" class="place">{place_before}<strong>{place}</strong>{place_after}</p>
            {if paused {
                view! {
                    <p class="wait paused">{w.t("waiting-paused")}</p>
                }.into_any()
            } else {
                let (before, after) = w.around("waiting-turn-in", "wait", &[]);
                view! {
                    <p class="wait">{before}<strong>{wait_band_in_words(&w, estimate)}</strong>{after}</p>
                }.into_any()
            }}
            {outlook.map(|o| view! { <p class="outlook">{outlook_in_words(&w, o)}</p> })}
            <div class="progress" role="progressbar" aria-label=w.t("waiting-progress")
                aria-valuemin="0" aria-valuemax="100" aria-valuenow=format!("{progress:.0}")>
                <div class="progress-bar" style=format!("width: {progress:.1}%")></div>
            </div>
            {drawn.map(|(ticket, place)| view! { <DrawnPlace ticket place event_id/> })}
            <p class="muted">{w.f("waiting-keep-open", &[("every", Arg::from(every))])}</p>
            {noscript_refresh(refresh, w.t("waiting-refreshes"))}
        </section>
    }
}

/// A drawn entrant's confirmation of their place: the ticket, where the draw put it, and how
/// to check that without trusting us.
#[component]
fn DrawnPlace(ticket: String, place: u64, event_id: String) -> impl IntoView {
    let w = Words::current();
    let draw = format!("/api/events/{event_id}/draw");
    let link = draw.clone();
    let site = w.t("waiting-this-site");
    let command = format!("anteroom verify-draw --url {site} --event {event_id} --ticket {ticket}");
    let drawn = view! { <code class="ticket">{ticket}</code> }.into_any();
    let place = view! { <strong data-drawn-place="">{w.number(place)}</strong> }.into_any();
    let address = view! { <a href=link>{draw}</a> }.into_any();
    let command = view! { <code>{command}</code> }.into_any();
    view! {
        <div class="drawn">
            <p>{with_markup(w.marked("waiting-drawn-place", &["ticket", "place"], &[]), [drawn, place])}</p>
            <p class="muted">{with_markup(w.marked("waiting-check-draw", &["address", "command"], &[]), [address, command])}</p>
        </div>
    }
}

/// A sentence's parts ([`Words::marked`]) with each mark's markup in its place.
fn with_markup<const N: usize>(parts: Vec<Part>, markup: [AnyView; N]) -> Vec<AnyView> {
    let mut markup = markup.map(Some);
    parts
        .into_iter()
        .map(|part| match part {
            Part::Text(text) => text.into_any(),
            Part::Mark(i) => markup.get_mut(i).and_then(Option::take).into_any(),
        })
        .collect()
}

/// The band of a wait in words ("about 3 to 4 minutes").
fn wait_band_in_words(w: &Words, band: Option<[u64; 2]>) -> String {
    let [low, high] = band.unwrap_or([0, 0]);
    wait_range_in_words(w, low, high)
}

/// Follows the line from the browser until the seat map (or sold out): before the pre-queue
/// opens it waits for the server's clock (`now`) to reach it and joins; then it polls every
/// 3 s in the pre-queue, and in line on the line's schedule (`crate::presence`): it refreshes
/// every `refresh` seconds of the last answer, from the line's public progress while its turn
/// is far and its last ask recent enough, else by asking for its place.
///
/// The page's words are taken when it is called (in the page's context), before the future runs.
#[cfg(feature = "hydrate")]
pub(super) fn follow_the_line(
    event_id: String,
    stage: RwSignal<Stage>,
    paused: RwSignal<bool>,
    message: RwSignal<Option<String>>,
    now: RwSignal<i64>,
) -> impl Future<Output = ()> + 'static {
    let w = Words::current();
    follow(w, event_id, stage, paused, message, now)
}

#[cfg(feature = "hydrate")]
async fn follow(
    w: Words,
    event_id: String,
    stage: RwSignal<Stage>,
    paused: RwSignal<bool>,
    message: RwSignal<Option<String>>,
    now: RwSignal<i64>,
) {
    use crate::words::error_in_words;
    use gloo_timers::future::TimeoutFuture;
    let api = Api::current();
    // What the page says when the line answers `recovered` (API notes in the README).
    let recovered = w.t("waiting-recovered");
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
                Err(e) => message.set(Some(error_in_words(&w, &e))),
            },
            Ok(status) => {
                // The notice of a recovery stays while the buyer waits; other notes go.
                if let QueueStatus::Waiting {
                    recovered: true, ..
                } = status
                {
                    message.set(Some(recovered.clone()));
                } else if message.get_untracked().as_ref() != Some(&recovered) {
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
                    message.set(Some(error_in_words(&w, &e)));
                    return;
                }
                None if e.error == "not_in_queue" => match api.join(&event_id).await {
                    Ok(status) => {
                        if was_waiting {
                            message.set(Some(w.t("waiting-turn-passed")));
                        }
                        if let Some(next) = Stage::after_line(&status) {
                            stage.set(next);
                        }
                    }
                    Err(e) => message.set(Some(error_in_words(&w, &e))),
                },
                None => message.set(Some(error_in_words(&w, &e))),
            },
        }
    }
}
