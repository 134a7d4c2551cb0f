//! Numbers in words for people: waits, prices, places, the outlook; and the notes a form's
//! answer leaves for the page it leads back to ([`Note`]).
//!
//! Invariant: a note travels as a fixed code (and at most a number of seconds), never as text,
//! so a link crafted elsewhere can make the page say only one of the sentences written here.

use chrono::{DateTime, Datelike, TimeZone, Timelike, Utc};

use crate::wire::{Outlook, Zone};

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

/// An amount in the minor units of `currency` (ISO 4217) as people read it: 8500 EUR ->
/// "€85.00", 8500 JPY -> "¥8500", 8500 CHF -> "CHF 85.00".
pub fn money(minor: i64, currency: &str) -> String {
    // Currencies without minor units; every other one has two (the few with three are not
    // sold in here).
    let whole = matches!(currency, "JPY" | "KRW" | "ISK" | "CLP" | "VND" | "HUF");
    let amount = if whole {
        minor.to_string()
    } else {
        let sign = if minor < 0 { "-" } else { "" };
        let m = minor.unsigned_abs();
        format!("{sign}{}.{:02}", m / 100, m % 100)
    };
    match currency {
        "EUR" => format!("€{amount}"),
        "USD" => format!("${amount}"),
        "GBP" => format!("£{amount}"),
        "JPY" => format!("¥{amount}"),
        code => format!("{code} {amount}"),
    }
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

/// A moment for people on the venue's clock: "19:00 Berlin time" today there (by the clock
/// `now`), else "Tuesday 1 December, 19:00 Berlin time".
pub fn moment(t: DateTime<Utc>, now: DateTime<Utc>, zone: &Zone) -> String {
    let (local, today) = (zone.local(t), zone.local(now));
    if local.date_naive() == today.date_naive() {
        format!("{} {}", clock(local), zone.label())
    } else {
        format!("{} {}", day_and_clock(local, false), zone.label())
    }
}

/// A date and time for people on the venue's clock: "Tuesday 1 December 2026, 19:00 Berlin
/// time".
pub fn date_and_time(t: DateTime<Utc>, zone: &Zone) -> String {
    format!("{} {}", day_and_clock(zone.local(t), true), zone.label())
}

/// What a form posted without JavaScript tells the page its answer redirects to
/// (`/events/{id}?note=<code>&retry=<seconds>`): one sentence each, true for every cause that
/// leads to it, with a way on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note {
    /// The buyer released their hold.
    Released,
    /// A chosen seat was taken before the hold.
    SeatTaken,
    /// Best available found too few seats together.
    NotTogether,
    /// The hold form named no seat.
    NoSeats,
    /// More seats than one buyer may hold.
    TooManySeats,
    /// A form we could not read (a seat id that names no seat, a missing field).
    BadForm,
    /// The admission ran out (or the room started over): the buyer is back in line.
    AdmissionEnded,
    /// A hold asked for before the buyer's turn: they keep their place.
    NotYourTurn,
    /// The buyer is admitted, but the form came without the admission cookie.
    AdmissionMissing,
    /// The form came without the session cookie.
    NoSession,
    /// The form's token is not this session's (a page from an older session).
    StaleForm,
    /// Too many attempts a minute; `retry` says when to try again.
    RateLimited,
    /// Anteroom is at capacity this instant (it shed the request).
    Busy,
    /// Redis or Postgres did not answer.
    Unavailable,
    /// The payment provider declined the charge.
    Declined,
    /// The payment did not complete now (the provider is not answering, or the payment is
    /// still being confirmed); the hold stands and is never charged twice.
    PayNotDone,
    /// The hold had ended (expired or released) before it was paid.
    HoldEnded,
    /// The hold was paid for already, so it cannot be released.
    AlreadyPaid,
    /// No such hold of this buyer.
    NoHold,
    /// The sale has not opened.
    NotOpen,
    /// The room binds tokens to the device, which takes the page's script: a form cannot.
    NeedsDevice,
    /// A place moved here from another device (the claim form).
    Claimed,
    /// The claim form's code is used, expired or unknown.
    ClaimRefused,
    /// The code is good but cannot move its place here: it is this browser's own, or this
    /// browser is admitted already, or its own place moved once already.
    ClaimConflict,
    /// Anything else: our failure.
    Failed,
}

/// Why a browser that cannot make a device key (no JavaScript, or WebCrypto blocked) cannot
/// buy in a room that binds tokens: the one sentence the event page shows it.
pub const NEEDS_DEVICE: &str = "This sale ties each place in line to the device that took it, which needs JavaScript and a browser that can make a key (WebCrypto); this browser cannot, so it cannot take a place here. Open this page in an up-to-date browser with JavaScript on.";

