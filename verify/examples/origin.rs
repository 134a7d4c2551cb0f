//! The ticketer's site in miniature: the origin that Anteroom's gate stands in front of.
//! Documentation of how a site uses this crate, and the origin of the nginx end-to-end test.
//!
//! ```text
//! cargo run -p anteroom-verify --example origin -- \
//!     --addr 127.0.0.1:8089 \
//!     --jwks http://127.0.0.1:3000/.well-known/jwks.json \
//!     --audience anteroom --audience http://127.0.0.1:8089
//! ```
//!
//! Every flag can also be set in the environment (`ORIGIN_ADDR`, `ORIGIN_JWKS`,
//! `ORIGIN_AUDIENCE` with commas between audiences, `ORIGIN_PUBLIC_URL`, `ORIGIN_COOKIE`,
//! `ORIGIN_QUEUE_URL`). Once it listens it prints `listening on http://<address>` on stdout.
//!
//! - `GET /`, `GET /shop/...`: an HTML page, `<h1>The ticketer's shop</h1>`, with
//!   `<p id="buyer">` and `<p id="event">` showing the `Anteroom-Buyer` and `Anteroom-Event`
//!   request headers (what nginx's `auth_request` to Anteroom's `/api/gate/check` forwards).
//!   With `?anteroom_token=<hand-over token>` and `--jwks`, also `<p id="handoff">`: the buyer
//!   it admits, or why it was refused.
//! - `GET /health`: `ok`, after the delay `POST /slow?ms=N` sets (0 at start), so that a test
//!   can make the origin slow.
//! - `GET /api/whoami`: the claims of the request's admission token as JSON. With `--jwks` (and
//!   at least one `--audience`) every `/api/*` route is behind [`VerifyLayer`]; without, they
//!   are open and `whoami` answers `null`.

use std::{
    collections::HashMap,
    error::Error,
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use anteroom_verify::{Claims, Verifier, VerifyLayer};
use axum::{
    Extension, Json, Router,
    extract::{Query, State},
    http::{HeaderMap, StatusCode},
    response::Html,
    routing::{get, post},
};
use clap::Parser;

#[derive(Parser)]
#[command(about = "The ticketer's site in miniature, behind Anteroom")]
struct Args {
    /// The address to listen on.
    #[arg(long, env = "ORIGIN_ADDR", default_value = "127.0.0.1:8089")]
    addr: SocketAddr,
    /// Anteroom's JWKS, e.g. http://127.0.0.1:3000/.well-known/jwks.json: protects `/api/*`.
    #[arg(long, env = "ORIGIN_JWKS")]
    jwks: Option<String>,
    /// An audience to accept (Anteroom's `admission_audience`; this site's origin for
    /// hand-over tokens). Repeat for several.
    #[arg(long, env = "ORIGIN_AUDIENCE", value_delimiter = ',')]
    audience: Vec<String>,
    /// The scheme and host clients use, for the DPoP proofs of bound tokens.
    #[arg(long, env = "ORIGIN_PUBLIC_URL")]
    public_url: Option<String>,
    /// A cookie the admission token may come in.
    #[arg(long, env = "ORIGIN_COOKIE")]
    cookie: Option<String>,
    /// Where refused buyers are pointed to.
    #[arg(long, env = "ORIGIN_QUEUE_URL")]
    queue_url: Option<String>,
}

#[derive(Clone)]
struct Site {
    /// The delay of `/health`, in milliseconds.
    slow_ms: Arc<AtomicU64>,
    /// Verifies hand-over tokens on the pages, when `--jwks` is given.
    verifier: Option<Verifier>,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let verifier = match &args.jwks {
        Some(jwks) => {
            let builder = args
                .audience
                .iter()
                .fold(Verifier::builder(jwks), |b, aud| b.audience(aud));
            Some(builder.build()?)
        }
        None => None,
    };
    let site = Site {
        slow_ms: Arc::default(),
        verifier: verifier.clone(),
    };
    let mut api = Router::new().route("/api/whoami", get(whoami));
    if let Some(verifier) = verifier {
        let mut layer = VerifyLayer::new(verifier);
        if let Some(url) = args.public_url {
            layer = layer.public_url(url);
        }
        if let Some(cookie) = args.cookie {
            layer = layer.cookie(cookie);
        }
        if let Some(url) = args.queue_url {
            layer = layer.queue_url(url);
        }
        api = api.route_layer(layer);
    }
    let app = Router::new()
        .route("/", get(page))
        .route("/shop", get(page))
        .route("/shop/", get(page))
        .route("/shop/{*rest}", get(page))
        .route("/health", get(health))
        .route("/slow", post(slow))
        .with_state(site)
        .merge(api);
    let listener = tokio::net::TcpListener::bind(args.addr).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app)
        .with_graceful_shutdown(stopped())
        .await?;
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                term.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}

/// The shop's page: who the gate says the buyer is, and a hand-over token's verdict.
async fn page(
    State(site): State<Site>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Html<String> {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    };
    let mut body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>The ticketer's shop</title></head>\
         <body><h1>The ticketer's shop</h1><p id=\"buyer\">{}</p><p id=\"event\">{}</p>",
        escape(header("anteroom-buyer")),
        escape(header("anteroom-event")),
    );
    if let (Some(token), Some(verifier)) = (query.get("anteroom_token"), &site.verifier) {
        let verdict = match verifier.verify_handoff(token).await {
            Ok(claims) => format!("admitted {} to {}", claims.sub, claims.evt),
            Err(refused) => format!("refused: {refused}"),
        };
        body.push_str(&format!("<p id=\"handoff\">{}</p>", escape(&verdict)));
    }
    body.push_str("</body></html>");
    Html(body)
}

/// `ok`, as slowly as `/slow` says.
async fn health(State(site): State<Site>) -> &'static str {
    let delay = site.slow_ms.load(Ordering::Relaxed);
    if delay > 0 {
        tokio::time::sleep(Duration::from_millis(delay)).await;
    }
    "ok"
}

/// Sets the delay of `/health` to `ms` milliseconds.
async fn slow(
    State(site): State<Site>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<String, (StatusCode, &'static str)> {
    let ms: u64 = query
        .get("ms")
        .and_then(|ms| ms.parse().ok())
        .ok_or((StatusCode::BAD_REQUEST, "say ?ms=<milliseconds>"))?;
    site.slow_ms.store(ms, Ordering::Relaxed);
    Ok(format!("health now answers after {ms} ms\n"))
}

/// The claims the layer put in the request (`null` when `/api` is not protected).
async fn whoami(claims: Option<Extension<Claims>>) -> Json<Option<Claims>> {
    Json(claims.map(|Extension(claims)| claims))
}

/// `text` safe inside HTML.
fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}
