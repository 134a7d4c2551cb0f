//! One language's messages, compiled from its Fluent file, and the words a page takes from
//! them ([`Words`]).
//!
//! A message is a pattern: text, the value of an argument, or a choice among variants by an
//! argument (its plural category, or its exact number or text). Terms and references to other
//! messages are written into a message when the file is compiled (`source`), so a pattern here
//! needs nothing but its arguments. The same patterns reach the browser as JSON in the page.
//!
//! Invariant: resolving a message never fails: an unknown message reads as its id and an
//! argument not given as `{$name}` (a test keeps both from reaching a buyer).

use std::{collections::BTreeMap, sync::Arc};

use serde::{Deserialize, Serialize};

use super::Lang;

/// A piece of a pattern. In JSON an object whose one or three fields say which piece it is
/// (`{"t": ...}`, `{"a": ...}`, `{"s": ..., "v": ..., "d": ...}`), read through [`PieceFields`]
/// rather than as an untagged enum: serde reads those through a buffer of every value, code of
/// its own in the buyer's WASM.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged, try_from = "PieceFields")]
pub enum Piece {
    /// Text as it is.
    Text { t: String },
    /// An argument's value, as the language writes it.
    Arg { a: String },
    /// The variant whose key is the argument's exact number or text, else its plural
    /// category, else the default (`d`).
    Select {
        s: String,
        v: Vec<(String, Vec<Piece>)>,
        d: Vec<Piece>,
    },
}

/// [`Piece`] as it is read: every field optional, the piece decided after.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PieceFields {
    t: Option<String>,
    a: Option<String>,
    s: Option<String>,
    v: Option<Vec<(String, Vec<Piece>)>>,
    d: Option<Vec<Piece>>,
}

impl TryFrom<PieceFields> for Piece {
    type Error = &'static str;

    fn try_from(f: PieceFields) -> Result<Self, Self::Error> {
        match f {
            PieceFields {
                t: Some(t),
                a: None,
                s: None,
                v: None,
                d: None,
            } => Ok(Piece::Text { t }),
            PieceFields {
                t: None,
                a: Some(a),
                s: None,
                v: None,
                d: None,
            } => Ok(Piece::Arg { a }),
            PieceFields {
                t: None,
                a: None,
                s: Some(s),
                v: Some(v),
                d: Some(d),
            } => Ok(Piece::Select { s, v, d }),
            _ => Err("a piece is {t}, {a} or {s, v, d}"),
        }
    }
}

/// One language's messages, by id.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Messages(pub BTreeMap<String, Vec<Piece>>);

/// A message's argument.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A whole number: written the language's way, chosen on by its plural category.
    Num(u64),
    /// Text, as it is (a name, or a phrase resolved from another message).
    Text(String),
}

impl From<u64> for Arg {
    fn from(n: u64) -> Self {
        Arg::Num(n)
    }
}

impl From<String> for Arg {
    fn from(text: String) -> Self {
        Arg::Text(text)
    }
}

impl From<&str> for Arg {
    fn from(text: &str) -> Self {
        Arg::Text(text.to_owned())
    }
}

#[cfg(not(feature = "ssr"))]
thread_local! {
    static PAGE: std::cell::RefCell<Option<Words>> = const { std::cell::RefCell::new(None) };
}

/// The first of the private use characters that stand for marks ([`Words::marked`]).
const MARKS: u32 = 0xE000;

/// A part of a message with markup inside ([`Words::marked`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    Text(String),
    /// Where the mark of this index stands.
    Mark(usize),
}

/// The page's language and its messages: what every buyer-facing sentence is read through.
#[derive(Clone, Debug)]
pub struct Words {
    pub lang: Lang,
    messages: Arc<Messages>,
}

impl Default for Words {
    fn default() -> Self {
        Words::fallback()
    }
}

impl Words {
    pub fn new(lang: Lang, messages: Arc<Messages>) -> Self {
        Self { lang, messages }
    }

    /// The page's words: from the render's context; English where none was given (a page
    /// built outside one, as some unit tests do).
    pub fn current() -> Words {
        leptos::prelude::use_context::<Words>().unwrap_or_else(Words::fallback)
    }

