//! The Fluent files, read by the Fluent project's own parser (`fluent-syntax`) and compiled
//! into [`Messages`] once per process (the server only: the browser gets the page's language
//! compiled, as JSON).
//!
//! The files use the part of Fluent a buyer's page needs: text, variables, terms, references
//! to other messages and selectors on a variable (plural categories, exact numbers, text).
//! Anything else (attributes, functions, a term with arguments) is refused when the file is
//! compiled, so a translator's mistake fails a test, not a page.

use std::sync::{Arc, OnceLock};

use fluent_syntax::ast;

use super::{
    Lang,
    messages::{Messages, Piece},
};

/// Every language's Fluent file, as built into the server.
pub const SOURCES: [(Lang, &str); 6] = [
    (Lang::En, include_str!("../../locales/en.ftl")),
    (Lang::De, include_str!("../../locales/de.ftl")),
    (Lang::Fr, include_str!("../../locales/fr.ftl")),
    (Lang::Es, include_str!("../../locales/es.ftl")),
    (Lang::Ja, include_str!("../../locales/ja.ftl")),
    (Lang::Ar, include_str!("../../locales/ar.ftl")),
];

/// A language's messages as the browser fetches them: the JSON, and its address, named by a
/// hash of its content (`/words/de.<version>.json`: cached for a year, and a new build's words
/// are a new address; in the path, not the query, which a fetch may write otherwise than the
/// page's preload and so fetch twice).
pub struct PageWords {
    pub json: String,
    pub version: String,
    pub path: String,
}

/// Where the browser fetches a language's messages: `/words/<tag>.<version>.json`.
pub const WORDS_PATH: &str = "/words/";

/// One language, compiled: its messages, and the same as the browser fetches them.
struct Compiled {
    lang: Lang,
    messages: Arc<Messages>,
    page: PageWords,
}

/// Every language, compiled once per process (the server does it at startup).
fn all() -> &'static [Compiled] {
    static ALL: OnceLock<Vec<Compiled>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(lang, source)| {
                use sha2::Digest;
                let messages =
                    compile(source).unwrap_or_else(|e| panic!("locales/{}.ftl: {e}", lang.tag()));
                let messages = Arc::new(messages);
                let json = super::Words::new(*lang, messages.clone()).to_page_json();
                let hash = sha2::Sha256::digest(json.as_bytes());
                let version: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
                let path = format!("{WORDS_PATH}{}.{version}.json", lang.tag());
                let page = PageWords {
                    json,
                    version,
                    path,
                };
                Compiled {
                    lang: *lang,
                    messages,
                    page,
                }
            })
            .collect()
    })
}

fn of(lang: Lang) -> &'static Compiled {
    all()
        .iter()
        .find(|c| c.lang == lang)
        .expect("every language has a file")
}

/// The messages of `lang` for the browser ([`PageWords`]).
pub fn page_words(lang: Lang) -> &'static PageWords {
    &of(lang).page
}

/// The compiled messages of `lang`.
pub fn compiled(lang: Lang) -> Arc<Messages> {
    of(lang).messages.clone()
}

type Entries<'s> = (Vec<&'s ast::Message<&'s str>>, Vec<&'s ast::Term<&'s str>>);

/// A Fluent file's messages; an error names the first thing it could not read or compile.
pub fn compile(source: &str) -> Result<Messages, String> {
    let resource = fluent_syntax::parser::parse(source).map_err(|(_, errors)| {
        errors
            .first()
            .map(|e| format!("does not parse at bytes {:?}: {:?}", e.pos, e.kind))
            .unwrap_or_default()
    })?;
    let mut entries: Entries = (Vec::new(), Vec::new());
    for entry in &resource.body {
        match entry {
            ast::Entry::Message(m) => entries.0.push(m),
            ast::Entry::Term(t) => entries.1.push(t),
            ast::Entry::Junk { content } => return Err(format!("cannot read {content:?}")),
            _ => {}
        }
    }
    let mut messages = Messages::default();
    for message in &entries.0 {
        let id = message.id.name;
        if !message.attributes.is_empty() {
            return Err(format!("{id}: attributes are not used here"));
        }
        let value = message
            .value
            .as_ref()
            .ok_or_else(|| format!("{id}: no value"))?;
        let pattern = pattern(value, &entries, 0).map_err(|e| format!("{id}: {e}"))?;
        if messages.0.insert(id.to_owned(), pattern).is_some() {
            return Err(format!("{id}: written twice"));
        }
    }
    Ok(messages)
}

