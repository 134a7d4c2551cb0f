//! Numbers in words for people: waits, prices, places, the outlook.

use chrono::{DateTime, Datelike, Timelike, Utc};

use crate::wire::Outlook;

/// The outlook as one honest sentence.
pub fn outlook_in_words(outlook: Outlook) -> &'static str {
    match outlook {
        Outlook::Likely => "Seats are likely to be left when your turn comes.",
        Outlook::Uncertain => {
            "Seats may or may not be left when your turn comes: it depends on held seats coming back."
        }
        Outlook::Unlikely => {
            "Seats are unlikely to be left when your turn comes, unless many held seats come back."
        }
    }
}

/// The wait as a screen reader hears it: in steps that change rarely ("less than a minute",
/// "about 5 minutes", then in 5 and 15 minute steps), so that a live region speaks a change of
/// wait, not every poll.
pub fn wait_to_announce(seconds: u64) -> String {
    if seconds < 60 {
        return "less than a minute".to_owned();
    }
    let minutes = seconds.div_ceil(60);
    let step = match minutes {
        0..=10 => 1,
        11..=60 => 5,
        _ => 15,
    };
    wait_in_words(minutes.div_ceil(step) * step * 60)
}

/// "about 21 seconds", "about 3 minutes", "about 1 hour 5 minutes"; rounds up, never says 0.
pub fn wait_in_words(seconds: u64) -> String {
    match seconds {
        0..=1 => "about a second".to_owned(),
        2..=59 => format!("about {seconds} seconds"),
        60..=3599 => {
            let minutes = seconds.div_ceil(60);
            if minutes == 1 {
                "about a minute".to_owned()
            } else {
                format!("about {minutes} minutes")
            }
        }
        _ => {
            let minutes = seconds.div_ceil(60);
            let (h, m) = (minutes / 60, minutes % 60);
            let hours = if h == 1 {
                "1 hour".to_owned()
            } else {
                format!("{h} hours")
            };
            if m == 0 {
                format!("about {hours}")
            } else {
                format!("about {hours} {m} minutes")
            }
        }
    }
}

/// A band of waits, never one false-precise number: "about 3 to 4 minutes", "about 20 to 40
/// seconds", "about 40 seconds to 2 minutes"; one figure when both ends read the same.
pub fn wait_range_in_words(low: u64, high: u64) -> String {
    let (low, high) = (low.min(high), high.max(low));
    let (a, b) = (wait_in_words(low), wait_in_words(high));
    if a == b {
        return a;
    }
    let a = a.trim_start_matches("about ");
    let b = b.trim_start_matches("about ");
    // "3 minutes" and "4 minutes": say the unit once.
    match (a.split_once(' '), b.split_once(' ')) {
        (Some((n, unit)), Some((_, unit_b)))
            if unit == unit_b && n.chars().all(|c| c.is_ascii_digit()) =>
        {
            format!("about {n} to {b}")
        }
        _ => format!("about {a} to {b}"),
    }
}

/// 14812 -> "14,812".
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 8500 -> "€85.00".
pub fn money(cents: i64) -> String {
    format!("€{}.{:02}", cents / 100, cents % 100)
}

/// 125 -> "2:05", 3725 -> "1:02:05", 2 days and a bit -> "2 days 3 h"; never below "0:00".
pub fn countdown(seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..3600 => format!("{}:{:02}", s / 60, s % 60),
        3600..86_400 => format!("{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60),
        _ => {
            let days = s / 86_400;
            format!(
                "{days} day{} {} h",
                if days == 1 { "" } else { "s" },
                s % 86_400 / 3600
            )
        }
    }
}

/// A moment for people: "19:00 UTC" today (by the clock `now`), else "Tuesday 1 December,
/// 19:00 UTC".
pub fn moment(t: DateTime<Utc>, now: DateTime<Utc>) -> String {
    if t.date_naive() == now.date_naive() {
        clock(t)
    } else {
        day_and_clock(t, false)
    }
}

