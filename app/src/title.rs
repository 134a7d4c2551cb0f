//! The page's title: one function that every page and stage calls, apart from the pages
//! (which compose the stages) so that a stage naming its page depends on nothing above it.

#[cfg(feature = "hydrate")]
use leptos::prelude::document;

/// Sets the page's `<title>` to `text` (plain text; an event's name is an operator's), called
/// while the page or stage it names is built.
/// - On the server, leptos_meta writes it into the HTML's head (the last one set wins). It
///   writes it as it is, unescaped, so the text is escaped here.
/// - In the browser, a page or stage built by script sets `document.title`; a page that hydrates
///   keeps the title the server wrote. leptos_meta's code stays out of the WASM, and so does any
///   view: a title puts nothing in the page's body.
pub fn set_title(text: &str) {
    #[cfg(feature = "ssr")]
    {
        let text = crate::words::escape_html(text);
        // Its view renders nothing: leptos_meta took the title when the component ran.
        let _ = leptos_meta::Title(leptos_meta::TitleProps::builder().text(text).build());
    }
    #[cfg(feature = "hydrate")]
    if crate::hydrated() {
        document().set_title(text);
    }
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    let _ = text;
}
