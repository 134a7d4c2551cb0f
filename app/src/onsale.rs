//! The event page: the countdown to the opening, the pre-queue, the waiting room, then the seat
//! map, the hold and the confirmation, in one place that changes stage without a reload. The
//! server renders the first stage (it joins the line while rendering, so the first paint shows
//! the real place, ticket or countdown); the hydrated page ticks its countdowns every second,
//! polls every 3 s and moves on. Without JavaScript the page refreshes itself, and every
//! countdown is right again on each reload (it is rendered from the server's clock).
//!
//! Progressive enhancement: hold, release and pay are HTML forms (`method="post"`) that work
//! without JavaScript (the server answers 303 back to this page, which it renders at the stage
//! they led to, with a note `?note=<code>` for a refusal); the hydrated page takes the same
//! forms over (it prevents the post and calls the JSON API). Which stage shows is decided in
//! one place, [`stage_of`], for the server's rendering and the browser alike.
//!
//! What a buyer downloads before the waiting room is interactive carries the line's stages
//! only: the stages of the buyer's turn (seat map, hold, confirmation) are a WASM chunk of their
//! own ([`turn_stage`]), fetched at admission, and a page the server rendered at one of them
//! loads that chunk before it hydrates ([`before_hydrating`]). The server renders every stage.
//! The turn's data (the seat map, the hold, the order) comes to the page unread
//! ([`Deferred`]) and is read by that chunk, so the line's code carries no reader of it.

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use crate::{
    api::{Api, binds},
    title::set_title,
    wire::{
        Deferred, ErrorBody, EventEntry, Hold, HoldRequest, MoveCode, Order, Outlook, PageForms,
        ProofChallenge, QueueStatus, Room, SeatMap, SeatStatus, Zone,
    },
    words::{
        MOVE_EXPLAINED, NEEDS_DEVICE, Note, SEATS_COMING, UNREADABLE, code_in_groups, countdown,
        grouped, moment, money, move_valid_until, outlook_in_words, place_moved,
        wait_range_in_words, wait_to_announce,
    },
};

/// Where the buyer is.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    /// Before the pre-queue opens: countdowns to it and to the sale.
    NotOpen {
        opens_at: DateTime<Utc>,
        prequeue_opens_at: DateTime<Utc>,
    },
    /// In the pre-queue with a ticket: the place comes with the draw at `opens_at`.
    PreQueue {
        ticket: String,
        opens_at: DateTime<Utc>,
    },
    Waiting {
        position: u64,
        /// The band of the wait, `[low, high]` seconds (never shown as one number).
        estimate: Option<[u64; 2]>,
        outlook: Option<Outlook>,
        /// A drawn entrant's ticket and the place the draw gave it.
        drawn: Option<(String, u64)>,
    },
    /// Every seat is sold: the line is over.
    SoldOut,
    /// Admitted, the seat map on its way: in a room that binds tokens the server's rendering
    /// has none (the browser asks for it with its device's proof).
    Admitted,
    /// The place moved to another device, at that time: this page has none any more and
    /// follows the line no longer (found by a poll, or by the server's rendering).
    Moved(DateTime<Utc>),
    /// The buyer's turn: the seat map, the hold, the order. Read by the turn's own code
    /// ([`turn_stage`]), so the line's code does not carry their JSON readers.
    Choosing(Deferred<SeatMap>),
    Holding(Deferred<Hold>),
    Confirmed(Deferred<Order>, Deferred<Hold>),
}

/// The stage a line's answer puts the buyer in; `None` for an admission (the seat map comes
/// next, which the caller reads).
fn line_stage(status: &QueueStatus) -> Option<Stage> {
    match status {
        QueueStatus::Waiting {
            position,
            estimated_wait_seconds,
            estimate_range_seconds,
            outlook,
            ticket,
            arrival,
            ..
        } => Some(Stage::Waiting {
            position: *position,
            estimate: estimate_range_seconds.or(estimated_wait_seconds.map(|e| [e, e])),
            outlook: *outlook,
            // A drawn entrant's arrival number is their place in the draw.
            drawn: ticket.clone().zip(*arrival),
        }),
        QueueStatus::PreQueue {
            ticket, opens_at, ..
        } => Some(Stage::PreQueue {
            ticket: ticket.clone(),
            opens_at: *opens_at,
        }),
        QueueStatus::SoldOut => Some(Stage::SoldOut),
        QueueStatus::Admitted { .. } => None,
    }
}

/// Before the opening of `room`, as the server's clock (`now`) sees it.
fn not_open(room: &Room, now: DateTime<Utc>) -> Stage {
    Stage::NotOpen {
        opens_at: room.opens_at.unwrap_or(now),
        prequeue_opens_at: room.prequeue_opens_at.unwrap_or(now),
    }
}

fn stage_of(entry: &EventEntry) -> Stage {
    if let Some(at) = entry.moved_at {
        return Stage::Moved(at);
    }
    match (&entry.hold, &entry.order) {
        (Some(hold), Some(order)) => return Stage::Confirmed(order.clone(), hold.clone()),
        (Some(hold), None) => return Stage::Holding(hold.clone()),
        _ => {}
    }
    match (&entry.queue, &entry.seats) {
        (_, Some(map)) => Stage::Choosing(map.clone()),
        (None, None) => not_open(&entry.event.room, entry.now),
        (Some(status), None) => line_stage(status).unwrap_or(Stage::Admitted),
    }
}

