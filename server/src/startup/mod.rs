//! Building and running the application: connect (creating the database if needed), migrate,
//! assemble the routes, bind, serve until a shutdown signal, then drain in-flight requests and
//! stop the background tasks.
//!
//! Here, the application's assembly and its accept loop, and the commands that only connect
//! and migrate; the routes and the layers around them are in `router`, the secrets every
//! instance must share (and the checks of them at start) in `secrets`.

mod router;
mod secrets;

pub use router::router;
pub use secrets::{MIN_BREAK_GLASS_CHARS, write_secrets};

use std::{net::SocketAddr, path::Path, str::FromStr, sync::Arc, time::Duration};

use app::wire::Event;
use axum::{Router, extract::ConnectInfo};
use hyper::body::Incoming;
use hyper_util::{
    rt::{TokioExecutor, TokioIo, TokioTimer},
    server::{conn::auto, graceful::GracefulShutdown},
    service::TowerToHyperService,
};
use leptos::prelude::LeptosOptions;
use sqlx::{
    ConnectOptions, Connection, PgConnection, PgPool,
    postgres::{PgConnectOptions, PgPoolOptions},
};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use secrets::{check_break_glass_token, session_secret};

use crate::{
    accounts,
    admission::{self, ticker::Ticker},
    base::{Base, Handles},
    checkout::{self, provider::Payments, state::Checkout},
    config::{Config, PaymentsKind},
    events::{self, rooms::Rooms, state::Catalog},
    fresh::Fresh,
    holds::{self, state::HoldPath},
    opening,
    operators::state::Staff,
    ops::{self, shed::Shed},
    queue::{self, state::Line},
    redis::{Keys, Redis, Scripts},
    state::{AppState, Shared},
    telemetry::metrics::Metrics,
    tokens::{self, Sessions, rotation::KeyRing, state::Tokens},
};

pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations");

/// A bound, ready-to-run Anteroom.
pub struct Application {
    listener: TcpListener,
    router: Router,
    /// `/metrics`, on an address of its own (`metrics_addr`).
    metrics_listener: TcpListener,
    state: AppState,
}

