//! The live panel of one event (`/admin/events/{id}`): every second the cluster's stats, the
//! payments and the draw until it is made; the room's controls, the figures and charts of the
//! last ten minutes, the nights kept and the changes made. A read or a change that fails says
//! so above the panel.

use leptos::prelude::*;

use super::{
    chart::Chart,
    controls::{OpeningControls, RoomControls},
    nights::Nights,
};
#[cfg(feature = "hydrate")]
use crate::wire::DrawState;
use crate::{
    api::Api,
    lang::Lang,
    wire::{AuditEntry, Draw, Event, Payments, RoomUpdate, Shares, Stats, StatsPoint},
};

/// The panel: the data every part reads, fetched here (the event and its audit on each change,
/// the rest every second), and the parts.
#[component]
pub(super) fn LivePanel(event_id: String) -> impl IntoView {
    let id = StoredValue::new(event_id);
    let event = RwSignal::new(None::<Event>);
    let stats = RwSignal::new(None::<Stats>);
    let payments = RwSignal::new(None::<Payments>);
    let audit = RwSignal::new(Vec::<AuditEntry>::new());
    let draw = RwSignal::new(None::<Draw>);
    let message = RwSignal::new(None::<String>);
    // A change refused for want of a recent sign-in: the panel offers the passkey again.
    let step_up = RwSignal::new(false);
    let refresh = move || {
        leptos::task::spawn_local(async move {
            let api = Api::current();
            let id = id.get_value();
            match api.event(id.clone()).await {
                Ok(e) => event.set(Some(e)),
                Err(e) => message.set(Some(e.message)),
            }
            if let Ok(a) = api.audit(&id).await {
                audit.set(a);
            }
        });
    };
    // Every second: the stats of the whole cluster.
    Effect::new(move |_| {
        refresh();
        #[cfg(feature = "hydrate")]
        leptos::task::spawn_local(async move {
            let api = Api::current();
            loop {
                match api.stats(&id.get_value()).await {
                    Ok(s) => stats.set(Some(s)),
                    Err(e) => message.set(Some(e.message)),
                }
                if let Ok(p) = api.payments(&id.get_value()).await {
                    payments.set(Some(p));
                }
                // The draw until it is made (then it no longer changes, and lists every ticket).
                if draw.with_untracked(|d| d.as_ref().is_none_or(|d| d.state == DrawState::Pending))
                    && let Ok(d) = api.draw(&id.get_value()).await
                {
                    draw.set(Some(d));
                }
                gloo_timers::future::TimeoutFuture::new(1_000).await;
            }
        });
    });
    let change = Callback::new(move |update: RoomUpdate| {
        leptos::task::spawn_local(async move {
            match Api::current().update_room(&id.get_value(), &update).await {
                Ok(_) => {
                    message.set(None);
                    step_up.set(false);
                    refresh();
                }
                Err(e) => {
                    step_up
                        .set(e.why.as_ref().and_then(|w| w.reason.as_deref()) == Some("step_up"));
                    message.set(Some(e.message));
                }
            }
        });
    });
    let refresh = Callback::new(move |()| refresh());
    view! {
        <h1>{move || event.get().map(|e| e.name).unwrap_or_else(|| "Live panel".into())}</h1>
        {move || message.get().map(|m| view! { <p class="notice" role="alert">{m}</p> })}
        {move || step_up.get().then(|| view! { <super::StepUp done=step_up message/> })}
        <RoomControls event change message/>
        <OpeningControls event_id=id.get_value() draw change refresh message/>
        <section class="card">
            <h2>"The last 10 minutes"</h2>
            {move || stats.get().map(|s| view! { <Panel stats=s/> })}
            {move || payments.get().map(|p| view! { <PaymentsLine payments=p/> })}
        </section>
        <Nights event_id=id.get_value()/>
        <Changes audit/>
    }
}

/// What the operators changed in this event, and who.
#[component]
fn Changes(audit: RwSignal<Vec<AuditEntry>>) -> impl IntoView {
    view! {
        <section class="card">
            <h2>"Changes"</h2>
            <ul class="audit">
                {move || audit.get().into_iter().map(|c| view! {
                    <li>
                        <time>{c.at.format("%H:%M:%S").to_string()}</time>" "
                        {serde_json::to_string(&c.change).unwrap_or_default()}
                        <span class="muted">{format!(" by {}", c.actor)}</span>
                    </li>
                }).collect_view()}
            </ul>
        </section>
    }
}

/// Payments by state, and the last refunds with their reason: `pending` that stays up is
/// money reconciliation has not settled yet.
#[component]
fn PaymentsLine(payments: Payments) -> impl IntoView {
    let c = &payments.counts;
    let line = format!(
        "{} succeeded · {} pending · {} declined · {} refunded · {} failed",
        c.succeeded, c.pending, c.declined, c.refunded, c.failed
    );
    view! {
        <p class="payments" data-figure="payments"><strong>"Payments: "</strong>{line}</p>
        <ul class="audit refunds">
            {payments.refunds.into_iter().take(5).map(|r| view! {
                <li>
                    <time>{r.updated_at.format("%H:%M:%S").to_string()}</time>" "
                    {format!("refunded {:.2} to {} (hold {})", r.amount_cents as f64 / 100.0, r.buyer_id, r.hold_id)}
                    <span class="muted">{r.note.map(|n| format!(": {n}")).unwrap_or_default()}</span>
                </li>
            }).collect_view()}
        </ul>
    }
}

