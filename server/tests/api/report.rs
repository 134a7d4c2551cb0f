//! The night's report and its admission log (API.md "The night's report"): the report's
//! figures are recomputed here from the paged log and from the answers the buyers had at
//! joining; paging's bounds; the log survives flushes that race or repeat; admissions with the
//! room off are logged with their arrival.

use std::{collections::HashMap, time::Duration};

use anteroom::admission::{archive, log, ticker::Ticker};
use app::estimate::Model;
use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, app_with_fake, checkout, event_body, eventually, expect_error, hold_admitted, join,
    poll, put_room, quick, spawn_app, steer, test_config, two_instances_and_an_event,
};

/// An event whose room admits `rate` a second in ticks of 100 ms.
async fn event_at(app: &TestApp, rate: u32) -> String {
    let event = app
        .create_event(event_body(
            2,
            10,
            json!({"admit_rate_per_second": rate, "tick_ms": 100}),
        ))
        .await;
    event["id"].as_str().unwrap().to_owned()
}

/// `n` buyers join the line of `event`: their join answers, in joining order.
async fn buyers_join(app: &TestApp, event: &str, n: usize) -> Vec<(String, Value)> {
    let mut joined = Vec::new();
    for _ in 0..n {
        let (_, token) = app.session().await;
        let (status, body) = join(app, event, &token).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        joined.push((token, body));
    }
    joined
}

/// `ticks` admission ticks of `event`, one 100 ms apart on the clock the ticker is given.
async fn tick(app: &TestApp, ticker: &Ticker, event: &str, ticks: i64) {
    let room = app.state.rooms.get(&app.state.db, event).await.unwrap();
    for second in 0..ticks {
        ticker.tick(event, &room, second).await.unwrap();
    }
}