    #[cfg(feature = "ssr")]
    pub fn fallback() -> Words {
        Words::of(Lang::En)
    }

    /// In the browser, the words the page brought ([`Words::install`]): a browser shows one
    /// page, in one language.
    #[cfg(not(feature = "ssr"))]
    pub fn fallback() -> Words {
        PAGE.with(|page| page.borrow().clone())
            .unwrap_or_else(|| Words::new(Lang::En, Arc::default()))
    }

    /// The words of the page in this browser, read from the page before it hydrates.
    #[cfg(not(feature = "ssr"))]
    pub fn install(words: Words) {
        PAGE.with(|page| *page.borrow_mut() = Some(words));
    }

    /// The words of `lang` (the server has every language).
    #[cfg(feature = "ssr")]
    pub fn of(lang: Lang) -> Words {
        Words::new(lang, super::compiled(lang))
    }

    /// The message `id`, which takes no argument.
    pub fn t(&self, id: &str) -> String {
        self.f(id, &[])
    }

    /// The message `id` with its arguments.
    pub fn f(&self, id: &str, args: &[(&str, Arg)]) -> String {
        let mut out = String::new();
        match self.messages.0.get(id) {
            Some(pattern) => self.write(pattern, args, &mut out),
            None => out.push_str(id),
        }
        out
    }

    /// The message `id` with one number, `n`.
    pub fn n(&self, id: &str, n: u64) -> String {
        self.f(id, &[("n", Arg::Num(n))])
    }

    /// The message `id` split around its argument `at`, for a sentence with markup inside
    /// ("You are <strong>#14,812</strong> in line"): the text before it and the text after
    /// it, in the language's own word order. The markup goes between the two.
    pub fn around(&self, id: &str, at: &str, args: &[(&str, Arg)]) -> (String, String) {
        let mut before = String::new();
        let mut after = String::new();
        let mut seen = false;
        for part in self.marked(id, &[at], args) {
            match part {
                Part::Text(text) if seen => after.push_str(&text),
                Part::Text(text) => before.push_str(&text),
                Part::Mark(_) => seen = true,
            }
        }
        (before, after)
    }

    /// The message `id` in parts, for a sentence with several pieces of markup inside: its
    /// text, and where each argument of `marks` stands (by its index in `marks`), in the
    /// language's own word order.
    pub fn marked(&self, id: &str, marks: &[&str], args: &[(&str, Arg)]) -> Vec<Part> {
        // Characters of Unicode's private use area stand for the marks while the message is
        // written (no message file has them: a test checks).
        let mark = |i: usize| char::from_u32(MARKS + i as u32).expect("a private use character");
        let mut with_marks: Vec<(&str, Arg)> = args
            .iter()
            .filter(|(name, _)| !marks.contains(name))
            .cloned()
            .collect();
        with_marks.extend(
            marks
                .iter()
                .enumerate()
                .map(|(i, name)| (*name, Arg::Text(mark(i).into()))),
        );
        let text = self.f(id, &with_marks);
        let mut parts = Vec::new();
        let mut current = String::new();
        for c in text.chars() {
            match (c as u32)
                .checked_sub(MARKS)
                .filter(|i| (*i as usize) < marks.len())
            {
                Some(i) => {
                    if !current.is_empty() {
                        parts.push(Part::Text(std::mem::take(&mut current)));
                    }
                    parts.push(Part::Mark(i as usize));
                }
                None => current.push(c),
            }
        }
        if !current.is_empty() {
            parts.push(Part::Text(current));
        }
        parts
    }

    /// A whole number as the page's language writes it.
    pub fn number(&self, n: u64) -> String {
        self.lang.number(n)
    }

