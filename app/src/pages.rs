//! The pages. Each reads its data through [`Api`], so the first paint comes from the server and
//! the hydrated page keeps itself current through the JSON API. Only the event page is in the
//! buyer's main WASM: the list of events and the operator's pages are lazy routes, split out.

use leptos::prelude::*;
use leptos_meta::{HashedStylesheet, MetaTags, Title, provide_meta_context};
use leptos_router::{
    Lazy, LazyRoute, ParamSegment, SsrMode, StaticSegment,
    components::{Route, Router, Routes},
    lazy_route,
};

use crate::{
    admin::OperatorPages,
    api::Api,
    onsale::EventPage,
    wire::{Event, Room, Zone},
    words::date_and_time,
};

/// The HTML document around the app.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
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

/// The `<title>` of a page about `name` (an operator's text: an event's name).
/// On the server leptos_meta writes the title into the HTML as it is, unescaped, so the text is
/// escaped here; in the browser it becomes `document.title`, which takes plain text.
pub(crate) fn page_title(name: &str) -> String {
    let title = format!("{name} · Anteroom");
    #[cfg(feature = "ssr")]
    let title = escape_html(&title);
    title
}

/// `text` with the characters that mean something in HTML written as entities.
#[cfg(feature = "ssr")]
fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    // Effects run only in the browser, so this attribute says "hydrated" to people and tests.
    Effect::new(move |_| {
        crate::HYDRATED.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "true");
        }
    });
    view! {
        <Title text="Anteroom"/>
        <header class="topbar">
            <a class="brand" href="/">"Anteroom"</a>
        </header>
        <Router>
            <main class="page">
                <Routes fallback=NotFound>
                    // Async: the server waits for the data and sends whole pages, so they work
                    // without JavaScript (streamed chunks would need a script to appear).
                    <Route path=StaticSegment("") view={Lazy::<EventsList>::new()} ssr=SsrMode::Async/>
                    <Route path=(StaticSegment("events"), ParamSegment("id")) view=EventPage ssr=SsrMode::Async/>
                    // Opening the seat map directly gives the same page: the waiting room unless
                    // this buyer has been admitted.
                    <Route
                        path=(StaticSegment("events"), ParamSegment("id"), StaticSegment("seats"))
                        view=EventPage
                        ssr=SsrMode::Async
                    />
                    // The operator's pages are lazy: their code is a WASM chunk of its own, fetched
                    // when an operator's page opens, never part of what a buyer downloads.
                    <Route path=StaticSegment("admin") view={Lazy::<OperatorPages>::new()}/>
                    <Route
                        path=(StaticSegment("admin"), StaticSegment("events"), ParamSegment("id"))
                        view={Lazy::<OperatorPages>::new()}
                    />
                </Routes>
            </main>
        </Router>
    }
}

#[component]
fn NotFound() -> impl IntoView {
    view! {
        <h1>"Not found"</h1>
        <p>"There is no page here. "<a href="/">"See the events on sale."</a></p>
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
    view! {
        <Title text="Events · Anteroom"/>
        <div class="heading">
            <h1>"Events on sale"</h1>
            <button
                class="button secondary"
                aria-pressed=move || details.get().to_string()
                on:click=move |_| set_details.update(|d| *d = !*d)
            >
                {move || if details.get() { "Hide room details" } else { "Show room details" }}
            </button>
        </div>
        <Suspense fallback=|| view! { <p class="muted">"Loading events…"</p> }>
            {move || Suspend::new(async move {
                match events.await {
                    Ok(list) if list.is_empty() => {
                        view! { <p class="muted">"Nothing is on sale yet."</p> }.into_any()
                    }
                    Ok(list) => view! {
                        <ul class="events">
                            {list.into_iter().map(|e| view! { <EventCard event=e details/> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(e) => view! { <p class="error" role="alert">{e.message}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// When a room's sale opens, and its pre-queue, on the venue's clock (written without "now",
/// so that the server's rendering and the browser's agree).
fn opening(room: &Room, zone: &Zone) -> Option<String> {
    let at = |t: chrono::DateTime<chrono::Utc>| date_and_time(t, zone);
    let opens_at = room.opens_at?;
    Some(match room.prequeue_opens_at.filter(|p| *p < opens_at) {
        Some(prequeue) => format!(
            "Sale opens {}; pre-queue from {} (everyone in it has the same chance)",
            at(opens_at),
            at(prequeue)
        ),
        None => format!("Sale opens {}", at(opens_at)),
    })
}

#[component]
fn EventCard(event: Event, details: ReadSignal<bool>) -> impl IntoView {
    let state = if !event.room.enabled {
        "On sale: no waiting"
    } else if event.room.paused {
        "Waiting room paused"
    } else {
        "Waiting room open"
    };
    let room = event.room.clone();
    view! {
        <li class="event-card">
            <a href=format!("/events/{}", event.id)>
                <h2>{event.name.clone()}</h2>
            </a>
            <p class="muted">{date_and_time(event.starts_at, &event.zone)}</p>
            <p class="state">{state}</p>
            {opening(&event.room, &event.zone).map(|o| view! { <p class="opening-time">{o}</p> })}
            <Show when=move || details.get()>
                <dl class="room-details">
                    <dt>"Admitted per second"</dt><dd>{room.admit_rate_per_second}</dd>
                    <dt>"Hold lasts"</dt><dd>{format!("{} min", room.hold_ttl_seconds / 60)}</dd>
                    <dt>"Seats per buyer"</dt><dd>{room.seats_per_buyer}</dd>
                </dl>
            </Show>
        </li>
    }
}
