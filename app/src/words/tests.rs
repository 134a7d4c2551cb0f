//! The tests of `words`.
use super::*;

fn en() -> Words {
    Words::of(Lang::En)
}

#[test]
fn days_and_times_read_as_chrono_would_format_them() {
    let mut t = "2026-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap();
    // Every weekday and month, single- and double-digit days and hours.
    for _ in 0..400 {
        assert_eq!(
            day_and_clock(&en(), t, false),
            t.format("%A %-d %B, %H:%M").to_string()
        );
        assert_eq!(
            day_and_clock(&en(), t, true),
            t.format("%A %-d %B %Y, %H:%M").to_string()
        );
        assert_eq!(clock(t), t.format("%H:%M").to_string());
        t += chrono::Duration::minutes(24 * 60 + 7 * 60 + 13);
    }
}

#[test]
fn waits_read_like_a_person_would_say_them() {
    assert_eq!(wait_in_words(&en(), 21), "about 21 seconds");
    assert_eq!(wait_in_words(&en(), 150), "about 3 minutes");
    assert_eq!(wait_in_words(&en(), 60), "about a minute");
    assert_eq!(wait_in_words(&en(), 3900), "about 1 hour 5 minutes");
    assert_eq!(wait_in_words(&en(), 0), "about a second");
}

#[test]
fn a_band_reads_as_a_range_with_its_unit_said_once() {
    assert_eq!(wait_range_in_words(&en(), 150, 230), "about 3 to 4 minutes");
    assert_eq!(wait_range_in_words(&en(), 20, 40), "about 20 to 40 seconds");
    assert_eq!(
        wait_range_in_words(&en(), 40, 110),
        "about 40 seconds to 2 minutes"
    );
    assert_eq!(wait_range_in_words(&en(), 121, 170), "about 3 minutes");
    assert_eq!(wait_range_in_words(&en(), 0, 1), "about a second");
    assert_eq!(
        wait_range_in_words(&en(), 1, 5),
        "about a second to 5 seconds"
    );
    assert_eq!(
        wait_range_in_words(&en(), 30, 90),
        "about 30 seconds to 2 minutes"
    );
    assert_eq!(
        wait_range_in_words(&en(), 45, 60),
        "about 45 seconds to a minute"
    );
}

#[test]
fn the_announced_wait_changes_in_steps() {
    assert_eq!(wait_to_announce(&en(), 5), "less than a minute");
    assert_eq!(wait_to_announce(&en(), 59), "less than a minute");
    assert_eq!(wait_to_announce(&en(), 61), "about 2 minutes");
    assert_eq!(wait_to_announce(&en(), 600), "about 10 minutes");
    // 11 to 15 minutes all read "about 15 minutes": the region stays quiet meanwhile.
    assert_eq!(wait_to_announce(&en(), 11 * 60 - 30), "about 15 minutes");
    assert_eq!(wait_to_announce(&en(), 15 * 60), "about 15 minutes");
    assert_eq!(wait_to_announce(&en(), 61 * 60), "about 1 hour 15 minutes");
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
        assert!(!note.sentence(&en(), Some(7)).is_empty());
    }
    assert_eq!(Note::from_code("<script>"), None);
    assert_eq!(
        Note::RateLimited.sentence(&en(), Some(12)),
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
    assert_eq!(Lang::En.number(6200), "6,200");
    assert_eq!(Lang::En.number(1_000_000), "1,000,000");
    assert_eq!(Lang::En.number(14), "14");
    assert_eq!(money(&en(), 8500, "EUR"), "€85.00");
    assert_eq!(money(&en(), 4005, "EUR"), "€40.05");
    assert_eq!(money(&en(), 4005, "USD"), "$40.05");
    assert_eq!(money(&en(), 8500, "JPY"), "¥8,500");
    assert_eq!(money(&en(), 8500, "CHF"), "CHF\u{a0}85.00");
    assert_eq!(money(&en(), -5, "GBP"), "£-0.05");
    assert_eq!(countdown(&en(), 125), "2:05");
    assert_eq!(countdown(&en(), -3), "0:00");
    assert_eq!(countdown(&en(), 3725), "1:02:05");
    assert_eq!(countdown(&en(), 86_400 + 3 * 3600 + 5), "1 day 3 h");
    assert_eq!(countdown(&en(), 2 * 86_400), "2 days 0 h");
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
        moment(&en(), at("2026-03-01T18:00:00Z"), now, &berlin),
        "19:00 Berlin time"
    );
    assert_eq!(
        moment(&en(), at("2026-04-01T17:00:00Z"), now, &berlin),
        "Wednesday 1 April, 19:00 Berlin time"
    );
    // 23:30 UTC is already the next day in Berlin.
    assert_eq!(
        date_and_time(&en(), at("2026-02-28T23:30:00Z"), &berlin),
        "Sunday 1 March 2026, 00:30 Berlin time"
    );
    let new_york = Zone {
        name: "America/New_York".into(),
        offsets: vec![],
    };
    assert_eq!(zone_label(&en(), &new_york), "New York time");
    assert_eq!(moment(&en(), now, now, &Zone::default()), "09:00 UTC");
    assert_eq!(
        place_moved(&en(), at("2026-03-01T18:04:00Z"), &berlin),
        "Your place moved to another device at 19:04 (Berlin time). Continue there; this page has no place any more."
    );
    assert_eq!(
        move_valid_until(&en(), at("2026-03-01T18:14:00Z"), &berlin),
        "Valid until 19:14 Berlin time, once."
    );
}