/// Every entry of the admission log, page by page (`limit` a page).
async fn paged_log(app: &TestApp, event: &str, limit: u64) -> (Vec<Value>, usize) {
    let mut entries = Vec::new();
    let mut after = 0;
    let mut pages = 0;
    loop {
        let r = app
            .client
            .get(app.url(&format!(
                "/api/events/{event}/report/admissions?after={after}&limit={limit}"
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let page: Value = r.json().await.unwrap();
        pages += 1;
        let got = page["entries"].as_array().unwrap();
        assert!(got.len() as u64 <= limit);
        entries.extend(got.iter().cloned());
        match page["next"].as_u64() {
            Some(next) => after = next,
            None => return (entries, pages),
        }
    }
}

async fn report(app: &TestApp, event: &str) -> Value {
    let r = app
        .client
        .get(app.url(&format!("/api/events/{event}/report")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    r.json().await.unwrap()
}

fn seconds_between(from: &Value, to: &Value) -> f64 {
    let at = |v: &Value| chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    (at(to) - at(from)).num_milliseconds() as f64 / 1000.0
}

/// Nearest rank, to the millisecond, as the report says.
fn rank(sorted: &[f64], p: f64) -> f64 {
    let i = ((p * sorted.len() as f64).ceil() as usize).max(1) - 1;
    (sorted[i] * 1000.0).round() / 1000.0
}

#[tokio::test]
async fn the_report_says_what_the_paged_log_and_the_answers_at_joining_say() {
    let app = spawn_app().await;
    let event = event_at(&app, 30).await;
    let joined = buyers_join(&app, &event, 12).await;
    // Every waiting answer carries its band, and the band holds the estimate.
    let told: HashMap<u64, (u64, [u64; 2])> = joined
        .iter()
        .map(|(_, body)| {
            let estimate = body["estimated_wait_seconds"].as_u64().unwrap();
            let range = body["estimate_range_seconds"].as_array().unwrap();
            let (low, high) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
            assert!(low <= estimate && estimate <= high, "{body}");
            (body["arrival"].as_u64().unwrap(), (estimate, [low, high]))
        })
        .collect();
    let ticker = Ticker::new(app.state.line.clone());
    tick(&app, &ticker, &event, 4).await;
    ticker.flush().await.unwrap();

    let (entries, pages) = paged_log(&app, &event, 5).await;
    assert_eq!(entries.len(), 12);
    assert_eq!(pages, 3, "5 + 5 + 2");
    let mut errors = Vec::new();
    let mut within = 0;
    let mut inversions = 0;
    let mut latest = 0;
    for (i, entry) in entries.iter().enumerate() {
        assert_eq!(entry["n"], i as u64 + 1);
        assert!(entry.get("buyer_id").is_none());
        let arrival = entry["arrival"].as_u64().unwrap();
        inversions += u64::from(arrival < latest);
        latest = latest.max(arrival);
        // The log's estimate is the one the buyer was told at joining.
        let (estimate, [low, high]) = told[&arrival];
        assert_eq!(entry["estimated_wait_seconds"], estimate);
        assert_eq!(entry["estimate_range_seconds"], json!([low, high]));
        let real = seconds_between(&entry["joined_at"], &entry["admitted_at"]);
        errors.push((estimate as f64 - real).abs());
        within += u64::from(real.ceil() >= low as f64 && real.floor() <= high as f64);
    }
    errors.sort_by(f64::total_cmp);

    let report = report(&app, &event).await;
    assert_eq!(report["joined"], 12);
    assert_eq!(report["admitted"], 12);
    assert_eq!(report["fifo_inversions"], inversions);
    assert_eq!(inversions, 0, "one ticker admits in line order");
    assert_eq!(report["estimate"]["samples"], 12);
    assert_eq!(
        report["estimate"]["median_abs_error_seconds"],
        rank(&errors, 0.5)
    );
    assert_eq!(
        report["estimate"]["p90_abs_error_seconds"],
        rank(&errors, 0.9)
    );
    assert_eq!(
        report["estimate"]["within_range_share"],
        within as f64 / 12.0
    );
    assert_eq!(
        report["admission_log_url"],
        format!("/api/events/{event}/report/admissions")
    );
}

/// The outlook's calibration (issue 31): of the buyers told each outlook at joining, the
/// report counts those told (admitted or still in line), those admitted, and those who bought;
/// the outlook it counts is the one each buyer was told.
#[tokio::test]
async fn the_report_counts_by_outlook_told_at_joining_the_buyers_admitted_and_who_bought() {
    let (app, _) = app_with_fake(quick()).await;
    // 4 seats, 2 a buyer at most, up to 10 admissions a tick of 100 ms.
    let event = app
        .create_event(event_body(
            1,
            2,
            json!({"admit_rate_per_second": 100, "tick_ms": 100, "seats_per_buyer": 2}),
        ))
        .await;
    let event = event["id"].as_str().unwrap().to_owned();
    let ticker = Ticker::new(app.state.line.clone());
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    // A paused tick counts the seats: from then on every join is told an outlook.
    let paused = app::wire::Room {
        paused: true,
        ..room.clone()
    };
    ticker.tick(&event, &paused, 0).await.unwrap();
    let joined = buyers_join(&app, &event, 50).await;
    // The line keeps each model told once, not once a joining (locate.lua): the report below
    // reads the waiting buyers' outlooks through it, and the admissions' entries have it
    // written out.
    let fields: Vec<String> = redis::cmd("HKEYS")
        .arg(app.state.keys.joins(&event))
        .query_async(&mut app.state.redis.clone())
        .await
        .unwrap();
    let models = fields.iter().filter(|f| f.starts_with('#')).count();
    assert_eq!(fields.len() - models, 50, "a record a joining");
    assert!(
        (1..=3).contains(&models),
        "{models} models kept for 50 joins"
    );
    let mut told: HashMap<String, u64> = HashMap::new();
    for (_, body) in &joined {
        *told
            .entry(body["outlook"].as_str().unwrap().to_owned())
            .or_default() += 1;
    }
    assert!(
        told.contains_key("likely") && told.contains_key("unlikely"),
        "4 seats for 50 buyers: the front is likely, the back unlikely: {told:?}"
    );
    // One tick admits the first few (as many as the 4 free seats serve at the shares known
    // before any hold); the first of them buys a seat.
    ticker.tick(&event, &room, 1).await.unwrap();
    let mut admitted_by_outlook: HashMap<String, u64> = HashMap::new();
    let mut admitted = 0;
    for (session, body) in &joined {
        let (_, now) = poll(&app, &event, session).await;
        if now["status"] == "admitted" {
            admitted += 1;
            *admitted_by_outlook
                .entry(body["outlook"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    assert!(admitted > 0 && admitted < 10, "{admitted} admitted");
    let (first, first_told) = &joined[0];
    let (_, admitted) = poll(&app, &event, first).await;
    let token = admitted["admission_token"].as_str().unwrap();
    let r = hold_admitted(
        &app,
        &event,
        (first, token),
        "h",
        json!({"section": "A", "quantity": 1}),
    )
    .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let hold: Value = r.json().await.unwrap();
    let r = checkout(&app, first, hold["hold_id"].as_str().unwrap(), "p").await;
    assert_eq!(r.status(), StatusCode::OK);
    ticker.flush().await.unwrap();

    let report = report(&app, &event).await;
    let counted = &report["outlook"];
    for outlook in ["likely", "uncertain", "unlikely"] {
        let bought = u64::from(first_told["outlook"] == outlook);
        assert_eq!(
            counted[outlook],
            json!({
                "told": told.get(outlook).copied().unwrap_or(0),
                "admitted": admitted_by_outlook.get(outlook).copied().unwrap_or(0),
                "bought": bought,
            }),
            "{outlook}: {report}"
        );
    }
}

#[tokio::test]
async fn the_leader_keeps_each_seconds_model_and_the_report_reads_it_a_minute_before_admission() {
    let app = spawn_app().await;
    let event = event_at(&app, 1).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    // The leader's step writes the model of its second into the series; keeping the series
    // copies it to Postgres.
    let ticker = Ticker::new(app.state.line.clone());
    let now = chrono::Utc::now().timestamp();
    steer(&app, &ticker, &event, &room).await;
    archive::keep(&app.state.line, &event, &room, now - 1, now + 1)
        .await
        .unwrap();
    let kept: Vec<Option<String>> =
        sqlx::query_scalar("select model from night_second where event_id = $1")
            .bind(&event)
            .fetch_all(&app.state.db)
            .await
            .unwrap();
    let record = kept
        .into_iter()
        .flatten()
        .next()
        .expect("a second's model is kept");
    let (band, _) = Model::from_record(&record).expect("a model's record");
    assert_eq!(band.rate, 1, "the rate in force then");

    // A night of 100 buyers who joined together and were admitted one a second, the model of
    // every second that of the rate (1 a second) but one: a minute before their admission the
    // buyers from the 60th on stood 60th, and were told 60 s.
    let t0 = chrono::DateTime::from_timestamp(now - 3600, 0).unwrap();
    let second = |s: i64| t0 + chrono::Duration::seconds(s);
    let exact = app::estimate::Band::exact(1).record();
    for s in (0..=100).filter(|s| *s != 20) {
        sqlx::query(
            "insert into night_second (event_id, t, model) values ($1, $2, $3) \
             on conflict (event_id, t) do update set model = excluded.model",
        )
        .bind(&event)
        .bind(second(s))
        .bind(&exact)
        .execute(&app.state.db)
        .await
        .unwrap();
    }
    for a in 1..=100i64 {
        sqlx::query(
            "insert into admission (event_id, n, arrival, admitted_at, joined_at) \
             values ($1, $2, $2, $3, $4)",
        )
        .bind(&event)
        .bind(a)
        .bind(second(a))
        .bind(second(0))
        .execute(&app.state.db)
        .await
        .unwrap();
    }
    let report = report(&app, &event).await;
    let before = &report["estimate_60s_before"];
    // Admissions 60..=100 waited a minute; the one admitted at 80 s had no model a minute
    // before (second 20).
    assert_eq!(before["samples"], 40, "{report}");
    assert_eq!(before["median_abs_error_seconds"], 0.0);
    assert_eq!(before["within_range_share"], 1.0);
    assert_eq!(
        report["estimate"]["samples"], 0,
        "nobody was told at joining here"
    );
}

#[tokio::test]
async fn paging_out_of_bounds_is_refused_and_an_unknown_event_is_not_found() {
    let app = spawn_app().await;
    let event = event_at(&app, 10).await;
    let get = |query: String| {
        app.client
            .get(app.url(&format!("/api/events/{event}/report/admissions{query}")))
            .send()
    };
    for limit in ["0", "10001"] {
        let r = get(format!("?limit={limit}")).await.unwrap();
        expect_error(r, StatusCode::UNPROCESSABLE_ENTITY, "unprocessable").await;
    }
    for query in ["?after=-1", "?after=x", "?limit=1.5"] {
        let r = get(query.to_owned()).await.unwrap();
        expect_error(r, StatusCode::BAD_REQUEST, "bad_request").await;
    }
    let r = get("?after=0&limit=10000".into()).await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let page: Value = r.json().await.unwrap();
    assert_eq!(page, json!({"entries": [], "next": null}));
    for path in ["/report", "/report/admissions"] {
        let r = app
            .client
            .get(app.url(&format!("/api/events/nosuchevent{path}")))
            .send()
            .await
            .unwrap();
        expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
    }
}

#[tokio::test]
async fn flushes_that_race_or_repeat_leave_exactly_one_row_per_admission() {
    let (a, b, event) = two_instances_and_an_event(test_config()).await;
    put_room(
        &a,
        &event,
        json!({"admit_rate_per_second": 100, "tick_ms": 100}),
    )
    .await;
    a.state.rooms.refresh(&a.state.db).await.unwrap();
    buyers_join(&a, &event, 25).await;
    let ticker = Ticker::new(a.state.line.clone());
    tick(&a, &ticker, &event, 3).await;
    // Two instances flush at once (a leader that stalled, and its successor), then again.
    for _ in 0..2 {
        join_all([log::flush(&a.state, &event), log::flush(&b.state, &event)])
            .await
            .into_iter()
            .for_each(|r| {
                r.unwrap();
            });
    }
    let rows: Vec<(i64, i64)> = sqlx::query_as(
        "select n, count(*) from admission where event_id = $1 group by n order by n",
    )
    .bind(&event)
    .fetch_all(&a.state.db)
    .await
    .unwrap();
    assert_eq!(rows.len(), 25, "one row per admission");
    assert!(rows.iter().all(|&(_, count)| count == 1));
    assert_eq!(rows.last().unwrap().0, 25, "numbered 1 to 25 without a gap");
    let left: u64 = redis::cmd("LLEN")
        .arg(a.state.keys.admission_log(&event))
        .query_async(&mut a.state.redis.clone())
        .await
        .unwrap();
    assert_eq!(left, 0, "nothing left behind in Redis");
}

#[tokio::test]
async fn an_admission_with_the_room_off_is_logged_with_its_arrival() {
    let app = spawn_app().await;
    let event = event_at(&app, 10).await;
    let joined = buyers_join(&app, &event, 2).await;
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    let (token, at_joining) = &joined[1];
    let (_, body) = poll(&app, &event, token).await;
    assert_eq!(body["status"], "admitted");
    log::flush(&app.state, &event).await.unwrap();
    let (entries, _) = paged_log(&app, &event, 10).await;
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0]["arrival"], at_joining["arrival"]);
    // The entry carries the estimate the buyer was told at joining, its model written out
    // from the one the line kept for every join told it (consume.lua).
    assert_eq!(
        entries[0]["estimated_wait_seconds"],
        at_joining["estimated_wait_seconds"]
    );
    assert_eq!(
        entries[0]["estimate_range_seconds"],
        at_joining["estimate_range_seconds"]
    );
    assert_eq!(
        entries[0]["estimated_wait_seconds"],
        at_joining["estimated_wait_seconds"]
    );
}

/// `GET` an operator's `path` of `event`'s nights.
async fn admin_get(app: &TestApp, event: &str, path: &str) -> reqwest::Response {
    app.admin(
        app.client
            .get(app.url(&format!("/api/admin/events/{event}/nights{path}"))),
    )
    .send()
    .await
    .unwrap()
}

#[tokio::test]
async fn turning_the_room_off_keeps_the_night_and_its_csv_is_its_series() {
    let app = spawn_app().await;
    let event = event_at(&app, 50).await;
    buyers_join(&app, &event, 5).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let second = chrono::Utc::now().timestamp();
    ticker.tick(&event, &room, second).await.unwrap();
    let r = put_room(&app, &event, json!({"enabled": false})).await;
    assert_eq!(r.status(), StatusCode::OK);

    let nights: Vec<Value> = admin_get(&app, &event, "").await.json().await.unwrap();
    assert_eq!(nights.len(), 1);
    assert_eq!(nights[0]["reason"], "room_off");
    let night = nights[0]["id"].as_i64().unwrap();
    let series: Vec<Value> = admin_get(&app, &event, &format!("/{night}/series"))
        .await
        .json()
        .await
        .unwrap();
    let at = chrono::DateTime::from_timestamp(second, 0).unwrap();
    let point = series
        .iter()
        .find(|p| {
            p["t"]
                .as_str()
                .unwrap()
                .parse::<chrono::DateTime<chrono::Utc>>()
                .unwrap()
                == at
        })
        .expect("the second of the tick is kept");
    assert_eq!(point["admissions"], 5);
    assert_eq!(point["queue_length"], 0);
    assert_eq!(point["admit_rate_per_second"], 50);

    let r = admin_get(&app, &event, &format!("/{night}/csv")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()[reqwest::header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = r.text().await.unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("t,admissions,holds,checkouts,queue_length,admit_rate_per_second")
    );
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), series.len(), "one line a second");
    for (row, p) in rows.iter().zip(&series) {
        let cells: Vec<&str> = row.split(',').collect();
        let t: chrono::DateTime<chrono::Utc> = p["t"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            cells[0].parse::<chrono::DateTime<chrono::Utc>>().unwrap(),
            t
        );
        let names = [
            "admissions",
            "holds",
            "checkouts",
            "queue_length",
            "admit_rate_per_second",
        ];
        for (cell, name) in cells[1..].iter().zip(names) {
            assert_eq!(
                cell.parse::<u64>().unwrap(),
                p[name].as_u64().unwrap(),
                "{name} at {t}"
            );
        }
    }
    let r = admin_get(&app, &event, "/999999/csv").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn a_line_quiet_for_the_idle_time_keeps_the_night_once() {
    let mut config = test_config();
    config.night_idle_seconds = 3;
    let app = crate::helpers::spawn_with(config).await;
    let event = event_at(&app, 50).await;
    buyers_join(&app, &event, 3).await;
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    let step = || async {
        ticker
            .tick(&event, &room, chrono::Utc::now().timestamp())
            .await
            .unwrap();
        ticker.flush().await.unwrap();
        admin_get(&app, &event, "")
            .await
            .json::<Vec<Value>>()
            .await
            .unwrap()
    };
    // Admitted just now: the night goes on.
    assert_eq!(step().await, Vec::<Value>::new());
    // Time, not a condition: this proves nothing is kept before the idle time is over.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(step().await, Vec::<Value>::new(), "quiet for 1 s of 3");
    let kept = async |nights: usize| {
        eventually("the night is kept", Duration::from_secs(20), async || {
            let kept = step().await;
            (kept.len() >= nights).then_some(kept)
        })
        .await
    };
    let nights = kept(1).await;
    assert_eq!(nights.len(), 1, "{nights:?}");
    assert_eq!(nights[0]["reason"], "line_empty");
    // Quiet on: nothing more to keep (time, not a condition: this proves nothing happens).
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(step().await.len(), 1);
    // A new buyer starts a new night, which is kept once it is quiet again.
    buyers_join(&app, &event, 1).await;
    step().await;
    let nights = kept(2).await;
    assert_eq!(nights.len(), 2, "{nights:?}");
    let at = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()
    };
    assert!(
        at(&nights[0]["started_at"]) >= at(&nights[1]["ended_at"]),
        "nights never overlap: {nights:?}"
    );
}

#[tokio::test]
async fn an_operator_keeps_a_night_on_demand_and_the_audit_says_so() {
    let app = spawn_app().await;
    let event = event_at(&app, 10).await;
    let keep = || {
        app.admin(
            app.client
                .post(app.url(&format!("/api/admin/events/{event}/nights"))),
        )
        .json(&json!({}))
        .send()
    };
    let first: Value = {
        let r = keep().await.unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        r.json().await.unwrap()
    };
    let second: Value = keep().await.unwrap().json().await.unwrap();
    assert_eq!(first["reason"], "operator");
    let time = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()
    };
    assert!(
        time(&second["started_at"]) >= time(&first["ended_at"]),
        "nights never overlap"
    );
    let audit: Vec<Value> = app
        .admin(
            app.client
                .get(app.url(&format!("/api/admin/audit?event_id={event}"))),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let kept: Vec<&Value> = audit
        .iter()
        .filter(|e| e["action"] == "keep_night")
        .collect();
    assert_eq!(kept.len(), 2);
    assert_eq!(kept[1]["after"]["id"], first["id"]);
    // A buyer's session is not an operator's credential.
    let (_, buyer) = app.session().await;
    let r = app
        .client
        .post(app.url(&format!("/api/admin/events/{event}/nights")))
        .bearer_auth(buyer)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    expect_error(r, StatusCode::UNAUTHORIZED, "unauthorized").await;
}

#[tokio::test]
async fn a_line_made_again_after_its_retirement_numbers_on_and_counts_on() {
    let app = spawn_app().await;
    let event = event_at(&app, 50).await;
    let ticker = Ticker::new(app.state.line.clone());
    buyers_join(&app, &event, 3).await;
    tick(&app, &ticker, &event, 1).await;
    put_room(&app, &event, json!({"enabled": false})).await;
    let retired = anteroom::admission::retire::retire(&app.state, &event)
        .await
        .unwrap();
    assert!(
        matches!(
            retired,
            anteroom::admission::retire::Retired::Expiring { .. }
        ),
        "{retired:?}"
    );
    // The retired line's keys expire: as if they had.
    let mut redis = app.state.redis.clone();
    let keys = &app.state.keys;
    let _: () = redis::cmd("DEL")
        .arg(keys.admission_seq(&event))
        .arg(keys.joined(&event))
        .query_async(&mut redis)
        .await
        .unwrap();
    put_room(&app, &event, json!({"enabled": true})).await;
    app.state.rooms.refresh(&app.state.db).await.unwrap();
    buyers_join(&app, &event, 2).await;
    tick(&app, &ticker, &event, 1).await;
    ticker.flush().await.unwrap();

    let (entries, _) = paged_log(&app, &event, 100).await;
    let numbers: Vec<u64> = entries.iter().map(|e| e["n"].as_u64().unwrap()).collect();
    assert_eq!(numbers, [1, 2, 3, 4, 5]);
    let report = report(&app, &event).await;
    assert_eq!(
        (report["joined"].as_u64(), report["admitted"].as_u64()),
        (Some(5), Some(5))
    );
}

/// Review finding 7: the admission log's pages (up to 10,000 rows each, uncached) and the draw
/// of any id (a query before knowing the event) went through the pool that holds share, so a
/// flood of them starved holds. Now a page is read at most once a second, every public query
/// holds one of `db_public_connections`, and an unknown event is 404 before any query. Watched
/// from Postgres, the flood never runs more than that one public query at a time (before: as
/// many as the pool had), and holds made during it all succeed within the pool's wait.
#[tokio::test]
async fn a_flood_of_public_reads_leaves_the_pool_to_holds() {
    let mut config = test_config();
    config.db_pool_size = 4;
    config.db_public_connections = 1;
    config.db_acquire_timeout_ms = 3_000;
    let app = crate::helpers::spawn_with(config).await;
    let (event, seats) = crate::helpers::open_event(&app, 2, 10).await;
    sqlx::query(
        "insert into admission (event_id, n, arrival, admitted_at) \
         select $1, n, n, now() from generate_series(1, 20000) n",
    )
    .bind(&event)
    .execute(&app.state.db)
    .await
    .unwrap();
    let sessions = app.sessions(20).await;
    let flood = join_all((0..300).map(|i| {
        let path = match i % 3 {
            // Many pages (each its own cache entry), the largest allowed.
            0 => format!(
                "/api/events/{event}/report/admissions?after={}&limit=10000",
                i % 30
            ),
            // Made-up ids: 404 from memory after one public look-up each.
            1 => format!("/api/events/nosuch{i}/draw"),
            _ => format!("/api/events/{event}/draw"),
        };
        let app = &app;
        async move {
            app.client
                .get(app.url(&path))
                .send()
                .await
                .unwrap()
                .status()
        }
    }));
    let holds = join_all(
        sessions
            .iter()
            .zip(seats.iter())
            .map(|((_, session), seat)| {
                crate::helpers::hold(
                    &app,
                    &event,
                    session,
                    "flood",
                    crate::helpers::hold_body(&[*seat]),
                )
            }),
    );
    // Postgres's own view of the public reads running at once, sampled through the flood.
    let done = tokio_util::sync::CancellationToken::new();
    // A connection of its own: the app's pool is what is measured.
    let url = app.state.config.database_url.expose().to_owned();
    let watcher = tokio::spawn({
        let done = done.clone();
        async move {
            use sqlx::Connection;
            let mut db = sqlx::PgConnection::connect(&url).await.unwrap();
            let mut most = 0i64;
            while !done.is_cancelled() {
                let running: i64 = sqlx::query_scalar(
                    "select count(*) from pg_stat_activity \
                     where datname = current_database() and state = 'active' \
                       and pid <> pg_backend_pid() \
                       and (query like '%from admission where%' or query like '%from draw d%')",
                )
                .fetch_one(&mut db)
                .await
                .unwrap();
                most = most.max(running);
                // A sampler, not a wait: how many run at once, every 2 ms.
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            most
        }
    });
    let (answers, holds) = tokio::join!(flood, holds);
    done.cancel();
    let most = watcher.await.unwrap();
    assert!(
        most <= 1,
        "{most} public reads ran at once; the public share is one connection"
    );
    for r in holds {
        assert_eq!(
            r.status(),
            StatusCode::CREATED,
            "a hold starved by public reads"
        );
    }
    for status in answers {
        assert!(
            [
                StatusCode::OK,
                StatusCode::NOT_FOUND,
                StatusCode::SERVICE_UNAVAILABLE
            ]
            .contains(&status),
            "{status}"
        );
    }
}
