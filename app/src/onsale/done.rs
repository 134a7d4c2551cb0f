//! Where the page ends: sold out (the line is over for everyone), or the buyer's order confirmed.

use leptos::prelude::*;

use super::held::SeatList;
use crate::{
    lang::Words,
    wire::{Hold, Order},
};

/// Instead of a position: the line is over.
#[component]
pub(super) fn SoldOut() -> impl IntoView {
    let w = Words::current();
    view! {
        <section class="sold-out card" aria-labelledby="sold-out">
            <h2 id="sold-out">{w.t("done-sold-out-title")}</h2>
            <p>{w.t("done-sold-out")}</p>
            <p><a href="/">{w.t("page-all-events")}</a></p>
        </section>
    }
}

#[component]
pub(super) fn Confirmation(order: Order, hold: Hold) -> impl IntoView {
    let w = Words::current();
    let (before, after) = w.around("done-order-number", "order", &[]);
    view! {
        <section class="card confirmation">
            <h2>{w.t("done-title")}</h2>
            <p>{before}<strong class="order-id">{order.order_id.clone()}</strong>{after}</p>
            <SeatList hold/>
            <p class="muted">{w.t("done-keep")}</p>
            <p><a href="/">{w.t("done-back")}</a></p>
        </section>
    }
}