/// Unix seconds on the server's clock, ticking in the browser: it starts at `server_now`, so
/// that the server's rendering and the hydrated page show the same countdowns, and then moves
/// with the browser's clock, corrected by how far that was from the server's when the page
/// woke up (a browser whose clock is wrong still counts down to the server's opening).
fn clock(server_now: i64) -> RwSignal<i64> {
    let now = RwSignal::new(server_now);
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        {
            let skew = server_now - Utc::now().timestamp();
            if let Ok(handle) = set_interval_with_handle(
                move || now.set(Utc::now().timestamp() + skew),
                std::time::Duration::from_secs(1),
            ) {
                on_cleanup(move || handle.clear());
            }
        }
    });
    now
}

/// `/events/{id}` and `/events/{id}/seats`.
#[component]
pub fn EventPage(
    /// The event's id, from the page's address.
    id: Signal<String>,
    /// What the address says besides the id.
    query: PageQuery,
) -> impl IntoView {
    let query = StoredValue::new(query);
    let api = Api::current();
    let entry = Resource::new(
        move || id.get(),
        move |id| {
            let api = api.clone();
            async move { api.enter(id).await }
        },
    );
    view! {
        <Suspense fallback=|| view! { <p class="muted">"Finding your place in line…"</p> }>
            {move || Suspend::new(async move {
                let event_id = || id.get_untracked();
                match entry.await {
                    Ok(entry) if entry.arriving => {
                        Api::current().bind(&entry);
                        let bound = binds(&entry.event.room);
                        let forms = entry.forms;
                        view! { <GettingPlace event_id=event_id() asked=None bound query=query.get_value() forms/> }.into_any()
                    }
                    Ok(entry) => {
                        let PageQuery { claim, note } = query.get_value();
                        view! { <OnSale entry claim notice=note/> }.into_any()
                    }
                    Err(ErrorBody { proof: Some(asked), .. }) => {
                        view! { <GettingPlace event_id=event_id() asked=Some(*asked) bound=false query=query.get_value() forms=None/> }.into_any()
                    }
                    Err(e) => {
                        // A refusal that passes (too many at once, a store down) has a way
                        // on; a failure of ours is tried again by itself without script too
                        // (a limit is not: each try would count against it).
                        let passes = matches!(e.error.as_str(), "rate_limited" | "unavailable" | "internal");
                        let again = e.error != "rate_limited";
                        set_title("Anteroom");
                        view! {
                            <h1>"We could not open this sale"</h1>
                            <p class="error" role="alert">{e.message}</p>
                            {passes.then(|| view! {
                                <p><a class="button" href=format!("/events/{}", event_id())>"Try again"</a></p>
                            })}
                            {(passes && again).then(|| view! {
                                {noscript_refresh("10".into(), "This page tries again by itself in 10 seconds.")}
                            })}
                            <p><a href="/">"See all events"</a></p>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
}

/// What an event page's address says besides the event's id.
#[derive(Clone, Debug, Default)]
pub(crate) struct PageQuery {
    /// The code of a place moved here from another device (`?claim=`), claimed by the hydrated
    /// page.
    pub claim: Option<String>,
    /// A form posted without JavaScript comes back with a note (`?note=`, and `?retry=` in
    /// seconds): a fixed code, so only one of our sentences can show. Here as that sentence.
    pub note: Option<String>,
}

impl PageQuery {
    /// Read through `get`, the value of the address's query parameter of a name.
    pub(crate) fn read(get: impl Fn(&str) -> Option<String>) -> Self {
        let retry = get("retry").and_then(|r| r.parse().ok());
        Self {
            claim: get("claim"),
            note: get("note")
                .and_then(|code| Note::from_code(&code))
                .map(|n| n.sentence(retry)),
        }
    }
}

/// While the browser joins the line by script: after a first visit or a prefetch, which the
/// server's rendering never joins (nor does it in a room that binds tokens: the join needs the
/// device's proof), or (`proof`) while it makes the proof of work the room asks for a new
/// place. With a `claim` code it claims the place moved here instead. The page says so, then
/// shows the sale as usual; a browser that cannot make a device key gets one sentence.
#[component]
fn GettingPlace(
    event_id: String,
    asked: Option<ProofChallenge>,
    bound: bool,
    query: PageQuery,
    /// The page's forms (the claim form's token), as the server renders them.
    forms: Option<PageForms>,
) -> impl IntoView {
    let PageQuery { claim, note } = query;
    // Without JavaScript a code in the address is claimed by a form, not by a reload (a room
    // that binds tokens takes no claim without the device's proof).
    let claim_by_form = StoredValue::new(claim.clone().filter(|_| !bound));
    let forms = StoredValue::new(forms);
    if bound {
        provide_context(BoundRoom(event_id.clone()));
    }
    let proof = asked.is_some();
    let entry = RwSignal::new(None::<(EventEntry, Option<String>)>);
    let failed = RwSignal::new(None::<ErrorBody>);
    let page = StoredValue::new(format!("/events/{event_id}"));
    let here = StoredValue::new(event_id.clone());
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        {
            let (api, event_id, asked) = (Api::current(), event_id.clone(), asked.clone());
            let (claim, note) = (claim.clone(), note.clone());
            let claimed = claim.is_some();
            if claimed {
                forget_claim_in_address();
            }
            leptos::task::spawn_local(async move {
                match api.enter_joining(event_id, asked, claim).await {
                    Ok((found, refused)) => {
                        let notice = match (claimed, refused) {
                            (_, Some(_)) => Some(crate::words::CLAIM_REFUSED.to_owned()),
                            (true, None) => Some(crate::words::CLAIMED.to_owned()),
                            (false, None) => None,
                        };
                        let notice = note.or(notice);
                        entry.set(Some((found, notice)))
                    }
                    Err(e) => failed.set(Some(e)),
                }
            });
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = (&event_id, &asked, &claim, &note);
    });
    view! {
        {move || match (entry.get(), failed.get()) {
            (Some((entry, notice)), _) => view! { <OnSale entry claim=None notice/> }.into_any(),
            (None, Some(e)) if e.error == "no_device_key" => {
                set_title("Anteroom");
                one_sentence("needs-device", NEEDS_DEVICE.into())
            }
            (None, failed) => {
                set_title("Anteroom");
                view! {
                    <section class="waiting card" aria-busy="true">
                        <p class="eyebrow">"Getting your place…"</p>
                        {if proof {
                            view! {
                                <p>"This sale asks each browser for a few seconds of work before it joins the line, so that nobody can take places in bulk. Your browser is doing it now; keep this page open and it moves on by itself."</p>
                                {noscript(|| r#"<p class="error">That work needs JavaScript: turn it on for this site and reload the page.</p>"#.to_owned())}
                            }.into_any()
                        } else {
                            view! {
                                <p>"One moment: your browser is joining the line."</p>
                                {match claim_by_form.get_value() {
                                    Some(code) => claim_form(&here.get_value(), code, None, &forms.get_value()).into_any(),
                                    None => noscript_refresh("1".into(), "This page reloads itself in a second with your place.").into_any(),
                                }}
                            }.into_any()
                        }}
                        {failed.map(|e| view! {
                            <p class="error" role="alert">{e.message}" "<a href=page.get_value()>"Try again"</a></p>
                        })}
                    </section>
                    <PlaceElsewhere event_id=here.get_value() moving=false/>
                }.into_any()
            }
        }}
    }
}

/// A `<noscript>` with what a browser without JavaScript reads, written by the server as the
/// HTML `html` makes. A browser with JavaScript never shows it, so the WASM hydrates an empty
/// one and carries none of it (`html` is not called there).
fn noscript(html: impl FnOnce() -> String) -> impl IntoView {
    #[cfg(feature = "ssr")]
    let html = html();
    #[cfg(not(feature = "ssr"))]
    let html = {
        let _ = html;
        String::new()
    };
    view! { <noscript inner_html=html></noscript> }
}

/// The claim of a place moved here (`code`), as a form for a browser without JavaScript (the
/// hydrated page claims by itself, or asks first); the server answers 303 back to the page,
/// with a note. `own` is this page's own place, if it has one (`Some(None)`: a pre-queue
/// ticket), which the claim gives up: the form says so.
fn claim_form(
    event_id: &str,
    code: String,
    own: Option<Option<u64>>,
    forms: &Option<PageForms>,
) -> impl IntoView + use<> {
    let (event_id, token) = (event_id.to_owned(), forms.as_ref().map(|f| f.token.clone()));
    noscript(move || {
        let e = crate::words::escape_html;
        let given_up = own
            .map(|position| format!("<p>{}</p>", e(&crate::words::own_place_given_up(position))))
            .unwrap_or_default();
        format!(
            r#"<form class="card claim-form" method="post" action="/events/{}/claim"><p>Your place in line is moving here from your other device.</p>{given_up}<input type="hidden" name="token" value="{}"><input type="hidden" name="code" value="{}"><button type="submit" class="button">Move my place here</button></form>"#,
            e(&event_id),
            e(token.as_deref().unwrap_or_default()),
            e(&code)
        )
    })
}

/// Provided on the page of a room that binds tokens (the event's id): what the page says to a
/// browser without JavaScript changes ([`noscript_refresh`]).
#[derive(Clone, Debug)]
struct BoundRoom(String);

/// Drops `?claim=` from the address bar once the page has taken the code: a reload must not
/// claim a used code again.
#[cfg(feature = "hydrate")]
fn forget_claim_in_address() {
    let Some(window) = leptos::web_sys::window() else {
        return;
    };
    let path = window.location().pathname().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
    }
}

/// The venue's clock and currency, provided by [`OnSale`] to every stage below it.
#[derive(Clone, Debug, Default)]
struct Venue {
    zone: Zone,
    currency: String,
}

impl Venue {
    /// The venue of the page being built (UTC and euros outside an event's page).
    fn here() -> Self {
        use_context::<Venue>().unwrap_or_else(|| Venue {
            currency: crate::wire::DEFAULT_CURRENCY.into(),
            ..Venue::default()
        })
    }

    fn money(&self, minor: i64) -> String {
        money(minor, &self.currency)
    }

    fn moment(&self, t: DateTime<Utc>, today: DateTime<Utc>) -> String {
        moment(t, today, &self.zone)
    }
}

#[component]
fn OnSale(
    entry: EventEntry,
    /// A code that moves a place here from another device (`?claim=`), to claim at once.
    claim: Option<String>,
    /// A sentence for the page to start with.
    notice: Option<String>,
) -> impl IntoView {
    let event = entry.event.clone();
    provide_context(Venue {
        zone: event.zone.clone(),
        currency: event.currency.clone(),
    });
    Api::current().bind(&entry);
    if binds(&event.room) {
        provide_context(BoundRoom(event.id.clone()));
    }
    let event_id = StoredValue::new(event.id.clone());
    let limit = event.room.seats_per_buyer;
    let paused = RwSignal::new(event.room.paused);
    let stage = RwSignal::new(stage_of(&entry));
    let now = clock(entry.now.timestamp());
    let today = entry.now;
    // The first position this page showed: the progress bar runs from it.
    let start = RwSignal::new(None::<u64>);
    Effect::new(move |_| {
        if let Stage::Waiting { position, .. } = stage.get()
            && start.get_untracked().is_none()
        {
            start.set(Some(position));
        }
    });
    let message = RwSignal::new(notice);
    let forms = StoredValue::new(entry.forms.clone());

    // A place moved here from another device: claimed once, before the buyer holds seats. A
    // page with no place of its own claims it at once; one with a place in line (which the
    // claim gives up) shows both places and claims only when the buyer chooses to.
    let before_holding = matches!(
        stage.get_untracked(),
        Stage::NotOpen { .. } | Stage::PreQueue { .. } | Stage::Waiting { .. }
    );
    let own_place = match stage.get_untracked() {
        Stage::Waiting { position, .. } => Some(Some(position)),
        Stage::PreQueue { .. } => Some(None),
        _ => None,
    };
    let claim = StoredValue::new(claim.filter(|_| before_holding));
    // Without JavaScript, by a form (in a room that binds tokens, not at all).
    let claim_by_form = claim
        .get_value()
        .filter(|_| !binds(&event.room))
        .map(|code| claim_form(&event.id, code, own_place, &entry.forms));
    // The code the buyer is to choose about (browser only).
    let choosing = RwSignal::new(None::<String>);
    let claim_now = move |code: String| {
        choosing.set(None);
        leptos::task::spawn_local(async move {
            let event_id = event_id.get_value();
            match Api::current().claim(&event_id, &code).await {
                Ok(status) => {
                    message.set(Some(crate::words::CLAIMED.into()));
                    stage.set(line_stage(&status).unwrap_or(Stage::Admitted));
                }
                Err(e) if e.error == "not_found" => {
                    message.set(Some(crate::words::CLAIM_REFUSED.into()))
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if let Some(code) = claim.get_value() {
            claim.set_value(None);
            forget_claim_in_address();
            match own_place {
                None => claim_now(code),
                Some(_) => choosing.set(Some(code)),
            }
        }
        #[cfg(not(feature = "hydrate"))]
        let _ = claim;
    });
    let claim_chosen = Callback::new(claim_now);
    let choice = move || {
        choosing.get().map(|code| {
            let own = own_place.flatten();
            let event_id = event_id.get_value();
            view! {
                <Suspense fallback=|| ()>
                    {Suspend::new(async move {
                        claim_choice(event_id, code, own, claim_chosen, message, choosing).await
                    })}
                </Suspense>
            }
        })
    };

    // Admitted without the seat map (a room that binds tokens): ask for it with the proof.
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        if stage.get() == Stage::Admitted {
            leptos::task::spawn_local(async move {
                let event_id = event_id.get_value();
                match Api::current().seats(&event_id).await {
                    Ok(map) => stage.set(Stage::Choosing(map)),
                    Err(e) if e.error == "not_admitted" => {
                        back_to_line(&event_id, stage, message).await;
                    }
                    Err(e) => message.set(Some(e.message)),
                }
            });
        }
    });

    // The browser follows the line while the buyer waits (effects run only in the browser),
    // and again whenever the buyer is back in it (an admission that ran out).
    Effect::new(move |was_following: Option<bool>| {
        let following = matches!(
            stage.get(),
            Stage::NotOpen { .. } | Stage::PreQueue { .. } | Stage::Waiting { .. }
        );
        let start_following = following && was_following != Some(true);
        // The server renders; only the browser follows.
        #[cfg(not(feature = "hydrate"))]
        let _ = start_following;
        #[cfg(feature = "hydrate")]
        if start_following {
            leptos::task::spawn_local(follow_the_line(
                event_id.get_value(),
                stage,
                paused,
                message,
                now,
            ));
        }
        following
    });

    // Moving the place elsewhere, or here, while it waits: above the stage, so that a poll
    // that moves the position does not build it again (a code shown stays shown).
    let in_line =
        Memo::new(move |_| matches!(stage.get(), Stage::PreQueue { .. } | Stage::Waiting { .. }));

    // What the live region says changes only when something that matters does (a memo
    // notifies only on a new value): not on every poll that moves the position.
    let spoken = Memo::new(move |_| announcement(&stage.get(), paused.get()));

    set_title(&format!("{} · Anteroom", event.name));
    view! {
        <h1>{event.name.clone()}</h1>
        <p class="sr-only" aria-live="polite">{move || spoken.get()}</p>
        {move || message.get().map(|m| view! { <p class="notice" role="alert">{m}</p> })}
        {claim_by_form}
        {choice}
        {move || match stage.get() {
            Stage::NotOpen { opens_at, prequeue_opens_at } => view! {
                <Countdowns opens_at prequeue_opens_at now today/>
            }.into_any(),
            Stage::PreQueue { ticket, opens_at } => view! {
                <PreQueue ticket opens_at now today/>
            }.into_any(),
            Stage::Waiting { position, estimate, outlook, drawn } => view! {
                <WaitingRoom position estimate outlook drawn event_id=event_id.get_value()
                    start=start.get_untracked().unwrap_or(position) paused=paused.get()/>
            }.into_any(),
            Stage::SoldOut => view! { <SoldOut/> }.into_any(),
            Stage::Admitted => one_sentence("admitted", SEATS_COMING.into()),
            Stage::Moved(at) => one_sentence("moved", place_moved(at, &Venue::here().zone)),
            turn @ (Stage::Choosing(_) | Stage::Holding(_) | Stage::Confirmed(..)) => {
                let page = Turn { event_id: event_id.get_value(), limit, stage, message, forms: forms.get_value() };
                view! {
                    <div data-split=TURN_SPLIT>
                        <Suspense fallback=|| one_sentence("admitted", SEATS_COMING.into())>
                            {Suspend::new(turn_stage(turn, page))}
                        </Suspense>
                    </div>
                }.into_any()
            }
        }}
        {move || in_line.get().then(|| view! {
            <PlaceElsewhere event_id=event_id.get_value() moving=true/>
        })}
    }
}

/// What the stages of the buyer's turn (the seat map, the hold, the confirmation) work with.
#[derive(Clone)]
struct Turn {
    event_id: String,
    /// Seats per buyer.
    limit: u32,
    stage: RwSignal<Stage>,
    message: RwSignal<Option<String>>,
    forms: Option<PageForms>,
}

/// Marks (`data-split`) the place of the turn's stages in the page, so that [`before_hydrating`]
/// knows the server rendered one of them.
const TURN_SPLIT: &str = "turn";

/// The stages of the buyer's turn (`at`: choosing, holding or confirmed), split out of the
/// buyer's main WASM (`cargo leptos build --split`): a page fetches their code when the buyer is
/// admitted, never while it waits in line. The server renders them as any other stage.
#[leptos::lazy]
fn turn_stage(at: Stage, page: Turn) -> AnyView {
    let Turn {
        event_id,
        limit,
        stage,
        message,
        forms,
    } = page;
    let stage_view = || -> Result<AnyView, ErrorBody> {
        Ok(match at {
            Stage::Choosing(map) => {
                let map = read(map)?;
                view! { <SeatPicker map event_id limit stage message forms/> }.into_any()
            }
            Stage::Holding(hold) => {
                let hold = read(hold)?;
                view! { <HoldPanel hold stage message forms/> }.into_any()
            }
            Stage::Confirmed(order, hold) => {
                let (order, hold) = (read(order)?, read(hold)?);
                view! { <Confirmation order hold/> }.into_any()
            }
            // The line's stages are built by `OnSale` itself, in the main WASM.
            _ => ().into_any(),
        })
    };
    // A page that cannot read its stage says so instead of showing half of it.
    stage_view().unwrap_or_else(|e| one_sentence("error", e.message))
}

/// A part of the turn's data, read (only the turn's code calls this, so its readers stay in
/// the turn's chunk); our own server wrote it, so a failure is ours, in one sentence.
fn read<T: serde::de::DeserializeOwned>(part: Deferred<T>) -> Result<T, ErrorBody> {
    part.read()
        .map_err(|_| ErrorBody::new("internal", UNREADABLE))
}

/// Loads the code of the turn's stages before the page hydrates when the server rendered one of
/// them (a reload while choosing seats or holding them): hydration takes the server's HTML over
/// at once, and a stage whose code is still on its way would not take its part of it.
#[cfg(feature = "hydrate")]
pub(crate) async fn before_hydrating() {
    let rendered = document().query_selector(&format!("[data-split=\"{TURN_SPLIT}\"]"));
    if matches!(rendered, Ok(Some(_))) {
        __preload_turn_stage().await;
    }
}

/// What a page in line offers besides its place: moving it to another device (`moving`), and
/// taking a place moved here. Only the hydrated page shows it (both take script), and its code
/// is a WASM chunk of its own ([`place_elsewhere`]), fetched then: a first visit does not
/// download it.
#[component]
fn PlaceElsewhere(event_id: String, moving: bool) -> impl IntoView {
    let live = RwSignal::new(false);
    Effect::new(move |_| live.set(true));
    let event_id = StoredValue::new(event_id);
    move || {
        live.get().then(|| {
            view! {
                <Suspense fallback=|| ()>
                    {Suspend::new(async move { place_elsewhere(event_id.get_value(), moving).await })}
                </Suspense>
            }
        })
    }
}

/// A page with a place of its own, opened with a move code: where the moving place stands and
/// what moving it here gives up, and the buyer's choice (`claim` moves it). Split out of the
/// buyer's main WASM (`cargo leptos build --split`): only such a page fetches it. A code that
/// names no place says so in `message` and the choice goes (`choosing`).
#[leptos::lazy]
async fn claim_choice(
    event_id: String,
    code: String,
    own: Option<u64>,
    claim: Callback<String>,
    message: RwSignal<Option<String>>,
    choosing: RwSignal<Option<String>>,
) -> AnyView {
    let preview = match Api::current().claim_preview(&event_id, &code).await {
        Ok(preview) => preview,
        Err(e) => {
            message.set(Some(if e.error == "not_found" {
                crate::words::CLAIM_REFUSED.into()
            } else {
                e.message
            }));
            choosing.set(None);
            return ().into_any();
        }
    };
    let (moving, kept) = crate::words::claim_choice(&preview, own);
    view! {
        <section class="card claim-choice" aria-label="A place moving here">
            <p>{moving}</p>
            <p>{kept}</p>
            <button type="button" class="button" on:click=move |_| claim.run(code.clone())>
                "Move that place here"
            </button>
            <button type="button" class="button secondary" on:click=move |_| choosing.set(None)>
                "Keep this device's place"
            </button>
        </section>
    }
    .into_any()
}

/// [`PlaceElsewhere`]'s view, split out of the buyer's main WASM (`cargo leptos build --split`).
#[leptos::lazy]
fn place_elsewhere(event_id: String, moving: bool) -> AnyView {
    view! {
        {moving.then(|| view! { <MoveElsewhere event_id=event_id.clone()/> })}
        <ClaimHere event_id/>
    }
    .into_any()
}

/// "Continue on another device": asks for the one-time code that moves this place (API.md
/// "Moving a place to another device") and shows it to type, large and in groups, and to scan
/// (the QR code, an SVG the server drew with its own label).
#[component]
fn MoveElsewhere(event_id: String) -> impl IntoView {
    let found = RwSignal::new(None::<MoveCode>);
    let failed = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let event_id = StoredValue::new(event_id);
    let venue = StoredValue::new(Venue::here());
    let ask = move |_| {
        busy.set(true);
        failed.set(None);
        let api = Api::current();
        leptos::task::spawn_local(async move {
            match api.move_place(&event_id.get_value()).await {
                Ok(code) => found.set(Some(code)),
                Err(e) => failed.set(Some(e.message)),
            }
            busy.set(false);
        });
    };
    view! {
        <section class="card move" aria-labelledby="move">
            {move || match found.get() {
                None => view! {
                    <button id="move" type="button" class="button secondary"
                        disabled=move || busy.get() on:click=ask>
                        "Continue on another device"
                    </button>
                }.into_any(),
                Some(code) => view! {
                    <h2 id="move">"Your code for the other device"</h2>
                    <p class="move-code"><code data-code=code.code.clone()>{code_in_groups(&code.code)}</code></p>
                    <p>{venue.with_value(|v| move_valid_until(code.expires_at, &v.zone))}</p>
                    <div class="qr" inner_html=code.qr_svg.clone()></div>
                    <p class="muted">{MOVE_EXPLAINED}</p>
                }.into_any(),
            }}
            {move || failed.get().map(|m| view! { <p class="error" role="alert">{m}</p> })}
        </section>
    }
}

/// "Have a code from another device?": a form that opens this page with the code
/// (`?claim=`), which the page claims at once: one way in for a typed code and a scanned one.
#[component]
fn ClaimHere(event_id: String) -> impl IntoView {
    let page = format!("/events/{event_id}");
    view! {
        <details class="claim">
            <summary>"Have a code from another device?"</summary>
            <form method="get" action=page>
                <label for="claim-code">"The code your other device shows"</label>
                <input id="claim-code" name="claim" type="text" required=true
                    autocomplete="off" autocapitalize="characters" spellcheck="false"/>
                <button type="submit" class="button secondary">"Move my place here"</button>
            </form>
        </details>
    }
}

fn announcement(stage: &Stage, paused: bool) -> String {
    match stage {
        Stage::NotOpen { .. } => "The sale has not opened yet.".into(),
        Stage::PreQueue { ticket, .. } => {
            format!(
                "You are in the pre-queue with ticket {ticket}. Your place comes with the draw."
            )
        }
        // The position moves on every poll: the live region speaks the wait, in steps that
        // change rarely, and the pause; the position is on the page.
        Stage::Waiting { .. } if paused => "You are in line. The sale is paused.".into(),
        Stage::Waiting { estimate, .. } => format!(
            "You are in line, {} to go.",
            wait_to_announce(estimate.map_or(0, |[_, high]| high))
        ),
        Stage::SoldOut => "Sold out: every seat has been sold.".into(),
        Stage::Admitted => SEATS_COMING.into(),
        Stage::Moved(_) => "Your place moved to another device. Continue there.".into(),
        Stage::Choosing(_) => "It is your turn: choose your seats.".into(),
        Stage::Holding(_) => "Your seats are held. Pay before the time runs out.".into(),
        // The order's number is on the page; the live region does not read the order.
        Stage::Confirmed(..) => "Done. Your seats are bought.".into(),
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
/// 3 s, in the pre-queue and in line.
#[cfg(feature = "hydrate")]
async fn follow_the_line(
    event_id: String,
    stage: RwSignal<Stage>,
    paused: RwSignal<bool>,
    message: RwSignal<Option<String>>,
    now: RwSignal<i64>,
) {
    use gloo_timers::future::TimeoutFuture;
    let api = Api::current();
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
            Stage::PreQueue { .. } | Stage::Waiting { .. } => {
                TimeoutFuture::new(3_000).await;
                api.poll(&event_id).await
            }
            _ => return,
        };
        match answer {
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
                if let Some(next) = line_stage(&status) {
                    stage.set(next);
                }
            }
            // Still closed (the opening was postponed, or this clock ran ahead): count again.
            Err(e) if e.error == "not_open" => {
                if let Some(opening) = e.opening {
                    stage.set(Stage::NotOpen {
                        opens_at: opening.opens_at,
                        prequeue_opens_at: opening.prequeue_opens_at,
                    });
                }
            }
            // The place went to another device: this page has none, and takes no new one.
            Err(ErrorBody {
                moved: Some(moved), ..
            }) if moved.moved => {
                message.set(None);
                stage.set(Stage::Moved(moved.moved_at));
                return;
            }
            // This browser cannot prove its device: said once, no retrying.
            Err(e) if e.error == "no_device_key" => {
                message.set(Some(e.message));
                return;
            }
            Err(e) if e.error == "not_in_queue" => match api.join(&event_id).await {
                Ok(status) => {
                    if was_waiting {
                        message.set(Some(
                            "Your turn passed without a choice, so you are back in line.".into(),
                        ));
                    }
                    if let Some(next) = line_stage(&status) {
                        stage.set(next);
                    }
                }
                Err(e) => message.set(Some(e.message)),
            },
            Err(e) => message.set(Some(e.message)),
        }
    }
}

/// `<meta refresh>` for pages without JavaScript: reload in `seconds` (at least 1, at most a
/// minute), at `page` if given, with the sentence that says so.
fn refresh_in(seconds: i64, page: Option<String>) -> impl IntoView {
    let seconds = seconds.clamp(1, 60);
    let content = match page {
        Some(page) => format!("{seconds}; url={page}"),
        None => seconds.to_string(),
    };
    noscript_refresh(
        content,
        "This page refreshes itself; its countdown is right each time it does.",
    )
}

/// A `<noscript>` that reloads a page without JavaScript (`content` as `<meta refresh>` has it)
/// and says so ([`noscript`]: the server writes it; a page the browser builds or hydrates has an
/// empty one, whose `<meta refresh>` could not reload a page that keeps itself current).
///
/// In a room that binds tokens ([`BoundRoom`]) a browser without JavaScript can take no place,
/// and a reload would only loop: it reads [`NEEDS_DEVICE`] instead, and loads the image that
/// counts it for the operator.
fn noscript_refresh(content: String, sentence: &'static str) -> impl IntoView {
    noscript(move || {
        let e = crate::words::escape_html;
        match use_context::<BoundRoom>() {
            Some(BoundRoom(event_id)) => format!(
                r#"<p class="error">{}</p><img src="/api/events/{}/refusals/no-script" alt="" width="1" height="1">"#,
                e(NEEDS_DEVICE),
                e(&event_id)
            ),
            None => format!(
                r#"<meta http-equiv="refresh" content="{}"><p class="muted">{}</p>"#,
                e(&content),
                e(sentence)
            ),
        }
    })
}

/// A stage that is one sentence (a card of the `class` given): few shapes of view, since each
/// one weighs in the buyer's WASM.
fn one_sentence(class: &'static str, sentence: String) -> AnyView {
    view! {
        <section class=format!("card {class}")>
            <p>{sentence}</p>
        </section>
    }
    .into_any()
}

/// Before the pre-queue opens: when it opens and when the sale does, counting down.
#[component]
fn Countdowns(
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
fn PreQueue(
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

#[component]
fn WaitingRoom(
    position: u64,
    estimate: Option<[u64; 2]>,
    outlook: Option<Outlook>,
    drawn: Option<(String, u64)>,
    event_id: String,
    start: u64,
    paused: bool,
) -> impl IntoView {
    // Without script: again in 3 s, at the page without a form's note (said once already).
    let refresh = format!("3; url=/events/{event_id}");
    let done = start.saturating_sub(position) as f64;
    let progress = if start > 1 {
        (done / (start - 1) as f64 * 100.0).clamp(0.0, 100.0)
    } else {
        100.0
    };
    view! {
        <section class="waiting card" aria-labelledby="place">
            <p class="eyebrow">"You are in the waiting room"</p>
            <p id="place" class="place">"You are "<strong>{format!("#{}", grouped(position))}</strong>" in line"</p>
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
            <p class="muted">"Keep this page open: it moves by itself, and it lets you in when it is your turn. Refreshing or opening more tabs does not change your place."</p>
            {noscript_refresh(refresh, "This page refreshes itself every few seconds.")}
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

/// Instead of a position: the line is over.
#[component]
fn SoldOut() -> impl IntoView {
    view! {
        <section class="sold-out card" aria-labelledby="sold-out">
            <h2 id="sold-out">"Sold out"</h2>
            <p>"Every seat of this event has been sold, so the waiting room has closed."</p>
            <p><a href="/">"See all events"</a></p>
        </section>
    }
}

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

/// A key for one press of a button: a retry of the same press reuses it.
fn new_key() -> String {
    #[cfg(feature = "hydrate")]
    return format!(
        "{}-{}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 1e12) as u64
    );
    #[cfg(not(feature = "hydrate"))]
    return String::new();
}

/// The hidden fields of a form posted without JavaScript: the session's form token, and the
/// idempotency key of this rendering with `suffix` (one per form, so that two forms of one
/// page are two requests). Nothing when the browser built the page (it posts by script).
fn hidden_fields(forms: &Option<PageForms>, suffix: Option<&str>) -> impl IntoView + use<> {
    forms.as_ref().map(|f| {
        let key = suffix.map(|s| format!("{}-{s}", f.key));
        view! {
            <input type="hidden" name="token" value=f.token.clone()/>
            {key.map(|key| view! { <input type="hidden" name="key" value=key/> })}
        }
    })
}

/// Takes a form over in the browser: the post does not happen, `then` runs instead.
fn by_script(ev: leptos::ev::SubmitEvent, then: impl FnOnce()) {
    ev.prevent_default();
    then();
}

#[component]
fn SeatPicker(
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

#[component]
fn HoldPanel(
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
    let hold = StoredValue::new(hold);
    let event_id = hold.with_value(|h| h.event_id.clone());
    let event_id = StoredValue::new(event_id);
    let back_to_map = move |note: Option<String>| {
        let api = Api::current();
        leptos::task::spawn_local(async move {
            match api.seats(&event_id.get_value()).await {
                Ok(map) => {
                    message.set(note);
                    stage.set(Stage::Choosing(map));
                }
                Err(e) if e.error == "not_admitted" => {
                    back_to_line(&event_id.get_value(), stage, message).await;
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    // A minute before the end: said once, on the page and through the live region (the
    // notice is an alert); the countdown turns urgent.
    let warned = RwSignal::new(false);
    Effect::new(move |_| {
        let left = expires - now.get();
        if left <= 0 && !busy.get_untracked() {
            back_to_map(Some(
                "Your hold ended and the seats went back on sale. Choose again if you like.".into(),
            ));
        } else if left <= HOLD_WARNING_SECONDS && !warned.get_untracked() {
            warned.set(true);
            message.set(Some(
                "One minute left: pay now or the seats go back on sale.".into(),
            ));
        }
    });
    let pay_key = StoredValue::new(new_key());
    let pay = move || {
        busy.set(true);
        message.set(None);
        let api = Api::current();
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
                    message.set(Some(e.message));
                    busy.set(false);
                }
            }
        });
    };
    let release = move || {
        busy.set(true);
        let api = Api::current();
        leptos::task::spawn_local(async move {
            let h = hold.get_value();
            match api.release(&h.event_id, &h.hold_id).await {
                Ok(()) => back_to_map(Some(
                    "Released. The seats are free for others again.".into(),
                )),
                Err(e) => {
                    message.set(Some(e.message));
                    busy.set(false);
                }
            }
        });
    };
    view! {
        <section class="card hold">
            <h2>"Your seats are held"</h2>
            <p class="countdown" class:urgent=move || expires - now.get() <= HOLD_WARNING_SECONDS>
                "Held for "<strong>{move || countdown(expires - now.get())}</strong>" more"
            </p>
            <SeatList hold=hold.get_value()/>
            <div class="actions">
                <form method="post" action=pay_action on:submit=move |ev| by_script(ev, pay)>
                    {hidden_fields(&forms, Some("pay"))}
                    <button type="submit" class="button" disabled=move || busy.get()>
                        {format!("Pay {}", venue.money(hold.with_value(|h| h.total_cents)))}
                    </button>
                </form>
                <form method="post" action=release_action on:submit=move |ev| by_script(ev, release)>
                    {hidden_fields(&forms, None)}
                    <button type="submit" class="button secondary" disabled=move || busy.get()>"Release seats"</button>
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

/// What a buyer whose admission ran out while choosing reads: one true sentence, then the line.
const ADMISSION_ENDED: &str =
    "Your time to choose seats ran out, so you have joined the line again.";

/// Back to the line after the gate refused an admission that ran out (`not_admitted`): joins
/// again and shows the place (or the seat map, when the room lets everyone in), never an error.
async fn back_to_line(event_id: &str, stage: RwSignal<Stage>, message: RwSignal<Option<String>>) {
    let api = Api::current();
    match api.join(event_id).await {
        Ok(status) => {
            message.set(Some(ADMISSION_ENDED.to_owned()));
            match line_stage(&status) {
                Some(next) => stage.set(next),
                None => match api.seats(event_id).await {
                    Ok(map) => stage.set(Stage::Choosing(map)),
                    Err(e) => message.set(Some(e.message)),
                },
            }
        }
        Err(e) => message.set(Some(e.message)),
    }
}

#[component]
fn SeatList(hold: Hold) -> impl IntoView {
    let venue = Venue::here();
    view! {
        <ul class="seat-list">
            {hold.seats.into_iter().map(|s| view! {
                <li>{format!("{} · row {} · seat {}", s.section, s.row, s.number)}<span>{venue.money(s.price_cents)}</span></li>
            }).collect_view()}
            <li class="total">"Total"<span>{venue.money(hold.total_cents)}</span></li>
        </ul>
    }
}

#[component]
fn Confirmation(order: Order, hold: Hold) -> impl IntoView {
    view! {
        <section class="card confirmation">
            <h2>"You are going!"</h2>
            <p>"Order number "<strong class="order-id">{order.order_id.clone()}</strong></p>
            <SeatList hold/>
            <p class="muted">"Keep the order number; your tickets are on their way."</p>
            <p><a href="/">"Back to the events"</a></p>
        </section>
    }
}
