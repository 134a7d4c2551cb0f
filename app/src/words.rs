//! Numbers in words for people: waits, prices, places, moments, the outlook; and the notes a
//! form's answer leaves for the page it leads back to ([`Note`]). Every sentence is a message of
//! the page's language ([`Words`]); what is here is which message, with which numbers.
//!
//! Invariant: a note travels as a fixed code (and at most a number of seconds), never as text,
//! so a link crafted elsewhere can make the page say only one of the sentences written in the
//! message files.

use chrono::{DateTime, Datelike, TimeZone, Timelike, Utc};

use crate::{
    lang::{Arg, Lang, Words},
    wire::{Outlook, Zone},
};

/// The outlook as one honest sentence.
pub fn outlook_in_words(w: &Words, outlook: Outlook) -> String {
    match outlook {
        Outlook::Likely => w.t("outlook-likely"),
        Outlook::Uncertain => w.t("outlook-uncertain"),
        Outlook::Unlikely => w.t("outlook-unlikely"),
    }
}

/// The wait as a screen reader hears it: in steps that change rarely ("less than a minute",
/// "about 5 minutes", then in 5 and 15 minute steps), so that a live region speaks a change of
/// wait, not every poll.
pub fn wait_to_announce(w: &Words, seconds: u64) -> String {
    if seconds < 60 {
        return w.t("wait-under-a-minute");
    }
    let minutes = seconds.div_ceil(60);
    let step = match minutes {
        0..=10 => 1,
        11..=60 => 5,
        _ => 15,
    };
    wait_in_words(w, minutes.div_ceil(step) * step * 60)
}

/// A length of time as said in a wait, rounded up, never 0.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Span {
    Seconds(u64),
    Minutes(u64),
    /// Hours and minutes.
    Hours(u64, u64),
}

impl Span {
    fn of(seconds: u64) -> Span {
        match seconds {
            0..=59 => Span::Seconds(seconds.max(1)),
            60..=3599 => Span::Minutes(seconds.div_ceil(60)),
            _ => {
                let minutes = seconds.div_ceil(60);
                Span::Hours(minutes / 60, minutes % 60)
            }
        }
    }

    /// "21 seconds", "a minute", "1 hour 5 minutes".
    fn words(self, w: &Words) -> String {
        match self {
            Span::Seconds(n) => w.n("duration-seconds", n),
            Span::Minutes(n) => w.n("duration-minutes", n),
            Span::Hours(h, 0) => w.n("duration-hours", h),
            Span::Hours(h, m) => w.f(
                "duration-hours-minutes",
                &[("hours", w.n("duration-hours", h).into()), ("m", m.into())],
            ),
        }
    }
}

/// "about 21 seconds", "about 3 minutes", "about 1 hour 5 minutes"; rounds up, never says 0.
pub fn wait_in_words(w: &Words, seconds: u64) -> String {
    w.f(
        "wait-about",
        &[("duration", Span::of(seconds).words(w).into())],
    )
}

/// A band of waits, never one false-precise number: "about 3 to 4 minutes", "about 20 to 40
/// seconds", "about 40 seconds to 2 minutes"; one figure when both ends read the same.
pub fn wait_range_in_words(w: &Words, low: u64, high: u64) -> String {
    let (low, high) = (low.min(high), high.max(low));
    let (a, b) = (Span::of(low), Span::of(high));
    if a == b {
        return wait_in_words(w, low);
    }
    let ends = |a: u64, b: u64| [("low", Arg::Num(a)), ("high", Arg::Num(b))];
    match (a, b) {
        // The unit said once.
        (Span::Seconds(a), Span::Seconds(b)) if a > 1 => w.f("wait-range-seconds", &ends(a, b)),
        (Span::Minutes(a), Span::Minutes(b)) if a > 1 => w.f("wait-range-minutes", &ends(a, b)),
        _ => w.f(
            "wait-range",
            &[("low", a.words(w).into()), ("high", b.words(w).into())],
        ),
    }
}