/// How deep references may nest (a reference to itself stops here).
const DEPTH: usize = 8;

fn pattern(p: &ast::Pattern<&str>, entries: &Entries, depth: usize) -> Result<Vec<Piece>, String> {
    if depth > DEPTH {
        return Err("references nest too deep".into());
    }
    let mut out = Vec::new();
    for element in &p.elements {
        match element {
            ast::PatternElement::TextElement { value } => text(&mut out, value),
            ast::PatternElement::Placeable { expression } => {
                for piece in expression_pieces(expression, entries, depth)? {
                    match piece {
                        Piece::Text { t } => text(&mut out, &t),
                        other => out.push(other),
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Appends text, joined to the text before it.
fn text(out: &mut Vec<Piece>, value: &str) {
    match out.last_mut() {
        Some(Piece::Text { t }) => t.push_str(value),
        _ => out.push(Piece::Text {
            t: value.to_owned(),
        }),
    }
}

fn expression_pieces(
    e: &ast::Expression<&str>,
    entries: &Entries,
    depth: usize,
) -> Result<Vec<Piece>, String> {
    match e {
        ast::Expression::Inline(inline) => inline_pieces(inline, entries, depth),
        ast::Expression::Select { selector, variants } => {
            let ast::InlineExpression::VariableReference { id } = selector else {
                return Err("a choice is made on a variable only".into());
            };
            let mut v = Vec::new();
            let mut d = None;
            for variant in variants {
                let key = match &variant.key {
                    ast::VariantKey::Identifier { name } => (*name).to_owned(),
                    ast::VariantKey::NumberLiteral { value } => (*value).to_owned(),
                };
                let value = pattern(&variant.value, entries, depth + 1)?;
                if variant.default {
                    d = Some(value.clone());
                }
                v.push((key, value));
            }
            Ok(vec![Piece::Select {
                s: id.name.to_owned(),
                v,
                d: d.ok_or("a choice without a default")?,
            }])
        }
    }
}

fn inline_pieces(
    e: &ast::InlineExpression<&str>,
    entries: &Entries,
    depth: usize,
) -> Result<Vec<Piece>, String> {
    match e {
        ast::InlineExpression::StringLiteral { value } => Ok(vec![Piece::Text {
            t: unescape(value)?,
        }]),
        ast::InlineExpression::NumberLiteral { value } => {
            Ok(vec![Piece::Text { t: (*value).into() }])
        }
        ast::InlineExpression::VariableReference { id } => Ok(vec![Piece::Arg {
            a: id.name.to_owned(),
        }]),
        ast::InlineExpression::MessageReference {
            id,
            attribute: None,
        } => {
            let m = entries
                .0
                .iter()
                .find(|m| m.id.name == id.name)
                .ok_or_else(|| format!("no message {}", id.name))?;
            let value = m
                .value
                .as_ref()
                .ok_or_else(|| format!("{}: no value", id.name))?;
            pattern(value, entries, depth + 1)
        }
        ast::InlineExpression::TermReference {
            id,
            attribute: None,
            arguments: None,
        } => {
            let t = entries
                .1
                .iter()
                .find(|t| t.id.name == id.name)
                .ok_or_else(|| format!("no term -{}", id.name))?;
            pattern(&t.value, entries, depth + 1)
        }
        ast::InlineExpression::Placeable { expression } => {
            expression_pieces(expression, entries, depth)
        }
        other => Err(format!("not used here: {other:?}")),
    }
}

/// A string literal's escapes (`\"`, `\\`, `\u00A0`) as the characters they stand for.
fn unescape(value: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = u32::from_str_radix(&hex, 16).map_err(|_| format!("\\u{hex}"))?;
                out.push(char::from_u32(code).ok_or(format!("\\u{hex}"))?);
            }
            Some(c @ ('"' | '\\')) => out.push(c),
            other => return Err(format!("escape {other:?}")),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::lang::{Arg, Words};

    #[test]
    fn every_language_file_compiles_with_the_same_messages_as_english() {
        let english: BTreeSet<String> = compiled(Lang::En).0.keys().cloned().collect();
        for (lang, source) in SOURCES {
            let messages = compile(source).unwrap_or_else(|e| panic!("{}: {e}", lang.tag()));
            // Private use characters stand for markup while a message is written.
            assert!(
                !source
                    .chars()
                    .any(|c| ('\u{e000}'..='\u{f8ff}').contains(&c)),
                "{}.ftl has a private use character",
                lang.tag()
            );
            let ids: BTreeSet<String> = messages.0.keys().cloned().collect();
            let missing: Vec<_> = english.difference(&ids).collect();
            let extra: Vec<_> = ids.difference(&english).collect();
            assert!(missing.is_empty(), "{}.ftl lacks {missing:?}", lang.tag());
            assert!(
                extra.is_empty(),
                "{}.ftl has ids English has not: {extra:?}",
                lang.tag()
            );
        }
    }

    /// Every message id the code asks for (`.t("id"`, `.n("id"`, `.f("id"`, `.around("id"`, `.marked("id"`), in every file of
    /// this crate and the server's.
    fn ids_in_the_code() -> BTreeSet<String> {
        let mut ids = BTreeSet::new();
        let mut dirs = vec![
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../server/src")),
        ];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let code = std::fs::read_to_string(&path).unwrap();
                    // Unit tests use messages of their own.
                    let code = code.split("#[cfg(test)]").next().unwrap_or_default();
                    for call in [".t(", ".n(", ".f(", ".around(", ".marked("] {
                        for (at, _) in code.match_indices(call) {
                            // The id may be on the next line (as rustfmt writes a long call).
                            let rest = code[at + call.len()..].trim_start();
                            if let Some(rest) = rest.strip_prefix('"') {
                                ids.insert(rest[..rest.find('"').unwrap()].to_owned());
                            }
                        }
                    }
                }
            }
        }
        ids
    }

    #[test]
    fn the_code_asks_for_every_message_and_only_for_messages_that_exist() {
        let used = ids_in_the_code();
        let english: BTreeSet<String> = compiled(Lang::En).0.keys().cloned().collect();
        // Messages only other messages use (weekday and month names, units) are referenced
        // from the files themselves and so are used too.
        let referenced: BTreeSet<String> = SOURCES
            .iter()
            .flat_map(|(_, s)| referenced_messages(s))
            .collect();
        let unknown: Vec<_> = used.difference(&english).collect();
        assert!(
            unknown.is_empty(),
            "the code asks for ids no file has: {unknown:?}"
        );
        let unused: Vec<_> = english
            .iter()
            .filter(|id| !used.contains(*id) && !referenced.contains(*id))
            .collect();
        assert!(unused.is_empty(), "ids the code never asks for: {unused:?}");
    }

    fn referenced_messages(source: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = source;
        while let Some(at) = rest.find('{') {
            rest = &rest[at + 1..];
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                out.push(name);
            }
        }
        out
    }

    #[test]
    fn every_message_resolves_with_its_arguments_in_every_language() {
        // No message leaves an argument unwritten when given the arguments English uses.
        for lang in Lang::ALL {
            let words = Words::of(lang);
            for (id, pattern) in &compiled(Lang::En).0 {
                let mut names = Vec::new();
                arguments(pattern, &mut names);
                let args: Vec<(&str, Arg)> =
                    names.iter().map(|n| (n.as_str(), Arg::Num(2))).collect();
                let text = words.f(id, &args);
                assert!(!text.contains("{$"), "{}: {id} reads {text:?}", lang.tag());
                assert!(!text.trim().is_empty(), "{}: {id} is empty", lang.tag());
            }
        }
    }

    fn arguments(pattern: &[Piece], out: &mut Vec<String>) {
        for piece in pattern {
            match piece {
                Piece::Text { .. } => {}
                Piece::Arg { a } => out.push(a.clone()),
                Piece::Select { s, v, d } => {
                    out.push(s.clone());
                    v.iter().for_each(|(_, p)| arguments(p, out));
                    arguments(d, out);
                }
            }
        }
    }

    #[test]
    fn what_the_files_may_not_use_is_refused() {
        assert!(compile("a = { NUMBER($n) }").is_err());
        assert!(compile("a = b\n    .title = c").is_err());
        assert!(compile("a = { b }").is_err());
        assert!(compile("a = { a }").is_err());
        assert!(compile("a = { $n ->\n    [one] x\n   }").is_err());
        assert!(compile("a = x\na = y").is_err());
        let m =
            compile("-brand = Anteroom\nb = in { -brand }\na = { b }, { \"\\u00A0\" }!").unwrap();
        assert_eq!(
            m.0["a"],
            vec![Piece::Text {
                t: "in Anteroom, \u{a0}!".into()
            }]
        );
    }
}
