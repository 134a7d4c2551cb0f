//! The line's progress (API.md "Progress"): public and cacheable as a CDN reads it, read from
//! Redis once a second per instance whatever the crowd, and enough for a page to compute what
//! its own poll would say: the position within 1% (exact in the first hundred) over a line with
//! departures, and the same estimate from the same model.

use anteroom::admission::ticker::Ticker;
use app::{estimate::Model, presence::Standing, wire::Progress};
use futures::future::join_all;
use reqwest::{StatusCode, header};
use serde_json::{Value, json};

use crate::helpers::{
    TestApp, eventually, expect_error, join, metric, plenty, poll, spawn_app, spawn_with,
    test_config,
};

async fn event(app: &TestApp, rate: u32) -> String {
    let event = app
        .create_event(plenty(
            json!({"admit_rate_per_second": rate, "tick_ms": 1000}),
        ))
        .await;
    event["id"].as_str().unwrap().to_owned()
}

async fn line_of(app: &TestApp, event: &str, n: usize) -> Vec<String> {
    let mut tokens = Vec::new();
    for _ in 0..n {
        let (_, token) = app.session().await;
        let (status, body) = join(app, event, &token).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{body}");
        tokens.push(token);
    }
    tokens
}

/// `GET` the progress of `event`, with `If-None-Match: tag` when given.
async fn progress_if(app: &TestApp, event: &str, tag: Option<&str>) -> reqwest::Response {
    let mut request = app
        .client
        .get(app.url(&format!("/api/events/{event}/progress")));
    if let Some(tag) = tag {
        request = request.header(header::IF_NONE_MATCH, tag);
    }
    request.send().await.unwrap()
}

async fn progress(app: &TestApp, event: &str) -> reqwest::Response {
    progress_if(app, event, None).await
}

async fn progress_calls(app: &TestApp) -> f64 {
    metric(
        &app.metrics_text().await,
        r#"anteroom_queue_calls_total{call="progress"}"#,
    )
    .unwrap_or(0.0)
}

#[tokio::test]
async fn the_progress_is_public_cacheable_and_answers_a_matching_tag_with_304() {
    let app = spawn_app().await;
    let event = event(&app, 10).await;
    let mut arrivals = Vec::new();
    for token in line_of(&app, &event, 5).await {
        let (_, answer) = poll(&app, &event, &token).await;
        arrivals.push(answer["arrival"].as_u64().unwrap());
    }
    // No session, no cookie.
    let r = progress(&app, &event).await;
    assert_eq!(r.status(), StatusCode::OK);
    let headers = r.headers().clone();
    assert_eq!(headers[header::CACHE_CONTROL], "public, max-age=1");
    assert!(headers.get(header::SET_COOKIE).is_none());
    let tag = headers[header::ETAG].to_str().unwrap().to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["in_line"], 5);
    assert_eq!(body["last_arrival"], arrivals[4]);
    assert_eq!(body["admitted_through"], 0);
    assert_eq!(body["paused"], false);
    assert_eq!(body["rate"], 10);
    let ranks: Vec<Value> = (0..5).map(|r| json!([r, arrivals[r]])).collect();
    assert_eq!(body["ranks"], json!(ranks));

    let r = progress_if(&app, &event, Some(&tag)).await;
    assert_eq!(r.status(), StatusCode::NOT_MODIFIED);
    assert_eq!(r.headers()[header::ETAG].to_str().unwrap(), tag);
    assert!(r.bytes().await.unwrap().is_empty());
    // A line that moved has another tag once the second's read is over (until then the read
    // kept answers, 304 to the old tag).
    line_of(&app, &event, 1).await;
    let within = 5 * anteroom::queue::progress::FRESH;
    eventually("a tag of the moved line", within, async || {
        let r = progress_if(&app, &event, Some(&tag)).await;
        match r.status() {
            StatusCode::NOT_MODIFIED => false,
            status => {
                assert_eq!(status, StatusCode::OK);
                assert_ne!(r.headers()[header::ETAG].to_str().unwrap(), tag);
                true
            }
        }
    })
    .await;

    let r = progress(&app, "no-such-event").await;
    expect_error(r, StatusCode::NOT_FOUND, "not_found").await;
}

#[tokio::test]
async fn a_crowd_asking_at_once_costs_one_read() {
    let app = spawn_app().await;
    let event = event(&app, 10).await;
    line_of(&app, &event, 3).await;
    let before = progress_calls(&app).await;
    let answers = join_all((0..200).map(|_| progress(&app, &event))).await;
    assert!(answers.iter().all(|r| r.status() == StatusCode::OK));
    let reads = progress_calls(&app).await - before;
    // One read, or two if the crowd straddled the end of its second.
    assert!((1.0..=2.0).contains(&reads), "{reads} reads for 200 asks");
}

