//! The event page's forms without JavaScript: hold, release, pay and claim a moved place,
//! posted as HTML forms, answered with 303 to the page, which the server renders at the stage
//! they led to.

use anteroom::{admission::ticker::Ticker, forms::form_token};
use reqwest::{StatusCode, redirect::Policy};
use serde_json::json;

use crate::helpers::{
    TestApp, app_with_fake, event_body, join, joined, open_event, page, poll, quick, spawn_app,
};
use crate::moving::move_code;

/// A browser without JavaScript: its cookies as one `Cookie` header, and a client that does
/// not follow redirects (the tests read them).
struct Browser {
    client: reqwest::Client,
    cookie: String,
    event: String,
}

impl Browser {
    fn new(event: &str, session: &str) -> Self {
        Self {
            client: reqwest::Client::builder()
                .redirect(Policy::none())
                .build()
                .unwrap(),
            cookie: format!("anteroom_session={session}"),
            event: event.to_owned(),
        }
    }

    /// The event page, keeping the cookies it sets (the admission).
    async fn page(&mut self, app: &TestApp, query: &str) -> String {
        let (html, cookies) = page(
            app,
            &format!("/events/{}{query}", self.event),
            Some(&self.cookie),
        )
        .await;
        for set in cookies {
            let name = set.split('=').next().unwrap().to_owned();
            let mut kept: Vec<String> = self
                .cookie
                .split("; ")
                .filter(|c| !c.starts_with(&format!("{name}=")))
                .map(str::to_owned)
                .collect();
            kept.push(set);
            self.cookie = kept.join("; ");
        }
        html
    }

    /// Posts `fields` to `path` as a same-origin form of this browser: the 303's target.
    async fn post(&self, app: &TestApp, path: &str, fields: &[(&str, String)]) -> String {
        let r = self
            .post_with(app, path, fields, &[("sec-fetch-site", "same-origin")])
            .await;
        assert_eq!(r.status(), StatusCode::SEE_OTHER, "{:?}", r.text().await);
        r.headers()["location"].to_str().unwrap().to_owned()
    }

    async fn post_with(
        &self,
        app: &TestApp,
        path: &str,
        fields: &[(&str, String)],
        headers: &[(&str, &str)],
    ) -> reqwest::Response {
        let body: String = fields
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&");
        let mut req = self
            .client
            .post(app.url(path))
            .header("cookie", &self.cookie)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body);
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req.send().await.unwrap()
    }
}

