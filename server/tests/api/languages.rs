//! The buyer's language (API.md "Languages", issue 37): which language a page speaks, the
//! cookie that keeps a choice, the event's own language, and hostile values passed over.

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{TestApp, event_body, expect_error, page, set_cookies, spawn_app};

/// The page's `<html lang dir>` and the language of the words it names for its script.
fn spoken(html: &str) -> (String, String, String) {
    let at = html
        .find("<html")
        .unwrap_or_else(|| panic!("no <html in {html}"));
    let tag = &html[at..at + html[at..].find('>').unwrap()];
    let attr = |name: &str| {
        let value = tag.split(&format!(" {name}=\"")).nth(1).unwrap();
        value[..value.find('"').unwrap()].to_owned()
    };
    let words = attr("data-words");
    let words = words
        .strip_prefix("/words/")
        .and_then(|w| w.split_once('.'))
        .unwrap_or_else(|| panic!("words at {words}"))
        .0
        .to_owned();
    (attr("lang"), attr("dir"), words)
}

/// The page at `path` for a browser that says `accept_language` and sends `cookie` (either
/// may be empty).
async fn html_of(app: &TestApp, path: &str, accept_language: &str, cookie: &str) -> String {
    let mut req = app.client.get(app.url(path));
    if !accept_language.is_empty() {
        req = req.header("accept-language", accept_language);
    }
    if !cookie.is_empty() {
        req = req.header("cookie", cookie);
    }
    req.send().await.unwrap().text().await.unwrap()
}

/// The `lang` cookie a response sets, if any.
fn lang_cookie(cookies: &[String]) -> Option<&str> {
    cookies.iter().find_map(|c| c.strip_prefix("lang="))
}

#[tokio::test]
async fn a_page_speaks_the_language_asked_for_then_the_choice_kept_then_the_browsers_then_the_events()
 {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"enabled": false}));
    body["language"] = json!("de");
    body["time_zone"] = json!("Europe/Berlin");
    let event = app.create_event(body).await;
    assert_eq!(event["language"], "de");
    let id = event["id"].as_str().unwrap();
    let path = format!("/events/{id}");
    let (_, cookies) = page(&app, &path, None).await;
    let session = cookies
        .iter()
        .find(|c| c.starts_with("anteroom_session="))
        .unwrap()
        .clone();

    let get = |query: &'static str, cookie: Option<String>, accept: Option<&'static str>| {
        let mut req = app.client.get(app.url(&format!("{path}{query}")));
        let cookie = [Some(session.clone()), cookie]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; ");
        req = req.header("cookie", cookie);
        if let Some(accept) = accept {
            req = req.header("accept-language", accept);
        }
        async move {
            let r = req.send().await.unwrap();
            assert_eq!(r.status(), StatusCode::OK);
            let vary = r.headers().get_all("vary").iter().any(|v| {
                v.to_str()
                    .unwrap()
                    .to_ascii_lowercase()
                    .contains("accept-language")
            });
            assert!(vary, "a page in a negotiated language varies by it");
            let cookies = set_cookies(&r);
            (r.text().await.unwrap(), cookies)
        }
    };

    // Nothing asked: the event's own language, its prices written its way (the seat map is
    // in the first paint: the room is off).
    let (html, cookies) = get("", None, None).await;
    assert_eq!(spoken(&html), ("de".into(), "ltr".into(), "de".into()));
    assert!(html.contains("50,00\u{a0}€"), "{html}");
    assert_eq!(lang_cookie(&cookies), None);

    // The browser's languages, by quality, over the event's.
    let (html, _) = get("", None, Some("zh-CN, ja;q=0.8, fr;q=0.9")).await;
    assert_eq!(spoken(&html).0, "fr");
    let (html, _) = get("", None, Some("ja")).await;
    assert_eq!(spoken(&html).0, "ja");
    assert!(html.contains("€50.00"), "{html}");

    // `?lang=` over everything, and kept in a cookie for the next pages.
    let (html, cookies) = get("?lang=ar", None, Some("fr")).await;
    assert_eq!(spoken(&html), ("ar".into(), "rtl".into(), "ar".into()));
    assert_eq!(lang_cookie(&cookies), Some("ar"));
    let (html, _) = get("", Some("lang=ar".into()), Some("fr")).await;
    assert_eq!(spoken(&html).0, "ar", "the choice outranks the browser");
    let (html, _) = get("?lang=es-MX", Some("lang=ar".into()), None).await;
    assert_eq!(spoken(&html).0, "es");

    // Hostile or unknown values are passed over and set nothing.
    for query in [
        "?lang=xx",
        "?lang=%3Cscript%3E",
        "?lang=",
        "?lang=de%0d%0aX-Evil:%201",
    ] {
        let (html, cookies) = get(query, None, Some("ja")).await;
        assert_eq!(spoken(&html).0, "ja", "{query}");
        assert_eq!(lang_cookie(&cookies), None, "{query}");
    }
    let (html, _) = get("", Some("lang=<b>".into()), None).await;
    assert_eq!(spoken(&html).0, "de");
    let long: &'static str = Box::leak(format!("{}ja", "zz;q=0.9, ".repeat(800)).into_boxed_str());
    let (html, _) = get("", None, Some(long)).await;
    assert_eq!(
        spoken(&html).0,
        "de",
        "only the header's first entries are read"
    );

    // The list of events speaks the browser's language too; an operator's page stays English.
    assert_eq!(spoken(&html_of(&app, "/", "es", "").await).0, "es");
    let html = html_of(&app, "/admin", "ar", "lang=ar").await;
    assert_eq!(spoken(&html), ("en".into(), "ltr".into(), "en".into()));
    assert!(
        !html.contains("class=\"languages\""),
        "no switcher for operators"
    );
}