#[component]
fn Panel(stats: Stats) -> impl IntoView {
    let last = stats.series.iter().rev().nth(1).cloned();
    let per_second = |f: fn(&StatsPoint) -> u64| last.as_ref().map(f).unwrap_or(0);
    view! {
        <dl class="figures">
            <div><dt>"In line"</dt><dd data-figure="queue">{Lang::En.number(stats.queue_length)}</dd></div>
            <div><dt>"Admissions/s"</dt><dd data-figure="admissions">{per_second(|p| p.admissions)}</dd></div>
            <div><dt>"Holds/s"</dt><dd>{per_second(|p| p.holds)}</dd></div>
            <div><dt>"Checkouts/s"</dt><dd>{per_second(|p| p.checkouts)}</dd></div>
            <div><dt>"Admitted"</dt><dd>{Lang::En.number(stats.admitted_total)}</dd></div>
            <div><dt>"Active holds"</dt><dd>{stats.holds_active}</dd></div>
            <div><dt>"Seats available · held · sold"</dt>
                <dd>{format!("{} · {} · {}", stats.seats.available, stats.seats.held, stats.seats.sold)}</dd></div>
            <div><dt>"Rate in force"</dt><dd data-figure="rate">{format!("{}/s", stats.admit_rate_per_second)}</dd></div>
            <div class="wide"><dt>"Why"</dt><dd data-figure="rate-reason">{stats.rate_reason.clone()}</dd></div>
            <div><dt>{if stats.rate.auto_rate { "Automatic (on) · bounds" } else { "Automatic proposal (off) · bounds" }}</dt>
                <dd data-figure="rate-proposal">{format!("{}/s · {} to {}", stats.rate.proposal,
                    stats.rate.min_admit_rate_per_second, stats.rate.max_admit_rate_per_second)}</dd></div>
            <div><dt>"Hold p99 · target"</dt><dd>{against(stats.rate.hold_p99_ms, f64::from(stats.rate.target_hold_p99_ms))}</dd></div>
            <div><dt>"Pool wait · limit"</dt><dd>{against(stats.rate.acquire_wait_ms, stats.rate.acquire_wait_limit_ms)}</dd></div>
            <div><dt>"Loop lag · limit"</dt><dd>{against(stats.rate.loop_lag_ms, f64::from(stats.rate.loop_lag_limit_ms))}</dd></div>
            <div><dt>"Shopping · target"</dt><dd>{format!("{} · {}", Lang::En.number(stats.rate.shopping), Lang::En.number(stats.rate.target_shoppers))}</dd></div>
            <div class="wide"><dt>"Seats a hold · share who hold"</dt><dd data-figure="shares">{shares_line(&stats.shares)}</dd></div>
            <div><dt>"Refused: no device key · no JavaScript"</dt><dd data-figure="device-refusals">{format!("{} · {}",
                Lang::En.number(stats.device_refusals.no_key), Lang::En.number(stats.device_refusals.no_script))}</dd></div>
            <div><dt>"Ticker held by"</dt><dd class="holder">{stats.ticker_holder.clone().unwrap_or_else(|| "nobody".into())}</dd></div>
        </dl>
        <div class="charts">
            <Chart series=stats.series.clone() lines=vec![
                ("admissions", |p: &StatsPoint| p.admissions),
                ("holds", |p: &StatsPoint| p.holds),
                ("checkouts", |p: &StatsPoint| p.checkouts),
            ] label="Admissions, holds and checkouts a second"/>
            <Chart series=stats.series.clone() lines=vec![("queue", |p: &StatsPoint| p.queue_length)] label="Queue length"/>
            <Chart series=stats.series lines=vec![("rate", |p: &StatsPoint| p.admit_rate_per_second)] label="Rate in force (admissions a second)"/>
        </div>
        <p class="legend-lines">
            <span class="key admissions">"admissions"</span>
            <span class="key holds">"holds"</span>
            <span class="key checkouts">"checkouts"</span>
            <span class="key queue">"queue length"</span>
            <span class="key rate">"rate in force"</span>
        </p>
    }
}

/// The estimate's shares on the panel: "1.6 (expected 1, this night 1.7 over 40 holds) ·
/// 85% (expected 100%, this night 82% of 60)".
fn shares_line(shares: &Shares) -> String {
    let seats = &shares.seats_per_hold;
    let holding = &shares.holding;
    let night = |measured: Option<f64>, show: &dyn Fn(f64) -> String, of: &str, n: u64| {
        measured.map_or_else(
            || "none measured yet".to_owned(),
            |m| format!("this night {} {of} {n}", show(m)),
        )
    };
    let seats_shown = |v: f64| format!("{v:.1}");
    let percent = |v: f64| format!("{:.0}%", v * 100.0);
    format!(
        "{} (expected {}, {}) · {} (expected {}, {})",
        seats_shown(seats.in_use),
        seats_shown(seats.expected),
        night(seats.measured, &seats_shown, "over", seats.samples),
        percent(holding.in_use),
        percent(holding.expected),
        night(holding.measured, &percent, "of", holding.samples),
    )
}

/// A measurement against its limit: "12 ms of 50 (24%)", or "none" when nothing was measured.
fn against(ms: Option<f64>, limit_ms: f64) -> String {
    match ms {
        Some(ms) => format!(
            "{ms:.0} ms of {limit_ms:.0} ({:.0}%)",
            ms / limit_ms.max(1.0) * 100.0
        ),
        None => format!("none · {limit_ms:.0} ms"),
    }
}