    fn write(&self, pattern: &[Piece], args: &[(&str, Arg)], out: &mut String) {
        let arg = |name: &str| args.iter().find(|(n, _)| *n == name).map(|(_, a)| a);
        for piece in pattern {
            match piece {
                Piece::Text { t } => out.push_str(t),
                Piece::Arg { a } => match arg(a) {
                    Some(Arg::Num(n)) => out.push_str(&self.lang.number(*n)),
                    Some(Arg::Text(text)) => out.push_str(text),
                    None => {
                        out.push_str("{$");
                        out.push_str(a);
                        out.push('}');
                    }
                },
                Piece::Select { s, v, d } => {
                    let chosen = match arg(s) {
                        Some(Arg::Num(n)) => {
                            let (exact, category) = (n.to_string(), self.lang.plural(*n).key());
                            v.iter()
                                .find(|(key, _)| *key == exact)
                                .or_else(|| v.iter().find(|(key, _)| key == category))
                        }
                        Some(Arg::Text(text)) => v.iter().find(|(key, _)| key == text),
                        None => None,
                    };
                    self.write(chosen.map_or(d, |(_, p)| p), args, out);
                }
            }
        }
    }

    /// The messages as the browser fetches them: JSON.
    pub fn to_page_json(&self) -> String {
        serde_json::to_string(&*self.messages).expect("messages serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(lang: Lang, pattern: Vec<Piece>) -> Words {
        let mut messages = Messages::default();
        messages.0.insert("m".into(), pattern);
        Words::new(lang, Arc::new(messages))
    }

    #[test]
    fn a_choice_takes_the_exact_number_then_the_category_then_the_default() {
        let text = |t: &str| Piece::Text { t: t.into() };
        let pattern = vec![Piece::Select {
            s: "n".into(),
            v: vec![
                ("0".into(), vec![text("nobody")]),
                ("one".into(), vec![text("one person")]),
                (
                    "few".into(),
                    vec![Piece::Arg { a: "n".into() }, text(" (few)")],
                ),
            ],
            d: vec![Piece::Arg { a: "n".into() }, text(" people")],
        }];
        let en = words(Lang::En, pattern.clone());
        assert_eq!(en.n("m", 0), "nobody");
        assert_eq!(en.n("m", 1), "one person");
        assert_eq!(en.n("m", 3), "3 people");
        assert_eq!(en.n("m", 14_812), "14,812 people");
        let ar = words(Lang::Ar, pattern);
        assert_eq!(ar.n("m", 3), "3 (few)");
        assert_eq!(ar.n("m", 0), "nobody");
        assert_eq!(ar.t("m"), "{$n} people");
        assert_eq!(ar.t("unknown-id"), "unknown-id");
    }

    #[test]
    fn a_sentence_splits_around_its_markup_in_the_languages_own_order() {
        let text = |t: &str| Piece::Text { t: t.into() };
        let at = |a: &str| Piece::Arg { a: a.into() };
        let en = words(
            Lang::En,
            vec![text("You are "), at("place"), text(" in line")],
        );
        assert_eq!(
            en.around("m", "place", &[]),
            ("You are ".to_owned(), " in line".to_owned())
        );
        let ja = words(
            Lang::Ja,
            vec![text("あなたは"), at("place"), text("番目です")],
        );
        assert_eq!(
            ja.around("m", "place", &[("place", Arg::Num(3))]),
            ("あなたは".to_owned(), "番目です".to_owned())
        );
        // Two marks, in the language's order.
        let de = words(Lang::De, vec![at("b"), text(" vor "), at("a")]);
        assert_eq!(
            de.marked("m", &["a", "b"], &[]),
            vec![Part::Mark(1), Part::Text(" vor ".into()), Part::Mark(0)]
        );
    }

    #[test]
    fn the_messages_the_browser_fetches_read_back_as_they_were() {
        let text = |t: &str| Piece::Text { t: t.into() };
        let w = words(
            Lang::De,
            vec![
                text("<b>"),
                Piece::Select {
                    s: "n".into(),
                    v: vec![("one".into(), vec![text("1")])],
                    d: vec![Piece::Arg { a: "n".into() }],
                },
            ],
        );
        let back: Messages = serde_json::from_str(&w.to_page_json()).unwrap();
        assert_eq!(back, *w.messages);
        // A piece is one of the three shapes, never a mix.
        for bad in [
            r#"{"m":[{"t":"x","a":"n"}]}"#,
            r#"{"m":[{"s":"n","d":[]}]}"#,
            r#"{"m":["x"]}"#,
        ] {
            assert!(serde_json::from_str::<Messages>(bad).is_err(), "{bad}");
        }
    }
}
