//! Random and malformed requests against every endpoint of API.md: bodies (random JSON, random
//! bytes, huge and unicode values), headers (tokens, idempotency keys, content types) and path
//! segments. Whatever is sent, the answer is never a 5xx, every 4xx is a JSON error of API.md,
//! and the server still serves afterwards. The seed is printed; `ANTEROOM_FUZZ_SEED=<n>`
//! replays a run.

use rand::{Rng, SeedableRng, rngs::StdRng, seq::SliceRandom};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::{event_body, spawn_with, test_config};

const REQUESTS: usize = 1500;

/// The endpoints of API.md, `{}` where a path segment goes.
const ENDPOINTS: &[(&str, &str)] = &[
    ("POST", "/api/session"),
    ("GET", "/api/session"),
    ("GET", "/api/events"),
    ("GET", "/api/events/{}"),
    ("POST", "/api/events/{}/queue"),
    ("GET", "/api/events/{}/queue"),
    ("POST", "/api/events/{}/queue/move"),
    ("POST", "/api/events/{}/queue/claim"),
    ("GET", "/api/events/{}/seats"),
    ("GET", "/api/events/{}/admission"),
    ("POST", "/api/events/{}/holds"),
    ("GET", "/api/holds/{}"),
    ("DELETE", "/api/holds/{}"),
    ("POST", "/api/holds/{}/checkout"),
    ("GET", "/.well-known/jwks.json"),
    ("POST", "/api/admin/events"),
    ("PUT", "/api/admin/events/{}/room"),
    ("GET", "/api/admin/events/{}/stats"),
    ("GET", "/api/admin/events/{}/audit"),
    ("POST", "/api/admin/session"),
    ("GET", "/healthz"),
    ("GET", "/readyz"),
];

fn random_string(rng: &mut StdRng) -> String {
    let len = *[0usize, 1, 3, 12, 65, 300, 5000]
        .choose(rng)
        .expect("not empty");
    let pools: [&[char]; 3] = [
        &['a', 'z', '0', '-', '_', '.', '/', '%', '"', '\\'],
        &['é', 'ß', '中', '🎟', '\u{202e}', '\u{0}', '\u{feff}'],
        &[' ', '\n', '\t', '?', '#', '&', '='],
    ];
    (0..len)
        .map(|_| {
            let pool = pools.choose(rng).expect("not empty");
            *pool.choose(rng).expect("not empty")
        })
        .collect()
}

