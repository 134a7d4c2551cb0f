//! The buyer's turn, choosing: an overview of the sections (their shape, prices and seats left)
//! that opens one section at a time, the seats of that section to tick (up to the room's
//! limit), and the best available in a section. A hold refused because seats were just taken
//! shows the map again as it is now, naming the seats that went.
//!
//! Invariants:
//! - the page is never wider than the screen: the open section pans inside its own frame, at
//!   the seat size the buyer picks (small, 16 CSS px, to see a whole block; medium and large,
//!   28 and 44 px, both at least the 24 px a tap needs); pinch-zoom stays the browser's own;
//! - only the open section's seats are in the page, so an arena of 20,000 seats builds a
//!   section's worth of elements, not the hall's;
//! - without JavaScript a section is a page of its own (`?section=`, the overview's links)
//!   with the same checkboxes and forms; with it, a seat chosen stays chosen while the buyer
//!   looks at another section, and the chosen seats and the hold button stay in view;
//! - every seat is a labelled checkbox ("Stalls row 4 seat 12, 45.00 EUR, available"), reached
//!   by Tab, and the arrow keys move between seats (along a row, and to the next row's seat).

use leptos::{prelude::*, web_sys};

use super::{
    Stage, Venue, back_to_line,
    forms::{by_script, hidden_fields, new_key},
    read,
};
use crate::{
    api::Api,
    lang::{Arg, Words},
    wire::{Deferred, HoldRequest, PageForms, SeatMap, SeatStatus, SectionSummary, SectionView},
    words::{Note, error_in_words},
};

fn seat_label(w: &Words, map: &SeatMap, id: &str) -> String {
    for section in &map.sections {
        for row in &section.rows {
            if let Some(seat) = row.seats.iter().find(|s| s.id == id) {
                return w.f(
                    "seats-seat",
                    &[
                        ("section", Arg::from(section.name.as_str())),
                        ("row", Arg::from(row.label.as_str())),
                        // Text: a seat's number is a name, never grouped ("1200").
                        ("seat", Arg::Text(seat.number.to_string())),
                    ],
                );
            }
        }
    }
    w.f("seats-seat-id", &[("id", Arg::from(id))])
}

/// Seats' names as a list ("Stalls row 4 seat 12, Stalls row 4 seat 13").
fn seat_list(w: &Words, names: &[String]) -> String {
    names.join(&w.t("seats-list-separator"))
}

/// The section to open first, of the sections `summaries` sum up (the overview's, counted once):
/// the one asked for (counted from 1) if there is one, else the first with a seat available,
/// else the first.
fn first_open(summaries: &[(String, SectionSummary)], asked: Option<usize>) -> usize {
    asked
        .and_then(|n| n.checked_sub(1))
        .filter(|i| *i < summaries.len())
        .or_else(|| summaries.iter().position(|(_, s)| s.available > 0))
        .unwrap_or(0)
}

/// What a section's tile in the overview says of its seats left.
fn seats_left(w: &Words, summary: &SectionSummary) -> String {
    w.n("seats-left", u64::from(summary.available))
}

