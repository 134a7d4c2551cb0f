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
    lang::Words,
    title::set_title,
    wire::{ErrorBody, EventEntry, PageForms, ProofChallenge},
    words::{error_in_words, escape_html},
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
    let w = Words::current();
    let words = w.clone();
    Effect::new(move |_| {
        #[cfg(feature = "hydrate")]
        {
            let (api, event_id, asked) = (Api::current(), event_id.clone(), asked.clone());
            let w = words.clone();
            let (claim, note) = (claim.clone(), note.clone());
            let claimed = claim.is_some();
            if claimed {
                forget_claim_in_address();
            }
            leptos::task::spawn_local(async move {
                match api.enter_joining(event_id, asked, claim).await {
                    Ok((found, refused)) => {
                        let notice = match (claimed, refused) {
                            (_, Some(_)) => Some(w.t("claim-refused")),
                            (true, None) => Some(w.t("claimed")),
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
        let _ = (&event_id, &asked, &claim, &note, &words);
    });
    view! {
        {move || match (entry.get(), failed.get()) {
            (Some((entry, notice)), _) => view! { <OnSale entry claim=None notice section=None/> }.into_any(),
            (None, Some(e)) if e.error == "no_device_key" => {
                set_title("Anteroom");
                one_sentence("needs-device", w.t("needs-device"))
            }
            (None, failed) => {
                set_title("Anteroom");
                view! {
                    <section class="waiting card" aria-busy="true">
                        <p class="eyebrow">{w.t("arriving-getting-place")}</p>
                        {if proof {
                            let needs_script = w.clone();
                            view! {
                                <p>{w.t("arriving-proof-work")}</p>
                                {noscript(move || format!(
                                    r#"<p class="error">{}</p>"#,
                                    escape_html(&needs_script.t("arriving-proof-needs-script"))
                                ))}
                            }.into_any()
                        } else {
                            view! {
                                <p>{w.t("arriving-joining")}</p>
                                {match claim_by_form.get_value() {
                                    Some(code) => claim_form(&here.get_value(), code, None, &forms.get_value()).into_any(),
                                    None => noscript_refresh("1".into(), w.t("arriving-reloads")).into_any(),
                                }}
                            }.into_any()
                        }}
                        {failed.map(|e| view! {
                            <p class="error" role="alert">{error_in_words(&w, &e)}" "<a href=page.get_value()>{w.t("page-try-again")}</a></p>
                        })}
                    </section>
                    <PlaceElsewhere event_id=here.get_value() moving=false/>
                }.into_any()
            }
        }}
    }
}
