//! The operator's pages: `/admin` (sign in, the events, a new event) and `/admin/events/{id}`
//! (the live panel and the controls). They run in the browser against the admin API; the
//! admin cookie is HttpOnly, so the server renders only the frame and the sign-in form.
//!
//! Both routes are one lazy route, [`OperatorPages`]: in the browser its view is split out of
//! the main WASM (`cargo leptos build --split`) into a chunk that only an operator's page
//! fetches, so a buyer never downloads the dashboard. The server renders it as any page.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos_router::{LazyRoute, hooks::use_params_map, lazy_route};

use crate::{
    api::Api,
    title::set_title,
    wire::{
        AuditEntry, DEFAULT_CURRENCY, DEFAULT_MAX_ADMIT_RATE, DEFAULT_MIN_ADMIT_RATE,
        DEFAULT_TARGET_HOLD_P99_MS, Draw, DrawState, Event, NewEvent, NewSection, Night,
        NightPoint, Payments, RoomUpdate, Stats, StatsPoint,
    },
    words::{countdown, grouped},
};

/// `/admin` and `/admin/events/{id}`: one lazy route, so that both pages share one chunk.
pub struct OperatorPages;

#[lazy_route]
impl LazyRoute for OperatorPages {
    /// Nothing to load ahead of the view: the pages read the admin API once they run.
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        let params = use_params_map();
        if params.read_untracked().get("id").is_some() {
            view! { <AdminEventPage/> }.into_any()
        } else {
            view! { <AdminPage/> }.into_any()
        }
    }
}

/// Signed in or not, checked once the page runs in the browser.
fn use_sign_in() -> (RwSignal<Option<bool>>, RwSignal<Option<String>>) {
    let signed_in = RwSignal::new(None::<bool>);
    let error = RwSignal::new(None::<String>);
    Effect::new(move |_| {
        leptos::task::spawn_local(async move {
            signed_in.set(Some(Api::current().admin_check().await.is_ok()));
        });
    });
    (signed_in, error)
}