impl Application {
    /// Connects, migrates and binds; `config.addr` with port 0 picks a free port.
    pub async fn build(config: Config) -> Result<Self, BoxError> {
        if let Some(token) = config
            .admin_token
            .as_ref()
            .filter(|t| !t.expose().is_empty())
        {
            check_break_glass_token(token.expose())?;
            tracing::warn!(
                "ANTEROOM_ADMIN_TOKEN is set: the break-glass admin token is ON; every use is \
                 logged and audited. Unset it once the emergency is over."
            );
        }
        let stripe_keys = match config.payments {
            PaymentsKind::Fake if config.payments_url.is_none() && !config.dev => {
                return Err(NO_PAYMENT_PROVIDER.into());
            }
            PaymentsKind::Fake => None,
            PaymentsKind::Stripe => {
                match (&config.stripe_secret_key, &config.stripe_webhook_secret) {
                    (Some(key), Some(webhook)) => Some((key.clone(), webhook.clone())),
                    _ => return Err(NO_STRIPE_KEYS.into()),
                }
            }
        };
        if !(1..config.db_pool_size).contains(&config.db_public_connections) {
            return Err(format!(
                "ANTEROOM_DB_PUBLIC_CONNECTIONS ({}) must be at least 1 and below \
                 ANTEROOM_DB_POOL_SIZE ({}), so that holds and checkout keep connections of \
                 their own",
                config.db_public_connections, config.db_pool_size
            )
            .into());
        }
        let leptos = leptos_options(&config.leptos_config)?;
        // Every language's words compiled now, not on the first buyer's page.
        app::lang::page_words(app::lang::Lang::En);
        // The secrets first: a start refused for one of them touches nothing.
        let session_secret = session_secret(&config)?;
        tokens::session::check_session_secret(session_secret.expose())?;
        let staff = Staff::from_config(&config)?;
        let sessions = Sessions::new(
            session_secret.expose().as_bytes(),
            Duration::from_secs(u64::from(config.session_ttl_hours) * 3600),
        );
        let keyring = KeyRing::load(&config)?;
        let db = connect_db(&config).await?;
        MIGRATOR.run(&db).await?;
        let redis = Redis::connect(&config).await?;
        let keys = Keys::new(config.redis_prefix.clone());
        // The signer as the other instances allow; unknown (Redis failing), the folder's.
        if let Err(e) = keyring.refresh(&redis, &keys).await {
            tracing::warn!(error = %e, "could not compare admission keys with the other instances");
        }
        let timeout = Duration::from_millis(u64::from(config.payments_timeout_ms));
        let provider: Box<dyn checkout::provider::Provider> = match &stripe_keys {
            Some((key, _)) => Box::new(checkout::stripe::Stripe::new(
                config.stripe_api_url.clone(),
                key.clone(),
                timeout,
            )),
            None => {
                let url = match &config.payments_url {
                    Some(url) => url.trim_end_matches('/').to_owned(),
                    // `--dev` only (checked above): the fake takes no money.
                    None => {
                        let url = checkout::fake::spawn(
                            checkout::fake::FakeSettings::default(),
                            "127.0.0.1:0".parse().expect("a valid address"),
                        )
                        .await?;
                        tracing::info!(%url, "no payment provider configured: serving the fake in-process");
                        url
                    }
                };
                Box::new(checkout::fake_client::FakeClient::new(
                    url,
                    config.payments_merchant.clone(),
                    timeout,
                ))
            }
        };
        let payments = Payments::new(provider, &config);
        let accounts = accounts::state::Accounts::from_config(&config)?;
        let rooms = Rooms::new(&config);
        let shed = Shed::new(&config);
        let base = Base::new(Handles {
            db,
            redis,
            keys,
            scripts: Scripts::new(),
            metrics: Metrics::new(),
            config,
        });
        let catalog = Catalog {
            base,
            rooms: Arc::new(rooms),
        };
        let tokens = Tokens {
            catalog,
            sessions: Arc::new(sessions),
            keyring: Arc::new(keyring),
            accounts: Arc::new(accounts),
        };
        let wakes = Arc::new(queue::wakes::Wakes::new(&tokens.keys, tokens.redis.clone()));
        let line = Line {
            tokens,
            bands: Arc::default(),
            rates: Arc::default(),
            draws: Arc::new(opening::Published::new(opening::SecretKey::derive(
                session_secret.expose().as_bytes(),
            ))),
            health: Arc::default(),
            wakes,
            progresses: Arc::new(Fresh::new(queue::progress::FRESH)),
        };
        let checkout = Checkout {
            holds: HoldPath { line },
            payments: Arc::new(payments),
            stripe_webhook_secret: stripe_keys.map(|(_, webhook)| webhook),
        };
        let state = AppState::new(Shared {
            checkout,
            reports: Arc::default(),
            shed: Arc::new(shed),
            staff: Arc::new(staff),
            revoked: Arc::default(),
            leptos,
        });
        state.rooms.refresh(&state.db).await?;
        let listener = TcpListener::bind(state.config.addr).await?;
        let metrics_listener = TcpListener::bind(state.config.metrics_addr).await?;
        let router = router(state.clone());
        Ok(Self {
            listener,
            router,
            metrics_listener,
            state,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Where `/metrics` is served.
    pub fn metrics_addr(&self) -> SocketAddr {
        self.metrics_listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until `shutdown` is cancelled, then lets in-flight requests finish and stops the
    /// background tasks (the ticker releases its locks on the way out).
    pub async fn run(self, shutdown: CancellationToken) -> Result<(), BoxError> {
        let background = CancellationToken::new();
        let mut tasks = vec![tokio::spawn(events::refresh_rooms(
            self.state.catalog.clone(),
            background.clone(),
        ))];
        tasks.push(tokio::spawn(holds::expiry::run(
            self.state.holds.clone(),
            background.clone(),
        )));
        tasks.push(tokio::spawn(checkout::reconcile::run(
            self.state.checkout.clone(),
            background.clone(),
        )));
        tasks.push(tokio::spawn(admission::retire::run(
            self.state.line.clone(),
            background.clone(),
        )));
        tasks.push(tokio::spawn(tokens::rotation::run(
            self.state.keyring.clone(),
            self.state.base.clone(),
            background.clone(),
        )));
        tasks.push(tokio::spawn(admission::signals::sample_loop_lag(
            self.state.health.clone(),
            self.state.base.clone(),
            background.clone(),
        )));
        if self.state.config.ticker {
            tasks.push(tokio::spawn(
                Ticker::new(self.state.line.clone()).run(background.clone()),
            ));
        }
        let header_read_timeout = Duration::from_millis(self.state.config.header_read_timeout_ms);
        let metrics = ops::metrics_router(self.state.clone());
        tokio::join!(
            serve(
                self.listener,
                self.router,
                header_read_timeout,
                shutdown.clone()
            ),
            serve(
                self.metrics_listener,
                metrics,
                header_read_timeout,
                shutdown
            ),
        );
        background.cancel();
        for task in tasks {
            let _ = task.await;
        }
        Ok(())
    }
}

/// Why a production start without a payment provider is refused: the fake one would take
/// orders and no money.
const NO_STRIPE_KEYS: &str = "ANTEROOM_PAYMENTS=stripe needs ANTEROOM_STRIPE_SECRET_KEY (the \
    API's secret key) and ANTEROOM_STRIPE_WEBHOOK_SECRET (the signing secret of the webhook \
    endpoint registered at Stripe for <public url>/api/payments/stripe/webhook)";

const NO_PAYMENT_PROVIDER: &str = "no payment provider: set ANTEROOM_PAYMENTS_URL (or pass \
    --dev to run the fake one in-process, for development only)";

/// Serves `router` on `listener` until `shutdown`, then lets in-flight requests finish.
/// Rather than `axum::serve`, which gives hyper no timer: without one, hyper's header-read
/// timeout never fires and a client that trickles its headers holds a connection forever.
async fn serve(
    listener: TcpListener,
    router: Router,
    header_read_timeout: Duration,
    shutdown: CancellationToken,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout);
    let graceful = GracefulShutdown::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of file descriptors, most likely: let connections end first.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = shutdown.cancelled() => break,
        };
        let service = router
            .clone()
            .map_request(move |mut req: http::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                req
            });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), TowerToHyperService::new(service))
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

