//! The browser entry point: hydrates the server-rendered page with the same `app` components.

// The operator panel's view types nest deeper than the default limit allows.
#![recursion_limit = "256"]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    // An event's page hydrates without the router, every other page through it, loaded first
    // (`app::hydrate`).
    wasm_bindgen_futures::spawn_local(app::hydrate());
}