fn random_json(rng: &mut StdRng, depth: u32) -> Value {
    match rng.gen_range(0..if depth > 2 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.r#gen::<bool>()),
        2 => json!(
            *[0i64, -1, 1, 2, 99, i64::MAX, i64::MIN]
                .choose(rng)
                .unwrap()
        ),
        3 => json!(rng.r#gen::<f64>() * 1e20),
        4 => json!(random_string(rng)),
        5 => Value::Array(
            (0..rng.gen_range(0..5))
                .map(|_| random_json(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let keys = [
                "seat_ids",
                "section",
                "quantity",
                "name",
                "starts_at",
                "sections",
                "room",
                "rows",
                "seats_per_row",
                "price_cents",
                "enabled",
                "paused",
                "admit_rate_per_second",
                "token",
                "x",
            ];
            let mut map = serde_json::Map::new();
            for _ in 0..rng.gen_range(0..5) {
                let key = if rng.gen_bool(0.8) {
                    (*keys.choose(rng).unwrap()).to_owned()
                } else {
                    random_string(rng)
                };
                map.insert(key, random_json(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

fn random_body(rng: &mut StdRng) -> Option<Vec<u8>> {
    match rng.gen_range(0..6) {
        0 => None,
        1 => Some(
            (0..rng.gen_range(0..200))
                .map(|_| rng.r#gen::<u8>())
                .collect(),
        ),
        2 => Some(b"{\"seat_ids\": [".to_vec()),
        3 => Some(vec![b'['; 10_000]),
        _ => Some(serde_json::to_vec(&random_json(rng, 0)).unwrap()),
    }
}

#[tokio::test]
async fn random_and_malformed_requests_get_json_errors_and_never_a_5xx() {
    let seed: u64 = std::env::var("ANTEROOM_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    println!("fuzz seed {seed} (replay with ANTEROOM_FUZZ_SEED={seed})");
    let mut rng = StdRng::seed_from_u64(seed);
    let app = spawn_with(test_config()).await;
    let room = app
        .create_event(event_body(1, 5, json!({"admit_rate_per_second": 5})))
        .await;
    let open = app
        .create_event(event_body(1, 5, json!({"enabled": false})))
        .await;
    let (_, session) = app.session().await;
    let real_ids = [
        room["id"].as_str().unwrap().to_owned(),
        open["id"].as_str().unwrap().to_owned(),
    ];

    let mut by_status = std::collections::BTreeMap::<u16, usize>::new();
    for i in 0..REQUESTS {
        let (method, template) = *ENDPOINTS.choose(&mut rng).unwrap();
        let method = if rng.gen_bool(0.1) {
            [Method::PATCH, Method::PUT, Method::DELETE, Method::OPTIONS]
                .choose(&mut rng)
                .unwrap()
                .clone()
        } else {
            Method::from_bytes(method.as_bytes()).unwrap()
        };
        let segment = if rng.gen_bool(0.3) {
            real_ids.choose(&mut rng).unwrap().clone()
        } else {
            random_string(&mut rng)
        };
        let encoded: String = url_escape(&segment);
        let path = template.replace("{}", &encoded);
        let mut req = app.client.request(method.clone(), app.url(&path));
        match rng.gen_range(0..5) {
            0 => {}
            1 => req = req.bearer_auth(&session),
            2 => req = req.bearer_auth(&app.admin_key),
            3 => req = req.header("authorization", random_header(&mut rng)),
            _ => req = req.header("cookie", random_header(&mut rng)),
        }
        if rng.gen_bool(0.5) {
            req = req.header("idempotency-key", random_header(&mut rng));
        }
        if rng.gen_bool(0.3) {
            req = req.header("admission-token", random_header(&mut rng));
        }
        if let Some(body) = random_body(&mut rng) {
            let content_type = *[
                "application/json",
                "text/plain",
                "application/json; x=é",
                "",
            ]
            .choose(&mut rng)
            .unwrap();
            req = req.header("content-type", content_type).body(body);
        }
        let r = req.send().await.unwrap();
        let status = r.status();
        *by_status.entry(status.as_u16()).or_default() += 1;
        let text = r.text().await.unwrap();
        assert!(
            !status.is_server_error(),
            "request {i} (seed {seed}): {method} {path} -> {status} {text}"
        );
        if status.is_client_error() && path.starts_with("/api") {
            let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| {
                panic!("request {i} (seed {seed}): {path} -> not JSON: {text}")
            });
            assert!(
                body["error"].is_string() && body["message"].is_string(),
                "{body}"
            );
        }
    }
    println!("fuzz answers by status: {by_status:?}");
    let r = app.client.get(app.url("/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK, "still serving");
}

/// Percent-encodes everything but unreserved characters, and sometimes sends a raw `..` or
/// an encoded slash.
fn url_escape(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.is_empty() {
        "%20".to_owned()
    } else {
        out
    }
}

/// A header value: printable ASCII, or bytes above 0x7f (which HTTP allows as opaque).
fn random_header(rng: &mut StdRng) -> reqwest::header::HeaderValue {
    let s = random_string(rng);
    let bytes: Vec<u8> = s
        .bytes()
        .filter(|b| *b == b'\t' || (0x20..0x7f).contains(b) || *b >= 0x80)
        .collect();
    reqwest::header::HeaderValue::from_bytes(&bytes)
        .unwrap_or(reqwest::header::HeaderValue::from_static("x"))
}

/// The admission arithmetic on the real script: for random N, tick lengths and tick counts,
/// with a line longer than they can empty (of an event with a free seat, so that admission
/// does not wait), k ticks admit exactly floor(N * tick_ms * k / 1000) buyers (fractions
/// carried between ticks), and always the first of the line.
#[tokio::test]
async fn k_ticks_admit_exactly_n_times_the_time_for_random_n_and_tick() {
    use anteroom::admission::ticker::{Tick, Ticker};

    let seed: u64 = rand::random();
    println!("admission arithmetic seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let app = spawn_with(test_config()).await;
    let ticker = Ticker::new(app.state.line.clone());
    let mut redis = app.state.redis.clone();
    for _ in 0..24 {
        let n: u32 = rng.gen_range(1..=400);
        let tick_ms: u32 = rng.gen_range(100..=2500);
        let ticks: u64 = rng.gen_range(1..=8);
        let expected = u64::from(n) * u64::from(tick_ms) * ticks / 1000;
        // 8,000 seats of one a buyer: the most these ticks admit (400 x 2.5 s x 8) never
        // meets the bound of the free seats.
        let event = app
            .create_event(event_body(100, 40, json!({"seats_per_buyer": 1})))
            .await;
        let event = event["id"].as_str().unwrap();
        let keys = &app.state.keys;
        let line = expected + 5;
        let mut pipe = redis::pipe();
        for i in 0..line {
            pipe.zadd(keys.queue(event), format!("b{i:08}"), i).ignore();
        }
        let _: () = pipe.query_async(&mut redis).await.unwrap();
        let room = app::wire::Room {
            enabled: true,
            paused: false,
            admit_rate_per_second: n,
            tick_ms,
            hold_ttl_seconds: 600,
            seats_per_buyer: 1,
            hold_sweep_seconds: 30,
            epoch: 0,
            join_pow_bits: 0,
            opens_at: None,
            prequeue_seconds: 0,
            prequeue_opens_at: None,
            auto_rate: false,
            min_admit_rate_per_second: 1,
            max_admit_rate_per_second: 1000,
            target_hold_p99_ms: 50,
            ..app::wire::DEFAULT_ROOM
        };
        let mut admitted = 0;
        for t in 0..ticks {
            match ticker.tick(event, &room, t as i64).await.unwrap() {
                Tick::Admitted { count, .. } => admitted += count,
                other => panic!("the only ticker of a sale open now admits: {other:?}"),
            }
        }
        assert_eq!(
            admitted, expected,
            "seed {seed}: N={n} tick={tick_ms} ms x {ticks} ticks"
        );
        let first: Vec<String> = redis::cmd("ZRANGE")
            .arg(keys.admitted(event))
            .arg(0)
            .arg(-1)
            .query_async(&mut redis)
            .await
            .unwrap();
        let mut first = first;
        first.sort();
        let want: Vec<String> = (0..expected).map(|i| format!("b{i:08}")).collect();
        assert_eq!(first, want, "seed {seed}: the first of the line, in order");
    }
}
