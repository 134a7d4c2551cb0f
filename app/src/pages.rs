//! The pages. Each reads its data through [`Api`], so the first paint comes from the server and
//! the hydrated page keeps itself current through the JSON API.
//!
//! What a buyer downloads to wait in line is kept small:
//! - Only the event page is in the buyer's main WASM. The list of events and the operator's
//!   pages are lazy routes, split out.
//! - The event page hydrates without the router ([`hydrate`]). The server renders every page
//!   through the router, which puts no markup of its own in the page, so both build the same
//!   nodes: [`Frame`] around the page.
//! - Titles are leptos_meta's on the server only (`crate::title::set_title`).

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, MetaTags};
use leptos_router::{
    Lazy, LazyRoute, ParamSegment, SsrMode, StaticSegment,
    components::{Route, Router, Routes},
    hooks::{use_params_map, use_query_map},
    lazy_route,
};

use crate::{
    admin::OperatorPages,
    api::Api,
    lang::{Lang, Words},
    onsale::{EventPage, PageQuery},
    title::set_title,
    wire::{Event, Room, Zone},
    words::{date_and_time, error_in_words},
};

/// The HTML document around the app, in the page's language ([`Words`], which the server put
/// in the render's context): `<html lang dir>`, and the address of that language's messages
/// for the browser's script (it carries no language of its own), preloaded beside the WASM.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let lang = Words::current().lang;
    #[cfg(feature = "ssr")]
    let words = crate::lang::page_words(lang).path.clone();
    #[cfg(not(feature = "ssr"))]
    let words = String::new();
    let preload = words.clone();
    view! {
        <!DOCTYPE html>
        <html lang=lang.tag() dir=lang.dir() data-words=words>
            <head>
                <meta charset="utf-8"/>
                <link rel="preload" href=preload r#as="fetch" crossorigin="anonymous"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <AutoReload options=options.clone()/>
                // Content-hashed file names (hash-files): served as immutable for a year.
                <HashedStylesheet id="leptos" options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// In the browser: the page's language (`<html lang>`) and its messages, fetched from where
/// [`shell`] says they are (preloaded meanwhile), installed for every view to read
/// ([`Words::install`]). Tried twice; without them the page still shows what the server
/// rendered.
#[cfg(feature = "hydrate")]
async fn install_words() {
    let html = document().document_element();
    let attr = |name: &str| html.as_ref().and_then(|e| e.get_attribute(name));
    let lang = attr("lang")
        .and_then(|tag| Lang::parse(&tag))
        .unwrap_or_default();
    let Some(path) = attr("data-words") else {
        return;
    };
    for _ in 0..2 {
        if let Ok(messages) = crate::api::words(&path).await {
            Words::install(Words::new(lang, std::sync::Arc::new(messages)));
            return;
        }
    }
}

/// Whether this is an operator's page (`/admin...`): those stay in English, with no switcher.
fn operators_page() -> bool {
    #[cfg(feature = "ssr")]
    let path = use_context::<http::request::Parts>().map(|p| p.uri.path().to_owned());
    #[cfg(not(feature = "ssr"))]
    let path = window().location().pathname().ok();
    path.is_some_and(|p| crate::lang::operators_path(&p))
}

/// The languages a buyer's page speaks, each a link to this page in it (`?lang=`, which the
/// server keeps in a cookie): it works without script, and a page in another language comes
/// from the server whole.
#[component]
fn LanguageSwitcher() -> impl IntoView {
    let words = Words::current();
    let here = words.lang;
    view! {
        <nav class="languages" aria-label=words.t("languages")>
            <ul>
                {Lang::ALL.into_iter().map(|lang| view! {
                    <li>
                        <a href=format!("?lang={}", lang.tag()) lang=lang.tag() hreflang=lang.tag()
                            aria-current=(lang == here).then_some("true")>{lang.name()}</a>
                    </li>
                }).collect_view()}
            </ul>
        </nav>
    }
}

/// Around every page: the page's metadata, the top bar and the `<main>` the page goes in. The
/// router renders no markup of its own, so a page hydrated without it ([`hydrate`]) finds the
/// same nodes as the server rendered.
#[component]
fn Frame(children: Children) -> impl IntoView {
    #[cfg(feature = "ssr")]
    leptos_meta::provide_meta_context();
    // Effects run only in the browser, so this attribute says "hydrated" to people and tests.
    Effect::new(move |_| {
        crate::HYDRATED.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    set_title("Anteroom");
    let switcher = (!operators_page()).then(|| view! { <LanguageSwitcher/> });
    view! {
        <header class="topbar">
            <a class="brand" href="/">"Anteroom"</a>
            {switcher}
        </header>
        <main class="page">{children()}</main>
    }
}

/// Every page, through the router: what the server renders, and what the browser hydrates on
/// every page but an event's ([`hydrate`]).
#[component]
pub fn App() -> impl IntoView {
    view! {
        <Frame>
            <Router>
                <Routes fallback=NotFound>
                    // Async: the server waits for the data and sends whole pages, so they work
                    // without JavaScript (streamed chunks would need a script to appear).
                    <Route path=StaticSegment("") view={Lazy::<EventsList>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("events"), ParamSegment("id")) view=EventRoute ssr=SsrMode::Async/>
                    // Opening the seat map directly gives the same page: the waiting room unless
                    // this buyer has been admitted.
                    <Route
                        path=(StaticSegment("events"), ParamSegment("id"), StaticSegment("seats"))
                        view=EventRoute
                        ssr=SsrMode::Async
                    />
                    // The operator's pages are lazy: their code is a WASM chunk of its own, fetched
                    // when an operator's page opens, never part of what a buyer downloads.
                    <Route path=StaticSegment("admin") view={Lazy::<OperatorPages>::new()}/>
                    <Route
                        path=(StaticSegment("admin"), StaticSegment("enrol"))
                        view={Lazy::<OperatorPages>::new()}
                    />
                    <Route
                        path=(StaticSegment("admin"), StaticSegment("events"), ParamSegment("id"))
                        view={Lazy::<OperatorPages>::new()}
                    />
                </Routes>
            </Router>
        </Frame>
    }
}

/// An event's page under the router: its id and query from the address.
#[component]
fn EventRoute() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map().with_untracked(|q| PageQuery::read(|name| q.get(name)));
    let id = Signal::derive(move || params.read().get("id").unwrap_or_default());
    view! { <EventPage id query/> }
}

/// Hydrates the page the server rendered. An event's page, where a buyer waits, hydrates
/// without the router: the same [`Frame`] around the same [`EventPage`], given the id and the
/// query [`EventRoute`] would read. The router, and every other page with it, is a WASM chunk
/// of its own ([`hydrate_through_the_router`]), fetched by the other pages only: a buyer in
/// line does not download it. Links from an event's page load their page from the server.
#[cfg(feature = "hydrate")]
pub async fn hydrate() {
    // First: reading the address (a note's sentence) takes the page's words already.
    install_words().await;
    match event_page_here() {
        Some((id, query)) => {
            crate::onsale::before_hydrating().await;
            leptos::mount::hydrate_lazy(move || {
                let id = Signal::stored(id);
                view! { <Frame><EventPage id query/></Frame> }
            });
        }
        None => hydrate_through_the_router().await,
    }
}

/// Every page but an event's, hydrated through the router (see [`hydrate`]).
#[cfg(feature = "hydrate")]
#[leptos::lazy]
fn hydrate_through_the_router() {
    leptos::mount::hydrate_lazy(App);
}

/// The event's id and the query when the browser is on an event's page (`/events/{id}` or
/// `/events/{id}/seats`, as [`App`] routes them); `None` elsewhere. An id the router would have
/// to decode (`%`) is left to the router.
#[cfg(feature = "hydrate")]
fn event_page_here() -> Option<(String, PageQuery)> {
    let location = window().location();
    let path = location.pathname().ok()?;
    let id = event_of_page(&path).filter(|id| !id.contains('%'))?;
    let search = location.search().unwrap_or_default();
    let query = web_sys::UrlSearchParams::new_with_str(&search).ok();
    let query = PageQuery::read(|name| query.as_ref().and_then(|q| q.get(name)));
    Some((id.to_owned(), query))
}

/// The event's id of an event's page (`/events/{id}` or `/events/{id}/seats`, as [`App`]
/// routes them); `None` for any other path.
pub fn event_of_page(path: &str) -> Option<&str> {
    match path.split('/').collect::<Vec<_>>()[..] {
        ["", "events", id] | ["", "events", id, "seats"] if !id.is_empty() => Some(id),
        _ => None,
    }
}

#[component]
fn NotFound() -> impl IntoView {
    let w = Words::current();
    view! {
        <h1>{w.t("not-found")}</h1>
        <p>{w.t("not-found-here")}" "<a href="/">{w.t("not-found-events")}</a></p>
    }
}

/// `/` as a lazy route: its code is a WASM chunk of its own, so a buyer who comes straight to an
/// event's page (as an on-sale's link takes them) does not download the list of events.
struct EventsList;

#[lazy_route]
impl LazyRoute for EventsList {
    /// Nothing to load ahead of the view: the page reads the events through its resource.
    fn data() -> Self {
        Self
    }

    fn view(_this: Self) -> AnyView {
        view! { <EventsPage/> }.into_any()
    }
}

/// `/`: the events, with their on-sale state.
#[component]
fn EventsPage() -> impl IntoView {
    let api = Api::current();
    let events = Resource::new(
        || (),
        move |_| {
            let api = api.clone();
            async move { api.events().await }
        },
    );
    let (details, set_details) = signal(false);
    let w = Words::current();
    set_title(&w.t("events-title"));
    let (hide, show) = (w.t("events-hide-details"), w.t("events-show-details"));
    let (loading, empty) = (w.t("events-loading"), w.t("events-none"));
    view! {
        <div class="heading">
            <h1>{w.t("events-heading")}</h1>
            <button
                class="button secondary"
                aria-pressed=move || details.get().to_string()
                on:click=move |_| set_details.update(|d| *d = !*d)
            >
                {move || if details.get() { hide.clone() } else { show.clone() }}
            </button>
        </div>
        <Suspense fallback=move || view! { <p class="muted">{loading.clone()}</p> }>
            {move || { let (w, empty) = (w.clone(), empty.clone()); Suspend::new(async move {
                match events.await {
                    Ok(list) if list.is_empty() => {
                        view! { <p class="muted">{empty}</p> }.into_any()
                    }
                    Ok(list) => view! {
                        <ul class="events">
                            {list.into_iter().map(|e| view! { <EventCard event=e details/> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{error_in_words(&w, &e)}</p> }.into_any(),
                }
            })}}
        </Suspense>
    }
}

/// When a room's sale opens, and its pre-queue, on the venue's clock (written without "now",
/// so that the server's rendering and the browser's agree).
fn opening(w: &Words, room: &Room, zone: &Zone) -> Option<String> {
    let at = |t: chrono::DateTime<chrono::Utc>| date_and_time(w, t, zone);
    let opens_at = room.opens_at?;
    Some(match room.prequeue_opens_at.filter(|p| *p < opens_at) {
        Some(prequeue) => w.f(
            "events-opens-with-pre-queue",
            &[
                ("opens", at(opens_at).into()),
                ("prequeue", at(prequeue).into()),
            ],
        ),
        None => w.f("events-opens", &[("opens", at(opens_at).into())]),
    })
}

#[component]
fn EventCard(event: Event, details: ReadSignal<bool>) -> impl IntoView {
    let w = Words::current();
    let state = if !event.room.enabled {
        w.t("events-no-waiting")
    } else if event.room.paused {
        w.t("events-paused")
    } else {
        w.t("events-open")
    };
    let room = event.room.clone();
    view! {
        <li class="event-card">
            <a href=format!("/events/{}", event.id)>
                <h2>{event.name.clone()}</h2>
            </a>
            <p class="muted">{date_and_time(&w, event.starts_at, &event.zone)}</p>
            <p class="state">{state}</p>
            {opening(&w, &event.room, &event.zone).map(|o| view! { <p class="opening-time">{o}</p> })}
            <Show when=move || details.get()>
                <dl class="room-details">
                    <dt>{w.t("events-admitted-per-second")}</dt><dd>{w.number(room.admit_rate_per_second.into())}</dd>
                    <dt>{w.t("events-hold-lasts")}</dt><dd>{w.n("events-minutes", (room.hold_ttl_seconds / 60).into())}</dd>
                    <dt>{w.t("events-seats-per-buyer")}</dt><dd>{w.number(room.seats_per_buyer.into())}</dd>
                </dl>
            </Show>
        </li>
    }
}