#[tokio::test]
async fn another_instance_serves_the_progress_one_instance_read_without_reading_the_line() {
    let config = test_config();
    let first = spawn_with(config.clone()).await;
    let second = spawn_with(config).await;
    let event = event(&first, 10).await;
    line_of(&first, &event, 3).await;
    let read: Value = progress(&first, &event).await.json().await.unwrap();
    let before = progress_calls(&second).await;
    let served: Value = progress(&second, &event).await.json().await.unwrap();
    assert_eq!(served, read, "the first instance's copy");
    assert_eq!(progress_calls(&second).await, before, "no read of the line");
    // A second later the copy is gone: the second instance reads the line itself (until then
    // it answers the copy it served, 3 in line, without a read).
    line_of(&first, &event, 1).await;
    let within = 5 * anteroom::queue::progress::FRESH;
    eventually("the second instance reads the line", within, async || {
        let fresh: Value = progress(&second, &event).await.json().await.unwrap();
        match fresh["in_line"].as_u64() {
            Some(3) => false,
            in_line => {
                assert_eq!(in_line, Some(4), "{fresh}");
                true
            }
        }
    })
    .await;
    assert_eq!(progress_calls(&second).await, before + 1.0);
}

#[tokio::test]
async fn a_page_computes_its_position_and_estimate_from_the_progress_as_its_poll_says() {
    let app = spawn_app().await;
    let event = event(&app, 20).await;
    let tokens = line_of(&app, &event, 400).await;
    // Departures: the front admitted by two ticks, and places gone from anywhere in the line
    // (as the away rule or a moved place takes them out).
    let room = app.state.rooms.get(&app.state.db, &event).await.unwrap();
    let ticker = Ticker::new(app.state.line.clone());
    for second in 0..2 {
        ticker.tick(&event, &room, second).await.unwrap();
    }
    let mut redis = app.state.redis.clone();
    let members: Vec<String> = redis::cmd("ZRANGE")
        .arg(app.state.keys.queue(&event))
        .arg(0)
        .arg(-1)
        .query_async(&mut redis)
        .await
        .unwrap();
    for gone in members.iter().skip(3).step_by(4) {
        let _: i64 = redis::cmd("ZREM")
            .arg(app.state.keys.queue(&event))
            .arg(gone)
            .query_async(&mut redis)
            .await
            .unwrap();
    }
    // The first read of the progress in this test: no kept copy to wait out, it counts the
    // departures.
    let progress: Progress = progress(&app, &event).await.json().await.unwrap();
    let in_line: u64 = redis::cmd("ZCARD")
        .arg(app.state.keys.queue(&event))
        .query_async(&mut redis)
        .await
        .unwrap();
    assert_eq!(progress.in_line, in_line);
    let (band, seats) = Model::from_record(&progress.model).expect("the model's record");
    let model = Model {
        band,
        seats,
        now_ms: progress.t,
    };
    let (mut checked, mut exact_places) = (0, 0);
    for token in &tokens {
        let (_, answer) = poll(&app, &event, token).await;
        if answer["status"] != "waiting" {
            continue;
        }
        let (exact, arrival) = (
            answer["position"].as_u64().unwrap(),
            answer["arrival"].as_u64().unwrap(),
        );
        // What the page computes (`Standing::of`, the code the browser runs far back).
        let standing = Standing::of(&progress, arrival).expect("in line");
        let position = standing.position;
        let off = position.abs_diff(exact);
        assert!(off as f64 <= exact as f64 / 100.0, "at {exact}: {position}");
        if exact <= 100 {
            assert_eq!(position, exact);
        }
        if standing.exact {
            assert_eq!(position, exact);
            assert_eq!(answer["estimated_wait_seconds"], json!(standing.estimate));
            assert_eq!(answer["estimate_range_seconds"], json!(standing.range));
            assert_eq!(answer["outlook"], json!(standing.outlook));
            assert_eq!(answer["refresh_seconds"], json!(standing.refresh_seconds));
            exact_places += 1;
        }
        let (estimate, range) = model.wait(exact);
        assert_eq!(
            answer["estimated_wait_seconds"],
            json!(estimate),
            "at {exact}"
        );
        assert_eq!(answer["estimate_range_seconds"], json!(range), "at {exact}");
        checked += 1;
    }
    assert!(checked > 200, "{checked} waiting buyers checked");
    assert!(exact_places >= 100, "{exact_places} placed exactly");
}