/// An amount in the minor units of `currency` (ISO 4217) as people of the page's language read
/// it: 8500 EUR -> "€85.00" in English, "85,00 €" in German; 8500 JPY -> "¥8,500"; 8500 CHF ->
/// "CHF 85.00".
pub fn money(w: &Words, minor: i64, currency: &str) -> String {
    // Currencies without minor units; every other one has two (the few with three are not
    // sold in here).
    let whole = matches!(currency, "JPY" | "KRW" | "ISK" | "CLP" | "VND" | "HUF");
    let sign = if minor < 0 { "-" } else { "" };
    let m = minor.unsigned_abs();
    let amount = if whole {
        format!("{sign}{}", w.number(m))
    } else {
        format!(
            "{sign}{}{}{:02}",
            w.number(m / 100),
            w.lang.decimal_separator(),
            m % 100
        )
    };
    let symbol = match currency {
        "EUR" => "€",
        "USD" => "$",
        "GBP" => "£",
        "JPY" => "¥",
        code => code,
    };
    let before = symbol.chars().count() == 1;
    match w.lang {
        // The symbol after the amount, a no-break space between.
        Lang::De | Lang::Fr | Lang::Es => format!("{amount}\u{a0}{symbol}"),
        _ if before => format!("{symbol}{amount}"),
        _ => format!("{symbol}\u{a0}{amount}"),
    }
}

/// 125 -> "2:05", 3725 -> "1:02:05", 2 days and a bit -> "2 days 3 h"; never below "0:00".
pub fn countdown(w: &Words, seconds: i64) -> String {
    let s = seconds.max(0);
    match s {
        0..3600 => format!("{}:{:02}", s / 60, s % 60),
        3600..86_400 => format!("{}:{:02}:{:02}", s / 3600, s % 3600 / 60, s % 60),
        _ => w.f(
            "countdown-days",
            &[
                ("days", (s as u64 / 86_400).into()),
                ("hours", (s as u64 % 86_400 / 3600).into()),
            ],
        ),
    }
}

/// The zone's name for people: "Berlin time" (by the city of its IANA name), else its name
/// ("UTC").
pub fn zone_label(w: &Words, zone: &Zone) -> String {
    match zone.name.rsplit_once('/') {
        Some((_, city)) => w.f("zone-time", &[("city", city.replace('_', " ").into())]),
        None => zone.name.clone(),
    }
}

/// A time of day on the venue's clock with its zone: "19:04 Berlin time".
pub fn time_in_zone(w: &Words, t: DateTime<Utc>, zone: &Zone) -> String {
    in_zone(w, clock(zone.local(t)), zone)
}

fn in_zone(w: &Words, time: String, zone: &Zone) -> String {
    w.f(
        "time-in-zone",
        &[("time", time.into()), ("zone", zone_label(w, zone).into())],
    )
}

/// A moment for people on the venue's clock: "19:00 Berlin time" today there (by the clock
/// `now`), else "Tuesday 1 December, 19:00 Berlin time".
pub fn moment(w: &Words, t: DateTime<Utc>, now: DateTime<Utc>, zone: &Zone) -> String {
    let (local, today) = (zone.local(t), zone.local(now));
    if local.date_naive() == today.date_naive() {
        in_zone(w, clock(local), zone)
    } else {
        in_zone(w, day_and_clock(w, local, false), zone)
    }
}