/// What the "continue on another device" panel says of its code.
pub const MOVE_EXPLAINED: &str = "On your other device, scan this code, or open this sale there and type the code under \"Have a code from another device?\". Your place moves there with its position, once; this page then has no place any more.";

/// A code to claim a place that the server did not take (used, expired or unknown).
pub const CLAIM_REFUSED: &str = "That code is used, expired or unknown, so no place moved here. You keep this page's own place in line.";

/// Said once a place moved here from another device.
pub const CLAIMED: &str = "Your place moved here from your other device, with its position.";

/// What the buyer is told before a place moves here over the place this page has: where the
/// moving place stands, and what moving it gives up.
pub fn claim_choice(moving: &crate::wire::ClaimPreview, own: Option<u64>) -> (String, String) {
    use crate::wire::MovingPlace;
    let moving = match (moving.status, moving.position) {
        (MovingPlace::Waiting, Some(position)) => format!(
            "Your other device's place is #{} in line.",
            grouped(position)
        ),
        (MovingPlace::Waiting, None) => "Your other device's place is in line.".to_owned(),
        (MovingPlace::Admitted, _) => "Your other device's place has been let in.".to_owned(),
        (MovingPlace::PreQueue, _) => "Your other device's place is in the draw.".to_owned(),
    };
    (moving, own_place_given_up(own))
}

/// What moving a place here gives up: this page's own place (`None`: a ticket in the draw).
pub fn own_place_given_up(own: Option<u64>) -> String {
    match own {
        Some(position) => format!(
            "This device is #{} in line; moving that place here gives this one up.",
            grouped(position)
        ),
        None => {
            "This device is in the draw; moving that place here gives its ticket up.".to_owned()
        }
    }
}

