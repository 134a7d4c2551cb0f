//! The buyer's language: which one a page speaks ([`negotiate`]), and the forms of a language
//! that are not words: its numbers ([`Lang::number`]), its plural categories
//! ([`Lang::plural`]), its writing direction. The words themselves are in Project Fluent files,
//! one per language (`app/locales/<tag>.ftl`), read through [`Words`].
//!
//! Invariants:
//! - A page speaks exactly one of [`Lang::ALL`]; anything a request says that is not one of
//!   them (an unknown tag, a malformed header) is passed over, never an error, and never
//!   stored: the cookie a `?lang=` sets is always one of the tags here.
//! - The server and the browser format a number, and choose a plural, by the same code here
//!   (not the browser's `Intl`), so the page the server rendered and the page the script keeps
//!   current say the same.
//! - The buyer's WASM carries no language's words: the page names the address of its
//!   language's words (`<html data-words>`, content-hashed, cached for a year, preloaded), and
//!   the browser fetches them before it hydrates ([`Words::to_page_json`]).

mod messages;
#[cfg(feature = "ssr")]
mod source;

pub use messages::{Arg, Messages, Part, Words};
#[cfg(feature = "ssr")]
pub use source::{PageWords, SOURCES, WORDS_PATH, compiled, page_words};

use serde::{Deserialize, Serialize};

/// The languages Anteroom's buyer pages speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum Lang {
    #[default]
    En,
    De,
    Fr,
    Es,
    Ja,
    Ar,
}

/// A plural category of CLDR's (cardinal numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plural {
    Zero,
    One,
    Two,
    Few,
    Many,
    Other,
}

impl Plural {
    /// The category's name as Fluent's variant keys write it.
    pub fn key(self) -> &'static str {
        match self {
            Plural::Zero => "zero",
            Plural::One => "one",
            Plural::Two => "two",
            Plural::Few => "few",
            Plural::Many => "many",
            Plural::Other => "other",
        }
    }
}

/// The cookie that keeps a buyer's choice of language.
pub const COOKIE: &str = "lang";

impl Lang {
    pub const ALL: [Lang; 6] = [Lang::En, Lang::De, Lang::Fr, Lang::Es, Lang::Ja, Lang::Ar];

    /// The language's BCP 47 tag.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::Ja => "ja",
            Lang::Ar => "ar",
        }
    }

    /// The language's name in itself, as a switcher lists it.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::De => "Deutsch",
            Lang::Fr => "Français",
            Lang::Es => "Español",
            Lang::Ja => "日本語",
            Lang::Ar => "العربية",
        }
    }

    /// `ltr` or `rtl`, for `<html dir>`.
    pub fn dir(self) -> &'static str {
        match self {
            Lang::Ar => "rtl",
            _ => "ltr",
        }
    }

    /// The language of a BCP 47 tag by its primary subtag, any case: `de-AT` and `DE` are
    /// German; `None` for a language not spoken here or a tag that is not one.
    pub fn parse(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?;
        Lang::ALL
            .into_iter()
            .find(|l| l.tag().eq_ignore_ascii_case(primary))
    }

    /// A whole number as the language writes it: 14,812 (English, Japanese, Arabic written
    /// with Latin digits), 14.812 (German, Spanish: four digits stay whole in Spanish),
    /// 14 812 (French, a narrow no-break space).
    pub fn number(self, n: u64) -> String {
        let digits = n.to_string();
        let (separator, least) = match self {
            Lang::En | Lang::Ja | Lang::Ar => (',', 4),
            Lang::De => ('.', 4),
            Lang::Es => ('.', 5),
            Lang::Fr => ('\u{202f}', 4),
        };
        if digits.len() < least {
            return digits;
        }
        let mut out = String::with_capacity(digits.len() + digits.len() / 3 * 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(separator);
            }
            out.push(c);
        }
        out
    }

    /// The decimal separator of an amount of money.
    pub fn decimal_separator(self) -> char {
        match self {
            Lang::De | Lang::Fr | Lang::Es => ',',
            Lang::En | Lang::Ja | Lang::Ar => '.',
        }
    }

    /// The plural category of a whole number, by CLDR's rules for the language.
    pub fn plural(self, n: u64) -> Plural {
        let millions = n != 0 && n.is_multiple_of(1_000_000);
        match self {
            Lang::En | Lang::De => match n {
                1 => Plural::One,
                _ => Plural::Other,
            },
            Lang::Es => match n {
                1 => Plural::One,
                _ if millions => Plural::Many,
                _ => Plural::Other,
            },
            Lang::Fr => match n {
                0 | 1 => Plural::One,
                _ if millions => Plural::Many,
                _ => Plural::Other,
            },
            Lang::Ja => Plural::Other,
            Lang::Ar => match (n, n % 100) {
                (0, _) => Plural::Zero,
                (1, _) => Plural::One,
                (2, _) => Plural::Two,
                (_, 3..=10) => Plural::Few,
                (_, 11..=99) => Plural::Many,
                _ => Plural::Other,
            },
        }
    }
}