/// Each language's plural forms and numbers at the numbers that tell languages apart, in a
/// message of its file, and its waits, money and dates.
#[test]
fn plural_forms_numbers_money_and_dates_in_every_language() {
    let at = [0, 1, 2, 5, 11, 21, 101, 1000];
    let seats_left: [(Lang, [&str; 8]); 6] = [
        (
            Lang::En,
            [
                "None free now",
                "1 seat left",
                "2 seats left",
                "5 seats left",
                "11 seats left",
                "21 seats left",
                "101 seats left",
                "1,000 seats left",
            ],
        ),
        (
            Lang::De,
            [
                "Derzeit keine frei",
                "1 Platz frei",
                "2 Plätze frei",
                "5 Plätze frei",
                "11 Plätze frei",
                "21 Plätze frei",
                "101 Plätze frei",
                "1.000 Plätze frei",
            ],
        ),
        (
            Lang::Fr,
            [
                "Aucune place libre pour l'instant",
                "1 place restante",
                "2 places restantes",
                "5 places restantes",
                "11 places restantes",
                "21 places restantes",
                "101 places restantes",
                "1\u{202f}000 places restantes",
            ],
        ),
        (
            Lang::Es,
            [
                "Ninguno libre ahora",
                "Queda 1 asiento",
                "Quedan 2 asientos",
                "Quedan 5 asientos",
                "Quedan 11 asientos",
                "Quedan 21 asientos",
                "Quedan 101 asientos",
                "Quedan 1000 asientos",
            ],
        ),
        (
            Lang::Ja,
            [
                "現在、空席なし",
                "残り1席",
                "残り2席",
                "残り5席",
                "残り11席",
                "残り21席",
                "残り101席",
                "残り1,000席",
            ],
        ),
        (
            Lang::Ar,
            [
                "لا توجد مقاعد متاحة الآن",
                "بقي مقعد واحد",
                "بقي مقعدان",
                "بقي 5 مقاعد",
                "بقي 11 مقعدًا",
                "بقي 21 مقعدًا",
                "بقي 101 مقعد",
                "بقي 1,000 مقعد",
            ],
        ),
    ];
    for (lang, forms) in seats_left {
        let w = Words::of(lang);
        for (n, form) in at.into_iter().zip(forms) {
            assert_eq!(w.n("seats-left", n), form, "{lang:?} {n}");
        }
    }
    let t = "2026-12-01T18:00:00Z".parse::<DateTime<Utc>>().unwrap();
    let rest: [(Lang, [&str; 5]); 6] = [
        (
            Lang::En,
            [
                "about 3 to 4 minutes",
                "about 40 seconds to 2 minutes",
                "€1,234.50",
                "¥850,000",
                "Tuesday 1 December 2026, 18:00",
            ],
        ),
        (
            Lang::De,
            [
                "etwa 3 bis 4 Minuten",
                "etwa 40 Sekunden bis 2 Minuten",
                "1.234,50\u{a0}€",
                "850.000\u{a0}¥",
                "Dienstag, 1. Dezember 2026, 18:00",
            ],
        ),
        (
            Lang::Fr,
            [
                "environ 3 à 4 minutes",
                "environ 40 secondes à 2 minutes",
                "1\u{202f}234,50\u{a0}€",
                "850\u{202f}000\u{a0}¥",
                "mardi 1er décembre 2026 à 18:00",
            ],
        ),
        (
            Lang::Es,
            [
                "aproximadamente entre 3 y 4 minutos",
                "aproximadamente entre 40 segundos y 2 minutos",
                "1234,50\u{a0}€",
                "850.000\u{a0}¥",
                "martes, 1 de diciembre de 2026, 18:00",
            ],
        ),
        (
            Lang::Ja,
            [
                "約3～4分",
                "約40秒～2分",
                "€1,234.50",
                "¥850,000",
                "2026年12月1日(火) 18:00",
            ],
        ),
        (
            Lang::Ar,
            [
                "3 إلى 4 دقائق تقريبًا",
                "40 ثانية إلى دقيقتين تقريبًا",
                "€1,234.50",
                "¥850,000",
                "الثلاثاء، 1 ديسمبر 2026، 18:00",
            ],
        ),
    ];
    for (lang, [band, mixed, euros, yen, date]) in rest {
        let w = Words::of(lang);
        assert_eq!(wait_range_in_words(&w, 150, 230), band, "{lang:?}");
        assert_eq!(wait_range_in_words(&w, 40, 110), mixed, "{lang:?}");
        assert_eq!(money(&w, 123_450, "EUR"), euros, "{lang:?}");
        assert_eq!(money(&w, 850_000, "JPY"), yen, "{lang:?}");
        assert_eq!(day_and_clock(&w, t, true), date, "{lang:?}");
    }
}
