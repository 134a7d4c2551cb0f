//! Sold out and the outlook (API.md "Sold out, and the outlook"): the line learns the seats
//! from the ticker's count, ends when every seat is sold, waits while none is free but some are
//! held, and tells each waiting buyer whether seats are likely to be left at their turn.

use anteroom::admission::ticker::{Tick, Ticker};
use app::wire::Room;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, app_with_fake, checkout, event_body, hold_admitted, hold_body, join, joined,
    line_length, page, poll, quick, seat_ids, spawn_app,
};

/// One tick by `ticker`, which must lead: how many it admitted.
async fn tick(ticker: &Ticker, event: &str, room: &Room) -> u64 {
    match ticker.tick(event, room, 0).await.unwrap() {
        Tick::Admitted { count, .. } => count,
        other => panic!("the test's ticker leads a sale open now: {other:?}"),
    }
}

/// The room of `event`, paused: a tick in it counts the seats and admits nobody.
fn paused(room: &Room) -> Room {
    Room {
        paused: true,
        ..room.clone()
    }
}

/// The admission token of `session`'s poll, which must answer admitted.
async fn admission(app: &TestApp, event: &str, session: &str) -> String {
    let (status, body) = poll(app, event, session).await;
    assert_eq!(
        (status, &body["status"]),
        (StatusCode::OK, &json!("admitted"))
    );
    body["admission_token"].as_str().unwrap().to_owned()
}

/// An event of 2 seats admitting 1 a tick, whose first buyer was admitted and holds both
/// seats, with a second buyer waiting behind them.
struct EveryFreeSeatHeld {
    event: String,
    room: Room,
    /// The event's ticker leader (the test's only ticker).
    ticker: Ticker,
    buyer: String,
    admission: String,
    hold_id: String,
    waiting: String,
}

async fn every_free_seat_held(app: &TestApp) -> EveryFreeSeatHeld {
    let event = app
        .create_event(event_body(1, 1, json!({"admit_rate_per_second": 1})))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let buyer = joined(app, &event).await;
    let waiting = joined(app, &event).await;
    assert_eq!(tick(&ticker, &event, &room).await, 1);
    let admission = admission(app, &event, &buyer).await;
    let all = hold_body(&seat_ids(app, &event).await);
    let r = hold_admitted(app, &event, (&buyer, &admission), "all", all).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold: Value = r.json().await.unwrap();
    EveryFreeSeatHeld {
        event,
        room,
        ticker,
        buyer,
        admission,
        hold_id: hold["hold_id"].as_str().unwrap().to_owned(),
        waiting,
    }
}

#[tokio::test]
async fn selling_the_last_seat_ends_admission_and_the_line_for_joiners_waiters_and_the_admitted() {
    let (app, _) = app_with_fake(quick()).await;
    let night = every_free_seat_held(&app).await;
    let event = night.event.as_str();
    let r = checkout(&app, &night.buyer, &night.hold_id, "pay").await;
    assert_eq!(r.status(), StatusCode::OK);

    assert_eq!(
        tick(&night.ticker, event, &night.room).await,
        0,
        "nobody is admitted into a sold-out event"
    );
    let sold_out = (StatusCode::OK, json!({"status": "sold_out"}));
    assert_eq!(
        poll(&app, event, &night.waiting).await,
        sold_out,
        "the waiting"
    );
    assert_eq!(
        poll(&app, event, &night.buyer).await,
        sold_out,
        "the admitted"
    );
    let (_, late) = app.session().await;
    assert_eq!(join(&app, event, &late).await, sold_out, "a newcomer");
    assert_eq!(
        line_length(&app, event).await,
        1,
        "the newcomer was not put in line (only the one left waiting is)"
    );
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(&night.buyer)
        .header("admission-token", &night.admission)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the seat map still answers");
}

