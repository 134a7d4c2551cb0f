//! Before the line: the countdowns to the pre-queue and to the sale, and the pre-queue's ticket
//! until the draw. Both count on the server's clock, so a reload shows what the page showed.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use super::{Venue, noscript::refresh_in};
use crate::{
    lang::{Arg, Words},
    words::countdown,
};

/// Before the pre-queue opens: when it opens and when the sale does, counting down.
#[component]
pub(super) fn Countdowns(
    opens_at: DateTime<Utc>,
    prequeue_opens_at: DateTime<Utc>,
    now: RwSignal<i64>,
    today: DateTime<Utc>,
) -> impl IntoView {
    let w = Words::current();
    let to = {
        let w = w.clone();
        move |t: DateTime<Utc>| {
            let w = w.clone();
            move || countdown(&w, t.timestamp() - now.get())
        }
    };
    let venue = Venue::here();
    let sale = venue.moment(opens_at, today);
    let prequeue = (prequeue_opens_at < opens_at).then(|| venue.moment(prequeue_opens_at, today));
    let until_prequeue = prequeue_opens_at.timestamp() - now.get_untracked();
    let (sale_before, sale_after) = w.around("opening-sale-at", "time", &[]);
    view! {
        <section class="opening card" aria-labelledby="opening">
            <p class="eyebrow">{w.t("opening-not-yet")}</p>
            <p id="opening" class="place">{sale_before}<strong>{sale.clone()}</strong>{sale_after}</p>
            {match prequeue {
                Some(prequeue) => {
                    let at = [("time", Arg::from(prequeue.clone()))];
                    let (before, after) = w.around("opening-prequeue-at", "countdown", &at);
                    let times = [("prequeue", Arg::from(prequeue)), ("sale", Arg::from(sale))];
                    let explained = w.f("opening-prequeue-explained", &times);
                    view! {
                        <p class="wait">{before}
                            <strong class="countdown" data-countdown="prequeue">{to(prequeue_opens_at)}</strong>{after}</p>
                        <p>{explained}</p>
                    }.into_any()
                }
                None => {
                    let (before, after) = w.around("opening-sale-in", "countdown", &[]);
                    view! {
                        <p class="wait">{before}
                            <strong class="countdown" data-countdown="sale">{to(opens_at)}</strong>
                            {after}</p>
                    }.into_any()
                }
            }}
            <p class="muted">{w.t("opening-keep-open")}</p>
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
    let w = Words::current();
    let venue = Venue::here();
    let sale = venue.moment(opens_at, today);
    let at = [("time", Arg::from(sale.clone()))];
    let explained = w.f("opening-draw-explained", &at);
    let until_draw = opens_at.timestamp() - now.get_untracked();
    let (ticket_before, ticket_after) = w.around("opening-your-ticket", "ticket", &[]);
    let draw = w.clone();
    view! {
        <section class="prequeue card" aria-labelledby="prequeue">
            <p class="eyebrow">{w.t("opening-in-prequeue")}</p>
            <p id="prequeue" class="place">{ticket_before}<code class="ticket">{ticket}</code>{ticket_after}</p>
            <p class="wait">{move || {
                let left = opens_at.timestamp() - now.get();
                if left > 0 {
                    let args = [
                        ("time", Arg::from(sale.clone())),
                        ("countdown", Arg::from(countdown(&draw, left))),
                    ];
                    draw.f("opening-draw-at", &args)
                } else {
                    draw.t("opening-draw-now")
                }
            }}</p>
            <p>{explained}</p>
            <p class="muted">{w.t("opening-ticket-kept")}</p>
            {refresh_in(until_draw.min(30) + 1, None)}
        </section>
    }
}
