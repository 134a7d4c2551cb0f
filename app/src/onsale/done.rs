//! Where the page ends: sold out (the line is over for everyone), or the buyer's order confirmed.

use leptos::prelude::*;

use super::held::SeatList;
use crate::wire::{Hold, Order};

/// Instead of a position: the line is over.
#[component]
pub(super) fn SoldOut() -> impl IntoView {
    view! {
        <section class="sold-out card" aria-labelledby="sold-out">
            <h2 id="sold-out">"Sold out"</h2>
            <p>"Every seat of this event has been sold, so the waiting room has closed."</p>
            <p><a href="/">"See all events"</a></p>
        </section>
    }
}

#[component]
pub(super) fn Confirmation(order: Order, hold: Hold) -> impl IntoView {
    view! {
        <section class="card confirmation">
            <h2>"You are going!"</h2>
            <p>"Order number "<strong class="order-id">{order.order_id.clone()}</strong></p>
            <SeatList hold/>
            <p class="muted">"Keep the order number; your tickets are on their way."</p>
            <p><a href="/">"Back to the events"</a></p>
        </section>
    }
}
