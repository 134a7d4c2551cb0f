//! The buyer's turn, choosing: the seat map with the seats to tick (up to the room's limit), and
//! the best available in a section. A hold refused because seats were just taken shows the map
//! again as it is now, naming the seats that went.

use leptos::prelude::*;

use super::{
    Stage, Venue, back_to_line,
    forms::{by_script, hidden_fields, new_key},
    read,
};
use crate::{
    api::Api,
    wire::{Deferred, HoldRequest, PageForms, SeatMap, SeatStatus},
    words::Note,
};

fn seat_label(map: &SeatMap, id: &str) -> String {
    for section in &map.sections {
        for row in &section.rows {
            if let Some(seat) = row.seats.iter().find(|s| s.id == id) {
                return format!("{} row {} seat {}", section.name, row.label, seat.number);
            }
        }
    }
    format!("seat {id}")
}

#[component]
pub(super) fn SeatPicker(
    map: SeatMap,
    event_id: String,
    limit: u32,
    stage: RwSignal<Stage>,
    message: RwSignal<Option<String>>,
    forms: Option<PageForms>,
) -> impl IntoView {
    let hold_action = format!("/events/{event_id}/hold");
    let selected = RwSignal::new(Vec::<String>::new());
    let busy = RwSignal::new(false);
    let venue = StoredValue::new(Venue::here());
    let map = StoredValue::new(map);
    let event_id = StoredValue::new(event_id);
    let sections: Vec<String> =
        map.with_value(|m| m.sections.iter().map(|s| s.name.clone()).collect());
    let best_section = RwSignal::new(sections.first().cloned().unwrap_or_default());
    let best_quantity = RwSignal::new(2u32.min(limit));

    let request_hold = move |request: HoldRequest| {
        busy.set(true);
        message.set(None);
        let api = Api::current();
        let key = new_key();
        leptos::task::spawn_local(async move {
            let event_id = event_id.get_value();
            match api.hold(&event_id, &request, &key).await {
                Ok(hold) => stage.set(Stage::Holding(Deferred::Ready(hold))),
                Err(e) if e.error == "not_admitted" => {
                    back_to_line(&event_id, stage, message).await;
                    busy.set(false);
                }
                Err(e) => {
                    let taken = e.seat_ids.clone().unwrap_or_default();
                    match api.seats(&event_id).await.and_then(read) {
                        Ok(fresh) => {
                            let words = if e.error == "seat_unavailable" && !taken.is_empty() {
                                let names: Vec<String> =
                                    taken.iter().map(|id| seat_label(&fresh, id)).collect();
                                format!(
                                    "Someone just took {}. The map now shows what is left; choose again.",
                                    names.join(", ")
                                )
                            } else if e.error == "seat_unavailable" {
                                "There are not that many seats left together in that section. Try fewer seats or another section.".to_owned()
                            } else {
                                e.message
                            };
                            message.set(Some(words));
                            // Read once, here: the stage takes the map as it is.
                            stage.set(Stage::Choosing(Deferred::Ready(fresh)));
                        }
                        Err(again) if again.error == "not_admitted" => {
                            back_to_line(&event_id, stage, message).await;
                        }
                        Err(again) => message.set(Some(again.message)),
                    }
                    busy.set(false);
                }
            }
        });
    };

    // Whether the seat `id` is chosen now (`on`), as far as the limit allows: false when it
    // refused.
    let choose = move |id: String, on: bool| {
        let mut taken = true;
        selected.update(|s| {
            let at = s.iter().position(|x| *x == id);
            match (on, at) {
                (false, Some(i)) => {
                    s.remove(i);
                }
                (true, None) if s.len() < limit as usize => s.push(id),
                (true, None) => taken = false,
                _ => {}
            }
        });
        taken || !on
    };
    let hold_chosen = move || {
        if selected.with(Vec::is_empty) {
            message.set(Some(Note::NoSeats.sentence(None)));
        } else {
            request_hold(HoldRequest {
                seat_ids: Some(selected.get()),
                ..HoldRequest::default()
            });
        }
    };
    let best_action = hold_action.clone();

    view! {
        <section class="card picker">
            <p class="eyebrow admitted">"You're in: it is your turn."</p>
            <h2>"Choose your seats"</h2>
            <p class="muted">{format!("Up to {limit} seats. Tick seats to choose them, or let us find the best ones together.")}</p>
            <ul class="legend">
                <li><span class="swatch available"></span>"Available"</li>
                <li><span class="swatch chosen"></span>"Your choice"</li>
                <li><span class="swatch held"></span>"Held"</li>
                <li><span class="swatch sold"></span>"Sold"</li>
            </ul>
            <form method="post" action=hold_action class="chosen-seats"
                on:submit=move |ev| by_script(ev, hold_chosen)>
                {hidden_fields(&forms, Some("seats"))}
                <div class="stage-mark">"Stage"</div>
                {map.with_value(|m| m.sections.clone()).into_iter().map(|section| view! {
                    <fieldset class="section">
                        <legend>{section.name.clone()}</legend>
                        {section.rows.into_iter().map(|row| {
                            let section_name = section.name.clone();
                            view! {
                                <div class="row" role="group" aria-label=format!("{} row {}", section_name, row.label)>
                                    <span class="row-label" aria-hidden="true">{row.label.clone()}</span>
                                    {row.seats.into_iter().map(|seat| {
                                        let id = seat.id.clone();
                                        let id_for_class = id.clone();
                                        let id_for_checked = id.clone();
                                        let available = seat.status == SeatStatus::Available;
                                        let status = match seat.status {
                                            SeatStatus::Available => "available",
                                            SeatStatus::Held => "held",
                                            SeatStatus::Sold => "sold",
                                        };
                                        let label = format!("{} row {} seat {}, {}, {}", section_name, row.label, seat.number, venue.with_value(|v| v.money(seat.price_cents)), status);
                                        let title = label.clone();
                                        view! {
                                            <label
                                                class=move || {
                                                    let chosen = selected.with(|s| s.contains(&id_for_class));
                                                    format!("seat {status}{}", if chosen { " chosen" } else { "" })
                                                }
                                                data-seat-id=seat.id.clone()
                                                title=title
                                            >
                                                <input type="checkbox" name="seat" value=seat.id.clone()
                                                    aria-label=label
                                                    disabled=!available
                                                    prop:checked=move || selected.with(|s| s.contains(&id_for_checked))
                                                    on:change=move |ev| {
                                                        let on = event_target_checked(&ev);
                                                        if !choose(id.clone(), on) {
                                                            event_target::<leptos::web_sys::HtmlInputElement>(&ev).set_checked(false);
                                                            message.set(Some(format!("You may hold up to {limit} seats; untick one to choose another.")));
                                                        }
                                                    }
                                                />
                                                <span aria-hidden="true">{seat.number}</span>
                                            </label>
                                        }
                                    }).collect_view()}
                                </div>
                            }
                        }).collect_view()}
                    </fieldset>
                }).collect_view()}
                <div class="actions">
                    <button type="submit" class="button" disabled=move || busy.get()>
                        {move || match selected.with(Vec::len) {
                            0 => "Hold the seats I ticked".to_owned(),
                            1 => "Hold 1 seat".to_owned(),
                            n => format!("Hold {n} seats"),
                        }}
                    </button>
                </div>
            </form>
            <form method="post" action=best_action class="best"
                on:submit=move |ev| by_script(ev, move || request_hold(HoldRequest {
                    section: Some(best_section.get()),
                    quantity: Some(best_quantity.get()),
                    ..HoldRequest::default()
                }))>
                {hidden_fields(&forms, Some("best"))}
                <h3>"Or: best available"</h3>
                <label>"Section "
                    <select name="section" on:change=move |ev| best_section.set(event_target_value(&ev))>
                        {sections.iter().map(|s| view! { <option value=s.clone()>{s.clone()}</option> }).collect_view()}
                    </select>
                </label>
                <label>" Seats "
                    <select name="quantity" on:change=move |ev| best_quantity.set(event_target_value(&ev).parse().unwrap_or(1))>
                        {(1..=limit).map(|n| view! { <option value=n.to_string() selected=n == 2u32.min(limit)>{n}</option> }).collect_view()}
                    </select>
                </label>
                <button type="submit" class="button secondary" disabled=move || busy.get()>
                    "Find me seats"
                </button>
            </form>
        </section>
    }
}
