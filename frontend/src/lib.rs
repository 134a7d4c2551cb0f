//! The browser entry point: hydrates the server-rendered page with the same `app` components.

// The operator panel's view types nest deeper than the default limit allows.
#![recursion_limit = "256"]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // Lazy: the operator's pages are a route whose code is loaded before it hydrates, and a
    // page rendered at the buyer's turn loads that stage's code first (`before_hydrating`).
    wasm_bindgen_futures::spawn_local(async {
        app::before_hydrating().await;
        leptos::mount::hydrate_lazy(app::App);
    });
}
