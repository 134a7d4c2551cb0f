//! The buyer's turn, holding: the seats held, the time left (a warning a minute before the end,
//! then back to the map), pay and release.

use chrono::Utc;
use leptos::prelude::*;

use super::{
    Stage, Venue, back_to_line, clock,
    forms::{by_script, hidden_fields, new_key},
    noscript::refresh_in,
};
use crate::{
    api::Api,
    lang::Arg,
    wire::{Deferred, Hold, PageForms},
    words::{countdown, error_in_words},
};

#[component]
pub(super) fn HoldPanel(
    hold: Hold,
    stage: RwSignal<Stage>,
    message: RwSignal<Option<String>>,
    forms: Option<PageForms>,
) -> impl IntoView {
    let page = format!("/events/{}", hold.event_id);
    let action = format!("{page}/holds/{}", hold.hold_id);
    let (pay_action, release_action) = (format!("{action}/pay"), format!("{action}/release"));
    let now = clock(Utc::now().timestamp());
    let expires = hold.expires_at.timestamp();
    let busy = RwSignal::new(false);
    let venue = Venue::here();
    let w = venue.words.clone();
    let words = StoredValue::new(w.clone());
    let hold = StoredValue::new(hold);
    let event_id = hold.with_value(|h| h.event_id.clone());
    let event_id = StoredValue::new(event_id);
    let back_to_map = move |note: Option<String>| {
        let api = Api::current();
        let w = words.get_value();
        leptos::task::spawn_local(async move {
            match api.seats(&event_id.get_value()).await {
                Ok(map) => {
                    message.set(note);
                    stage.set(Stage::Choosing(map));
                }
                Err(e) if e.error == "not_admitted" => {
                    back_to_line(&event_id.get_value(), stage, message).await;
                }
                Err(e) => message.set(Some(error_in_words(&w, &e))),
            }
        });
    };
    // A minute before the end: said once, on the page and through the live region (the
    // notice is an alert); the countdown turns urgent.
    let warned = RwSignal::new(false);
    Effect::new(move |_| {
        let left = expires - now.get();
        if left <= 0 && !busy.get_untracked() {
            back_to_map(Some(words.with_value(|w| w.t("held-ended"))));
        } else if left <= HOLD_WARNING_SECONDS && !warned.get_untracked() {
            warned.set(true);
            message.set(Some(words.with_value(|w| w.t("held-one-minute"))));
        }
    });
    let pay_key = StoredValue::new(new_key());
    let pay = move || {
        busy.set(true);
        message.set(None);
        let api = Api::current();
        let w = words.get_value();
        leptos::task::spawn_local(async move {
            let h = hold.get_value();
            match api
                .checkout(&h.event_id, &h.hold_id, &pay_key.get_value())
                .await
            {
                Ok(order) => {
                    stage.set(Stage::Confirmed(Deferred::Ready(order), Deferred::Ready(h)))
                }
                Err(e) => {
                    if e.error == "payment_declined" {
                        // A new attempt (another card) is a new payment.
                        pay_key.set_value(new_key());
                    }
                    message.set(Some(error_in_words(&w, &e)));
                    busy.set(false);
                }
            }
        });
    };
    let release = move || {
        busy.set(true);
        let api = Api::current();
        let w = words.get_value();
        leptos::task::spawn_local(async move {
            let h = hold.get_value();
            match api.release(&h.event_id, &h.hold_id).await {
                Ok(()) => back_to_map(Some(w.t("note-released"))),
                Err(e) => {
                    message.set(Some(error_in_words(&w, &e)));
                    busy.set(false);
                }
            }
        });
    };
    let (held_for, more) = w.around("held-for", "time", &[]);
    let pay_words = w.f(
        "held-pay",
        &[(
            "amount",
            Arg::Text(venue.money(hold.with_value(|h| h.total_cents))),
        )],
    );
    view! {
        <section class="card hold">
            <h2>{w.t("held-title")}</h2>
            <p class="countdown" class:urgent=move || expires - now.get() <= HOLD_WARNING_SECONDS>
                {held_for}
                <strong>{move || words.with_value(|w| countdown(w, expires - now.get()))}</strong>
                {more}
            </p>
            <SeatList hold=hold.get_value()/>
            <div class="actions">
                <form method="post" action=pay_action on:submit=move |ev| by_script(ev, pay)>
                    {hidden_fields(&forms, Some("pay"))}
                    <button type="submit" class="button" disabled=move || busy.get()>
                        {pay_words}
                    </button>
                </form>
                <form method="post" action=release_action on:submit=move |ev| by_script(ev, release)>
                    {hidden_fields(&forms, None)}
                    <button type="submit" class="button secondary" disabled=move || busy.get()>{w.t("held-release")}</button>
                </form>
            </div>
            // Without JavaScript: the time left is right on each reload, and at the end the
            // page comes back as the seat map.
            {refresh_in(expires - now.get_untracked() + 1, Some(page.clone()))}
        </section>
    }
}

/// When the hold's page warns that time is running out.
const HOLD_WARNING_SECONDS: i64 = 60;

#[component]
pub(super) fn SeatList(hold: Hold) -> impl IntoView {
    let venue = Venue::here();
    let w = &venue.words;
    view! {
        <ul class="seat-list">
            {hold.seats.into_iter().map(|s| {
                let seat = w.f(
                    "held-seat",
                    &[
                        ("section", Arg::Text(s.section)),
                        ("row", Arg::Text(s.row)),
                        // Text: a seat's number is a name, never grouped ("1200").
                        ("seat", Arg::Text(s.number.to_string())),
                    ],
                );
                view! { <li>{seat}<span>{venue.money(s.price_cents)}</span></li> }
            }).collect_view()}
            <li class="total">{w.t("held-total")}<span>{venue.money(hold.total_cents)}</span></li>
        </ul>
    }
}
