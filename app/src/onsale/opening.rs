//! Before the line: the countdowns to the pre-queue and to the sale, and the pre-queue's ticket
//! until the draw. Both count on the server's clock, so a reload shows what the page showed.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use super::{Venue, noscript::refresh_in};
use crate::words::countdown;

/// Before the pre-queue opens: when it opens and when the sale does, counting down.
#[component]
pub(super) fn Countdowns(
    opens_at: DateTime<Utc>,
    prequeue_opens_at: DateTime<Utc>,
    now: RwSignal<i64>,
    today: DateTime<Utc>,
) -> impl IntoView {
    let to = move |t: DateTime<Utc>| move || countdown(t.timestamp() - now.get());
    let venue = Venue::here();
    let sale = venue.moment(opens_at, today);
    let prequeue = (prequeue_opens_at < opens_at).then(|| venue.moment(prequeue_opens_at, today));
    let until_prequeue = prequeue_opens_at.timestamp() - now.get_untracked();
    view! {
        <section class="opening card" aria-labelledby="opening">
            <p class="eyebrow">"The sale has not opened yet"</p>
            <p id="opening" class="place">"The sale opens at "<strong>{sale.clone()}</strong></p>
            {match prequeue {
                Some(prequeue) => view! {
                    <p class="wait">"The pre-queue opens at "{prequeue.clone()}", in "
                        <strong class="countdown" data-countdown="prequeue">{to(prequeue_opens_at)}</strong>"."</p>
                    <p>{format!(
                        "Everyone who joins the pre-queue between {prequeue} and {sale} has the same \
                         chance: at {sale} a draw puts them all in line in a random order, ahead of \
                         everyone who comes later. Being first makes no difference, so there is no \
                         need to rush: come any time before {sale}."
                    )}</p>
                }.into_any(),
                None => view! {
                    <p class="wait">"It opens in "
                        <strong class="countdown" data-countdown="sale">{to(opens_at)}</strong>
                        ". From then on it is first come, first served."</p>
                }.into_any(),
            }}
            <p class="muted">"Keep this page open: it joins for you when the time comes."</p>
            {refresh_in(until_prequeue, None)}
        </section>
    }
}

/// In the pre-queue: the ticket, what the draw does, and the countdown to it.
#[component]
pub(super) fn PreQueue(
    ticket: String,
    opens_at: DateTime<Utc>,
    now: RwSignal<i64>,
    today: DateTime<Utc>,
) -> impl IntoView {
    let venue = Venue::here();
    let sale = venue.moment(opens_at, today);
    let until_draw = opens_at.timestamp() - now.get_untracked();
    view! {
        <section class="prequeue card" aria-labelledby="prequeue">
            <p class="eyebrow">"You are in the pre-queue"</p>
            <p id="prequeue" class="place">"Your ticket "<code class="ticket">{ticket}</code></p>
            <p class="wait">{move || {
                let left = opens_at.timestamp() - now.get();
                if left > 0 {
                    format!("The draw is at {sale}, in {}.", countdown(left))
                } else {
                    "The draw is being made: your place comes in a moment.".to_owned()
                }
            }}</p>
            <p>{format!(
                "Everyone who joins before {} has the same chance: joining early or at the last \
                 second makes no difference. At {0} a draw puts every ticket in a random order, and \
                 that is the order of the line, ahead of everyone who comes after {0}.",
                venue.moment(opens_at, today)
            )}</p>
            <p class="muted">"Keep this page open, or come back before the draw: your ticket stays \
                yours, in every tab. It is random and says nothing about you; after the draw \
                anyone can check where each ticket was placed."</p>
            {refresh_in(until_draw.min(30) + 1, None)}
        </section>
    }
}