/// The seat sizes a buyer picks from (the CSS gives each its size), and their names.
fn sizes(w: &Words) -> [(&'static str, String); 3] {
    [
        ("small", w.t("seats-size-small")),
        ("medium", w.t("seats-size-medium")),
        ("large", w.t("seats-size-large")),
    ]
}

/// On the seat map the page says so while its tab is shown (a reading every
/// `presence::ON_MAP_SECONDS`, until the map leaves the page): only a buyer really on the map
/// holds admissions back (DESIGN.md "N a second while seats are free"). Here, in the turn's
/// lazily loaded stage, not in the waiting room's first download.
fn says_it_is_on_the_map(event_id: String) {
    #[cfg(not(feature = "hydrate"))]
    let _ = event_id;
    #[cfg(feature = "hydrate")]
    if let Ok(handle) = set_interval_with_handle(
        move || {
            if document().hidden() {
                return;
            }
            let event_id = event_id.clone();
            leptos::task::spawn_local(async move {
                // What it answers changes nothing here: a refusal shows at the next action.
                let _ = Api::current().seats(&event_id).await;
            });
        },
        std::time::Duration::from_secs(crate::presence::ON_MAP_SECONDS as u64),
    ) {
        on_cleanup(move || handle.clear());
    }
}

// Over 120 lines, for a reason: one `view!` tree of the map, its legend and its actions,
// sharing the same signals; split into components, each part would carry its own props and
// reactive glue into the buyer's WebAssembly, whose first download is at its ceiling.
#[component]
pub(super) fn SeatPicker(
    map: SeatMap,
    event_id: String,
    limit: u32,
    /// The section to open first (`?section=`, from 1).
    section: Option<usize>,
    stage: RwSignal<Stage>,
    message: RwSignal<Option<String>>,
    forms: Option<PageForms>,
) -> impl IntoView {
    let w = Words::current();
    let words = StoredValue::new(w.clone());
    says_it_is_on_the_map(event_id.clone());
    let hold_action = format!("/events/{event_id}/hold");
    let selected = RwSignal::new(Vec::<String>::new());
    let busy = RwSignal::new(false);
    let venue = StoredValue::new(Venue::here());
    let summaries: Vec<(String, SectionSummary)> = map
        .sections
        .iter()
        .map(|s| (s.name.clone(), s.summary()))
        .collect();
    let map = StoredValue::new(map);
    let sections: Vec<String> = summaries.iter().map(|(name, _)| name.clone()).collect();
    let open = RwSignal::new(first_open(&summaries, section));
    let best_section = RwSignal::new(
        sections
            .get(open.get_untracked())
            .cloned()
            .unwrap_or_default(),
    );
    let best_quantity = RwSignal::new(2u32.min(limit));
    let page = format!("/events/{event_id}");
    let event_id = StoredValue::new(event_id);

    let request_hold = move |request: HoldRequest| {
        busy.set(true);
        message.set(None);
        let api = Api::current();
        let key = new_key();
        let w = words.get_value();
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
                            let fresh_map = fresh.map();
                            let words = if e.error == "seat_unavailable" && !taken.is_empty() {
                                let names: Vec<String> = taken
                                    .iter()
                                    .map(|id| seat_label(&w, &fresh_map, id))
                                    .collect();
                                w.f(
                                    "seats-taken",
                                    &[("seats", Arg::Text(seat_list(&w, &names)))],
                                )
                            } else if e.error == "seat_unavailable" {
                                w.t("seats-not-together")
                            } else {
                                error_in_words(&w, &e)
                            };
                            message.set(Some(words));
                            // Read once, here: the stage takes the map as it is.
                            stage.set(Stage::Choosing(Deferred::Ready(fresh)));
                        }
                        Err(again) if again.error == "not_admitted" => {
                            back_to_line(&event_id, stage, message).await;
                        }
                        Err(again) => message.set(Some(error_in_words(&w, &again))),
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
    // One listener for the section's seats (a section has hundreds).
    let ticked = move |ev: leptos::ev::Event| {
        let seat = event_target::<web_sys::HtmlInputElement>(&ev);
        if seat.name() != "seat" {
            return;
        }
        if !choose(seat.value(), seat.checked()) {
            seat.set_checked(false);
            message.set(Some(
                words.with_value(|w| w.n("seats-limit-reached", u64::from(limit))),
            ));
        }
    };
    let hold_chosen = move || {
        if selected.with(Vec::is_empty) {
            message.set(Some(words.with_value(|w| Note::NoSeats.sentence(w, None))));
        } else {
            request_hold(HoldRequest {
                seat_ids: Some(selected.get()),
                ..HoldRequest::default()
            });
        }
    };
    let chosen_names = move || {
        selected.with(|s| {
            words.with_value(|w| {
                let names =
                    map.with_value(|m| s.iter().map(|id| seat_label(w, m, id)).collect::<Vec<_>>());
                seat_list(w, &names)
            })
        })
    };
    let best_action = hold_action.clone();

    let tiles = summaries
        .into_iter()
        .enumerate()
        .map(|(i, (name, summary))| {
            let price = venue.with_value(|v| {
                if summary.min_price_cents == summary.max_price_cents {
                    v.money(summary.min_price_cents)
                } else {
                    w.f(
                        "seats-price-range",
                        &[
                            ("low", Arg::Text(v.money(summary.min_price_cents))),
                            ("high", Arg::Text(v.money(summary.max_price_cents))),
                        ],
                    )
                }
            });
            let share = u64::from(summary.available) * 100 / u64::from(summary.seats.max(1));
            let shape = format!(
                "aspect-ratio: {} / {}; --left: {share}%",
                summary.widest.max(1),
                summary.rows.max(1)
            );
            let chosen_name = name.clone();
            let left = seats_left(&w, &summary);
            view! {
                <li>
                    <a class="tile" href=format!("{page}?section={}", i + 1) rel="external"
                        aria-current=move || (open.get() == i).then_some("true")
                        on:click=move |ev| {
                            ev.prevent_default();
                            open.set(i);
                            best_section.set(chosen_name.clone());
                        }>
                        <span class="shape" aria-hidden="true" style=shape></span>
                        <strong>{name}</strong>
                        <span class="muted">{price}</span>
                        <span>{left}</span>
                    </a>
                </li>
            }
        })
        .collect_view();

    view! {
        <section class="card picker">
            <p class="eyebrow admitted">{w.t("seats-your-turn")}</p>
            <h2>{w.t("seats-title")}</h2>
            <p class="muted">{w.n("seats-intro", u64::from(limit))}</p>
            <nav class="overview" aria-label=w.t("seats-sections")>
                <ul>{tiles}</ul>
            </nav>
            <div class="map-tools">
                <ul class="legend">
                    <li><span class="swatch available"></span>{w.t("seats-available")}</li>
                    <li><span class="swatch chosen"></span>{w.t("seats-chosen")}</li>
                    <li><span class="swatch held"></span>{w.t("seats-held")}</li>
                    <li><span class="swatch sold"></span>{w.t("seats-sold")}</li>
                </ul>
                <fieldset class="zoom">
                    <legend>{w.t("seats-size")}</legend>
                    {sizes(&w).into_iter().map(|(value, size)| view! {
                        <label>
                            <input type="radio" name="seat-size" id=format!("size-{value}") value=value
                                checked=value == "medium"/>
                            {size}
                        </label>
                    }).collect_view()}
                </fieldset>
            </div>
            <form method="post" action=hold_action class="chosen-seats"
                on:submit=move |ev| by_script(ev, hold_chosen)
                on:change=ticked>
                {hidden_fields(&forms, Some("seats"))}
                <div class="frame" on:keydown=arrow>
                    <div class="stage-mark">{w.t("seats-stage")}</div>
                    {move || {
                        let at = open.get();
                        map.with_value(|m| {
                            m.sections.get(at).map(|section| section_seats(section, &venue.get_value(), &selected))
                        })
                    }}
                </div>
                <div class="actions">
                    <p class="chosen" aria-live="polite">{chosen_names}</p>
                    <button type="submit" class="button" disabled=move || busy.get()>
                        {move || {
                            let n = selected.with(Vec::len) as u64;
                            words.with_value(|w| w.n("seats-hold-button", n))
                        }}
                    </button>
                    <a href="#best">{w.t("seats-best")}</a>
                </div>
            </form>
            <form method="post" action=best_action class="best" id="best"
                on:submit=move |ev| by_script(ev, move || request_hold(HoldRequest {
                    section: Some(best_section.get()),
                    quantity: Some(best_quantity.get()),
                    ..HoldRequest::default()
                }))>
                {hidden_fields(&forms, Some("best"))}
                <h3>{w.t("seats-best")}</h3>
                <label>{w.t("seats-best-section")}" "
                    <select name="section" prop:value=move || best_section.get()
                        on:change=move |ev| best_section.set(event_target_value(&ev))>
                        {sections.iter().map(|s| view! {
                            <option value=s.clone() selected=*s == best_section.get_untracked()>{s.clone()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>" "{w.t("seats-best-quantity")}" "
                    <select name="quantity" on:change=move |ev| best_quantity.set(event_target_value(&ev).parse().unwrap_or(1))>
                        {(1..=limit).map(|n| view! { <option value=n.to_string() selected=n == 2u32.min(limit)>{n}</option> }).collect_view()}
                    </select>
                </label>
                <button type="submit" class="button secondary" disabled=move || busy.get()>
                    {w.t("seats-find")}
                </button>
            </form>
        </section>
    }
}

/// One section: its name, then its seats, a row a line, a seat a labelled checkbox (ticked when
/// the buyer chose it before). The seats are one piece of HTML (escaped here), which the
/// browser parses at once: a block of 1,000 seats is 4,000 elements, which built one by one from
/// WASM took 0.8 s on a phone's CPU. Nothing in it has a listener of its own: the form's one
/// listener counts a tick, the frame's the arrow keys, and the CSS shows a ticked seat as chosen.
fn section_seats(
    section: &SectionView,
    venue: &Venue,
    selected: &RwSignal<Vec<String>>,
) -> impl IntoView + use<> {
    let html = selected.with_untracked(|chosen| seats_html(section, venue, chosen));
    view! {
        <fieldset class="section">
            <legend>{section.name.clone()}</legend>
            <div class="rows" inner_html=html></div>
        </fieldset>
    }
}

/// The rows of `section` as HTML, the seats in `chosen` ticked.
fn seats_html(section: &SectionView, venue: &Venue, chosen: &[String]) -> String {
    use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
    use std::fmt::Write;
    let name = &section.name;
    let w = &venue.words;
    // A row's seats mostly share a price: its words are made once a price.
    let mut prices: Vec<(i64, String)> = Vec::new();
    let mut html = String::with_capacity(
        section.rows.len() * 64 + 160 * section.rows.iter().map(|r| r.seats.len()).sum::<usize>(),
    );
    for row in &section.rows {
        let row_words = w.f(
            "seats-row",
            &[
                ("section", Arg::from(name.as_str())),
                ("row", Arg::from(row.label.as_str())),
            ],
        );
        let _ = write!(
            html,
            r#"<div class="row" role="group" aria-label="{}"><span class="row-label" aria-hidden="true">{}</span>"#,
            attr(&row_words),
            text(&row.label)
        );
        for seat in &row.seats {
            let price = match prices.iter().find(|(cents, _)| *cents == seat.price_cents) {
                Some((_, words)) => words,
                None => {
                    prices.push((seat.price_cents, venue.money(seat.price_cents)));
                    &prices.last().expect("pushed").1
                }
            };
            let status = seat.status.word();
            let id = attr(&seat.id);
            // "Stalls row 4 seat 12, 45.00 EUR, available"; $status chooses the word.
            let label = w.f(
                "seats-seat-described",
                &[
                    ("section", Arg::from(name.as_str())),
                    ("row", Arg::from(row.label.as_str())),
                    ("seat", Arg::Text(seat.number.to_string())),
                    ("price", Arg::from(price.as_str())),
                    ("status", Arg::from(status)),
                ],
            );
            let _ = write!(
                html,
                r#"<label class="seat {status}" data-seat-id="{id}"><input type="checkbox" name="seat" value="{id}" aria-label="{}"{}{}><span aria-hidden="true">{}</span></label>"#,
                attr(&label),
                if seat.status == SeatStatus::Available {
                    ""
                } else {
                    " disabled"
                },
                if chosen.contains(&seat.id) {
                    " checked"
                } else {
                    ""
                },
                seat.number
            );
        }
        html.push_str("</div>");
    }
    html
}

/// The arrow keys on a seat: left and right along its row, up and down to the seat at the
/// same place in the row before or after (the row's last one if that row is shorter).
#[cfg(feature = "hydrate")]
fn arrow(ev: leptos::ev::KeyboardEvent) {
    use leptos::wasm_bindgen::JsCast;
    let (rows, seats): (i32, i32) = match ev.key().as_str() {
        "ArrowLeft" => (0, -1),
        "ArrowRight" => (0, 1),
        "ArrowUp" => (-1, 0),
        "ArrowDown" => (1, 0),
        _ => return,
    };
    let Some(here) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
    else {
        return;
    };
    let Some(row) = here.closest(".row").ok().flatten() else {
        return;
    };
    let inputs = |row: &web_sys::Element| {
        let list = row.query_selector_all(".seat input").ok();
        let len = list.as_ref().map_or(0, |l| l.length());
        (0..len)
            .filter_map(|i| {
                list.as_ref()?
                    .item(i)?
                    .dyn_into::<web_sys::HtmlElement>()
                    .ok()
            })
            .collect::<Vec<_>>()
    };
    let in_row = inputs(&row);
    let Some(at) = in_row.iter().position(|i| **i == here) else {
        return;
    };
    let other = match rows {
        -1 => row.previous_element_sibling(),
        1 => row.next_element_sibling(),
        _ => Some(row),
    }
    .filter(|r| r.class_list().contains("row"));
    let Some(other) = other else {
        return;
    };
    let to = inputs(&other);
    let index = (at as i32 + seats).clamp(0, to.len() as i32 - 1);
    if let Some(seat) = usize::try_from(index).ok().and_then(|i| to.get(i)) {
        ev.prevent_default();
        let _ = seat.focus();
    }
}

/// The server renders the keys' listener, which only a browser runs.
#[cfg(not(feature = "hydrate"))]
fn arrow(_: leptos::ev::KeyboardEvent) {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{Seat, SeatRuns};

    fn hall(free: &[bool]) -> Vec<(String, SectionSummary)> {
        let mut runs = SeatRuns::new("e");
        for (i, free) in free.iter().enumerate() {
            let status = if *free {
                SeatStatus::Available
            } else {
                SeatStatus::Sold
            };
            let seat = Seat {
                id: i as i64 + 1,
                number: 1,
                price_cents: 4500,
                status,
            };
            runs.push(&format!("S{i}"), "1", seat);
        }
        let map = runs.map();
        map.sections
            .iter()
            .map(|s| (s.name.clone(), s.summary()))
            .collect()
    }

    #[test]
    fn the_section_asked_for_opens_else_the_first_with_a_seat_free() {
        let map = hall(&[false, true, true]);
        assert_eq!(first_open(&map, Some(3)), 2);
        assert_eq!(first_open(&map, Some(1)), 0, "asked for, even sold out");
        assert_eq!(first_open(&map, None), 1);
        assert_eq!(first_open(&map, Some(4)), 1, "no such section");
        assert_eq!(first_open(&map, Some(0)), 1, "counted from 1");
        assert_eq!(first_open(&hall(&[false, false]), None), 0);
        assert_eq!(first_open(&hall(&[]), None), 0);
    }

    #[test]
    fn a_section_is_html_with_every_name_escaped_and_the_chosen_seats_ticked() {
        let mut runs = SeatRuns::new("e");
        for (id, status) in [(7, SeatStatus::Available), (8, SeatStatus::Held)] {
            let seat = Seat {
                id,
                number: id as u32,
                price_cents: 4500,
                status,
            };
            runs.push(r#"<b>"Stalls" & co</b>"#, "<i>", seat);
        }
        let section = &runs.map().sections[0];
        let venue = Venue {
            currency: "EUR".into(),
            words: Words::of(crate::lang::Lang::En),
            ..Venue::default()
        };
        let html = seats_html(section, &venue, &["7".to_owned()]);
        assert!(!html.contains("<b>") && !html.contains("<i>"), "{html}");
        assert!(html.contains(
            r#"aria-label="&lt;b&gt;&quot;Stalls&quot; &amp; co&lt;/b&gt; row &lt;i&gt; seat 7, "#
        ), "{html}");
        assert!(html.contains(r#"data-seat-id="7"><input type="checkbox" name="seat" value="7""#));
        assert!(html.contains(r#", available" checked>"#), "{html}");
        assert!(html.contains(r#", held" disabled>"#), "{html}");
        assert_eq!(html.matches("<label").count(), 2);
    }

    #[test]
    fn a_tile_says_the_seats_left() {
        let w = Words::of(crate::lang::Lang::En);
        let left = |available| {
            seats_left(
                &w,
                &SectionSummary {
                    available,
                    ..SectionSummary::default()
                },
            )
        };
        assert_eq!(
            [left(0), left(1), left(120)],
            ["None free now", "1 seat left", "120 seats left"]
        );
    }
}
