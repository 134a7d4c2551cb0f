//! The panel's charts: lines of per-second figures on one SVG scale, with round gridlines, a
//! time axis in minutes ago, and each second's exact figures under the pointer.

use leptos::prelude::*;

use crate::{lang::Lang, wire::StatsPoint};

pub(super) type Line = (&'static str, fn(&StatsPoint) -> u64);

/// Gridline values for a chart whose greatest figure is `max`: 0 and up to four round steps
/// (1, 2 or 5 times a power of ten) reaching at least `max`.
pub fn gridlines(max: u64) -> Vec<u64> {
    let max = max.max(1);
    let mut unit = 1u64;
    let step = loop {
        if let Some(step) = [1, 2, 5]
            .into_iter()
            .map(|m| m * unit)
            .find(|s| max.div_ceil(*s) <= 4)
        {
            break step;
        }
        unit = unit.saturating_mul(10);
    };
    (0..=max.div_ceil(step)).map(|k| k * step).collect()
}

/// "now", "1 min ago", "3 min 20 s ago": how long before the newest second `seconds` is.
pub fn ago(seconds: u64) -> String {
    match (seconds / 60, seconds % 60) {
        (0, 0) => "now".into(),
        (0, s) => format!("{s} s ago"),
        (m, 0) => format!("{m} min ago"),
        (m, s) => format!("{m} min {s} s ago"),
    }
}

/// Lines on one SVG chart, all on one scale: the newest second at the right, a time axis in
/// minutes ago, gridlines with their values, and each second's exact figures under the
/// pointer (the second's tooltip).
#[component]
pub(super) fn Chart(
    series: Vec<StatsPoint>,
    lines: Vec<Line>,
    label: &'static str,
) -> impl IntoView {
    const W: f64 = 600.0;
    const H: f64 = 160.0;
    // Room for the values at the left and the times below.
    const LEFT: f64 = 40.0;
    const BOTTOM: f64 = 16.0;
    let top = lines
        .iter()
        .flat_map(|(_, f)| series.iter().map(f))
        .max()
        .unwrap_or(0);
    let grid = gridlines(top);
    let max = grid.last().copied().unwrap_or(1).max(1) as f64;
    let n = series.len().max(2) as f64;
    let x = move |i: usize| LEFT + i as f64 / (n - 1.0) * (W - LEFT);
    let y = move |v: u64| (H - BOTTOM) - v as f64 / max * (H - BOTTOM - 4.0);
    let gridlines = grid
        .iter()
        .map(|&v| {
            view! {
                <line x1=LEFT y1=y(v) x2=W y2=y(v) class="grid"/>
                <text x=LEFT - 4.0 y=y(v) + 3.0 text-anchor="end" class="tick">{Lang::En.number(v)}</text>
            }
        })
        .collect_view();
    let last = series.len().saturating_sub(1);
    let times = (0..=last)
        .rev()
        .step_by(120)
        .map(|i| {
            let anchor = if i == last { "end" } else { "middle" };
            view! {
                <line x1=x(i) y1=H - BOTTOM x2=x(i) y2=H - BOTTOM + 3.0 class="axis"/>
                <text x=x(i) y=H - 2.0 text-anchor=anchor class="tick">{ago((last - i) as u64)}</text>
            }
        })
        .collect_view();
    let polylines = lines
        .iter()
        .map(|(name, f)| {
            let points: Vec<String> = series
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(f(p))))
                .collect();
            view! { <polyline class=format!("line {name}") points=points.join(" ") fill="none"/> }
        })
        .collect_view();
    let width = (W - LEFT) / (n - 1.0);
    let under_pointer = series
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let figures: Vec<String> = lines
                .iter()
                .map(|(name, f)| format!("{name} {}", Lang::En.number(f(p))))
                .collect();
            let title = format!(
                "{} ({}): {}",
                ago((last - i) as u64),
                p.t.format("%H:%M:%S UTC"),
                figures.join(", ")
            );
            view! {
                <rect x=x(i) - width / 2.0 y="0" width=width height=H - BOTTOM class="hover">
                    <title>{title}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {W} {H}") role="img" aria-label=label>
                {gridlines}
                <line x1=LEFT y1=H - BOTTOM x2=W y2=H - BOTTOM class="axis"/>
                {times}
                {polylines}
                {under_pointer}
            </svg>
            <figcaption>{format!("{label} (max {})", Lang::En.number(top))}</figcaption>
        </figure>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gridlines_are_round_steps_that_reach_the_top() {
        assert_eq!(gridlines(0), [0, 1]);
        assert_eq!(gridlines(7), [0, 2, 4, 6, 8]);
        assert_eq!(gridlines(100), [0, 50, 100]);
        assert_eq!(gridlines(101), [0, 50, 100, 150]);
        assert_eq!(gridlines(14_812), [0, 5000, 10_000, 15_000]);
    }

    #[test]
    fn times_read_as_minutes_ago() {
        assert_eq!(ago(0), "now");
        assert_eq!(ago(45), "45 s ago");
        assert_eq!(ago(120), "2 min ago");
        assert_eq!(ago(200), "3 min 20 s ago");
    }
}