/// A date and time for people on the venue's clock: "Tuesday 1 December 2026, 19:00 Berlin
/// time".
pub fn date_and_time(w: &Words, t: DateTime<Utc>, zone: &Zone) -> String {
    in_zone(w, day_and_clock(w, zone.local(t), true), zone)
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

/// What went wrong, in the page's language, by the error's code (API.md "Errors": the
/// `message` the API writes stays English; a client translates the `error` code).
pub fn error_in_words(w: &Words, e: &crate::wire::ErrorBody) -> String {
    match e.error.as_str() {
        "network" => w.t("error-network"),
        "rate_limited" => w.t("error-rate-limited"),
        "unavailable" => w.t("error-unavailable"),
        "seat_unavailable" => w.t("error-seat-unavailable"),
        "not_admitted" => w.t("error-not-admitted"),
        "not_in_queue" => w.t("error-not-in-queue"),
        "not_found" => w.t("error-not-found"),
        "not_open" => w.t("error-not-open"),
        "conflict" => w.t("error-conflict"),
        "unauthorized" => w.t("error-unauthorized"),
        "forbidden" => w.t("error-forbidden"),
        "no_device_key" => w.t("needs-device"),
        // The page's own: what our server sent could not be read.
        "unreadable" => w.t("unreadable"),
        "bad_request" | "unprocessable" | "payload_too_large" => w.t("error-bad-request"),
        _ => w.t("error-internal"),
    }
}

/// What the buyer is told before a place moves here over the place this page has: where the
/// moving place stands, and what moving it gives up.
pub fn claim_choice(
    w: &Words,
    moving: &crate::wire::ClaimPreview,
    own: Option<u64>,
) -> (String, String) {
    use crate::wire::MovingPlace;
    let moving = match (moving.status, moving.position) {
        (MovingPlace::Waiting, Some(position)) => w.n("moving-place-waiting", position),
        (MovingPlace::Waiting, None) => w.t("moving-place-in-line"),
        (MovingPlace::Admitted, _) => w.t("moving-place-admitted"),
        (MovingPlace::PreQueue, _) => w.t("moving-place-in-draw"),
    };
    (moving, own_place_given_up(w, own))
}

/// What moving a place here gives up: this page's own place (`None`: a ticket in the draw).
pub fn own_place_given_up(w: &Words, own: Option<u64>) -> String {
    match own {
        Some(position) => w.n("own-place-given-up", position),
        None => w.t("own-ticket-given-up"),
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

/// Until when a code that moves a place works: "Valid until 19:14 Berlin time, once."
pub fn move_valid_until(w: &Words, at: DateTime<Utc>, zone: &Zone) -> String {
    w.f(
        "move-valid-until",
        &[("time", time_in_zone(w, at, zone).into())],
    )
}

/// What the page whose place moved to another device says, with when it moved (`at`) on the
/// venue's clock.
pub fn place_moved(w: &Words, at: DateTime<Utc>, zone: &Zone) -> String {
    w.f(
        "place-moved",
        &[
            ("time", clock(zone.local(at)).into()),
            ("zone", zone_label(w, zone).into()),
        ],
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
    pub fn sentence(self, w: &Words, retry: Option<u64>) -> String {
        let wait = || {
            let wait = wait_in_words(w, retry.unwrap_or(1).clamp(1, 3600));
            [("wait", Arg::Text(wait))]
        };
        match self {
            Note::Released => w.t("note-released"),
            Note::SeatTaken => w.t("note-seat-taken"),
            Note::NotTogether => w.t("note-not-together"),
            Note::NoSeats => w.t("note-no-seats"),
            Note::TooManySeats => w.t("note-too-many-seats"),
            Note::BadForm => w.t("note-bad-form"),
            Note::AdmissionEnded => w.t("note-admission-ended"),
            Note::NotYourTurn => w.t("note-not-your-turn"),
            Note::NeedsDevice => w.t("needs-device"),
            Note::Claimed => w.t("claimed"),
            Note::ClaimRefused => w.t("claim-refused"),
            Note::ClaimConflict => w.t("note-claim-conflict"),
            Note::AdmissionMissing => w.t("note-admission-missing"),
            Note::NoSession => w.t("note-no-session"),
            Note::StaleForm => w.t("note-stale-form"),
            Note::RateLimited => w.f("note-rate-limited", &wait()),
            Note::Busy => w.f("note-busy", &wait()),
            Note::Unavailable => w.f("note-unavailable", &wait()),
            Note::Declined => w.t("note-declined"),
            Note::PayNotDone => w.f("note-pay-not-done", &wait()),
            Note::HoldEnded => w.t("note-hold-ended"),
            Note::AlreadyPaid => w.t("note-already-paid"),
            Note::NoHold => w.t("note-no-hold"),
            Note::NotOpen => w.t("note-not-open"),
            Note::Failed => w.t("note-failed"),
        }
    }
}

/// "19:00" on `t`'s own clock.
pub fn clock<Tz: TimeZone>(t: DateTime<Tz>) -> String {
    format!("{:02}:{:02}", t.hour(), t.minute())
}

/// "Tuesday 1 December, 19:00", or with the year "Tuesday 1 December 2026, 19:00", on `t`'s
/// own clock, in the page's language. Written out by hand: chrono's `format` would put its
/// strftime parser in the buyer's WASM.
pub fn day_and_clock<Tz: TimeZone>(w: &Words, t: DateTime<Tz>, with_year: bool) -> String {
    let weekday = w.n("weekday", u64::from(t.weekday().number_from_monday()));
    let month = w.n("month", u64::from(t.month()));
    let mut args = vec![
        ("weekday", Arg::Text(weekday)),
        ("day", Arg::Num(u64::from(t.day()))),
        ("month", Arg::Text(month)),
        ("time", Arg::Text(clock(t.clone()))),
    ];
    if with_year {
        // Text, not a number: a year is never grouped ("2026", not "2,026").
        args.push(("year", Arg::Text(t.year().to_string())));
        w.f("day-and-time-with-year", &args)
    } else {
        w.f("day-and-time", &args)
    }
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
mod tests;