fn leptos_options(path: &Path) -> Result<LeptosOptions, BoxError> {
    let path = path
        .to_str()
        .ok_or("the Leptos configuration path is not UTF-8")?;
    let mut options = leptos::config::get_configuration(Some(path))?.leptos_options;
    // cargo-leptos writes the content hashes of the built files beside the binary it builds.
    // A binary without them (a test, a `cargo run`) serves the files by their plain names;
    // Leptos would otherwise fail every page on the missing file.
    if options.hash_files {
        let beside_binary = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.join(&*options.hash_file)));
        if !beside_binary.is_some_and(|p| p.exists()) {
            options.hash_files = false;
        }
    }
    Ok(options)
}

/// What the operator commands of the command line (`anteroom operators|keys ...`) work with:
/// the migrated database and the signer of operators' secrets (from the same session secret
/// the serving instances use).
pub async fn cli_context(config: &Config) -> Result<(PgPool, Sessions), BoxError> {
    let session_secret = session_secret(config)?;
    let sessions = Sessions::new(
        session_secret.expose().as_bytes(),
        Duration::from_secs(u64::from(config.session_ttl_hours) * 3600),
    );
    let db = connect_db(config).await?;
    MIGRATOR.run(&db).await?;
    Ok((db, sessions))
}

/// A pool on the configured database, creating the database first if it does not exist.
pub async fn connect_db(config: &Config) -> Result<PgPool, BoxError> {
    let options = PgConnectOptions::from_str(config.database_url.expose())?
        .log_statements(tracing::log::LevelFilter::Debug);
    create_database_if_missing(&options).await?;
    Ok(PgPoolOptions::new()
        .max_connections(config.db_pool_size)
        .acquire_timeout(Duration::from_millis(config.db_acquire_timeout_ms))
        // No ping before every acquire (one more round trip per hold); a connection that
        // died is found by its first query, which fails and is dropped from the pool.
        .test_before_acquire(false)
        .connect_with(options)
        .await?)
}

async fn create_database_if_missing(options: &PgConnectOptions) -> Result<(), BoxError> {
    let name = options
        .get_database()
        .ok_or("DATABASE_URL names no database")?
        .to_owned();
    let mut admin = PgConnection::connect_with(&options.clone().database("postgres")).await?;
    let exists: bool =
        sqlx::query_scalar("select exists (select 1 from pg_database where datname = $1)")
            .bind(&name)
            .fetch_one(&mut admin)
            .await?;
    if !exists {
        let quoted = format!("\"{}\"", name.replace('"', "\"\""));
        if let Err(e) = sqlx::query(&format!("create database {quoted}"))
            .execute(&mut admin)
            .await
        {
            // Another instance may have created it at the same moment.
            let created_meanwhile: bool =
                sqlx::query_scalar("select exists (select 1 from pg_database where datname = $1)")
                    .bind(&name)
                    .fetch_one(&mut admin)
                    .await?;
            if !created_meanwhile {
                return Err(e.into());
            }
        }
    }
    admin.close().await?;
    Ok(())
}

/// `anteroom migrate`.
pub async fn migrate(config: &Config) -> Result<(), BoxError> {
    let db = connect_db(config).await?;
    MIGRATOR.run(&db).await?;
    Ok(())
}

/// What `anteroom demo` did: the secrets it wrote or found, and the events it created.
pub struct Demo {
    pub secrets: Vec<String>,
    pub created: Vec<Event>,
}

/// `anteroom demo`: keep the secrets every instance and command shares in the data folder
/// (as `anteroom secrets` does, once: the demo's machine is one a newcomer just set up, so the
/// commands after it, `operators add`, `keys add`, `serve` with or without `--dev`, all read
/// the same ones), migrate, then create each demo event unless it exists (the night, and the
/// opening a few minutes from now).
pub async fn demo(config: &Config) -> Result<Demo, BoxError> {
    let secrets = write_secrets(config)?;
    // The demo's opening commits to a draw whose secret the serving instances must make again.
    let session_secret = session_secret(config)?;
    let key = opening::SecretKey::derive(session_secret.expose().as_bytes());
    let db = connect_db(config).await?;
    MIGRATOR.run(&db).await?;
    let mut created = Vec::new();
    for (id, event) in [
        (events::DEMO_EVENT_ID, events::demo_event()),
        (
            events::DEMO_OPENING_ID,
            events::demo_opening_event(chrono::Utc::now()),
        ),
    ] {
        created.extend(crate::admin::events::create_event(&db, id, &event, &key).await?);
    }
    Ok(Demo { secrets, created })
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("installing a SIGTERM handler");
    tokio::select! {
        _ = ctrl_c => {}
        _ = term.recv() => {}
    }
}