/// The value of the first hidden field `name` whose value ends with `suffix`.
fn hidden(html: &str, name: &str, suffix: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    html.match_indices(&marker)
        .map(|(at, _)| {
            let rest = &html[at + marker.len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .find(|v| v.ends_with(suffix))
        .unwrap_or_else(|| panic!("no hidden {name} ending {suffix:?} in {html}"))
}

async fn holds_of(app: &TestApp, event: &str) -> i64 {
    sqlx::query_scalar("select count(*) from hold where event_id = $1")
        .bind(event)
        .fetch_one(&app.state.db)
        .await
        .unwrap()
}

/// A buyer of an event whose room is on, admitted by a tick, whose browser has loaded the seat
/// map (and so holds the admission cookie).
async fn admitted_browser(app: &TestApp, room: serde_json::Value) -> (Browser, String) {
    let event = app.create_event(event_body(1, 4, room)).await;
    let event = event["id"].as_str().unwrap().to_owned();
    let (_, session) = app.session().await;
    join(app, &event, &session).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    Ticker::new(app.state.line.clone())
        .tick(&event, &room, 0)
        .await
        .unwrap();
    let mut browser = Browser::new(&event, &session);
    let html = browser.page(app, "").await;
    assert!(html.contains("data-seat-id"), "{html}");
    assert!(
        browser.cookie.contains("anteroom_admission_"),
        "{}",
        browser.cookie
    );
    (browser, html)
}

fn seat_ids_of(html: &str) -> Vec<String> {
    html.match_indices("name=\"seat\" value=\"")
        .map(|(at, m)| {
            let rest = &html[at + m.len()..];
            rest[..rest.find('"').unwrap()].to_owned()
        })
        .collect()
}

#[tokio::test]
async fn a_hold_of_ticked_seats_by_form_redirects_to_the_page_showing_it_and_a_double_submit_holds_once()
 {
    let app = spawn_app().await;
    let (mut browser, html) = admitted_browser(&app, json!({"admit_rate_per_second": 10})).await;
    let event = browser.event.clone();
    let seats = seat_ids_of(&html);
    let form = [
        ("token", hidden(&html, "token", "")),
        ("key", hidden(&html, "key", "-seats")),
        ("seat", seats[0].clone()),
        ("seat", seats[1].clone()),
    ];
    let path = format!("/events/{event}/hold");
    assert_eq!(
        browser.post(&app, &path, &form).await,
        format!("/events/{event}")
    );
    assert_eq!(
        browser.post(&app, &path, &form).await,
        format!("/events/{event}")
    );
    assert_eq!(holds_of(&app, &event).await, 1, "the same key holds once");

    let held = browser.page(&app, "").await;
    assert!(held.contains("Your seats are held"), "{held}");
    assert!(held.contains("/pay\""), "a pay form: {held}");
    assert!(held.contains("/release\""), "a release form: {held}");
    let countdown = held
        .split("class=\"countdown")
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .unwrap_or_else(|| panic!("a countdown: {held}"));
    // The time left of the hold just made (10 minutes): "Held for <strong>m:ss</strong> more".
    let left = countdown
        .split_once("Held for <strong>")
        .and_then(|(_, rest)| rest.split_once("</strong> more"))
        .and_then(|(left, _)| left.split_once(':'))
        .and_then(|(m, s)| Some(m.parse::<u32>().ok()? * 60 + s.parse::<u32>().ok()?))
        .unwrap_or_else(|| panic!("the time left, as m:ss: {countdown}"));
    assert!((540..=600).contains(&left), "{left} s left: {countdown}");
}

#[tokio::test]
async fn best_available_by_form_holds_the_quantity_asked() {
    let app = spawn_app().await;
    let (browser, html) = admitted_browser(&app, json!({"admit_rate_per_second": 10})).await;
    let event = browser.event.clone();
    let form = [
        ("token", hidden(&html, "token", "")),
        ("key", hidden(&html, "key", "-best")),
        ("section", "B".to_owned()),
        ("quantity", "3".to_owned()),
    ];
    browser
        .post(&app, &format!("/events/{event}/hold"), &form)
        .await;
    let held: i64 = sqlx::query_scalar(
        "select count(*) from seat where event_id = $1 and status = 'held' and section = 'B'",
    )
    .bind(&event)
    .fetch_one(&app.state.db)
    .await
    .unwrap();
    assert_eq!(held, 3);
}

/// Holds two seats by form in an open room; returns the hold's id and the page.
async fn held_by_form(app: &TestApp, browser: &mut Browser) -> (String, String) {
    let html = browser.page(app, "").await;
    let seats = seat_ids_of(&html);
    let form = [
        ("token", hidden(&html, "token", "")),
        ("key", hidden(&html, "key", "-seats")),
        ("seat", seats[0].clone()),
        ("seat", seats[1].clone()),
    ];
    browser
        .post(app, &format!("/events/{}/hold", browser.event), &form)
        .await;
    let hold_id: String = sqlx::query_scalar("select id from hold where event_id = $1")
        .bind(&browser.event)
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    (hold_id, browser.page(app, "").await)
}

#[tokio::test]
async fn release_by_form_frees_the_seats_and_the_page_shows_the_map_with_a_note() {
    let app = spawn_app().await;
    let (event, _) = open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let (hold_id, held) = held_by_form(&app, &mut browser).await;
    let to = browser
        .post(
            &app,
            &format!("/events/{event}/holds/{hold_id}/release"),
            &[("token", hidden(&held, "token", ""))],
        )
        .await;
    assert_eq!(to, format!("/events/{event}?note=released"));
    assert_eq!(
        app.count("select count(*) from seat where status = 'held'")
            .await,
        0
    );
    let after = browser.page(&app, "?note=released").await;
    assert!(after.contains("data-seat-id"), "the map again: {after}");
    assert!(after.contains("Released. The seats are free for others again."));
}

#[tokio::test]
async fn pay_by_form_confirms_the_order_once() {
    let (app, _) = app_with_fake(quick()).await;
    let (event, _) = open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let (hold_id, held) = held_by_form(&app, &mut browser).await;
    let form = [
        ("token", hidden(&held, "token", "")),
        ("key", hidden(&held, "key", "-pay")),
    ];
    let path = format!("/events/{event}/holds/{hold_id}/pay");
    assert_eq!(
        browser.post(&app, &path, &form).await,
        format!("/events/{event}")
    );
    assert_eq!(
        browser.post(&app, &path, &form).await,
        format!("/events/{event}")
    );
    assert_eq!(app.count("select count(*) from sale").await, 1);
    let paid = browser.page(&app, "").await;
    assert!(paid.contains("You are going!"), "{paid}");
    let order: String = sqlx::query_scalar("select id from sale")
        .fetch_one(&app.state.db)
        .await
        .unwrap();
    assert!(paid.contains(&order));
}

#[tokio::test]
async fn a_cross_site_post_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let html = browser.page(&app, "").await;
    let path = format!("/events/{event}/hold");
    let good = [
        ("token", hidden(&html, "token", "")),
        ("key", "k1".to_owned()),
        ("seat", ids[0].to_string()),
    ];
    // The browser says the form came from elsewhere, even with a token.
    for headers in [
        &[("sec-fetch-site", "cross-site")][..],
        &[("origin", "https://evil.example")][..],
    ] {
        let r = browser.post_with(&app, &path, &good, headers).await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN);
    }
    // A page elsewhere cannot know the token (no header says where the post came from).
    let forged = [("key", "k2".to_owned()), ("seat", ids[0].to_string())];
    let r = browser.post_with(&app, &path, &forged, &[]).await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = browser
        .post_with(
            &app,
            &path,
            &[
                ("token", "v1.AAAA".to_owned()),
                ("key", "k3".to_owned()),
                ("seat", ids[0].to_string()),
            ],
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    // Another buyer's token is not this one's.
    let (_, other) = app.session().await;
    let theirs = Browser::new(&event, &other).page(&app, "").await;
    let r = browser
        .post_with(
            &app,
            &path,
            &[
                ("token", hidden(&theirs, "token", "")),
                ("key", "k4".to_owned()),
                ("seat", ids[0].to_string()),
            ],
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(holds_of(&app, &event).await, 0);
}

#[tokio::test]
async fn a_form_posted_to_its_event_spelt_another_way_is_refused_and_changes_nothing() {
    let app = spawn_app().await;
    let (event, ids) = open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let html = browser.page(&app, "").await;
    // The route matches and its id decodes to the event, but the path names no form as
    // written: refused with a clear error, never a crash, and nothing held.
    let escaped = format!("%{:02X}{}", event.as_bytes()[0], &event[1..]);
    let r = browser
        .post_with(
            &app,
            &format!("/events/{escaped}/hold"),
            &[
                ("token", hidden(&html, "token", "")),
                ("key", "k1".to_owned()),
                ("seat", ids[0].to_string()),
            ],
            &[("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(holds_of(&app, &event).await, 0);
}

#[tokio::test]
async fn a_hold_form_without_admission_leads_back_to_the_line_with_the_sentence() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 4, json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let ids = crate::helpers::seat_ids(&app, &event).await;
    let token_of = |buyer: &str| {
        form_token(
            &app.state.sessions,
            &buyer.to_owned().into(),
            &event.clone().into(),
        )
    };
    let form = |buyer: &str, key: &str| {
        [
            ("token", token_of(buyer)),
            ("key", key.to_owned()),
            ("seat", ids[0].to_string()),
        ]
    };
    let path = format!("/events/{event}/hold");

    // In line, not admitted yet: their turn has not come.
    let (buyer, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let waiting = browser.page(&app, "").await;
    assert!(waiting.contains("in line"), "{waiting}");
    let to = browser.post(&app, &path, &form(&buyer, "a")).await;
    assert_eq!(to, format!("/events/{event}?note=not_your_turn"));
    let page = browser.page(&app, "?note=not_your_turn").await;
    assert!(
        page.contains("It is not your turn to choose seats yet."),
        "{page}"
    );
    assert!(page.contains("in line"), "{page}");

    // No place in line at all (as after a turn that ran out): the page puts them back in it.
    let (buyer, session) = app.session().await;
    let mut gone = Browser::new(&event, &session);
    let to = gone.post(&app, &path, &form(&buyer, "b")).await;
    assert_eq!(to, format!("/events/{event}?note=admission_ended"));
    let back = gone.page(&app, "?note=admission_ended").await;
    assert!(back.contains("Your time to choose seats ran out"), "{back}");
    assert!(back.contains("in line"), "{back}");
    assert_eq!(holds_of(&app, &event).await, 0);
}

#[tokio::test]
async fn bad_form_input_is_refused_with_a_clear_note_and_changes_nothing() {
    let app = spawn_app().await;
    let (browser, html) = admitted_browser(
        &app,
        json!({"admit_rate_per_second": 10, "seats_per_buyer": 2}),
    )
    .await;
    let event = browser.event.clone();
    let seats = seat_ids_of(&html);
    let token = hidden(&html, "token", "");
    let path = format!("/events/{event}/hold");
    let cases: Vec<(Vec<(&str, String)>, &str)> = vec![
        (vec![("seat", "not-a-seat".into())], "bad_form"),
        (
            vec![("seat", seats[0].clone()), ("seat", seats[0].clone())],
            "bad_form",
        ),
        (
            seats[..3].iter().map(|s| ("seat", s.clone())).collect(),
            "too_many_seats",
        ),
        (
            vec![("section", "A".into()), ("quantity", "3".into())],
            "too_many_seats",
        ),
        (
            vec![("section", "A".into()), ("quantity", "lots".into())],
            "bad_form",
        ),
        (vec![], "no_seats"),
    ];
    for (n, (fields, note)) in cases.into_iter().enumerate() {
        let mut form = vec![("token", token.clone()), ("key", format!("k{n}"))];
        form.extend(fields);
        let to = browser.post(&app, &path, &form).await;
        assert_eq!(to, format!("/events/{event}?note={note}"), "case {n}");
    }
    // A key that is no key.
    let to = browser
        .post(
            &app,
            &path,
            &[("token", token.clone()), ("seat", seats[0].clone())],
        )
        .await;
    assert_eq!(to, format!("/events/{event}?note=bad_form"));
    // A hold id that cannot name a hold: not found.
    let r = browser
        .post_with(
            &app,
            &format!("/events/{event}/holds/not%20a%20hold/pay"),
            &[("token", token.clone())],
            &[],
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(holds_of(&app, &event).await, 0);
    // The page says each in a sentence of its own, and only ours.
    let mut browser = browser;
    let page = browser.page(&app, "?note=too_many_seats").await;
    assert!(
        page.contains("more seats than one buyer may hold"),
        "{page}"
    );
    let page = browser.page(&app, "?note=%3Cb%3Ehi%3C%2Fb%3E").await;
    assert!(!page.contains("<b>hi</b>"));
}

#[tokio::test]
async fn when_anteroom_sheds_a_form_leads_back_with_the_wait_and_a_page_says_it_tries_again() {
    let mut config = crate::helpers::test_config();
    config.in_flight_general = 2;
    let app = crate::helpers::spawn_with(config).await;
    let (event, ids) = open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let html = browser.page(&app, "").await;
    let form = [
        ("token", hidden(&html, "token", "")),
        ("key", "k".to_owned()),
        ("seat", ids[0].to_string()),
    ];
    // Every general permit taken, as by a storm of other requests.
    let storm: Vec<_> = (0..2)
        .map(|_| {
            app.state
                .shed
                .try_enter(anteroom::ops::shed::Lane::General)
                .unwrap()
        })
        .collect();
    let to = browser
        .post(&app, &format!("/events/{event}/hold"), &form)
        .await;
    assert_eq!(to, format!("/events/{event}?note=busy&retry=1"));
    let r = browser
        .client
        .get(app.url(&format!("/events/{event}")))
        .header("cookie", &browser.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.headers().contains_key("retry-after"));
    let text = r.text().await.unwrap();
    assert!(text.contains("http-equiv=\"refresh\""), "{text}");
    assert!(text.contains("at capacity this instant"), "{text}");
    assert!(text.contains("<html lang=\"en\" dir=\"ltr\">"), "{text}");
    // In the buyer's language, as their page would have been.
    let busy = |lang: Option<&'static str>, query: &'static str| {
        let mut r = browser
            .client
            .get(app.url(&format!("/events/{event}{query}")))
            .header("cookie", &browser.cookie);
        if let Some(lang) = lang {
            r = r.header("accept-language", lang);
        }
        async move { r.send().await.unwrap() }
    };
    let r = busy(Some("de-CH, de;q=0.9, en;q=0.5"), "").await;
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    let text = r.text().await.unwrap();
    assert!(text.contains("<html lang=\"de\""), "{text}");
    assert!(text.contains("Einen Moment"), "{text}");
    assert!(text.contains("in 2 Sekunden automatisch erneut"), "{text}");
    // A tag written percent-encoded is the same tag.
    let text = busy(Some("de"), "?lang=a%72").await.text().await.unwrap();
    assert!(text.contains("<html lang=\"ar\" dir=\"rtl\">"), "{text}");
    drop(storm);
    assert_eq!(holds_of(&app, &event).await, 0);
    let page = browser.page(&app, "?note=busy&retry=1").await;
    assert!(
        page.contains("Anteroom is at capacity this instant, so nothing was changed. Try again in about a second."),
        "{page}"
    );
}

#[tokio::test]
async fn a_place_moves_here_by_the_claim_form_and_a_used_code_comes_back_with_its_note() {
    let app = spawn_app().await;
    let event = app.room_event(1).await;
    let first = joined(&app, &event).await;
    let mover = joined(&app, &event).await;
    let code = move_code(&app, &event, &mover).await["code"]
        .as_str()
        .unwrap()
        .to_owned();

    // The other device, without JavaScript, opens the code's address: the page only looks
    // (no place of its own at the back) and offers the claim as a form.
    let (_, session) = app.session().await;
    let mut browser = Browser::new(&event, &session);
    let html = browser.page(&app, &format!("?claim={code}")).await;
    assert!(
        html.contains(&format!("action=\"/events/{event}/claim\"")),
        "{html}"
    );
    assert!(html.contains(&format!("name=\"code\" value=\"{code}\"")));
    assert_eq!(poll(&app, &event, &session).await.0, StatusCode::NOT_FOUND);

    let token = hidden(&html, "token", "");
    let form = [("token", token.clone()), ("code", code.clone())];
    let path = format!("/events/{event}/claim");
    // Posted from another site: refused, and the place stays where it is.
    let r = browser
        .post_with(&app, &path, &form, &[("sec-fetch-site", "cross-site")])
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(poll(&app, &event, &mover).await.1["position"], 2);

    let to = browser.post(&app, &path, &form).await;
    assert_eq!(to, format!("/events/{event}?note=claimed"));
    let (status, place) = poll(&app, &event, &session).await;
    assert_eq!(status, StatusCode::OK, "{place}");
    assert_eq!(
        place["position"], 2,
        "the place keeps its position: {place}"
    );
    assert_eq!(poll(&app, &event, &mover).await.0, StatusCode::NOT_FOUND);
    let html = browser.page(&app, "?note=claimed").await;
    let claimed = app::lang::Words::of(app::lang::Lang::En).t("claimed");
    assert!(html.contains(&claimed), "{html}");

    // The code is used now: back to the page with the sentence, nothing moved.
    let to = browser.post(&app, &path, &form).await;
    assert_eq!(to, format!("/events/{event}?note=claim_refused"));
    // A code that is not a code, and no code at all.
    let junk = [("token", token.clone()), ("code", "x".repeat(5000))];
    let to = browser.post(&app, &path, &junk).await;
    assert_eq!(to, format!("/events/{event}?note=claim_refused"));
    let to = browser.post(&app, &path, &[("token", token)]).await;
    assert_eq!(to, format!("/events/{event}?note=bad_form"));
    assert_eq!(poll(&app, &event, &session).await.1["position"], 2);
    assert_eq!(poll(&app, &event, &first).await.1["position"], 1);

    // Whatever the address carries goes into the form as text, never as markup.
    let html = browser
        .page(&app, "?claim=%22%3E%3Cscript%3Ex()%3C/script%3E")
        .await;
    assert!(!html.contains("<script>x()"), "{html}");
    assert!(
        html.contains("name=\"code\" value=\"&quot;&gt;&lt;script&gt;x()"),
        "{html}"
    );
}

#[tokio::test]
async fn in_a_room_that_binds_tokens_the_claim_form_says_a_device_key_is_needed() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(
            1,
            4,
            json!({"admit_rate_per_second": 10, "bind_tokens": true}),
        ))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let (buyer, session) = app.session().await;
    let token = form_token(&app.state.sessions, &buyer.into(), &event.clone().into());
    let browser = Browser::new(&event, &session);
    let to = browser
        .post(
            &app,
            &format!("/events/{event}/claim"),
            &[("token", token), ("code", "K7QMF-3XWD9".to_owned())],
        )
        .await;
    assert_eq!(to, format!("/events/{event}?note=needs_device"));
}
