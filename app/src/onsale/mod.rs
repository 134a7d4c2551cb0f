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
//! one place, [`stage`], for the server's rendering and the browser alike.
//!
//! What a buyer downloads before the waiting room is interactive carries the line's stages
//! only: the stages of the buyer's turn (seat map, hold, confirmation) are a WASM chunk of their
//! own ([`turn_stage`]), fetched at admission, and a page the server rendered at one of them
//! loads that chunk before it hydrates ([`before_hydrating`]). The server renders every stage.
//! The turn's data (the seat map, the hold, the order) comes to the page unread
//! ([`Deferred`]) and is read by that chunk, so the line's code carries no reader of it.
//!
//! The page ([`EventPage`], [`OnSale`]) is here; each stage's components have a file of their
//! own: `opening` (countdowns, pre-queue), `waiting` (the line), `seats`, `held`, `done` (sold
//! out, confirmed), with `arriving` (joining by script), `moving` (a place to another device),
//! `forms` and `noscript` (the page without JavaScript).

mod arriving;
mod done;
mod forms;
mod held;
mod moving;
mod noscript;
mod opening;
mod seats;
mod stage;
mod waiting;

use chrono::{DateTime, Utc};
use leptos::prelude::*;

use crate::{
    api::{Api, binds},
    lang::Words,
    title::set_title,
    wire::{Deferred, ErrorBody, EventEntry, PageForms, Zone},
    words::{Note, error_in_words, moment, money, place_moved, wait_to_announce},
};
use arriving::GettingPlace;
use done::{Confirmation, SoldOut};
use held::HoldPanel;
#[cfg(feature = "hydrate")]
use moving::forget_claim_in_address;
use moving::{PlaceElsewhere, claim_choice, claim_form};
use noscript::{BoundRoom, noscript_refresh};
use opening::{Countdowns, PreQueue};
use seats::SeatPicker;
use stage::Stage;
use waiting::WaitingRoom;
#[cfg(feature = "hydrate")]
use waiting::follow_the_line;

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
    let words = StoredValue::new(Words::current());
    let finding = words.with_value(|w| w.t("page-finding-place"));
    view! {
        <Suspense fallback=move || view! { <p class="muted">{finding.clone()}</p> }>
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
                        let PageQuery { claim, note, section } = query.get_value();
                        view! { <OnSale entry claim notice=note section/> }.into_any()
                    }
                    Err(ErrorBody { proof: Some(asked), .. }) => {
                        view! { <GettingPlace event_id=event_id() asked=Some(*asked) bound=false query=query.get_value() forms=None/> }.into_any()
                    }
                    // A sale for signed-in accounts: the way to the ticketer's sign-in (a link
                    // and redirects that come back here: no script needed), or why this
                    // account may not join.
                    Err(e @ ErrorBody { why: Some(_), .. }) => {
                        let w = words.get_value();
                        let sign_in = e.why.as_ref().and_then(|why| why.sign_in_url.clone());
                        let title = if sign_in.is_some() { w.t("page-sign-in-to-join") } else { w.t("page-not-for-your-account") };
                        set_title(&title);
                        view! {
                            <h1>{title}</h1>
                            <p role="alert">{error_in_words(&w, &e)}</p>
                            {sign_in.map(|url| view! { <p><a class="button" href=url>{w.t("page-sign-in")}</a></p> })}
                            <p><a href="/">{w.t("page-all-events")}</a></p>
                        }.into_any()
                    }
                    Err(e) => {
                        // A refusal that passes (too many at once, a store down) has a way
                        // on; a failure of ours is tried again by itself without script too
                        // (a limit is not: each try would count against it).
                        let passes = matches!(e.error.as_str(), "rate_limited" | "unavailable" | "internal");
                        let again = e.error != "rate_limited";
                        let w = words.get_value();
                        set_title("Anteroom");
                        view! {
                            <h1>{w.t("page-could-not-open")}</h1>
                            <p class="error" role="alert">{error_in_words(&w, &e)}</p>
                            {passes.then(|| view! {
                                <p><a class="button" href=format!("/events/{}", event_id())>{w.t("page-try-again")}</a></p>
                            })}
                            {(passes && again).then(|| view! {
                                {noscript_refresh("10".into(), w.n("page-tries-again-in", 10))}
                            })}
                            <p><a href="/">{w.t("page-all-events")}</a></p>
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
    /// The section of the seat map to open (`?section=`, counted from 1): one section a page
    /// without JavaScript.
    pub section: Option<usize>,
}

impl PageQuery {
    /// Read through `get`, the value of the address's query parameter of a name.
    pub(crate) fn read(get: impl Fn(&str) -> Option<String>) -> Self {
        let retry = get("retry").and_then(|r| r.parse().ok());
        Self {
            claim: get("claim"),
            note: get("note")
                .and_then(|code| Note::from_code(&code))
                .map(|n| n.sentence(&Words::current(), retry)),
            section: get("section").and_then(|s| s.parse().ok()),
        }
    }
}

/// The venue's clock and currency, provided by [`OnSale`] to every stage below it.
#[derive(Clone, Debug, Default)]
struct Venue {
    zone: Zone,
    currency: String,
    /// The page's words (its language).
    words: Words,
}

impl Venue {
    /// The venue of the page being built (UTC and euros outside an event's page).
    fn here() -> Self {
        use_context::<Venue>().unwrap_or_else(|| Venue {
            currency: crate::wire::DEFAULT_CURRENCY.into(),
            words: Words::current(),
            ..Venue::default()
        })
    }

    fn money(&self, minor: i64) -> String {
        money(&self.words, minor, &self.currency)
    }

    fn moment(&self, t: DateTime<Utc>, today: DateTime<Utc>) -> String {
        moment(&self.words, t, today, &self.zone)
    }
}

// Over 120 lines, for a reason: the on-sale page's one `view!` tree, each stage of the
// buyer's night (arriving, waiting, moving, the seat map, held) a branch of it; the stages'
// own work lives in their files. Split further, the bundle's ceiling pays for the glue.
#[component]
fn OnSale(
    entry: EventEntry,
    /// A code that moves a place here from another device (`?claim=`), to claim at once.
    claim: Option<String>,
    /// A sentence for the page to start with.
    notice: Option<String>,
    /// The seat map's section to open first (`?section=`, from 1).
    section: Option<usize>,
) -> impl IntoView {
    let event = entry.event.clone();
    provide_context(Venue {
        zone: event.zone.clone(),
        currency: event.currency.clone(),
        words: Words::current(),
    });
    Api::current().bind(&entry);
    if binds(&event.room) {
        provide_context(BoundRoom(event.id.clone()));
    }
    let event_id = StoredValue::new(event.id.clone());
    let limit = event.room.seats_per_buyer;
    let paused = RwSignal::new(event.room.paused);
    let stage = RwSignal::new(Stage::of(&entry));
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
    let w = Words::current();
    let forms = StoredValue::new(entry.forms.clone());

    // A place moved here from another device: claimed once, before the buyer holds seats. A
    // page with no place of its own claims it at once; one with a place in line (which the
    // claim gives up) shows both places and claims only when the buyer chooses to.
    let before_holding = stage.with_untracked(Stage::follows_the_line);
    let own_place = stage.with_untracked(Stage::own_place);
    let claim = StoredValue::new(claim.filter(|_| before_holding));
    // Without JavaScript, by a form (in a room that binds tokens, not at all).
    let claim_by_form = claim
        .get_value()
        .filter(|_| !binds(&event.room))
        .map(|code| claim_form(&event.id, code, own_place, &entry.forms));
    // The code the buyer is to choose about (browser only).
    let choosing = RwSignal::new(None::<String>);
    let words = StoredValue::new(w.clone());
    let claim_now = move |code: String| {
        choosing.set(None);
        let w = words.get_value();
        leptos::task::spawn_local(async move {
            let event_id = event_id.get_value();
            match Api::current().claim(&event_id, &code).await {
                Ok(status) => {
                    message.set(Some(w.t("claimed")));
                    stage.set(Stage::at(&status));
                }
                Err(e) if e.error == "not_found" => message.set(Some(w.t("claim-refused"))),
                Err(e) => message.set(Some(error_in_words(&w, &e))),
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
    let words = w.clone();
    Effect::new(move |_| {
        #[cfg(not(feature = "hydrate"))]
        let _ = &words;
        #[cfg(feature = "hydrate")]
        if stage.get() == Stage::Admitted {
            let w = words.clone();
            leptos::task::spawn_local(async move {
                let event_id = event_id.get_value();
                match Api::current().seats(&event_id).await {
                    Ok(map) => stage.set(Stage::Choosing(map)),
                    Err(e) if e.error == "not_admitted" => {
                        back_to_line(&event_id, stage, message).await;
                    }
                    Err(e) => message.set(Some(error_in_words(&w, &e))),
                }
            });
        }
    });

    // The browser follows the line while the buyer waits (effects run only in the browser),
    // and again whenever the buyer is back in it (an admission that ran out).
    Effect::new(move |was_following: Option<bool>| {
        let following = stage.with(Stage::follows_the_line);
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
    let in_line = Memo::new(move |_| stage.with(Stage::in_line));

    // What the live region says changes only when something that matters does (a memo
    // notifies only on a new value): not on every poll that moves the position.
    let words = w.clone();
    let spoken = Memo::new(move |_| announcement(&words, &stage.get(), paused.get()));

    set_title(&format!("{} · Anteroom", event.name));
    let admitted = w.t("seats-coming");
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
            Stage::Waiting { position, estimate, outlook, drawn, about, refresh, .. } => view! {
                <WaitingRoom position estimate outlook drawn event_id=event_id.get_value()
                    start=start.get_untracked().unwrap_or(position) paused=paused.get() about refresh/>
            }.into_any(),
            Stage::SoldOut => view! { <SoldOut/> }.into_any(),
            Stage::Admitted => one_sentence("admitted", admitted.clone()),
            Stage::Moved(at) => one_sentence("moved", place_moved(&w, at, &Venue::here().zone)),
            turn @ (Stage::Choosing(_) | Stage::Holding(_) | Stage::Confirmed(..)) => {
                let page = Turn { event_id: event_id.get_value(), limit, section, stage, message, forms: forms.get_value() };
                let admitted = admitted.clone();
                view! {
                    <div data-split=TURN_SPLIT>
                        <Suspense fallback=move || one_sentence("admitted", admitted.clone())>
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
    /// The seat map's section to open first (`?section=`, from 1).
    section: Option<usize>,
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
        section,
        stage,
        message,
        forms,
    } = page;
    let stage_view = || -> Result<AnyView, ErrorBody> {
        Ok(match at {
            Stage::Choosing(map) => {
                let map = read(map)?;
                let map = map.map();
                view! { <SeatPicker map event_id limit section stage message forms/> }.into_any()
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
    stage_view().unwrap_or_else(|e| one_sentence("error", error_in_words(&Words::current(), &e)))
}

/// A part of the turn's data, read (only the turn's code calls this, so its readers stay in
/// the turn's chunk); our own server wrote it, so a failure is ours, in one sentence.
fn read<T: serde::de::DeserializeOwned>(part: Deferred<T>) -> Result<T, ErrorBody> {
    part.read()
        .map_err(|_| ErrorBody::new("unreadable", "The page could not read its data."))
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

fn announcement(w: &Words, stage: &Stage, paused: bool) -> String {
    match stage {
        Stage::NotOpen { .. } => w.t("say-not-open"),
        Stage::PreQueue { ticket, .. } => {
            w.f("say-pre-queue", &[("ticket", ticket.as_str().into())])
        }
        // The position moves on every poll: the live region speaks the wait, in steps that
        // change rarely, and the pause; the position is on the page.
        Stage::Waiting { .. } if paused => w.t("say-paused"),
        Stage::Waiting { estimate, .. } => w.f(
            "say-waiting",
            &[(
                "wait",
                wait_to_announce(w, estimate.map_or(0, |[_, high]| high)).into(),
            )],
        ),
        Stage::SoldOut => w.t("say-sold-out"),
        Stage::Admitted => w.t("seats-coming"),
        Stage::Moved(_) => w.t("say-moved"),
        Stage::Choosing(_) => w.t("say-choosing"),
        Stage::Holding(_) => w.t("say-holding"),
        // The order's number is on the page; the live region does not read the order.
        Stage::Confirmed(..) => w.t("say-confirmed"),
    }
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

/// Back to the line after the gate refused an admission that ran out (`not_admitted`): joins
/// again and shows the place (or the seat map, when the room lets everyone in), never an error.
async fn back_to_line(event_id: &str, stage: RwSignal<Stage>, message: RwSignal<Option<String>>) {
    let api = Api::current();
    let w = Words::current();
    match api.join(event_id).await {
        Ok(status) => {
            message.set(Some(w.t("note-admission-ended")));
            match Stage::after_line(&status) {
                Some(next) => stage.set(next),
                None => match api.seats(event_id).await {
                    Ok(map) => stage.set(Stage::Choosing(map)),
                    Err(e) => message.set(Some(error_in_words(&w, &e))),
                },
            }
        }
        Err(e) => message.set(Some(error_in_words(&w, &e))),
    }
}