#[tokio::test]
async fn every_buyer_page_links_to_itself_in_every_language_without_script() {
    let app = spawn_app().await;
    let html = html_of(&app, "/", "", "").await;
    for (tag, name) in [
        ("en", "English"),
        ("de", "Deutsch"),
        ("fr", "Français"),
        ("es", "Español"),
        ("ja", "日本語"),
        ("ar", "العربية"),
    ] {
        assert!(
            html.contains(&format!(
                "href=\"?lang={tag}\" lang=\"{tag}\" hreflang=\"{tag}\""
            )),
            "{tag}: {html}"
        );
        assert!(html.contains(name), "{name}");
    }
    assert!(html.contains("aria-current=\"true\">English<"), "{html}");
}

#[tokio::test]
async fn an_event_in_a_language_the_pages_do_not_speak_is_refused_and_not_made() {
    let app = spawn_app().await;
    // A name not ours is 422; a number where a name goes reads to serde_json as malformed
    // JSON for an enum (400). Neither makes an event.
    let cases = [
        (
            json!("xx"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unprocessable",
        ),
        (
            json!("de-AT"),
            StatusCode::UNPROCESSABLE_ENTITY,
            "unprocessable",
        ),
        (json!(""), StatusCode::UNPROCESSABLE_ENTITY, "unprocessable"),
        (json!(7), StatusCode::BAD_REQUEST, "bad_request"),
    ];
    for (language, status, code) in cases {
        let mut body = event_body(1, 2, json!({}));
        body["language"] = language.clone();
        let r = app
            .admin(app.client.post(app.url("/api/admin/events")))
            .json(&body)
            .send()
            .await
            .unwrap();
        expect_error(r, status, code).await;
    }
    assert_eq!(app.count("select count(*) from event").await, 0);
    // Without one, an event speaks English.
    let event = app.create_event(event_body(1, 2, json!({}))).await;
    assert_eq!(event["language"], "en");
}

#[tokio::test]
async fn a_languages_words_are_cached_for_a_year_at_the_address_pages_name() {
    let app = spawn_app().await;
    let html = html_of(&app, "/", "de", "").await;
    let at = html.find("data-words=\"").unwrap() + "data-words=\"".len();
    let path = html[at..at + html[at..].find('"').unwrap()].to_owned();
    assert!(
        path.starts_with("/words/de.") && path.ends_with(".json") && path.len() > 20,
        "{path}"
    );
    assert!(
        html.contains(&format!(
            "<link rel=\"preload\" href=\"{path}\" as=\"fetch\""
        )),
        "the page preloads its words beside the WASM"
    );

    let r = app.client.get(app.url(&path)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(
        r.headers().get("set-cookie").is_none(),
        "no session for words"
    );
    let words: serde_json::Value = r.json().await.unwrap();
    assert_eq!(words["seats-stage"], json!([{"t": "Bühne"}]));

    // Another version's address is cached briefly (a page of an older build), a language not
    // spoken here is 404 with the JSON error, and nothing else is served from there.
    for other in ["/words/de.0.json", "/words/de.json"] {
        let r = app.client.get(app.url(other)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.headers()["cache-control"], "public, max-age=300");
    }
    for path in [
        "/words/xx.json",
        "/words/de",
        "/words/..%2Fsecret.json",
        "/words/DE.json",
    ] {
        let r = app.client.get(app.url(path)).send().await.unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
}
