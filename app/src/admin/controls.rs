//! The operator's forms: a new event (checked here as the API checks it, before it is sent), and
//! the room of one (on, paused, bound, its rate and sweep, its opening and the draw's beacon).
//! A refused change says why above the panel; changes that cut in on a sale ask first.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use super::room_state;
use crate::{
    api::Api,
    lang::{Lang, Words},
    wire::{
        DEFAULT_CURRENCY, DEFAULT_MAX_ADMIT_RATE, DEFAULT_MIN_ADMIT_RATE,
        DEFAULT_TARGET_HOLD_P99_MS, Draw, DrawState, Eligible, Event, Identity, NewEvent,
        NewSection, RoomUpdate,
    },
    words::countdown,
};

/// A new event: its name, start, zone, currency and buyers' language, its room's rate and
/// opening, its sections.
#[component]
pub(super) fn CreateEvent() -> impl IntoView {
    let name = RwSignal::new(String::new());
    let starts_at = RwSignal::new(String::new());
    let sections = RwSignal::new(vec![("Stalls".to_owned(), 10u32, 20u32, 5000i64)]);
    let rate = RwSignal::new(50u32);
    let auto = RwSignal::new(AutoRate::default());
    let opens_at = RwSignal::new(String::new());
    let prequeue_minutes = RwSignal::new(15u32);
    let time_zone = RwSignal::new("UTC".to_owned());
    let currency = RwSignal::new(DEFAULT_CURRENCY.to_owned());
    let language = RwSignal::new(Lang::default());
    let result = RwSignal::new(None::<Result<Event, String>>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let starts = utc_input(&starts_at.get_untracked()).unwrap_or_else(Utc::now);
        let new = NewEvent {
            name: name.get_untracked(),
            starts_at: starts,
            time_zone: Some(time_zone.get_untracked().trim().to_owned()),
            currency: Some(currency.get_untracked().trim().to_uppercase()),
            language: Some(language.get_untracked()),
            sections: sections
                .get_untracked()
                .into_iter()
                .map(|(name, rows, seats_per_row, price_cents)| NewSection {
                    name,
                    rows,
                    seats_per_row,
                    price_cents,
                })
                .collect(),
            room: RoomUpdate {
                admit_rate_per_second: Some(rate.get_untracked()),
                opens_at: Some(utc_input(&opens_at.get_untracked())),
                prequeue_seconds: Some(prequeue_minutes.get_untracked() * 60),
                ..auto.get_untracked().update()
            },
        };
        if let Err(e) = new.validate() {
            result.set(Some(Err(e.message)));
            return;
        }
        leptos::task::spawn_local(async move {
            result.set(Some(
                Api::current()
                    .create_event(&new)
                    .await
                    .map_err(|e| e.message),
            ));
        });
    };
    let field = move |i: usize, f: fn(&mut (String, u32, u32, i64), String)| {
        move |ev: leptos::ev::Event| {
            let v = event_target_value(&ev);
            sections.update(|s| f(&mut s[i], v));
        }
    };
    view! {
        <form class="card create" on:submit=submit>
            <h2>"New event"</h2>
            <label>"Name "<input required on:input=move |ev| name.set(event_target_value(&ev))/></label>
            <label>"Starts (UTC) "<input type="datetime-local" required on:input=move |ev| starts_at.set(event_target_value(&ev))/></label>
            <label>"Venue time zone (pages show its local time) "<input value="UTC" placeholder="Europe/Berlin"
                on:input=move |ev| time_zone.set(event_target_value(&ev))/></label>
            <label>"Currency (ISO 4217) "<input value=DEFAULT_CURRENCY maxlength="3" size="3"
                on:input=move |ev| currency.set(event_target_value(&ev))/></label>
            <label>"Buyers' language when their browser names none we speak "
                <select on:change=move |ev| language.set(Lang::parse(&event_target_value(&ev)).unwrap_or_default())>
                    {Lang::ALL.map(|l| view! { <option value=l.tag() selected=l == Lang::default()>{l.name()}</option> })}
                </select>
            </label>
            <label>"Admitted per second "<input type="number" min="1" max="100000" value="50"
                on:input=move |ev| rate.set(event_target_value(&ev).parse().unwrap_or(1))/></label>
            <AutoRateFields auto/>
            <label>"Sale opens (UTC; empty: open now) "<input type="datetime-local" step="1"
                on:input=move |ev| opens_at.set(event_target_value(&ev))/></label>
            <label>"Pre-queue before it (minutes; 0: none) "<input type="number" min="0" max="1440" value="15"
                on:input=move |ev| prequeue_minutes.set(event_target_value(&ev).parse().unwrap_or(0))/></label>
            <table class="layout">
                <thead><tr><th>"Section"</th><th>"Rows"</th><th>"Seats a row"</th><th>"Price (cents)"</th></tr></thead>
                <tbody>
                    {move || (0..sections.with(Vec::len)).map(|i| {
                        let (n, r, s, p) = sections.with_untracked(|v| v[i].clone());
                        view! {
                            <tr>
                                <td><input aria-label="Section name" value=n on:input=field(i, |s, v| s.0 = v)/></td>
                                <td><input aria-label="Rows" type="number" min="1" max="100" value=r.to_string()
                                    on:input=field(i, |s, v| s.1 = v.parse().unwrap_or(0))/></td>
                                <td><input aria-label="Seats a row" type="number" min="1" max="200" value=s.to_string()
                                    on:input=field(i, |s, v| s.2 = v.parse().unwrap_or(0))/></td>
                                <td><input aria-label="Price in cents" type="number" min="0" value=p.to_string()
                                    on:input=field(i, |s, v| s.3 = v.parse().unwrap_or(0))/></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <div class="actions">
                <button type="button" class="button secondary"
                    on:click=move |_| sections.update(|s| s.push((format!("Section {}", s.len() + 1), 10, 20, 5000)))>
                    "Add a section"
                </button>
                <button type="submit" class="button">"Create the event"</button>
            </div>
            {move || result.get().map(|r| match r {
                Ok(e) => view! { <p class="notice">"Created: "<a href=format!("/admin/events/{}", e.id)>{e.name}</a></p> }.into_any(),
                Err(m) => view! { <p class="error" role="alert">{m}</p> }.into_any(),
            })}
        </form>
    }
}

/// The room: on or off, paused or admitting, tokens bound to devices or not, the rate (fixed or
/// automatic) and the sweep of expired holds.
#[component]
pub(super) fn RoomControls(
    event: RwSignal<Option<Event>>,
    /// Sends a change of the room, then reads the event again.
    change: Callback<RoomUpdate>,
    message: RwSignal<Option<String>>,
) -> impl IntoView {
    let new_sweep = RwSignal::new(String::new());
    let set_sweep = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match new_sweep.get_untracked().trim().parse::<u32>() {
            Ok(s) => change.run(RoomUpdate {
                hold_sweep_seconds: Some(s),
                ..RoomUpdate::default()
            }),
            Err(_) => message.set(Some(
                "The sweep interval is a whole number of seconds.".into(),
            )),
        }
    };
    let new_rate = RwSignal::new(String::new());
    let set_rate = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(n) = new_rate.get_untracked().trim().parse::<u32>() else {
            message.set(Some("N must be a whole number from 1 to 100000.".into()));
            return;
        };
        if confirm(&format!("Admit {n} buyers a second from now on?")) {
            change.run(RoomUpdate {
                admit_rate_per_second: Some(n),
                ..RoomUpdate::default()
            });
        }
    };
    let (new_claim, new_value) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let set_eligible = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let eligible = Eligible::Claim {
            claim: new_claim.get_untracked().trim().to_owned(),
            value: new_value.get_untracked().trim().to_owned(),
            issuer: None,
        };
        if let Err(e) = eligible.validate() {
            message.set(Some(e.message));
            return;
        }
        change.run(RoomUpdate {
            eligible: Some(Some(eligible)),
            ..RoomUpdate::default()
        });
    };
    let (new_seats, new_holding) = (RwSignal::new(String::new()), RwSignal::new(String::new()));
    let set_expected = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let seats = new_seats.get_untracked().trim().parse::<u32>().ok();
        let holding = new_holding.get_untracked().trim().parse::<u32>().ok();
        if seats.is_none() && holding.is_none() {
            message.set(Some(
                "Give the seats a hold is expected to take, the share who hold, or both, as whole numbers.".into(),
            ));
            return;
        }
        change.run(RoomUpdate {
            expected_seats_per_hold: seats,
            expected_holding_percent: holding,
            ..RoomUpdate::default()
        });
    };
    let new_auto = RwSignal::new(AutoRate::default());
    let set_auto = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        change.run(new_auto.get_untracked().update());
    };
    view! {
        <section class="card controls">
            <h2>"Room"</h2>
            {move || event.get().map(|e| {
                let room = e.room.clone();
                view! {
                    <p class="room-state">{room_state(&e)}</p>
                    <div class="actions">
                        <button class="button secondary" on:click=move |_| change.run(RoomUpdate { enabled: Some(!room.enabled), ..RoomUpdate::default() })>
                            {if room.enabled { "Turn the room off" } else { "Turn the room on" }}
                        </button>
                        <button class="button secondary" on:click=move |_| change.run(RoomUpdate { paused: Some(!room.paused), ..RoomUpdate::default() })>
                            {if room.paused { "Resume admissions" } else { "Pause admissions" }}
                        </button>
                        <button class="button secondary" on:click=move |_| {
                            let question = if room.bind_tokens {
                                "Stop binding tokens to devices? A copied admission token will pass again."
                            } else {
                                "Bind admission tokens to each buyer's device? Browsers without JavaScript or WebCrypto cannot buy then."
                            };
                            if confirm(question) {
                                change.run(RoomUpdate { bind_tokens: Some(!room.bind_tokens), ..RoomUpdate::default() });
                            }
                        }>
                            {if room.bind_tokens { "Stop binding tokens to devices" } else { "Bind tokens to devices" }}
                        </button>
                        <button class="button secondary" on:click=move |_| {
                            let (next, question) = match room.identity {
                                Identity::Anonymous => (Identity::Account, "Take only buyers signed in to an account (one place and one seat limit per account)? Anonymous buyers must sign in to join."),
                                Identity::Account => (Identity::Anonymous, "Take any buyer again, signed in or not?"),
                            };
                            if confirm(question) {
                                change.run(RoomUpdate { identity: Some(next), ..RoomUpdate::default() });
                            }
                        }>
                            {if room.identity == Identity::Account { "Take any buyer" } else { "Take signed-in accounts only" }}
                        </button>
                        <button class="button secondary" on:click=move |_| {
                            if confirm("Open the sale to every account (end a presale)?") {
                                change.run(RoomUpdate { eligible: Some(None), ..RoomUpdate::default() });
                            }
                        }>"Open to every account"</button>
                    </div>
                }
            })}
            <form class="rate" on:submit=set_rate>
                <label for="rate">"Admitted per second (N) "</label>
                <input id="rate" type="number" min="1" max="100000" required
                    on:input=move |ev| new_rate.set(event_target_value(&ev))/>
                <button class="button" type="submit">"Set N"</button>
            </form>
            <form class="rate auto-rate" on:submit=set_auto>
                <AutoRateFields auto=new_auto/>
                <button class="button secondary" type="submit">"Set the automatic rate"</button>
            </form>
            <form class="rate" on:submit=set_eligible>
                <label for="claim">"Presale: accounts whose claim "</label>
                <input id="claim" type="text" maxlength="64" placeholder="groups" required
                    on:input=move |ev| new_claim.set(event_target_value(&ev))/>
                <label for="claim-value">" has "</label>
                <input id="claim-value" type="text" maxlength="200" placeholder="fanclub" required
                    on:input=move |ev| new_value.set(event_target_value(&ev))/>
                <button class="button secondary" type="submit">"Admit only them"</button>
            </form>
            <form class="rate expected" on:submit=set_expected>
                <label for="expected-seats">"A first night: seats a hold takes "</label>
                <input id="expected-seats" type="number" min="1" max="50"
                    on:input=move |ev| new_seats.set(event_target_value(&ev))/>
                <label for="expected-holding">" share of admitted buyers who hold (%) "</label>
                <input id="expected-holding" type="number" min="1" max="100"
                    on:input=move |ev| new_holding.set(event_target_value(&ev))/>
                <button class="button secondary" type="submit">"Set what to expect"</button>
            </form>
            <form class="rate" on:submit=set_sweep>
                <label for="sweep">"Sweep expired holds every (s) "</label>
                <input id="sweep" type="number" min="1" max="3600" required
                    on:input=move |ev| new_sweep.set(event_target_value(&ev))/>
                <button class="button secondary" type="submit">"Set interval"</button>
            </form>
        </section>
    }
}