/// A code as people read and type it: as the server wrote it when it comes in groups already
/// ("K7QMF-3XWD9"), else in groups of five ("K7QMF 3XWD9").
pub fn code_in_groups(code: &str) -> String {
    if code.contains(['-', ' ']) {
        return code.to_owned();
    }
    let chars: Vec<char> = code.chars().collect();
    chars
        .chunks(5)
        .map(|group| group.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join(" ")
}

/// While an admitted buyer's browser asks for the seat map with its device's proof.
pub const SEATS_COMING: &str = "It is your turn: your seat map is on its way.";

/// When the page cannot read what the server sent for the buyer's turn (never expected: our
/// own server wrote it).
pub const UNREADABLE: &str =
    "This page could not read what our server sent. Reload it to try again.";

/// Until when a code that moves a place works: "Valid until 19:14 Berlin time, once."
pub fn move_valid_until(at: DateTime<Utc>, zone: &Zone) -> String {
    format!(
        "Valid until {} {}, once.",
        clock(zone.local(at)),
        zone.label()
    )
}

/// What the page whose place moved to another device says, with when it moved (`at`) on the
/// venue's clock.
pub fn place_moved(at: DateTime<Utc>, zone: &Zone) -> String {
    format!(
        "Your place moved to another device at {} ({}). Continue there; this page has no place any more.",
        clock(zone.local(at)),
        zone.label()
    )
}

impl Note {
    const ALL: [Note; 25] = [
        Note::Released,
        Note::SeatTaken,
        Note::NotTogether,
        Note::NoSeats,
        Note::TooManySeats,
        Note::BadForm,
        Note::AdmissionEnded,
        Note::NotYourTurn,
        Note::AdmissionMissing,
        Note::NoSession,
        Note::StaleForm,
        Note::RateLimited,
        Note::Busy,
        Note::Unavailable,
        Note::Declined,
        Note::PayNotDone,
        Note::HoldEnded,
        Note::AlreadyPaid,
        Note::NoHold,
        Note::NotOpen,
        Note::NeedsDevice,
        Note::Claimed,
        Note::ClaimRefused,
        Note::ClaimConflict,
        Note::Failed,
    ];

    /// The code in the page's address.
    pub fn code(self) -> &'static str {
        match self {
            Note::Released => "released",
            Note::SeatTaken => "seat_taken",
            Note::NotTogether => "not_together",
            Note::NoSeats => "no_seats",
            Note::TooManySeats => "too_many_seats",
            Note::BadForm => "bad_form",
            Note::AdmissionEnded => "admission_ended",
            Note::NotYourTurn => "not_your_turn",
            Note::AdmissionMissing => "admission_missing",
            Note::NoSession => "no_session",
            Note::StaleForm => "stale_form",
            Note::RateLimited => "rate_limited",
            Note::Busy => "busy",
            Note::Unavailable => "unavailable",
            Note::Declined => "declined",
            Note::PayNotDone => "pay_not_done",
            Note::HoldEnded => "hold_ended",
            Note::AlreadyPaid => "already_paid",
            Note::NoHold => "no_hold",
            Note::NotOpen => "not_open",
            Note::NeedsDevice => "needs_device",
            Note::Claimed => "claimed",
            Note::ClaimRefused => "claim_refused",
            Note::ClaimConflict => "claim_conflict",
            Note::Failed => "failed",
        }
    }

    /// The note of `code`; `None` for any other text.
    pub fn from_code(code: &str) -> Option<Note> {
        Note::ALL.into_iter().find(|n| n.code() == code)
    }

    /// Whether the sentence names a wait (`retry`).
    pub fn waits(self) -> bool {
        matches!(
            self,
            Note::RateLimited | Note::Busy | Note::Unavailable | Note::PayNotDone
        )
    }

    /// The sentence; `retry` (seconds, clamped to 1..=3600) where the note says when to try
    /// again.
    pub fn sentence(self, retry: Option<u64>) -> String {
        let wait = wait_in_words(retry.unwrap_or(1).clamp(1, 3600));
        match self {
            Note::Released => "Released. The seats are free for others again.".into(),
            Note::SeatTaken => {
                "Someone just took a seat you chose, so nothing was held. The map now shows what is left; choose again.".into()
            }
            Note::NotTogether => {
                "There are not that many seats left together in that section, so nothing was held. Try fewer seats or another section.".into()
            }
            Note::NoSeats => {
                "You had not chosen any seat. Tick the seats you want, or let us find the best ones.".into()
            }
            Note::TooManySeats => {
                "That is more seats than one buyer may hold at this sale, so nothing was held. Choose fewer.".into()
            }
            Note::BadForm => {
                "We could not read that form, so nothing was changed. Here is the page again; please try once more.".into()
            }
            Note::AdmissionEnded => {
                "Your time to choose seats ran out, so you have joined the line again.".into()
            }
            Note::NotYourTurn => {
                "It is not your turn to choose seats yet. You keep your place in line; this page lets you in when it is your turn.".into()
            }
            Note::NeedsDevice => NEEDS_DEVICE.into(),
            Note::Claimed => CLAIMED.into(),
            Note::ClaimRefused => CLAIM_REFUSED.into(),
            Note::ClaimConflict => {
                "That place cannot move to this browser: the code is this browser's own, or this browser is admitted already, or its place moved once before. Nothing changed.".into()
            }
            Note::AdmissionMissing => {
                "Your browser sent that form without your admission, so nothing was held. Here is the seat map again; please try once more.".into()
            }
            Note::NoSession => {
                "Your browser sent that form without our session cookie, so we could not tell it was you and changed nothing. Allow cookies for this site and try again.".into()
            }
            Note::StaleForm => {
                "That form came from an older visit to this page, so nothing was changed. Here is the page again, up to date; please try once more.".into()
            }
            Note::RateLimited => format!(
                "You tried that many times in the last minute, so nothing was changed. Try again in {wait}."
            ),
            Note::Busy => format!(
                "Anteroom is at capacity this instant, so nothing was changed. Try again in {wait}."
            ),
            Note::Unavailable => format!(
                "Part of Anteroom is not answering just now, so nothing was changed. Try again in {wait}."
            ),
            Note::Declined => {
                "The payment was declined. Your seats are still held; you can try again.".into()
            }
            Note::PayNotDone => format!(
                "Your payment has not gone through yet. Your seats are still held and are never charged twice; try again in {wait}."
            ),
            Note::HoldEnded => {
                "Your hold had ended before it was paid, so nothing was charged and the seats went back on sale. Choose again if you like.".into()
            }
            Note::AlreadyPaid => "Those seats are paid for, so they cannot be released.".into(),
            Note::NoHold => {
                "We found no such hold of yours, so nothing was changed. Here is where you are now.".into()
            }
            Note::NotOpen => {
                "The sale has not opened yet, so nothing was changed. This page counts down to it.".into()
            }
            Note::Failed => {
                "Something went wrong on our side, so that did not go through. Please try again.".into()
            }
        }
    }
}

/// "19:00" on `t`'s own clock.
pub fn clock<Tz: TimeZone>(t: DateTime<Tz>) -> String {
    format!("{:02}:{:02}", t.hour(), t.minute())
}