/// Whether `path` is an operator's page (`/admin`, `/admin/...`): those stay in English.
pub fn operators_path(path: &str) -> bool {
    path == "/admin" || path.starts_with("/admin/")
}

/// The language `Accept-Language` prefers among ours: the highest `q` first, the header's own
/// order among equals; `*`, `q=0` and languages not spoken here are passed over. At most the
/// first 32 entries are read.
pub fn from_accept_language(header: &str) -> Option<Lang> {
    let mut best: Option<(u16, Lang)> = None;
    for entry in header.split(',').take(32) {
        let mut parts = entry.split(';');
        let tag = parts.next().unwrap_or("").trim();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .map_or(Some(1000), quality);
        let (Some(q), Some(lang)) = (q, Lang::parse(tag)) else {
            continue;
        };
        if q > 0 && best.is_none_or(|(b, _)| q > b) {
            best = Some((q, lang));
        }
    }
    best.map(|(_, lang)| lang)
}

/// A `q` value in thousandths (`0.8` -> 800); `None` when it is not one.
fn quality(q: &str) -> Option<u16> {
    let q = q.trim();
    let (whole, fraction) = q.split_once('.').unwrap_or((q, ""));
    if fraction.len() > 3 || !fraction.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let thousandths = format!("{fraction:0<3}").parse::<u16>().ok()?;
    match whole {
        "0" => Some(thousandths),
        "1" if thousandths == 0 => Some(1000),
        _ => None,
    }
}

