//! Moving a place between devices (API.md "Moving a place to another device"): the code that
//! moves this page's place elsewhere, the form that takes a place moved here, and the choice a
//! page with a place of its own offers first. Only the hydrated page shows them, from WASM
//! chunks of their own; without JavaScript a code in the address is claimed by a form.

use leptos::prelude::*;

use super::{Venue, noscript::noscript};
use crate::{
    api::Api,
    lang::Words,
    wire::{MoveCode, PageForms},
    words::{code_in_groups, error_in_words, move_valid_until},
};

/// The claim of a place moved here (`code`), as a form for a browser without JavaScript (the
/// hydrated page claims by itself, or asks first); the server answers 303 back to the page,
/// with a note. `own` is this page's own place, if it has one (`Some(None)`: a pre-queue
/// ticket), which the claim gives up: the form says so.
pub(super) fn claim_form(
    event_id: &str,
    code: String,
    own: Option<Option<u64>>,
    forms: &Option<PageForms>,
) -> impl IntoView + use<> {
    let (event_id, token) = (event_id.to_owned(), forms.as_ref().map(|f| f.token.clone()));
    let w = Words::current();
    noscript(move || {
        let e = crate::words::escape_html;
        let given_up = own
            .map(|position| {
                format!(
                    "<p>{}</p>",
                    e(&crate::words::own_place_given_up(&w, position))
                )
            })
            .unwrap_or_default();
        format!(
            r#"<form class="card claim-form" method="post" action="/events/{}/claim"><p>{}</p>{given_up}<input type="hidden" name="token" value="{}"><input type="hidden" name="code" value="{}"><button type="submit" class="button">{}</button></form>"#,
            e(&event_id),
            e(&w.t("moving-claim-coming")),
            e(token.as_deref().unwrap_or_default()),
            e(&code),
            e(&w.t("moving-move-mine-here")),
        )
    })
}

/// Drops `?claim=` from the address bar once the page has taken the code: a reload must not
/// claim a used code again.
#[cfg(feature = "hydrate")]
pub(super) fn forget_claim_in_address() {
    let Some(window) = leptos::web_sys::window() else {
        return;
    };
    let path = window.location().pathname().unwrap_or_default();
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
    }
}

/// What a page in line offers besides its place: moving it to another device (`moving`), and
/// taking a place moved here. Only the hydrated page shows it (both take script), and its code
/// is a WASM chunk of its own ([`place_elsewhere`]), fetched then: a first visit does not
/// download it.
#[component]
pub(super) fn PlaceElsewhere(event_id: String, moving: bool) -> impl IntoView {
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
pub(super) async fn claim_choice(
    event_id: String,
    code: String,
    own: Option<u64>,
    claim: Callback<String>,
    message: RwSignal<Option<String>>,
    choosing: RwSignal<Option<String>>,
) -> AnyView {
    // Before the first wait: the words of the render that asked for this choice.
    let w = Words::current();
    let preview = match Api::current().claim_preview(&event_id, &code).await {
        Ok(preview) => preview,
        Err(e) => {
            message.set(Some(if e.error == "not_found" {
                w.t("claim-refused")
            } else {
                error_in_words(&w, &e)
            }));
            choosing.set(None);
            return ().into_any();
        }
    };
    let (moving, kept) = crate::words::claim_choice(&w, &preview, own);
    view! {
        <section class="card claim-choice" aria-label=w.t("moving-choice-label")>
            <p>{moving}</p>
            <p>{kept}</p>
            <button type="button" class="button" on:click=move |_| claim.run(code.clone())>
                {w.t("moving-choice-move")}
            </button>
            <button type="button" class="button secondary" on:click=move |_| choosing.set(None)>
                {w.t("moving-choice-keep")}
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
    let w = venue.with_value(|v| v.words.clone());
    let failing = w.clone();
    let ask = move |_| {
        busy.set(true);
        failed.set(None);
        let api = Api::current();
        let w = failing.clone();
        leptos::task::spawn_local(async move {
            match api.move_place(&event_id.get_value()).await {
                Ok(code) => found.set(Some(code)),
                Err(e) => failed.set(Some(error_in_words(&w, &e))),
            }
            busy.set(false);
        });
    };
    view! {
        <section class="card move" aria-labelledby="move">
            {move || match found.get() {
                None => view! {
                    <button id="move" type="button" class="button secondary"
                        disabled=move || busy.get() on:click=ask.clone()>
                        {w.t("moving-continue-elsewhere")}
                    </button>
                }.into_any(),
                Some(code) => view! {
                    <h2 id="move">{w.t("moving-code-heading")}</h2>
                    <p class="move-code"><code data-code=code.code.clone()>{code_in_groups(&code.code)}</code></p>
                    <p>{venue.with_value(|v| move_valid_until(&v.words, code.expires_at, &v.zone))}</p>
                    <div class="qr" inner_html=code.qr_svg.clone()></div>
                    <p class="muted">{w.t("move-explained")}</p>
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
    let w = Words::current();
    view! {
        <details class="claim">
            <summary>{w.t("moving-have-code")}</summary>
            <form method="get" action=page>
                <label for="claim-code">{w.t("moving-code-label")}</label>
                <input id="claim-code" name="claim" type="text" required=true
                    autocomplete="off" autocapitalize="characters" spellcheck="false"/>
                <button type="submit" class="button secondary">{w.t("moving-move-mine-here")}</button>
            </form>
        </details>
    }
}