#[tokio::test]
async fn with_every_free_seat_held_admission_waits_and_resumes_when_a_hold_expires() {
    let app = spawn_app().await;
    let night = every_free_seat_held(&app).await;
    let event = night.event.as_str();
    for _ in 0..3 {
        assert_eq!(
            tick(&night.ticker, event, &night.room).await,
            0,
            "no seat free: admission waits"
        );
    }
    let (status, body) = poll(&app, event, &night.waiting).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "waiting", "held seats may come back");
    assert_eq!(body["position"], 1);
    assert_eq!(body["outlook"], "uncertain");

    // The hold's time runs out (its expiry moved to the past: the clock, not the sweep, frees
    // the seats for the line as it does for the hold transaction).
    sqlx::query("update hold set expires_at = now() - interval '1 second' where id = $1")
        .bind(&night.hold_id)
        .execute(&app.state.db)
        .await
        .unwrap();
    assert_eq!(
        tick(&night.ticker, event, &night.room).await,
        1,
        "admission resumes"
    );
    admission(&app, event, &night.waiting).await;
}

#[tokio::test]
async fn the_page_says_the_outlook_while_waiting_and_sold_out_instead_of_a_place() {
    let (app, _) = app_with_fake(quick()).await;
    let night = every_free_seat_held(&app).await;
    let event = night.event.as_str();
    tick(&night.ticker, event, &night.room).await;
    let path = format!("/events/{event}");
    let cookie = format!("anteroom_session={}", night.waiting);
    let (html, _) = page(&app, &path, Some(&cookie)).await;
    assert!(
        html.contains("You are <strong>#1</strong> in line"),
        "{html}"
    );
    assert!(
        html.contains(
            "Seats may or may not be left when your turn comes: it depends on held seats coming back."
        ),
        "{html}"
    );

    let r = checkout(&app, &night.buyer, &night.hold_id, "pay").await;
    assert_eq!(r.status(), StatusCode::OK);
    tick(&night.ticker, event, &night.room).await;
    let (html, _) = page(&app, &path, Some(&cookie)).await;
    assert!(html.contains("Sold out"), "{html}");
    assert!(
        !html.contains("in line"),
        "no position once sold out: {html}"
    );
}

/// The outlook of `session`'s poll.
async fn outlook(app: &TestApp, event: &str, session: &str) -> Value {
    let (status, body) = poll(app, event, session).await;
    assert_eq!(
        (status, &body["status"]),
        (StatusCode::OK, &json!("waiting"))
    );
    body["outlook"].clone()
}

#[tokio::test]
async fn the_outlook_is_the_models_likely_near_the_seats_and_unlikely_far_beyond_them() {
    let app = spawn_app().await;
    // 8 seats: sections A and B of 4; a buyer holds 4 at most.
    let event = app
        .create_event(event_body(
            1,
            4,
            json!({"admit_rate_per_second": 1, "seats_per_buyer": 4}),
        ))
        .await;
    let event = event["id"].as_str().unwrap();
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let first = joined(&app, event).await;
    let mut line = Vec::new();
    for _ in 0..90 {
        line.push(joined(&app, event).await);
    }
    let (_, before_any_count) = poll(&app, event, &line[0]).await;
    assert!(
        before_any_count.get("outlook").is_none(),
        "nothing is said before the line knows the seats"
    );
    assert_eq!(tick(&ticker, event, &paused(&room)).await, 0);
    // Before any hold the model knows only its priors (1 to 4 seats a hold, a quarter to three
    // quarters of held seats back, half to all of the admitted holding): the first places are
    // likely even at 4 seats a hold, a place far beyond what 8 seats could serve even at 1
    // seat a hold is unlikely, and in between nothing is known yet.
    assert_eq!(outlook(&app, event, &first).await, "likely");
    assert_eq!(outlook(&app, event, &line[0]).await, "likely");
    assert_eq!(outlook(&app, event, &line[10]).await, "uncertain");
    assert_eq!(outlook(&app, event, &line[89]).await, "unlikely");

    // The first buyer, admitted, holds all of section A: 4 seats free, 4 held, and the shares
    // measured so far (one hold of 4 seats). The line's answer is the model's, read from the
    // same seats.
    assert_eq!(tick(&ticker, event, &room).await, 1);
    let token = admission(&app, event, &first).await;
    let section_a = json!({"section": "A", "quantity": 4});
    let r = hold_admitted(&app, event, (&first, &token), "a", section_a).await;
    assert_eq!(r.status(), StatusCode::CREATED);
    tick(&ticker, event, &paused(&room)).await;
    let (_, body) = poll(&app, event, &line[89]).await;
    assert_eq!(body["outlook"], "unlikely", "{body}");
    let (_, body) = poll(&app, event, &line[0]).await;
    assert_eq!(body["position"], 1);
    assert_eq!(
        body["outlook"], "likely",
        "4 free seats for the next buyer: {body}"
    );
}