/// "19:00 UTC".
pub fn clock(t: DateTime<Utc>) -> String {
    format!("{:02}:{:02} UTC", t.hour(), t.minute())
}

/// "Tuesday 1 December, 19:00 UTC", or with the year "Tuesday 1 December 2026, 19:00 UTC".
/// Written out by hand: chrono's `format` would put its strftime parser in the buyer's WASM.
pub fn day_and_clock(t: DateTime<Utc>, with_year: bool) -> String {
    const DAYS: [&str; 7] = [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let day = DAYS[t.weekday().num_days_from_monday() as usize];
    let month = MONTHS[t.month0() as usize];
    let year = if with_year {
        format!(" {}", t.year())
    } else {
        String::new()
    };
    format!("{day} {} {month}{year}, {}", t.day(), clock(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_times_read_as_chrono_would_format_them() {
        let mut t = "2026-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap();
        // Every weekday and month, single- and double-digit days and hours.
        for _ in 0..400 {
            assert_eq!(
                day_and_clock(t, false),
                t.format("%A %-d %B, %H:%M UTC").to_string()
            );
            assert_eq!(
                day_and_clock(t, true),
                t.format("%A %-d %B %Y, %H:%M UTC").to_string()
            );
            assert_eq!(clock(t), t.format("%H:%M UTC").to_string());
            t += chrono::Duration::minutes(24 * 60 + 7 * 60 + 13);
        }
    }

    #[test]
    fn waits_read_like_a_person_would_say_them() {
        assert_eq!(wait_in_words(21), "about 21 seconds");
        assert_eq!(wait_in_words(150), "about 3 minutes");
        assert_eq!(wait_in_words(60), "about a minute");
        assert_eq!(wait_in_words(3900), "about 1 hour 5 minutes");
        assert_eq!(wait_in_words(0), "about a second");
    }

    #[test]
    fn a_band_reads_as_a_range_with_its_unit_said_once() {
        assert_eq!(wait_range_in_words(150, 230), "about 3 to 4 minutes");
        assert_eq!(wait_range_in_words(20, 40), "about 20 to 40 seconds");
        assert_eq!(
            wait_range_in_words(40, 110),
            "about 40 seconds to 2 minutes"
        );
        assert_eq!(wait_range_in_words(121, 170), "about 3 minutes");
        assert_eq!(wait_range_in_words(0, 1), "about a second");
        assert_eq!(wait_range_in_words(1, 5), "about a second to 5 seconds");
        assert_eq!(wait_range_in_words(30, 90), "about 30 seconds to 2 minutes");
        assert_eq!(wait_range_in_words(45, 60), "about 45 seconds to a minute");
    }

    #[test]
    fn the_announced_wait_changes_in_steps() {
        assert_eq!(wait_to_announce(5), "less than a minute");
        assert_eq!(wait_to_announce(59), "less than a minute");
        assert_eq!(wait_to_announce(61), "about 2 minutes");
        assert_eq!(wait_to_announce(600), "about 10 minutes");
        // 11 to 15 minutes all read "about 15 minutes": the region stays quiet meanwhile.
        assert_eq!(wait_to_announce(11 * 60 - 30), "about 15 minutes");
        assert_eq!(wait_to_announce(15 * 60), "about 15 minutes");
        assert_eq!(wait_to_announce(61 * 60), "about 1 hour 15 minutes");
    }

    #[test]
    fn numbers_and_money_are_grouped() {
        assert_eq!(grouped(6200), "6,200");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(grouped(14), "14");
        assert_eq!(money(8500), "€85.00");
        assert_eq!(money(4005), "€40.05");
        assert_eq!(countdown(125), "2:05");
        assert_eq!(countdown(-3), "0:00");
        assert_eq!(countdown(3725), "1:02:05");
        assert_eq!(countdown(86_400 + 3 * 3600 + 5), "1 day 3 h");
        assert_eq!(countdown(2 * 86_400), "2 days 0 h");
    }
}
