//! What a browser without JavaScript reads: `<noscript>` parts that only the server writes (the
//! WASM hydrates them empty and carries none of their text), and the `<meta refresh>` that keeps
//! such a page current, except in a room that binds tokens, where it could only loop.

use leptos::prelude::*;

use crate::lang::Words;

/// A `<noscript>` with what a browser without JavaScript reads, written by the server as the
/// HTML `html` makes. A browser with JavaScript never shows it, so the WASM hydrates an empty
/// one and carries none of it (`html` is not called there).
pub(super) fn noscript(html: impl FnOnce() -> String) -> impl IntoView {
    #[cfg(feature = "ssr")]
    let html = html();
    #[cfg(not(feature = "ssr"))]
    let html = {
        let _ = html;
        String::new()
    };
    view! { <noscript inner_html=html></noscript> }
}

/// Provided on the page of a room that binds tokens (the event's id): what the page says to a
/// browser without JavaScript changes ([`noscript_refresh`]).
#[derive(Clone, Debug)]
pub(super) struct BoundRoom(pub(super) String);

/// `<meta refresh>` for pages without JavaScript: reload in `seconds` (at least 1, at most a
/// minute), at `page` if given, with the sentence that says so.
pub(super) fn refresh_in(seconds: i64, page: Option<String>) -> impl IntoView {
    let seconds = seconds.clamp(1, 60);
    let content = match page {
        Some(page) => format!("{seconds}; url={page}"),
        None => seconds.to_string(),
    };
    noscript_refresh(content, Words::current().t("noscript-countdown-refresh"))
}

/// A `<noscript>` that reloads a page without JavaScript (`content` as `<meta refresh>` has it)
/// and says so ([`noscript`]: the server writes it; a page the browser builds or hydrates has an
/// empty one, whose `<meta refresh>` could not reload a page that keeps itself current).
///
/// In a room that binds tokens ([`BoundRoom`]) a browser without JavaScript can take no place,
/// and a reload would only loop: it reads the message `needs-device` instead, and loads the
/// image that counts it for the operator.
pub(super) fn noscript_refresh(content: String, sentence: impl Into<String>) -> impl IntoView {
    let sentence = sentence.into();
    noscript(move || {
        let e = crate::words::escape_html;
        let w = Words::current();
        match use_context::<BoundRoom>() {
            Some(BoundRoom(event_id)) => format!(
                r#"<p class="error">{}</p><img src="/api/events/{}/refusals/no-script" alt="" width="1" height="1">"#,
                e(&w.t("needs-device")),
                e(&event_id)
            ),
            None => format!(
                r#"<meta http-equiv="refresh" content="{}"><p class="muted">{}</p>"#,
                e(&content),
                e(&sentence)
            ),
        }
    })
}
