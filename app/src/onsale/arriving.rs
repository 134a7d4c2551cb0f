//! While the browser joins the line by script ([`GettingPlace`]): after a first visit or a
//! prefetch, which the server's rendering never joins, while it makes the proof of work a room
//! may ask, or while it claims a place moved here. Then the page is the sale, as usual.

use leptos::prelude::*;

#[cfg(feature = "hydrate")]
use super::moving::forget_claim_in_address;
use super::{
    OnSale, PageQuery,
    moving::{PlaceElsewhere, claim_form},
    noscript::{BoundRoom, noscript, noscript_refresh},
    one_sentence,
};
#[cfg(feature = "hydrate")]
use crate::api::Api;
use crate::{
    title::set_title,
    wire::{ErrorBody, EventEntry, PageForms, ProofChallenge},
    words::NEEDS_DEVICE,
};

/// While the browser joins the line by script: after a first visit or a prefetch, which the
/// server's rendering never joins (nor does it in a room that binds tokens: the join needs the
/// device's proof), or (`proof`) while it makes the proof of work the room asks for a new
/// place. With a `claim` code it claims the place moved here instead. The page says so, then
/// shows the sale as usual; a browser that cannot make a device key gets one sentence.
#[component]
pub(super) fn GettingPlace(
    event_id: String,
    asked: Option<ProofChallenge>,
    bound: bool,
    query: PageQuery,
    /// The page's forms (the claim form's token), as the server renders them.
    forms: Option<PageForms>,
) -> impl IntoView {
    let PageQuery { claim, note, .. } = query;
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
            (Some((entry, notice)), _) => view! { <OnSale entry claim=None notice section=None/> }.into_any(),
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