/// The page's language: `?lang=`, then the buyer's earlier choice (the cookie), then the
/// browser's `Accept-Language`, then the event's own language.
pub fn negotiate(
    query: Option<&str>,
    cookie: Option<&str>,
    accept_language: Option<&str>,
    event: Lang,
) -> Lang {
    query
        .and_then(Lang::parse)
        .or_else(|| cookie.and_then(Lang::parse))
        .or_else(|| accept_language.and_then(from_accept_language))
        .unwrap_or(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    const AT: [u64; 8] = [0, 1, 2, 5, 11, 21, 101, 1000];

    #[test]
    fn plural_categories_at_the_numbers_that_tell_languages_apart() {
        use Plural::*;
        let expected: [(Lang, [Plural; 8]); 6] = [
            (
                Lang::En,
                [Other, One, Other, Other, Other, Other, Other, Other],
            ),
            (
                Lang::De,
                [Other, One, Other, Other, Other, Other, Other, Other],
            ),
            (
                Lang::Fr,
                [One, One, Other, Other, Other, Other, Other, Other],
            ),
            (
                Lang::Es,
                [Other, One, Other, Other, Other, Other, Other, Other],
            ),
            (Lang::Ja, [Other; 8]),
            (Lang::Ar, [Zero, One, Two, Few, Many, Many, Other, Other]),
        ];
        for (lang, categories) in expected {
            for (n, category) in AT.into_iter().zip(categories) {
                assert_eq!(lang.plural(n), category, "{lang:?} {n}");
            }
        }
        // A million is "many" in French and Spanish.
        assert_eq!(Lang::Fr.plural(2_000_000), Many);
        assert_eq!(Lang::Es.plural(1_000_000), Many);
        assert_eq!(Lang::Ar.plural(1_003), Few);
    }

    #[test]
    fn plural_categories_agree_with_cldrs_rules_as_the_fluent_project_ships_them() {
        // Every number to 10,000 and some beyond, in each language.
        use intl_pluralrules::{PluralCategory, PluralRuleType, PluralRules};
        for lang in Lang::ALL {
            let id: unic_langid::LanguageIdentifier = lang.tag().parse().unwrap();
            let cldr = PluralRules::create(id, PluralRuleType::CARDINAL).unwrap();
            let numbers = (0..=10_000u64).chain([100_000, 1_000_000, 2_000_000, 1_000_001]);
            for n in numbers {
                let expected = match cldr.select(n).unwrap() {
                    PluralCategory::ZERO => Plural::Zero,
                    PluralCategory::ONE => Plural::One,
                    PluralCategory::TWO => Plural::Two,
                    PluralCategory::FEW => Plural::Few,
                    PluralCategory::MANY => Plural::Many,
                    PluralCategory::OTHER => Plural::Other,
                };
                // CLDR 38 (2020) gave French and Spanish "many" for whole millions ("1 million
                // de places"); the crate's data is older, and says "other" there.
                let newer = matches!(lang, Lang::Fr | Lang::Es) && n.is_multiple_of(1_000_000);
                let expected = if newer && n > 0 {
                    Plural::Many
                } else {
                    expected
                };
                // Arabic past 100 is checked against CLDR's own samples below: the crate
                // answers "other" for 103 to 199, which CLDR's rule (n % 100 = 3..10 is few,
                // 11..99 many) and its samples contradict.
                if lang == Lang::Ar && n > 100 {
                    continue;
                }
                assert_eq!(lang.plural(n), expected, "{lang:?} {n}");
            }
        }
        // CLDR's published samples of Arabic's categories (plurals.xml).
        use Plural::*;
        let samples: [(Plural, &[u64]); 6] = [
            (Zero, &[0]),
            (One, &[1]),
            (Two, &[2]),
            (Few, &[3, 10, 103, 110, 1003]),
            (Many, &[11, 26, 111, 1011]),
            (
                Other,
                &[100, 102, 200, 202, 600, 1000, 10_000, 100_000, 1_000_000],
            ),
        ];
        for (category, numbers) in samples {
            for n in numbers {
                assert_eq!(Lang::Ar.plural(*n), category, "ar {n}");
            }
        }
    }

    #[test]
    fn numbers_at_the_numbers_that_tell_languages_apart() {
        let expected: [(Lang, [&str; 8]); 6] = [
            (Lang::En, ["0", "1", "2", "5", "11", "21", "101", "1,000"]),
            (Lang::De, ["0", "1", "2", "5", "11", "21", "101", "1.000"]),
            (
                Lang::Fr,
                ["0", "1", "2", "5", "11", "21", "101", "1\u{202f}000"],
            ),
            (Lang::Es, ["0", "1", "2", "5", "11", "21", "101", "1000"]),
            (Lang::Ja, ["0", "1", "2", "5", "11", "21", "101", "1,000"]),
            (Lang::Ar, ["0", "1", "2", "5", "11", "21", "101", "1,000"]),
        ];
        for (lang, written) in expected {
            for (n, w) in AT.into_iter().zip(written) {
                assert_eq!(lang.number(n), w, "{lang:?} {n}");
            }
        }
        assert_eq!(Lang::Es.number(14_812), "14.812");
        assert_eq!(Lang::Fr.number(14_812), "14\u{202f}812");
        assert_eq!(Lang::De.number(10_000_000), "10.000.000");
        assert_eq!(Lang::En.number(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn the_language_comes_from_the_address_then_the_cookie_then_the_browser_then_the_event() {
        let accept = Some("ja;q=0.5, fr-CH, de;q=0.9");
        assert_eq!(
            negotiate(Some("ar"), Some("de"), accept, Lang::Es),
            Lang::Ar
        );
        assert_eq!(
            negotiate(Some("xx"), Some("de"), accept, Lang::Es),
            Lang::De
        );
        assert_eq!(negotiate(None, Some("nope"), accept, Lang::Es), Lang::Fr);
        assert_eq!(negotiate(None, None, Some("zh, *"), Lang::Es), Lang::Es);
        assert_eq!(negotiate(None, None, None, Lang::Ja), Lang::Ja);
    }

    #[test]
    fn accept_language_is_read_by_quality_and_hostile_values_are_passed_over() {
        assert_eq!(from_accept_language("de;q=0.1, es;q=0.7"), Some(Lang::Es));
        assert_eq!(from_accept_language("es;q=0.7, de;q=0.7"), Some(Lang::Es));
        assert_eq!(from_accept_language("fr;q=0, ja"), Some(Lang::Ja));
        assert_eq!(from_accept_language("fr;q=0"), None);
        assert_eq!(
            from_accept_language("fr;q=1.5, de;q=abc, ar;q=0.0001"),
            None
        );
        assert_eq!(from_accept_language("EN-gb;q=1.000"), Some(Lang::En));
        assert_eq!(from_accept_language(""), None);
        // Only the first 32 entries are read.
        let long = format!("{}de", "zz, ".repeat(40));
        assert_eq!(from_accept_language(&long), None);
    }
}
