use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::{event_body, join, page, poll, put_room, seat_ids, spawn_app};

#[tokio::test]
async fn the_events_page_is_rendered_on_the_server_and_issues_a_session_cookie() {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"paused": true}));
    body["name"] = json!("Server Rendered Night");
    app.create_event(body).await;

    let r = app.client.get(app.url("/")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.starts_with("anteroom_session=") && cookie.contains("HttpOnly"));
    let html = r.text().await.unwrap();
    assert!(html.contains("Server Rendered Night"), "{html}");
    assert!(html.contains("Waiting room paused"));
    assert!(
        html.contains("/pkg/anteroom.js"),
        "the hydration script is linked"
    );

    // A returning visitor keeps their session: no new cookie.
    let pair = cookie.split(';').next().unwrap();
    let r = app
        .client
        .get(app.url("/"))
        .header("cookie", pair)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers().get("set-cookie").is_none());
}

#[tokio::test]
async fn an_unknown_page_is_404() {
    let app = spawn_app().await;
    let r = app
        .client
        .get(app.url("/no/such/page"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn the_waiting_room_is_rendered_with_the_real_place_and_keeps_it_on_reload() {
    let config = crate::helpers::test_config();
    let app = crate::helpers::spawn_with(config).await;
    let event = app
        .create_event(event_body(1, 4, json!({"admit_rate_per_second": 2})))
        .await;
    let id = event["id"].as_str().unwrap();
    let (_, ahead) = app.session().await;
    for _ in 0..2 {
        join(&app, id, &ahead).await;
    }
    for n in 0..4 {
        let (_, other) = app.session().await;
        if n < 3 {
            join(&app, id, &other).await;
        }
    }
    // A first visit (no session cookie yet: a buyer, or a link previewer) only looks: the
    // page says the browser is getting its place and reloads itself with its new cookie.
    let line_length = || async {
        let n: u64 = redis::cmd("ZCARD")
            .arg(app.state.keys.queue(id))
            .query_async(&mut app.state.redis.clone())
            .await
            .unwrap();
        n
    };
    let (first, cookies) = page(&app, &format!("/events/{id}"), None).await;
    assert!(first.contains("Getting your place"), "{first}");
    assert!(
        first.contains("http-equiv=\"refresh\" content=\"1\""),
        "{first}"
    );
    assert_eq!(line_length().await, 4, "a first visit takes no place");
    let session = cookies
        .iter()
        .find(|c| c.starts_with("anteroom_session="))
        .unwrap();
    // A prefetch with the cookie only looks too.
    let r = app
        .client
        .get(app.url(&format!("/events/{id}")))
        .header("cookie", session)
        .header("sec-purpose", "prefetch;prerender")
        .send()
        .await
        .unwrap();
    assert!(r.text().await.unwrap().contains("Getting your place"));
    assert_eq!(line_length().await, 4, "a prefetch takes no place");
    // The browser comes back with its cookie: now it joins, and the first paint shows it.
    let (html, cookies) = page(&app, &format!("/events/{id}"), Some(session)).await;
    assert!(
        html.contains("You are <strong>#5</strong> in line"),
        "{html}"
    );
    assert!(
        html.contains("about 2 to 4 seconds"),
        "5 / 2 rounded down, to 5 / 1.5 rounded up (a quarter slower before the rate has a \
         history): {html}"
    );
    assert!(
        html.contains("http-equiv=\"refresh\""),
        "refreshes itself without JavaScript"
    );
    assert!(
        !html.contains("data-seat-id"),
        "no seat data before admission"
    );
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with(&format!("anteroom_place_{id}="))),
        "the page hands the place receipt too: {cookies:?}"
    );
    let (again, _) = page(&app, &format!("/events/{id}/seats"), Some(session)).await;
    assert!(
        again.contains("You are <strong>#5</strong> in line"),
        "a reload keeps the place"
    );
    assert!(
        !again.contains("data-seat-id"),
        "the seat map URL shows the waiting room"
    );
}

#[tokio::test]
async fn an_admitted_buyer_gets_the_seat_map_and_the_admission_cookie() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 4, json!({"enabled": false})))
        .await;
    let id = event["id"].as_str().unwrap();
    let (html, cookies) = page(&app, &format!("/events/{id}"), None).await;
    assert!(
        cookies
            .iter()
            .any(|c| c.starts_with(&format!("anteroom_admission_{id}=")))
    );
    // One section a page: the first with seats free, and the overview's links to each.
    let ids = seat_ids(&app, id).await;
    let drawn = |html: &str| -> Vec<i64> {
        ids.iter()
            .copied()
            .filter(|s| html.contains(&format!("data-seat-id=\"{s}\"")))
            .collect()
    };
    assert_eq!(drawn(&html), ids[..4], "section A only");
    for n in [1, 2] {
        assert!(
            html.contains(&format!("href=\"/events/{id}?section={n}\"")),
            "the overview links section {n}"
        );
    }
    let cookie = cookies.join("; ");
    let (second, _) = page(&app, &format!("/events/{id}?section=2"), Some(&cookie)).await;
    assert_eq!(drawn(&second), ids[4..], "section B only");
    let open =
        |n| format!("href=\"/events/{id}?section={n}\" rel=\"external\" aria-current=\"true\"");
    assert!(second.contains(&open(2)) && !second.contains(&open(1)));
    // A section the hall does not have opens the first with seats free.
    let (none, _) = page(&app, &format!("/events/{id}?section=9"), Some(&cookie)).await;
    assert_eq!(drawn(&none), ids[..4]);
}