/// An event of `2 * seats_per_row` seats of at most 2 a buyer, admitting up to 100 a tick,
/// with `buyers` in line: (event, room, ticker, the line's sessions, first in line first).
async fn line_for_few_seats(
    app: &TestApp,
    seats_per_row: u32,
    buyers: usize,
) -> (String, Room, Ticker, Vec<String>) {
    let event = app
        .create_event(event_body(
            1,
            seats_per_row,
            json!({"admit_rate_per_second": 100, "seats_per_buyer": 2}),
        ))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let mut line = Vec::new();
    for _ in 0..buyers {
        line.push(joined(app, &event).await);
    }
    (event, room, ticker, line)
}

/// `buyer` (admitted) opens the seat map: now on it.
async fn opens_the_map(app: &TestApp, event: &str, buyer: &str) {
    let token = admission(app, event, buyer).await;
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/seats")))
        .bearer_auth(buyer)
        .header("admission-token", &token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

/// N a second while seats are free (issue 64, API.md's contract): 20 seats, N = 10, 100
/// buyers who never open the seat map: 10 admitted a tick, tick after tick, though the
/// admitted outnumber the seats (a guess about seats never keeps free seats from the line).
#[tokio::test]
async fn buyers_who_never_open_the_map_hold_nobody_back() {
    let app = spawn_app().await;
    let event = app
        .create_event(event_body(1, 10, json!({"admit_rate_per_second": 10})))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    for _ in 0..100 {
        joined(&app, &event).await;
    }
    let mut admitted = Vec::new();
    for _ in 0..4 {
        admitted.push(tick(&ticker, &event, &room).await);
    }
    assert_eq!(admitted, [10, 10, 10, 10]);
    assert_eq!(line_length(&app, &event).await, 60);
}

/// Only what is measured holds admissions back (issue 64): the buyers really on the seat map,
/// each for the seats this night's holds took (1 before the first hold); a buyer admitted who
/// never opens the map holds nobody back; with no seat free, admission waits; seats that come
/// back admit the next buyers.
#[tokio::test]
async fn only_the_buyers_on_the_map_hold_admissions_back() {
    let app = spawn_app().await;
    // 8 seats, 2 a buyer at most, 100 admissions a tick, 20 in line.
    let (event, room, ticker, line) = line_for_few_seats(&app, 4, 20).await;
    // Nobody on the map: the 8 free seats, one a buyer before any hold.
    assert_eq!(tick(&ticker, &event, &room).await, 8);
    // 5 of them open the map: 3 seats are left to the line.
    for buyer in &line[..5] {
        opens_the_map(&app, &event, buyer).await;
    }
    assert_eq!(tick(&ticker, &event, &room).await, 3);
    // 4 of them hold 2 seats each: nothing is free, nobody more is admitted.
    let mut holds = Vec::new();
    for (i, buyer) in line[..4].iter().enumerate() {
        let token = admission(&app, &event, buyer).await;
        let section = if i < 2 { "A" } else { "B" };
        let r = hold_admitted(
            &app,
            &event,
            (buyer, &token),
            &format!("h{i}"),
            json!({"section": section, "quantity": 2}),
        )
        .await;
        assert_eq!(r.status(), StatusCode::CREATED);
        let hold: Value = r.json().await.unwrap();
        holds.push(hold["hold_id"].as_str().unwrap().to_owned());
    }
    assert_eq!(tick(&ticker, &event, &room).await, 0);
    let lapse = async |hold: &str| {
        sqlx::query("update hold set expires_at = now() - interval '1 second' where id = $1")
            .bind(hold)
            .execute(&app.state.db)
            .await
            .unwrap();
    };
    // One hold lapses: 2 seats free, and the fifth buyer is still on the map, now counted
    // for the 2 seats this night's holds took: nobody is admitted for them.
    lapse(&holds[0]).await;
    assert_eq!(tick(&ticker, &event, &room).await, 0);
    // A second hold lapses: 4 free, 2 of them the fifth buyer's: 2 more admitted.
    lapse(&holds[1]).await;
    assert_eq!(tick(&ticker, &event, &room).await, 2);
    admission(&app, &event, &line[11]).await;
    admission(&app, &event, &line[12]).await;
    let (_, next) = poll(&app, &event, &line[13]).await;
    assert_eq!(next["status"], "waiting", "{next}");
}

/// A buyer who opened the seat map and left stops holding back the line once their window on
/// the map has passed (`seatmap_window_seconds` after their last look), not at the end of
/// their admission.
#[tokio::test]
async fn a_buyer_who_looked_at_the_map_and_left_stops_holding_back_the_line() {
    let mut config = crate::helpers::test_config();
    config.seatmap_deadline_seconds = 1;
    config.seatmap_window_seconds = 1;
    let app = crate::helpers::spawn_with(config).await;
    // 2 seats, 2 in line and 2 more behind them.
    let (event, room, ticker, line) = line_for_few_seats(&app, 1, 4).await;
    assert_eq!(tick(&ticker, &event, &room).await, 2);
    // Both look at the map, and neither holds.
    for buyer in &line[..2] {
        opens_the_map(&app, &event, buyer).await;
    }
    assert_eq!(tick(&ticker, &event, &room).await, 0, "both on the map");
    // Once their window has passed, they no longer hold back the line, though their
    // admissions last minutes more.
    crate::helpers::eventually(
        "the next two are admitted",
        std::time::Duration::from_secs(5),
        async || {
            tick(&ticker, &event, &room).await;
            poll(&app, &event, &line[3]).await.1["status"] == "admitted"
        },
    )
    .await;
}

/// A house's earlier nights stand in for the estimate's priors (`app::estimate::History`),
/// counted once a night is kept and stored beside the seats; they never hold admissions back
/// (issue 64: only this night's measure does), so every tick admits the free seats' worth.
#[tokio::test]
async fn the_earlier_nights_of_the_house_stand_in_for_the_priors() {
    let app = spawn_app().await;
    let (first, room, ticker, _) = line_for_few_seats(&app, 4, 12).await;
    assert_eq!(tick(&ticker, &first, &room).await, 8);
    // An earlier night: 25 buyers admitted in its first wave, 20 of whom held a seat (12
    // bought, 8 let it lapse a minute ago); 30 admitted after that first lapse held nothing
    // (the seats were gone), which says nothing of who wants one.
    let earlier = app
        .create_event(event_body(5, 10, json!({"admit_rate_per_second": 10})))
        .await;
    let earlier = earlier["id"].as_str().unwrap();
    let db = &app.state.db;
    for i in 0..20 {
        sqlx::query(
            "insert into hold (id, event_id, buyer_id, status, idempotency_key, expires_at, \
                               total_cents, seat_count) \
             values ($1, $2, $3, $4, 'k', now() - interval '1 minute', 0, 1)",
        )
        .bind(format!("h-earlier-{i}"))
        .bind(earlier)
        .bind(format!("b-{i}"))
        .bind(if i < 12 { "purchased" } else { "expired" })
        .execute(db)
        .await
        .unwrap();
    }
    let admit = |n: i64, buyer: String, ago: &'static str| {
        sqlx::query(
            "insert into admission (event_id, n, arrival, admitted_at, buyer_id) \
             values ($1, $2, $2, now() - $3::interval, $4)",
        )
        .bind(earlier)
        .bind(n)
        .bind(ago)
        .bind(buyer)
        .execute(db)
    };
    for i in 0..25 {
        admit(i + 1, format!("b-{i}"), "10 minutes").await.unwrap();
    }
    for i in 0..30 {
        admit(26 + i, format!("c-{i}"), "0 seconds").await.unwrap();
    }
    // Not yet kept as a night: the next event still has the operator's expectations (one
    // seat a hold, every admitted buyer holding) and the generic prior of the seats back.
    let (unkept, room, _, _) = line_for_few_seats(&app, 4, 12).await;
    assert_eq!(tick(&ticker, &unkept, &room).await, 8);
    let unmeasured: Vec<Option<i64>> = redis::cmd("HMGET")
        .arg(app.state.keys.inventory(&unkept))
        .arg(&["history_seats_per_hold", "history_back", "history_came"])
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(unmeasured, [Some(1000), Some(0), Some(1000)]);
    sqlx::query(
        "insert into night (event_id, started_at, ended_at, reason) \
         values ($1, now() - interval '1 hour', now(), 'room_off')",
    )
    .bind(earlier)
    .execute(db)
    .await
    .unwrap();
    // Kept: one seat a hold, 8 of 20 seats back, 4 in 5 of the first wave holding.
    let (next, room, _, line) = line_for_few_seats(&app, 4, 12).await;
    assert_eq!(tick(&ticker, &next, &room).await, 8);
    let (_, ninth) = poll(&app, &next, &line[8]).await;
    assert_eq!(ninth["status"], "waiting", "{ninth}");
    let history: Vec<Option<i64>> = redis::cmd("HMGET")
        .arg(app.state.keys.inventory(&next))
        .arg(&["history_seats_per_hold", "history_back", "history_came"])
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(history, [Some(1000), Some(400), Some(800)]);
}

/// The operator's expectations of a first night (issue 64): before the night's first hold a
/// buyer on the seat map holds back the seats a hold is expected to take (within the room's
/// limit a buyer), the estimate counts with them, and the panel shows them beside what the
/// night measured; the night's first hold replaces them where admissions are held back.
#[tokio::test]
async fn the_operators_expectations_stand_in_until_the_night_measures_its_own() {
    let app = spawn_app().await;
    // 8 seats, 2 a buyer at most, 100 admissions a tick, 20 in line.
    let (event, _, ticker, line) = line_for_few_seats(&app, 4, 20).await;
    for bad in [
        json!({"expected_seats_per_hold": 0}),
        json!({"expected_seats_per_hold": 51}),
        json!({"expected_holding_percent": 0}),
        json!({"expected_holding_percent": 101}),
    ] {
        let r = crate::helpers::put_room(&app, &event, bad.clone()).await;
        crate::helpers::expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    // Three seats a hold, beyond this room's two: two in use.
    let r = crate::helpers::put_room(
        &app,
        &event,
        json!({"expected_seats_per_hold": 3, "expected_holding_percent": 50}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::OK);
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    assert_eq!(
        (room.expected_seats_per_hold, room.expected_seats()),
        (3, 2)
    );
    assert_eq!(tick(&ticker, &event, &room).await, 8);
    // 3 open the map: 2 seats each spoken for, 2 of the 8 left to the line.
    for buyer in &line[..3] {
        opens_the_map(&app, &event, buyer).await;
    }
    assert_eq!(tick(&ticker, &event, &room).await, 2);
    let stats = app.stats(&event).await;
    // The panel says why admissions wait (the inventory's hash, read once with the shares).
    let reason = stats["rate_reason"].as_str().unwrap();
    assert!(
        reason.contains("taken by the 3 buyers on the seat map"),
        "{reason}"
    );
    let shares = &stats["shares"];
    assert_eq!(shares["seats_per_hold"]["expected"], 2.0, "{shares}");
    assert_eq!(
        shares["seats_per_hold"]["measured"],
        Value::Null,
        "{shares}"
    );
    assert_eq!(shares["seats_per_hold"]["in_use"], 2.0, "{shares}");
    assert_eq!(shares["holding"]["expected"], 0.5, "{shares}");
    assert_eq!(shares["holding"]["in_use"], 0.5, "{shares}");
    // The first buyer holds one seat: the night's own measure (1 a hold) replaces the
    // expectation, the two still on the map hold back 1 each of the 7 free: 5 admitted.
    let token = admission(&app, &event, &line[0]).await;
    let r = hold_admitted(
        &app,
        &event,
        (&line[0], &token),
        "h0",
        json!({"section": "A", "quantity": 1}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(tick(&ticker, &event, &room).await, 5);
    let stats = app.stats(&event).await;
    let seats = &stats["shares"]["seats_per_hold"];
    assert_eq!(
        (&seats["measured"], &seats["samples"]),
        (&json!(1.0), &json!(1)),
        "{seats}"
    );
    // One hold of one seat against the expectation's weight of an earlier night: between.
    let in_use = seats["in_use"].as_f64().unwrap();
    assert!(in_use > 1.0 && in_use < 2.0, "{seats}");
}