/// The opening and the draw: the pre-queue's state, the commitment and the beacon; setting the
/// opening (or opening now) and the beacon.
#[component]
pub(super) fn OpeningControls(
    event_id: String,
    /// The draw as last read (the panel reads it every second until it is made).
    draw: RwSignal<Option<Draw>>,
    /// Sends a change of the room, then reads the event again.
    change: Callback<RoomUpdate>,
    /// Reads the event again.
    refresh: Callback<()>,
    message: RwSignal<Option<String>>,
) -> impl IntoView {
    let id = StoredValue::new(event_id);
    let new_opening = RwSignal::new(String::new());
    let new_prequeue = RwSignal::new(String::from("15"));
    let set_opening = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (Some(at), Ok(minutes)) = (
            utc_input(&new_opening.get_untracked()),
            new_prequeue.get_untracked().trim().parse::<u32>(),
        ) else {
            message.set(Some(
                "Give the opening as a date and time (UTC) and the pre-queue in whole minutes."
                    .into(),
            ));
            return;
        };
        change.run(RoomUpdate {
            opens_at: Some(Some(at)),
            prequeue_seconds: Some(minutes * 60),
            ..RoomUpdate::default()
        });
    };
    let open_now = move |_| {
        if confirm("Open the sale now, without a pre-queue or a draw?") {
            change.run(RoomUpdate {
                opens_at: Some(None),
                ..RoomUpdate::default()
            });
        }
    };
    let new_beacon = RwSignal::new(String::new());
    let set_beacon = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        leptos::task::spawn_local(async move {
            match Api::current()
                .set_beacon(&id.get_value(), &new_beacon.get_untracked())
                .await
            {
                Ok(d) => {
                    message.set(None);
                    draw.set(Some(d));
                    refresh.run(());
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    view! {
        <section class="card controls">
            <h2>"Opening and draw"</h2>
            {move || draw.get().map(|d| view! {
                <p class="prequeue-line" data-figure="prequeue">{prequeue_line(&d, Utc::now())}</p>
                <p class="muted">"Commitment "<code class="ticket">{d.commitment.clone()}</code>
                    {if d.beacon.is_empty() { " · no beacon".to_owned() } else { format!(" · beacon {:?}", d.beacon) }}</p>
            })}
            <form class="rate" on:submit=set_opening>
                <label for="opens-at">"Sale opens (UTC) "</label>
                <input id="opens-at" type="datetime-local" step="1" required
                    on:input=move |ev| new_opening.set(event_target_value(&ev))/>
                <label for="prequeue">" pre-queue (min) "</label>
                <input id="prequeue" type="number" min="0" max="1440" value="15" required
                    on:input=move |ev| new_prequeue.set(event_target_value(&ev))/>
                <button class="button" type="submit">"Set the opening"</button>
                <button class="button secondary" type="button" on:click=open_now>"Open now"</button>
            </form>
            <form class="rate" on:submit=set_beacon>
                <label for="beacon">"Beacon (someone else's public random value, published just before the opening) "</label>
                <input id="beacon" maxlength="256"
                    on:input=move |ev| new_beacon.set(event_target_value(&ev))/>
                <button class="button secondary" type="submit">"Set the beacon"</button>
            </form>
        </section>
    }
}

/// A `datetime-local` input's value, read as UTC; `None` when empty or malformed.
fn utc_input(value: &str) -> Option<DateTime<Utc>> {
    ["%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|f| chrono::NaiveDateTime::parse_from_str(value.trim(), f).ok())
        .map(|t| t.and_utc())
}

/// The pre-queue line of the panel: "pre-queue: 14,812 entrants, draw in 3:12", or the draw
/// made.
fn prequeue_line(draw: &Draw, now: DateTime<Utc>) -> String {
    let entrants = Lang::En.number(draw.entrants);
    match (draw.state, draw.opens_at) {
        (DrawState::Drawn, _) => format!("draw made: {entrants} entrants, the order is published"),
        (DrawState::Pending, Some(opens_at)) if opens_at > now => format!(
            "pre-queue: {entrants} entrants, draw in {}",
            countdown(&Words::current(), (opens_at - now).num_seconds())
        ),
        (DrawState::Pending, Some(_)) => {
            format!("pre-queue: {entrants} entrants, the draw is being made")
        }
        (DrawState::Pending, None) => "no opening time set: the sale is open".to_owned(),
    }
}

/// `window.confirm`, in the browser.
fn confirm(question: &str) -> bool {
    #[cfg(feature = "hydrate")]
    return window().confirm_with_message(question).unwrap_or(false);
    #[cfg(not(feature = "hydrate"))]
    {
        let _ = question;
        false
    }
}

/// The automatic rate's settings as the operator types them.
#[derive(Clone, Debug)]
struct AutoRate {
    on: bool,
    min: String,
    max: String,
    target_ms: String,
}

impl Default for AutoRate {
    fn default() -> Self {
        Self {
            on: false,
            min: DEFAULT_MIN_ADMIT_RATE.to_string(),
            max: DEFAULT_MAX_ADMIT_RATE.to_string(),
            target_ms: DEFAULT_TARGET_HOLD_P99_MS.to_string(),
        }
    }
}

impl AutoRate {
    /// The room change: every field typed (a field left unparsable is not sent, and the
    /// server keeps its value).
    fn update(&self) -> RoomUpdate {
        RoomUpdate {
            auto_rate: Some(self.on),
            min_admit_rate_per_second: self.min.trim().parse().ok(),
            max_admit_rate_per_second: self.max.trim().parse().ok(),
            target_hold_p99_ms: self.target_ms.trim().parse().ok(),
            ..RoomUpdate::default()
        }
    }
}

/// The automatic rate's inputs: on or off, the bounds, the hold p99 target.
#[component]
fn AutoRateFields(auto: RwSignal<AutoRate>) -> impl IntoView {
    let (min, max, target) =
        auto.with_untracked(|a| (a.min.clone(), a.max.clone(), a.target_ms.clone()));
    view! {
        <label>"Automatic rate "<input type="checkbox"
            on:change=move |ev| auto.update(|a| a.on = event_target_checked(&ev))/></label>
        <label>" between "<input type="number" min="1" max="100000" value=min aria-label="Least admitted per second"
            on:input=move |ev| auto.update(|a| a.min = event_target_value(&ev))/></label>
        <label>" and "<input type="number" min="1" max="100000" value=max aria-label="Most admitted per second"
            on:input=move |ev| auto.update(|a| a.max = event_target_value(&ev))/>" a second"</label>
        <label>" holding hold p99 under (ms) "<input type="number" min="1" max="60000" value=target
            on:input=move |ev| auto.update(|a| a.target_ms = event_target_value(&ev))/></label>
    }
}