#[component]
fn SignIn(signed_in: RwSignal<Option<bool>>, error: RwSignal<Option<String>>) -> impl IntoView {
    let token = RwSignal::new(String::new());
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        leptos::task::spawn_local(async move {
            match Api::current().admin_sign_in(&token.get_untracked()).await {
                Ok(()) => {
                    error.set(None);
                    signed_in.set(Some(true));
                }
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    view! {
        <form class="card signin" on:submit=submit>
            <h2>"Operator sign-in"</h2>
            <label for="admin-token">"Admin token"</label>
            <input id="admin-token" type="password" autocomplete="current-password"
                on:input=move |ev| token.set(event_target_value(&ev))/>
            <button class="button" type="submit">"Sign in"</button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

/// `/admin`.
#[component]
fn AdminPage() -> impl IntoView {
    let (signed_in, error) = use_sign_in();
    set_title("Operator · Anteroom");
    view! {
        <h1>"Operator"</h1>
        {move || match signed_in.get() {
            None => view! { <p class="muted">"Checking your sign-in…"</p> }.into_any(),
            Some(false) => view! { <SignIn signed_in error/> }.into_any(),
            Some(true) => view! { <EventList/><CreateEvent/> }.into_any(),
        }}
    }
}

#[component]
fn EventList() -> impl IntoView {
    let events = LocalResource::new(|| async { Api::current().events().await });
    view! {
        <section class="card">
            <h2>"Events"</h2>
            <Suspense fallback=|| view! { <p class="muted">"Loading…"</p> }>
                {move || events.get().map(|r| match r {
                    Ok(list) => view! {
                        <ul class="admin-events">
                            {list.into_iter().map(|e: Event| view! {
                                <li>
                                    <a href=format!("/admin/events/{}", e.id)>{e.name.clone()}</a>
                                    <span class="muted">{room_state(&e)}</span>
                                </li>
                            }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
                })}
            </Suspense>
        </section>
    }
}

fn room_state(e: &Event) -> String {
    let state = match (e.room.enabled, e.room.paused) {
        (false, _) => "room off".to_owned(),
        (true, true) => "paused".to_owned(),
        (true, false) => "admitting".to_owned(),
    };
    let opening = e.room.opens_at.map_or(String::new(), |t| {
        format!(
            " · sale opens {} (pre-queue {} min before)",
            t.format("%Y-%m-%d %H:%M:%S UTC"),
            e.room.prequeue_seconds / 60
        )
    });
    let bound = if e.room.bind_tokens {
        " · tokens bound to devices"
    } else {
        ""
    };
    format!(
        "{state} · N = {}/s · holds swept every {} s{bound}{opening}",
        e.room.admit_rate_per_second, e.room.hold_sweep_seconds
    )
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
    let entrants = grouped(draw.entrants);
    match (draw.state, draw.opens_at) {
        (DrawState::Drawn, _) => format!("draw made: {entrants} entrants, the order is published"),
        (DrawState::Pending, Some(opens_at)) if opens_at > now => format!(
            "pre-queue: {entrants} entrants, draw in {}",
            countdown((opens_at - now).num_seconds())
        ),
        (DrawState::Pending, Some(_)) => {
            format!("pre-queue: {entrants} entrants, the draw is being made")
        }
        (DrawState::Pending, None) => "no opening time set: the sale is open".to_owned(),
    }
}

#[component]
fn CreateEvent() -> impl IntoView {
    let name = RwSignal::new(String::new());
    let starts_at = RwSignal::new(String::new());
    let sections = RwSignal::new(vec![("Stalls".to_owned(), 10u32, 20u32, 5000i64)]);
    let rate = RwSignal::new(50u32);
    let auto = RwSignal::new(AutoRate::default());
    let opens_at = RwSignal::new(String::new());
    let prequeue_minutes = RwSignal::new(15u32);
    let time_zone = RwSignal::new("UTC".to_owned());
    let currency = RwSignal::new(DEFAULT_CURRENCY.to_owned());
    let result = RwSignal::new(None::<Result<Event, String>>);
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let starts = utc_input(&starts_at.get_untracked()).unwrap_or_else(Utc::now);
        let new = NewEvent {
            name: name.get_untracked(),
            starts_at: starts,
            time_zone: Some(time_zone.get_untracked().trim().to_owned()),
            currency: Some(currency.get_untracked().trim().to_uppercase()),
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

/// `/admin/events/{id}`.
#[component]
fn AdminEventPage() -> impl IntoView {
    let (signed_in, error) = use_sign_in();
    let params = use_params_map();
    let event_id = move || params.read().get("id").unwrap_or_default();
    set_title("Live panel · Anteroom");
    view! {
        {move || match signed_in.get() {
            None => view! { <p class="muted">"Checking your sign-in…"</p> }.into_any(),
            Some(false) => view! { <SignIn signed_in error/> }.into_any(),
            Some(true) => view! { <LivePanel event_id=event_id()/> }.into_any(),
        }}
    }
}

#[component]
fn LivePanel(event_id: String) -> impl IntoView {
    let id = StoredValue::new(event_id);
    let event = RwSignal::new(None::<Event>);
    let stats = RwSignal::new(None::<Stats>);
    let payments = RwSignal::new(None::<Payments>);
    let audit = RwSignal::new(Vec::<AuditEntry>::new());
    let draw = RwSignal::new(None::<Draw>);
    let message = RwSignal::new(None::<String>);
    let refresh = move || {
        leptos::task::spawn_local(async move {
            let api = Api::current();
            let id = id.get_value();
            match api.event(id.clone()).await {
                Ok(e) => event.set(Some(e)),
                Err(e) => message.set(Some(e.message)),
            }
            if let Ok(a) = api.audit(&id).await {
                audit.set(a);
            }
        });
    };
    // Every second: the stats of the whole cluster.
    Effect::new(move |_| {
        refresh();
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let api = Api::current();
            loop {
                match api.stats(&id.get_value()).await {
                    Ok(s) => stats.set(Some(s)),
                    Err(e) => message.set(Some(e.message)),
                }
                if let Ok(p) = api.payments(&id.get_value()).await {
                    payments.set(Some(p));
                }
                // The draw until it is made (then it no longer changes, and lists every ticket).
                if draw.with_untracked(|d| d.as_ref().is_none_or(|d| d.state == DrawState::Pending))
                    && let Ok(d) = api.draw(&id.get_value()).await
                {
                    draw.set(Some(d));
                }
                gloo_timers::future::TimeoutFuture::new(1_000).await;
            }
        });
    });
    let change = move |update: RoomUpdate| {
        leptos::task::spawn_local(async move {
            match Api::current().update_room(&id.get_value(), &update).await {
                Ok(_) => {
                    message.set(None);
                    refresh();
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    let new_sweep = RwSignal::new(String::new());
    let set_sweep = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match new_sweep.get_untracked().trim().parse::<u32>() {
            Ok(s) => change(RoomUpdate {
                hold_sweep_seconds: Some(s),
                ..RoomUpdate::default()
            }),
            Err(_) => message.set(Some(
                "The sweep interval is a whole number of seconds.".into(),
            )),
        }
    };
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
        change(RoomUpdate {
            opens_at: Some(Some(at)),
            prequeue_seconds: Some(minutes * 60),
            ..RoomUpdate::default()
        });
    };
    let open_now = move |_| {
        if confirm("Open the sale now, without a pre-queue or a draw?") {
            change(RoomUpdate {
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
                    refresh();
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    let new_rate = RwSignal::new(String::new());
    let set_rate = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Ok(n) = new_rate.get_untracked().trim().parse::<u32>() else {
            message.set(Some("N must be a whole number from 1 to 100000.".into()));
            return;
        };
        if confirm(&format!("Admit {n} buyers a second from now on?")) {
            change(RoomUpdate {
                admit_rate_per_second: Some(n),
                ..RoomUpdate::default()
            });
        }
    };
    let new_auto = RwSignal::new(AutoRate::default());
    let set_auto = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        change(new_auto.get_untracked().update());
    };
    view! {
        <h1>{move || event.get().map(|e| e.name).unwrap_or_else(|| "Live panel".into())}</h1>
        {move || message.get().map(|m| view! { <p class="notice" role="alert">{m}</p> })}
        <section class="card controls">
            <h2>"Room"</h2>
            {move || event.get().map(|e| {
                let room = e.room.clone();
                view! {
                    <p class="room-state">{room_state(&e)}</p>
                    <div class="actions">
                        <button class="button secondary" on:click=move |_| change(RoomUpdate { enabled: Some(!room.enabled), ..RoomUpdate::default() })>
                            {if room.enabled { "Turn the room off" } else { "Turn the room on" }}
                        </button>
                        <button class="button secondary" on:click=move |_| change(RoomUpdate { paused: Some(!room.paused), ..RoomUpdate::default() })>
                            {if room.paused { "Resume admissions" } else { "Pause admissions" }}
                        </button>
                        <button class="button secondary" on:click=move |_| {
                            let question = if room.bind_tokens {
                                "Stop binding tokens to devices? A copied admission token will pass again."
                            } else {
                                "Bind admission tokens to each buyer's device? Browsers without JavaScript or WebCrypto cannot buy then."
                            };
                            if confirm(question) {
                                change(RoomUpdate { bind_tokens: Some(!room.bind_tokens), ..RoomUpdate::default() });
                            }
                        }>
                            {if room.bind_tokens { "Stop binding tokens to devices" } else { "Bind tokens to devices" }}
                        </button>
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
            <form class="rate" on:submit=set_sweep>
                <label for="sweep">"Sweep expired holds every (s) "</label>
                <input id="sweep" type="number" min="1" max="3600" required
                    on:input=move |ev| new_sweep.set(event_target_value(&ev))/>
                <button class="button secondary" type="submit">"Set interval"</button>
            </form>
        </section>
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
        <section class="card">
            <h2>"The last 10 minutes"</h2>
            {move || stats.get().map(|s| view! { <Panel stats=s/> })}
            {move || payments.get().map(|p| view! { <PaymentsLine payments=p/> })}
        </section>
        <Nights event_id=id.get_value()/>
        <section class="card">
            <h2>"Changes"</h2>
            <ul class="audit">
                {move || audit.get().into_iter().map(|c| view! {
                    <li>
                        <time>{c.at.format("%H:%M:%S").to_string()}</time>" "
                        {serde_json::to_string(&c.change).unwrap_or_default()}
                        <span class="muted">{format!(" by {}", c.actor)}</span>
                    </li>
                }).collect_view()}
            </ul>
        </section>
    }
}

/// The nights kept of the event (the room turned off, or kept on demand): pick one to see its
/// charts, or take its CSV (what `onsale --replay` reads).
#[component]
fn Nights(event_id: String) -> impl IntoView {
    let id = StoredValue::new(event_id);
    let nights = RwSignal::new(Vec::<Night>::new());
    let shown = RwSignal::new(None::<(Night, Vec<StatsPoint>)>);
    let load = move || {
        leptos::task::spawn_local(async move {
            if let Ok(n) = Api::current().nights(&id.get_value()).await {
                nights.set(n);
            }
        });
    };
    Effect::new(move |_| load());
    let show = move |night: Night| {
        leptos::task::spawn_local(async move {
            if let Ok(points) = Api::current().night_series(&id.get_value(), night.id).await {
                shown.set(Some((night, points.iter().map(as_stats_point).collect())));
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Nights kept"</h2>
            <ul class="audit">
                {move || nights.get().into_iter().map(|n| {
                    let csv = format!("/api/admin/events/{}/nights/{}/csv", id.get_value(), n.id);
                    let label = format!(
                        "{} to {} ({})",
                        n.started_at.format("%Y-%m-%d %H:%M:%S"),
                        n.ended_at.format("%H:%M:%S UTC"),
                        n.reason.replace('_', " ")
                    );
                    let night = n.clone();
                    view! {
                        <li>
                            <button class="button secondary" on:click=move |_| show(night.clone())>{label}</button>
                            " "<a href=csv download>"CSV"</a>
                        </li>
                    }
                }).collect_view()}
            </ul>
            {move || shown.get().map(|(night, series)| view! {
                <h3>{format!("The night ending {} (times before its end)", night.ended_at.format("%Y-%m-%d %H:%M:%S UTC"))}</h3>
                <div class="charts">
                    <Chart series=series.clone() lines=vec![
                        ("admissions", |p: &StatsPoint| p.admissions),
                        ("holds", |p: &StatsPoint| p.holds),
                        ("checkouts", |p: &StatsPoint| p.checkouts),
                    ] label="Admissions, holds and checkouts a second"/>
                    <Chart series lines=vec![("queue", |p: &StatsPoint| p.queue_length)] label="Queue length"/>
                </div>
            })}
        </section>
    }
}

/// A kept second as the charts draw it.
fn as_stats_point(p: &NightPoint) -> StatsPoint {
    StatsPoint {
        t: p.t,
        admissions: p.admissions,
        holds: p.holds,
        checkouts: p.checkouts,
        queue_length: p.queue_length,
        admit_rate_per_second: p.admit_rate_per_second,
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

/// Payments by state, and the last refunds with their reason: `pending` that stays up is
/// money reconciliation has not settled yet.
#[component]
fn PaymentsLine(payments: Payments) -> impl IntoView {
    let c = &payments.counts;
    let line = format!(
        "{} succeeded · {} pending · {} declined · {} refunded · {} failed",
        c.succeeded, c.pending, c.declined, c.refunded, c.failed
    );
    view! {
        <p class="payments" data-figure="payments"><strong>"Payments: "</strong>{line}</p>
        <ul class="audit refunds">
            {payments.refunds.into_iter().take(5).map(|r| view! {
                <li>
                    <time>{r.updated_at.format("%H:%M:%S").to_string()}</time>" "
                    {format!("refunded {:.2} to {} (hold {})", r.amount_cents as f64 / 100.0, r.buyer_id, r.hold_id)}
                    <span class="muted">{r.note.map(|n| format!(": {n}")).unwrap_or_default()}</span>
                </li>
            }).collect_view()}
        </ul>
    }
}

#[component]
fn Panel(stats: Stats) -> impl IntoView {
    let last = stats.series.iter().rev().nth(1).cloned();
    let per_second = |f: fn(&StatsPoint) -> u64| last.as_ref().map(f).unwrap_or(0);
    view! {
        <dl class="figures">
            <div><dt>"In line"</dt><dd data-figure="queue">{grouped(stats.queue_length)}</dd></div>
            <div><dt>"Admissions/s"</dt><dd data-figure="admissions">{per_second(|p| p.admissions)}</dd></div>
            <div><dt>"Holds/s"</dt><dd>{per_second(|p| p.holds)}</dd></div>
            <div><dt>"Checkouts/s"</dt><dd>{per_second(|p| p.checkouts)}</dd></div>
            <div><dt>"Admitted"</dt><dd>{grouped(stats.admitted_total)}</dd></div>
            <div><dt>"Active holds"</dt><dd>{stats.holds_active}</dd></div>
            <div><dt>"Seats available · held · sold"</dt>
                <dd>{format!("{} · {} · {}", stats.seats.available, stats.seats.held, stats.seats.sold)}</dd></div>
            <div><dt>"Rate in force"</dt><dd data-figure="rate">{format!("{}/s", stats.admit_rate_per_second)}</dd></div>
            <div class="wide"><dt>"Why"</dt><dd data-figure="rate-reason">{stats.rate_reason.clone()}</dd></div>
            <div><dt>{if stats.rate.auto_rate { "Automatic (on) · bounds" } else { "Automatic proposal (off) · bounds" }}</dt>
                <dd data-figure="rate-proposal">{format!("{}/s · {} to {}", stats.rate.proposal,
                    stats.rate.min_admit_rate_per_second, stats.rate.max_admit_rate_per_second)}</dd></div>
            <div><dt>"Hold p99 · target"</dt><dd>{against(stats.rate.hold_p99_ms, f64::from(stats.rate.target_hold_p99_ms))}</dd></div>
            <div><dt>"Pool wait · limit"</dt><dd>{against(stats.rate.acquire_wait_ms, stats.rate.acquire_wait_limit_ms)}</dd></div>
            <div><dt>"Loop lag · limit"</dt><dd>{against(stats.rate.loop_lag_ms, f64::from(stats.rate.loop_lag_limit_ms))}</dd></div>
            <div><dt>"Shopping · target"</dt><dd>{format!("{} · {}", grouped(stats.rate.shopping), grouped(stats.rate.target_shoppers))}</dd></div>
            <div><dt>"Refused: no device key · no JavaScript"</dt><dd data-figure="device-refusals">{format!("{} · {}",
                grouped(stats.device_refusals.no_key), grouped(stats.device_refusals.no_script))}</dd></div>
            <div><dt>"Ticker held by"</dt><dd class="holder">{stats.ticker_holder.clone().unwrap_or_else(|| "nobody".into())}</dd></div>
        </dl>
        <div class="charts">
            <Chart series=stats.series.clone() lines=vec![
                ("admissions", |p: &StatsPoint| p.admissions),
                ("holds", |p: &StatsPoint| p.holds),
                ("checkouts", |p: &StatsPoint| p.checkouts),
            ] label="Admissions, holds and checkouts a second"/>
            <Chart series=stats.series.clone() lines=vec![("queue", |p: &StatsPoint| p.queue_length)] label="Queue length"/>
            <Chart series=stats.series lines=vec![("rate", |p: &StatsPoint| p.admit_rate_per_second)] label="Rate in force (admissions a second)"/>
        </div>
        <p class="legend-lines">
            <span class="key admissions">"admissions"</span>
            <span class="key holds">"holds"</span>
            <span class="key checkouts">"checkouts"</span>
            <span class="key queue">"queue length"</span>
            <span class="key rate">"rate in force"</span>
        </p>
    }
}

/// A measurement against its limit: "12 ms of 50 (24%)", or "none" when nothing was measured.
fn against(ms: Option<f64>, limit_ms: f64) -> String {
    match ms {
        Some(ms) => format!(
            "{ms:.0} ms of {limit_ms:.0} ({:.0}%)",
            ms / limit_ms.max(1.0) * 100.0
        ),
        None => format!("none · {limit_ms:.0} ms"),
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

type Line = (&'static str, fn(&StatsPoint) -> u64);

/// Gridline values for a chart whose greatest figure is `max`: 0 and up to four round steps
/// (1, 2 or 5 times a power of ten) reaching at least `max`.
pub fn gridlines(max: u64) -> Vec<u64> {
    let max = max.max(1);
    let mut unit = 1u64;
    let step = loop {
        if let Some(step) = [1, 2, 5]
            .into_iter()
            .map(|m| m * unit)
            .find(|s| max.div_ceil(*s) <= 4)
        {
            break step;
        }
        unit = unit.saturating_mul(10);
    };
    (0..=max.div_ceil(step)).map(|k| k * step).collect()
}

/// "now", "1 min ago", "3 min 20 s ago": how long before the newest second `seconds` is.
pub fn ago(seconds: u64) -> String {
    match (seconds / 60, seconds % 60) {
        (0, 0) => "now".into(),
        (0, s) => format!("{s} s ago"),
        (m, 0) => format!("{m} min ago"),
        (m, s) => format!("{m} min {s} s ago"),
    }
}

/// Lines on one SVG chart, all on one scale: the newest second at the right, a time axis in
/// minutes ago, gridlines with their values, and each second's exact figures under the
/// pointer (the second's tooltip).
#[component]
fn Chart(series: Vec<StatsPoint>, lines: Vec<Line>, label: &'static str) -> impl IntoView {
    const W: f64 = 600.0;
    const H: f64 = 160.0;
    // Room for the values at the left and the times below.
    const LEFT: f64 = 40.0;
    const BOTTOM: f64 = 16.0;
    let top = lines
        .iter()
        .flat_map(|(_, f)| series.iter().map(f))
        .max()
        .unwrap_or(0);
    let grid = gridlines(top);
    let max = grid.last().copied().unwrap_or(1).max(1) as f64;
    let n = series.len().max(2) as f64;
    let x = move |i: usize| LEFT + i as f64 / (n - 1.0) * (W - LEFT);
    let y = move |v: u64| (H - BOTTOM) - v as f64 / max * (H - BOTTOM - 4.0);
    let gridlines = grid
        .iter()
        .map(|&v| {
            view! {
                <line x1=LEFT y1=y(v) x2=W y2=y(v) class="grid"/>
                <text x=LEFT - 4.0 y=y(v) + 3.0 text-anchor="end" class="tick">{grouped(v)}</text>
            }
        })
        .collect_view();
    let last = series.len().saturating_sub(1);
    let times = (0..=last)
        .rev()
        .step_by(120)
        .map(|i| {
            let anchor = if i == last { "end" } else { "middle" };
            view! {
                <line x1=x(i) y1=H - BOTTOM x2=x(i) y2=H - BOTTOM + 3.0 class="axis"/>
                <text x=x(i) y=H - 2.0 text-anchor=anchor class="tick">{ago((last - i) as u64)}</text>
            }
        })
        .collect_view();
    let polylines = lines
        .iter()
        .map(|(name, f)| {
            let points: Vec<String> = series
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(f(p))))
                .collect();
            view! { <polyline class=format!("line {name}") points=points.join(" ") fill="none"/> }
        })
        .collect_view();
    let width = (W - LEFT) / (n - 1.0);
    let under_pointer = series
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let figures: Vec<String> = lines
                .iter()
                .map(|(name, f)| format!("{name} {}", grouped(f(p))))
                .collect();
            let title = format!(
                "{} ({}): {}",
                ago((last - i) as u64),
                p.t.format("%H:%M:%S UTC"),
                figures.join(", ")
            );
            view! {
                <rect x=x(i) - width / 2.0 y="0" width=width height=H - BOTTOM class="hover">
                    <title>{title}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label>
                {gridlines}
                <line x1=LEFT y1=H - BOTTOM x2=W y2=H - BOTTOM class="axis"/>
                {times}
                {polylines}
                {under_pointer}
            </svg>
            <figcaption>{format!("{label} (max {})", grouped(top))}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gridlines_are_round_steps_that_reach_the_top() {
        assert_eq!(gridlines(0), [0, 1]);
        assert_eq!(gridlines(7), [0, 2, 4, 6, 8]);
        assert_eq!(gridlines(100), [0, 50, 100]);
        assert_eq!(gridlines(101), [0, 50, 100, 150]);
        assert_eq!(gridlines(14_812), [0, 5000, 10_000, 15_000]);
    }

    #[test]
    fn times_read_as_minutes_ago() {
        assert_eq!(ago(0), "now");
        assert_eq!(ago(45), "45 s ago");
        assert_eq!(ago(120), "2 min ago");
        assert_eq!(ago(200), "3 min 20 s ago");
    }
}