/// "Tuesday 1 December, 19:00", or with the year "Tuesday 1 December 2026, 19:00", on `t`'s
/// own clock. Written out by hand: chrono's `format` would put its strftime parser in the
/// buyer's WASM.
pub fn day_and_clock<Tz: TimeZone>(t: DateTime<Tz>, with_year: bool) -> String {
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
    let date = format!("{day} {} {month}{year}, ", t.day());
    date + &clock(t)
}

/// `text` with the characters that mean something in HTML written as entities.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
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
                t.format("%A %-d %B, %H:%M").to_string()
            );
            assert_eq!(
                day_and_clock(t, true),
                t.format("%A %-d %B %Y, %H:%M").to_string()
            );
            assert_eq!(clock(t), t.format("%H:%M").to_string());
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
    fn html_is_escaped_so_that_text_stays_text() {
        assert_eq!(
            escape_html(r#"<a href="x">Tom & Jerry's</a>"#),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape_html("K7QMF-3XWD9 · 19:00"), "K7QMF-3XWD9 · 19:00");
    }

    #[test]
    fn every_note_reads_back_from_its_code_and_nothing_else_does() {
        for note in Note::ALL {
            assert_eq!(Note::from_code(note.code()), Some(note));
            assert!(!note.sentence(Some(7)).is_empty());
        }
        assert_eq!(Note::from_code("<script>"), None);
        assert_eq!(
            Note::RateLimited.sentence(Some(12)),
            "You tried that many times in the last minute, so nothing was changed. Try again in about 12 seconds."
        );
    }

    #[test]
    fn a_code_reads_in_groups() {
        assert_eq!(code_in_groups("K7QMF3XWD9"), "K7QMF 3XWD9");
        assert_eq!(code_in_groups("K7QMF-3XWD9"), "K7QMF-3XWD9");
        assert_eq!(code_in_groups("K7QM"), "K7QM");
        assert_eq!(code_in_groups(""), "");
    }

    #[test]
    fn numbers_and_money_are_grouped() {
        assert_eq!(grouped(6200), "6,200");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(grouped(14), "14");
        assert_eq!(money(8500, "EUR"), "€85.00");
        assert_eq!(money(4005, "EUR"), "€40.05");
        assert_eq!(money(4005, "USD"), "$40.05");
        assert_eq!(money(8500, "JPY"), "¥8500");
        assert_eq!(money(8500, "CHF"), "CHF 85.00");
        assert_eq!(money(-5, "GBP"), "£-0.05");
        assert_eq!(countdown(125), "2:05");
        assert_eq!(countdown(-3), "0:00");
        assert_eq!(countdown(3725), "1:02:05");
        assert_eq!(countdown(86_400 + 3 * 3600 + 5), "1 day 3 h");
        assert_eq!(countdown(2 * 86_400), "2 days 0 h");
    }

    #[test]
    fn moments_read_on_the_venues_clock_with_its_name() {
        use crate::wire::ZoneOffset;
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        // Berlin: +1 h in winter, +2 h from the last Sunday of March.
        let berlin = Zone {
            name: "Europe/Berlin".into(),
            offsets: vec![
                ZoneOffset {
                    from: at("2026-03-01T10:00:00Z"),
                    seconds: 3600,
                },
                ZoneOffset {
                    from: at("2026-04-01T17:00:00Z"),
                    seconds: 7200,
                },
            ],
        };
        let now = at("2026-03-01T09:00:00Z");
        assert_eq!(
            moment(at("2026-03-01T18:00:00Z"), now, &berlin),
            "19:00 Berlin time"
        );
        assert_eq!(
            moment(at("2026-04-01T17:00:00Z"), now, &berlin),
            "Wednesday 1 April, 19:00 Berlin time"
        );
        // 23:30 UTC is already the next day in Berlin.
        assert_eq!(
            date_and_time(at("2026-02-28T23:30:00Z"), &berlin),
            "Sunday 1 March 2026, 00:30 Berlin time"
        );
        let new_york = Zone {
            name: "America/New_York".into(),
            offsets: vec![],
        };
        assert_eq!(new_york.label(), "New York time");
        assert_eq!(moment(now, now, &Zone::default()), "09:00 UTC");
        assert_eq!(
            place_moved(at("2026-03-01T18:04:00Z"), &berlin),
            "Your place moved to another device at 19:04 (Berlin time). Continue there; this page has no place any more."
        );
        assert_eq!(
            move_valid_until(at("2026-03-01T18:14:00Z"), &berlin),
            "Valid until 19:14 Berlin time, once."
        );
    }
}