#[tokio::test]
async fn before_the_opening_the_page_counts_down_and_in_the_pre_queue_shows_the_ticket_on_every_reload()
 {
    let app = spawn_app().await;
    let at = |minutes: i64| {
        (chrono::Utc::now() + chrono::Duration::minutes(minutes))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let event = app
        .create_event(event_body(
            1,
            4,
            json!({"opens_at": at(120), "prequeue_seconds": 3600}),
        ))
        .await;
    let id = event["id"].as_str().unwrap();
    let path = format!("/events/{id}");

    // The pre-queue opens in an hour: a countdown rendered by the server (right on every
    // reload, without JavaScript), the promise of an equal chance, and nothing stored.
    let (html, cookies) = page(&app, &path, None).await;
    assert!(html.contains("The sale has not opened yet"), "{html}");
    assert!(html.contains("data-countdown=\"prequeue\""), "{html}");
    assert!(
        html.contains(">1:00:00<") || html.contains(">59:59<"),
        "an hour to go: {html}"
    );
    assert!(html.contains("has the same chance"), "{html}");
    assert!(html.contains("http-equiv=\"refresh\""), "{html}");
    let entrants: u64 = redis::cmd("HLEN")
        .arg(app.state.keys.entrants(id))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(entrants, 0);

    // The opening moves to half an hour from now: the pre-queue is open. The page joins it
    // and shows the ticket, the same one on every reload, and the countdown to the draw.
    let r = put_room(&app, id, json!({"opens_at": at(30)})).await;
    assert_eq!(r.status(), StatusCode::OK);
    let session = cookies
        .iter()
        .find(|c| c.starts_with("anteroom_session="))
        .unwrap();
    let (html, _) = page(&app, &path, Some(session)).await;
    let token = session.trim_start_matches("anteroom_session=");
    let (_, polled) = poll(&app, id, token).await;
    let ticket = polled["ticket"].as_str().unwrap();
    assert!(html.contains("You are in the pre-queue"), "{html}");
    assert!(html.contains(ticket), "{html}");
    assert!(
        html.contains(", in 30:00.") || html.contains(", in 29:59."),
        "the countdown to the draw: {html}"
    );
    let (again, _) = page(&app, &path, Some(session)).await;
    assert!(again.contains(ticket));
}

/// A reload during a hold comes back to the hold (not to the line, whatever the admission says
/// by then), and a reload after paying to the order.
#[tokio::test]
async fn a_reload_resumes_the_hold_and_after_paying_shows_the_order() {
    let (app, _) = crate::helpers::app_with_fake(crate::helpers::quick()).await;
    let (event, ids) = crate::helpers::open_event(&app, 1, 4).await;
    let (_, session) = app.session().await;
    let cookie = format!("anteroom_session={session}");
    let path = format!("/events/{event}");
    let (before, _) = page(&app, &path, Some(&cookie)).await;
    assert!(
        before.contains("data-seat-id"),
        "the room is off: the seat map"
    );

    let r = crate::helpers::hold(
        &app,
        &event,
        &session,
        "k",
        crate::helpers::hold_body(&ids[0..2]),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold: serde_json::Value = r.json().await.unwrap();
    let hold_id = hold["hold_id"].as_str().unwrap();
    let (held, _) = page(&app, &path, Some(&cookie)).await;
    assert!(held.contains("Your seats are held"), "{held}");
    assert!(!held.contains("data-seat-id"), "the hold, not the map");

    let r = crate::helpers::checkout(&app, &session, hold_id, "pay").await;
    assert_eq!(r.status(), StatusCode::OK);
    let order: serde_json::Value = r.json().await.unwrap();
    let (paid, _) = page(&app, &path, Some(&cookie)).await;
    assert!(paid.contains("You are going!"), "{paid}");
    assert!(paid.contains(order["order_id"].as_str().unwrap()));

    // Another buyer's reload knows nothing of it.
    let (_, stranger) = app.session().await;
    let (theirs, _) = page(&app, &path, Some(&format!("anteroom_session={stranger}"))).await;
    assert!(!theirs.contains("Your seats are held") && !theirs.contains("You are going!"));
}

#[tokio::test]
async fn pages_show_the_venues_local_time_with_its_zone_and_prices_in_its_currency() {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"enabled": false}));
    body["time_zone"] = json!("Europe/Berlin");
    body["currency"] = json!("USD");
    // 18:00 UTC on 1 December is 19:00 in Berlin (winter, +1 h).
    body["starts_at"] = json!("2026-12-01T18:00:00Z");
    let event = app.create_event(body).await;
    let id = event["id"].as_str().unwrap();
    assert_eq!(event["zone"]["name"], "Europe/Berlin");
    assert_eq!(event["currency"], "USD");

    let home = app.client.get(app.url("/")).send().await.unwrap();
    let home = home.text().await.unwrap();
    assert!(
        home.contains("Tuesday 1 December 2026, 19:00 Berlin time"),
        "{home}"
    );
    assert!(!home.contains("UTC"), "{home}");
    // No waiting with the room off: the seat map in the first paint, in dollars.
    let (_, cookies) = page(&app, &format!("/events/{id}"), None).await;
    let session = cookies
        .iter()
        .find(|c| c.starts_with("anteroom_session="))
        .unwrap();
    let (html, _) = page(&app, &format!("/events/{id}"), Some(session)).await;
    assert!(html.contains("$50.00"), "{html}");
    assert!(!html.contains('€'), "{html}");

    // A sale opening in summer time reads +2 h on the event's page.
    let r = put_room(
        &app,
        id,
        json!({"enabled": true, "opens_at": "2027-06-01T17:00:00Z"}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let (html, _) = page(&app, &format!("/events/{id}"), Some(session)).await;
    assert!(html.contains("19:00 Berlin time"), "{html}");
}

#[tokio::test]
async fn an_event_named_like_a_script_renders_escaped_under_a_policy_with_a_nonce() {
    let app = spawn_app().await;
    let mut body = event_body(1, 2, json!({"enabled": false}));
    let name = "</title><script>alert(1)</script>";
    body["name"] = json!(name);
    let event = app.create_event(body).await;
    let event = event["id"].as_str().unwrap();
    for path in ["/".to_owned(), format!("/events/{event}")] {
        let r = app.client.get(app.url(&path)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let policy = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_owned();
        let html = r.text().await.unwrap();
        assert!(
            !html.contains(name),
            "{path}: the name reached the HTML raw"
        );
        assert!(!html.contains("<script>alert(1)"), "{path}");
        assert!(
            html.contains("&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{path}"
        );
        // The policy allows the page's own inline scripts, by their nonce, and no others.
        let nonce = policy
            .split(['\'', ' ', ';'])
            .find_map(|part| part.strip_prefix("nonce-"))
            .expect("a nonce in the policy")
            .to_owned();
        let script_src = policy
            .split(';')
            .map(str::trim)
            .find(|d| d.starts_with("script-src "))
            .expect("a script-src directive");
        assert!(script_src.contains(&format!("'nonce-{nonce}'")), "{policy}");
        assert!(!script_src.contains("unsafe-inline"), "{policy}");
        let scripts = html.matches("<script").count();
        let with_nonce = html
            .matches(&format!("<script type=\"module\" nonce=\"{nonce}\""))
            .count()
            + html.matches(&format!("<script nonce=\"{nonce}\"")).count();
        assert!(scripts > 0, "{path}: the hydration script is inline");
        assert_eq!(
            with_nonce, scripts,
            "{path}: every inline script carries the nonce\n{html}"
        );
    }
}
