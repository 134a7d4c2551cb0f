//! The operator's pages: `/admin` (sign in, the events, a new event) and `/admin/events/{id}`
//! (the live panel and the controls). They run in the browser against the admin API; the
//! admin cookie is HttpOnly, so the server renders only the frame and the sign-in form.
//!
//! Both routes are one lazy route, [`OperatorPages`]: in the browser its view is split out of
//! the main WASM (`cargo leptos build --split`) into a chunk that only an operator's page
//! fetches, so a buyer never downloads the dashboard. The server renders it as any page.
//!
//! Here the routes, the sign-in and the list of events; the event's live panel (`panel`) with
//! its charts (`chart`) and the nights kept (`nights`), the forms that change a room or make
//! an event (`controls`), and the team (`team`: operators, sessions, keys, the audit), each in a
//! file of its own.

mod chart;
mod controls;
mod nights;
mod panel;
mod team;

use leptos::prelude::*;
use leptos_router::{LazyRoute, hooks::use_params_map, lazy_route};

use crate::{
    api::Api,
    title::set_title,
    wire::{Eligible, Event, Identity},
};
use controls::CreateEvent;
use panel::LivePanel;

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
        } else if leptos_router::hooks::use_location()
            .pathname
            .get_untracked()
            .ends_with("/enrol")
        {
            view! { <EnrolPage/> }.into_any()
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

/// Sign-in with a passkey: the operator's address, then the browser asks for the passkey.
#[component]
fn SignIn(signed_in: RwSignal<Option<bool>>, error: RwSignal<Option<String>>) -> impl IntoView {
    let email = RwSignal::new(String::new());
    let methods = LocalResource::new(|| async { Api::current().sign_in_methods().await.ok() });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        leptos::task::spawn_local(async move {
            match Api::current().passkey_sign_in(&email.get_untracked()).await {
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
            <label for="operator-email">"Email"</label>
            <input id="operator-email" type="email" autocomplete="username webauthn"
                on:input=move |ev| email.set(event_target_value(&ev))/>
            <button class="button" type="submit">"Sign in with a passkey"</button>
            {move || methods.get().flatten().filter(|m| m.company).map(|_| view! {
                <p><a class="button secondary" href="/operator/sign-in">
                    "Sign in with your company account"
                </a></p>
            })}
            <p class="muted">"New here? Open the enrolment link an admin gave you."</p>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

/// `/admin/enrol#<token>`: enrol a passkey with a one-time link, then go to the dashboard.
#[component]
fn EnrolPage() -> impl IntoView {
    set_title("Enrol a passkey · Anteroom");
    let error = RwSignal::new(None::<String>);
    let enrol = move |_| {
        leptos::task::spawn_local(async move {
            let token = link_token();
            match Api::current().passkey_enrol(&token).await {
                Ok(()) => go_to("/admin"),
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    view! {
        <h1>"Operator"</h1>
        <section class="card signin">
            <h2>"Enrol a passkey"</h2>
            <p>"This one-time link lasts 15 minutes. Your browser will ask you to make a passkey \
                for this site; you sign in with it from now on."</p>
            <button class="button" on:click=enrol>"Enrol a passkey"</button>
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </section>
    }
}

/// The enrolment link's token: its fragment, which no server ever saw.
fn link_token() -> String {
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        web_sys::window()
            .and_then(|w| w.location().hash().ok())
            .map(|h| h.trim_start_matches('#').to_owned())
            .unwrap_or_default()
    }
    #[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
    String::new()
}

fn go_to(path: &str) {
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    if let Some(w) = web_sys::window() {
        let _ = w.location().set_href(path);
    }
    #[cfg(not(all(feature = "hydrate", not(feature = "ssr"))))]
    let _ = path;
}

/// A new event and the team's section, for admins (the API refuses the others anyway).
#[component]
fn AdminsOnly() -> impl IntoView {
    let me = LocalResource::new(|| async { Api::current().whoami().await.ok() });
    move || {
        me.get()
            .flatten()
            .filter(|w| w.role == crate::wire::Role::Admin && w.via != "key")
            .map(|_| view! { <CreateEvent/><team::Team/> })
    }
}

/// A dangerous change was refused for want of a recent sign-in: sign in again with the
/// passkey (the same session is stepped up), then repeat the change.
#[component]
fn StepUp(done: RwSignal<bool>, message: RwSignal<Option<String>>) -> impl IntoView {
    let confirm = move |_| {
        leptos::task::spawn_local(async move {
            let api = Api::current();
            let email = api.whoami().await.ok().and_then(|w| w.email);
            let result = match email {
                Some(email) => api.passkey_sign_in(&email).await,
                None => Err(crate::wire::ErrorBody::new(
                    "unauthorized",
                    "Sign out and in again to confirm it is you.",
                )),
            };
            match result {
                Ok(()) => {
                    done.set(false);
                    message.set(Some("Confirmed: make the change again.".into()));
                }
                Err(e) => message.set(Some(e.message)),
            }
        });
    };
    view! {
        <p class="step-up">
            <button class="button" on:click=confirm>"Confirm it is you (passkey)"</button>
        </p>
    }
}

/// Who is signed in, and a way out.
#[component]
fn SignedInAs() -> impl IntoView {
    let me = LocalResource::new(|| async { Api::current().whoami().await.ok() });
    let sign_out = move |_| {
        leptos::task::spawn_local(async move {
            let _ = Api::current().sign_out().await;
            go_to("/admin");
        });
    };
    view! {
        <p class="muted signed-in">
            {move || me.get().flatten().map(|w| format!("Signed in as {} ({})", w.name, w.role.as_str()))}
            " "
            <button class="button secondary" on:click=sign_out>"Sign out"</button>
        </p>
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
            Some(true) => view! { <SignedInAs/><EventList/><AdminsOnly/> }.into_any(),
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
    let who = match (&e.room.identity, &e.room.eligible) {
        (
            _,
            Some(Eligible::Claim {
                claim,
                value,
                issuer,
            }),
        ) => {
            let at = issuer
                .as_ref()
                .map_or(String::new(), |i| format!(" at {i}"));
            format!(" · signed-in accounts{at} whose {claim} has {value}")
        }
        (_, Some(Eligible::List { .. })) => " · signed-in accounts on the list".to_owned(),
        (Identity::Account, None) => " · signed-in accounts only".to_owned(),
        (Identity::Anonymous, None) => String::new(),
    };
    format!(
        "{state} · N = {}/s · holds swept every {} s{bound}{who}{opening}",
        e.room.admit_rate_per_second, e.room.hold_sweep_seconds
    )
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
