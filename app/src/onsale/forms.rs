//! The turn's forms (hold, release, pay) work without JavaScript: they post to the server, which
//! answers 303 back to the page at the stage they led to. Here their hidden fields, the keys that
//! make a retried press one request, and how the hydrated page takes a form over.

use leptos::prelude::*;

use crate::wire::PageForms;

/// A key for one press of a button: a retry of the same press reuses it.
pub(super) fn new_key() -> String {
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
pub(super) fn hidden_fields(
    forms: &Option<PageForms>,
    suffix: Option<&str>,
) -> impl IntoView + use<> {
    forms.as_ref().map(|f| {
        let key = suffix.map(|s| format!("{}-{s}", f.key));
        view! {
            <input type="hidden" name="token" value=f.token.clone()/>
            {key.map(|key| view! { <input type="hidden" name="key" value=key/> })}
        }
    })
}

/// Takes a form over in the browser: the post does not happen, `then` runs instead.
pub(super) fn by_script(ev: leptos::ev::SubmitEvent, then: impl FnOnce()) {
    ev.prevent_default();
    then();
}
