//! The nights kept of an event: the list, one night's charts on demand, and its CSV.

use leptos::prelude::*;

use super::chart::Chart;
use crate::{
    api::Api,
    wire::{Night, NightPoint, StatsPoint},
};

/// The nights kept of the event (the room turned off, or kept on demand): pick one to see its
/// charts, or take its CSV (what `onsale --replay` reads).
#[component]
pub(super) fn Nights(event_id: String) -> impl IntoView {
    let id = StoredValue::new(event_id);
    let nights = RwSignal::new(Vec::<Night>::new());
    let shown = RwSignal::new(None::<(Night, Vec<StatsPoint>)>);
    let load = move || {
        leptos::task::spawn_local(async move {
            if let Ok(n) = Api::current().nights(&id.get_value()).await {
                nights.set(n);
            }
        });
    };
    Effect::new(move |_| load());
    let show = move |night: Night| {
        leptos::task::spawn_local(async move {
            if let Ok(points) = Api::current().night_series(&id.get_value(), night.id).await {
                shown.set(Some((night, points.iter().map(as_stats_point).collect())));
            }
        });
    };
    view! {
        <section class="card">
            <h2>"Nights kept"</h2>
            <ul class="audit">
                {move || nights.get().into_iter().map(|n| {
                    let csv = format!("/api/admin/events/{}/nights/{}/csv", id.get_value(), n.id);
                    let label = format!(
                        "{} to {} ({})",
                        n.started_at.format("%Y-%m-%d %H:%M:%S"),
                        n.ended_at.format("%H:%M:%S UTC"),
                        n.reason.replace('_', " ")
                    );
                    let night = n.clone();
                    view! {
                        <li>
                            <button class="button secondary" on:click=move |_| show(night.clone())>{label}</button>
                            " "<a href=csv download>"CSV"</a>
                        </li>
                    }
                }).collect_view()}
            </ul>
            {move || shown.get().map(|(night, series)| view! {
                <h3>{format!("The night ending {} (times before its end)", night.ended_at.format("%Y-%m-%d %H:%M:%S UTC"))}</h3>
                <div class="charts">
                    <Chart series=series.clone() lines=vec![
                        ("admissions", |p: &StatsPoint| p.admissions),
                        ("holds", |p: &StatsPoint| p.holds),
                        ("checkouts", |p: &StatsPoint| p.checkouts),
                    ] label="Admissions, holds and checkouts a second"/>
                    <Chart series lines=vec![("queue", |p: &StatsPoint| p.queue_length)] label="Queue length"/>
                </div>
            })}
        </section>
    }
}

/// A kept second as the charts draw it.
fn as_stats_point(p: &NightPoint) -> StatsPoint {
    StatsPoint {
        t: p.t,
        admissions: p.admissions,
        holds: p.holds,
        checkouts: p.checkouts,
        queue_length: p.queue_length,
        admit_rate_per_second: p.admit_rate_per_second,
    }
}
