//! The settings themselves ([`Config`]): each one's flag, environment variable, default and
//! help, and nothing else (what they mean together is in the module's root, the commands in
//! `cli`). Every setting read from the environment is also in `.env.example` and
//! docs/configuration.md: a test in the root checks.

use std::{net::SocketAddr, path::PathBuf};

use clap::Args;

use super::{PaymentsKind, Secret, parse_prefix};
use crate::net::{Cidr, ForwardedHeader, GateProxy};

#[derive(Args, Debug, Clone)]
pub struct Config {
    /// Address to serve HTTP on (port 0 picks a free one).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADDR",
        default_value = "127.0.0.1:3000"
    )]
    pub addr: SocketAddr,

    /// Address to serve `/metrics` on, apart from the public address: the metrics name every
    /// event's line, which is no business of the public. Keep it on loopback or a private
    /// network (port 0 picks a free one).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_METRICS_ADDR",
        default_value = "127.0.0.1:9100"
    )]
    pub metrics_addr: SocketAddr,

    /// Postgres connection URL; the database is created if it does not exist.
    #[arg(
        long,
        global = true,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/anteroom"
    )]
    pub database_url: Secret,

    /// Largest number of Postgres connections of this instance.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_DB_POOL_SIZE",
        default_value_t = 24
    )]
    pub db_pool_size: u32,

    /// Postgres connections that reads anyone may cause (look-ups of events this instance does
    /// not know yet) may hold at once, out of `db_pool_size`: the rest stay for the admitted
    /// buyers' holds and checkouts and for the operator, whatever a flood of such reads does.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_DB_PUBLIC_CONNECTIONS",
        default_value_t = 4
    )]
    pub db_public_connections: u32,

    /// Redis connection URL.
    #[arg(
        long,
        global = true,
        env = "REDIS_URL",
        default_value = "redis://127.0.0.1:6379"
    )]
    pub redis_url: Secret,

    /// Nodes of a Redis Cluster, comma-separated (`redis://10.0.0.1:6379,redis://10.0.0.2:6379`);
    /// any few of its masters will do, the rest are discovered. Set: `REDIS_URL` is not used.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_REDIS_CLUSTER_NODES",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub redis_cluster_nodes: Vec<Secret>,

    /// Prefix of every Redis key, so that several deployments (or tests) share one Redis.
    #[arg(long, global = true, env = "ANTEROOM_REDIS_PREFIX", default_value = "ar", value_parser = parse_prefix)]
    pub redis_prefix: String,

    /// The break-glass admin token (`Authorization: Bearer`), at least 32 characters: OFF
    /// unless set. For an emergency only (every operator's passkey lost, the company's sign-in
    /// down): every use is logged at warn and audited as `break_glass`. Operators sign in as
    /// themselves; automation uses API keys.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADMIN_TOKEN",
        hide_env_values = true
    )]
    pub admin_token: Option<Secret>,

    /// Operators' sign-in attempts (passkey ceremonies, the company's sign-in) one client
    /// address may start per minute (across all instances).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADMIN_SIGN_INS_PER_MINUTE",
        default_value_t = 10
    )]
    pub admin_sign_ins_per_minute: u32,

    /// The company's OpenID provider for operators' sign-in (its issuer URL). Unset: operators
    /// sign in with passkeys only.
    #[arg(long, global = true, env = "ANTEROOM_OPERATOR_OIDC_ISSUER")]
    pub operator_oidc_issuer: Option<String>,

    /// This Anteroom's client id at the operators' provider.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OPERATOR_OIDC_CLIENT_ID",
        default_value = "anteroom-operators"
    )]
    pub operator_oidc_client_id: String,

    /// Its client secret (none: a public client, with PKCE).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OPERATOR_OIDC_CLIENT_SECRET",
        hide_env_values = true
    )]
    pub operator_oidc_client_secret: Option<Secret>,

    /// The scopes asked of the operators' provider.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OPERATOR_OIDC_SCOPES",
        default_value = "openid email profile groups"
    )]
    pub operator_oidc_scopes: String,

    /// The claim of the operators' ID token that names their groups (its values are matched
    /// against `ANTEROOM_OPERATOR_ROLES`).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OPERATOR_ROLE_CLAIM",
        default_value = "groups"
    )]
    pub operator_role_claim: String,

    /// Which claim value gives which role, `value=role,...` (e.g.
    /// `onsale-admins=admin,onsale-team=operator`). A person the provider signs in gets the
    /// highest role their values map to, on every event; with none, nothing (unless an admin
    /// added their address as an operator, whose role then applies).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OPERATOR_ROLES",
        value_delimiter = ',',
        default_value = ""
    )]
    pub operator_roles: Vec<String>,

    /// Key that signs buyer sessions. Unset: one is generated and kept in the data folder.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_SESSION_SECRET",
        hide_env_values = true
    )]
    pub session_secret: Option<Secret>,

    /// How long a buyer session lasts, in hours.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_SESSION_TTL_HOURS",
        default_value_t = 24
    )]
    pub session_ttl_hours: u32,

    /// Sessions one client address may create per minute (across all instances).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_SESSIONS_PER_MINUTE",
        default_value_t = 60
    )]
    pub sessions_per_minute: u32,

    /// Development mode, for a laptop and the tests: cookies without `Secure` (plain HTTP on
    /// 127.0.0.1), and with no payment provider configured the fake one runs in-process.
    /// Without it the server is in production: every cookie is `Secure` and `__Host-` named,
    /// and it refuses to start without `ANTEROOM_PAYMENTS_URL` (a fake takes no money).
    #[arg(long, global = true, env = "ANTEROOM_DEV")]
    pub dev: bool,

    /// The proxies in front of Anteroom (load balancers) as address blocks, comma-separated
    /// (`10.0.0.0/8,2001:db8:ffff::/48`): a request from one of them is from the client its
    /// forwarding header names, read through trusted hops only. Empty: every peer is the
    /// client (behind a balancer that is not listed, every buyer shares its address).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_TRUSTED_PROXIES",
        value_delimiter = ','
    )]
    pub trusted_proxies: Vec<Cidr>,

    /// The header in which the trusted proxies name the client: `x-forwarded-for` or
    /// `forwarded` (RFC 7239). Only this one is read: a client may send the other.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_FORWARDED_HEADER",
        value_enum,
        default_value = "x-forwarded-for"
    )]
    pub forwarded_header: ForwardedHeader,

    /// The reverse proxy that asks the gate (`GET /api/gate/check`), and so the header of the
    /// original URI read as its: `nginx` (`X-Original-URI`, as ops/nginx/gate.conf sets it) or
    /// `traefik` (forwardAuth's `X-Forwarded-Uri`). The other one is never read: a client may
    /// send it, and the proxy passes it on.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_GATE_PROXY",
        value_enum,
        default_value = "nginx"
    )]
    pub gate_proxy: GateProxy,

    /// Joins one network (an IPv4 /24 or an IPv6 /64) may make to one event's line per minute,
    /// across instances (counted inside the join's locate script).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_JOINS_PER_NETWORK_PER_MINUTE",
        default_value_t = 600
    )]
    pub joins_per_network_per_minute: u32,

    /// Claims of move codes one network (an IPv4 /24 or an IPv6 /64) may make per minute,
    /// across instances: few, so that nobody can guess codes (`queue::moving`).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_CLAIMS_PER_NETWORK_PER_MINUTE",
        default_value_t = 10
    )]
    pub claims_per_network_per_minute: u32,

    /// Places one network (an IPv4 /24 or an IPv6 /64) may take in one event's line over the
    /// night. A carrier's shared addresses count as one network: raise it for such crowds.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_PLACES_PER_NETWORK",
        default_value_t = 1000
    )]
    pub places_per_network: u32,

    /// How long an admission (and its token) lasts, in seconds.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADMISSION_TTL_SECONDS",
        default_value_t = 600
    )]
    pub admission_ttl_seconds: u32,

    /// The `aud` claim of admission tokens.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADMISSION_AUDIENCE",
        default_value = "anteroom"
    )]
    pub admission_audience: String,

    /// Folder of admission keys: `<kid>.key` (Ed25519 PKCS#8 PEM; signs and verifies) and
    /// `<kid>.pub` (SPKI PEM; verifies only). Default: `<data dir>/admission-keys`, where a key
    /// is generated on first run.
    #[arg(long, global = true, env = "ANTEROOM_ADMISSION_KEY_DIR")]
    pub admission_key_dir: Option<PathBuf>,

    /// The kid that signs new admission tokens. Unset: the newest key that every instance has
    /// published for `admission_key_publish_seconds` (see docs/production.md, "Rotating the
    /// admission key").
    #[arg(long, global = true, env = "ANTEROOM_ADMISSION_SIGNING_KID")]
    pub admission_signing_kid: Option<String>,

    /// How long, in seconds, every instance must have published a new admission key (in its
    /// JWKS) before it signs: longer than the JWKS may be cached (300 s) plus a reload of the
    /// key folder (10 s), so no verifier meets a token whose key it does not have yet.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ADMISSION_KEY_PUBLISH_SECONDS",
        default_value_t = 330
    )]
    pub admission_key_publish_seconds: u64,

    /// Lease of an event's ticker lock, in ms: how soon another instance takes over from one
    /// that died.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_TICKER_LEASE_MS",
        default_value_t = 2000
    )]
    pub ticker_lease_ms: u32,

    /// The shortest presence window: a waiting answer keeps its buyer present for half of
    /// their remaining wait at the rate in force, and at least this many seconds
    /// (`app::presence`). A buyer whose window ended is skipped when their turn comes (they use
    /// no admission) and admitted at the next tick once they come back.
    #[arg(long, global = true, env = "ANTEROOM_AWAY_AFTER_SECONDS", default_value_t = 60,
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub away_after_seconds: u32,

    /// An admitted buyer who has not opened the seat map within this many seconds no longer
    /// counts as shopping (the automatic rate gives their slot to the next buyer; the page
    /// opens the map by itself). Only a buyer who opened it holds admissions back.
    #[arg(long, global = true, env = "ANTEROOM_SEATMAP_DEADLINE_SECONDS", default_value_t = 15,
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub seatmap_deadline_seconds: u32,

    /// A buyer who opened the seat map is on it for this many seconds after each reading (or
    /// until they hold or their admission ends): while seats are short, the buyers on the map
    /// hold admissions back, and only they. The page reads the map every
    /// `app::presence::ON_MAP_SECONDS` (10) while its tab is shown.
    #[arg(long, global = true, env = "ANTEROOM_SEATMAP_WINDOW_SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub seatmap_window_seconds: u32,

    /// Whether the free seats hold admissions back for the buyers on the seat map (DESIGN.md
    /// "N a second while seats are free"); off: plain N a second while any seat is free (the
    /// bench's comparison, `make bench`).
    #[arg(long, global = true, env = "ANTEROOM_SEAT_HOLD_BACK", default_value_t = true, action = clap::ArgAction::Set)]
    pub seat_hold_back: bool,

    /// A night is kept by itself (closed, like turning the room off) once the line has been
    /// empty, with no admission, hold or checkout, for this many seconds.
    #[arg(long, global = true, env = "ANTEROOM_NIGHT_IDLE_SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub night_idle_seconds: u32,

    /// A room whose line has been empty, with nobody admitted by its ticks, for this many
    /// seconds (and whose night is kept) rests: no tick, no Redis command, until the next
    /// buyer in line wakes it (`admission::rest`). 0: rooms never rest.
    #[arg(long, global = true, env = "ANTEROOM_REST_AFTER_SECONDS", default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(0..=86_400))]
    pub rest_after_seconds: u32,

    /// The event-loop lag, in ms, counted as the limit of a healthy instance (the metrics'
    /// closeness to it, and the automatic rate's health signal).
    #[arg(long, global = true, env = "ANTEROOM_LOOP_LAG_LIMIT_MS", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=60_000))]
    pub loop_lag_limit_ms: u32,

    /// How often room settings are re-read from Postgres, in ms (at most 1000).
    #[arg(long, global = true, env = "ANTEROOM_ROOM_REFRESH_MS", default_value_t = 500,
          value_parser = clap::value_parser!(u32).range(50..=1000))]
    pub room_refresh_ms: u32,

    /// Run the admission ticker in this instance (turn off for API-only instances).
    #[arg(long, global = true, env = "ANTEROOM_TICKER", default_value_t = true, action = clap::ArgAction::Set)]
    pub ticker: bool,

    /// Hold attempts one buyer may make per minute (across all instances).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_HOLD_ATTEMPTS_PER_MINUTE",
        default_value_t = 10
    )]
    pub hold_attempts_per_minute: u32,

    /// How often expired holds are swept when no event's room is on, in seconds (events carry
    /// their own interval for their on-sale).
    #[arg(long, global = true, env = "ANTEROOM_HOLD_SWEEP_SECONDS", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub hold_sweep_seconds: u32,

    /// drand relays asked for the round a draw committed to, once its time passed
    /// (`opening::beacon`), comma-separated; empty: only the operator enters it.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_DRAND_URLS",
        value_delimiter = ',',
        default_value = "https://api.drand.sh,https://drand.cloudflare.com"
    )]
    pub drand_urls: Vec<String>,

    /// The ticketers whose sites may hand signed-in buyers over (API.md "Accounts"), as
    /// `issuer=jwks_url`, comma-separated: an assertion's `iss` must be one of them, and its
    /// signature check against that issuer's JWKS.
    #[arg(long, global = true, env = "ANTEROOM_TICKETERS", value_delimiter = ',')]
    pub ticketers: Vec<String>,

    /// The `aud` a ticketer's hand-over assertion must carry. Unset: this Anteroom's public
    /// URL's origin (`ANTEROOM_PUBLIC_URL`), or `anteroom` in `--dev` without one; outside
    /// `--dev` with neither, ticketers cannot be configured (no audience shared by every
    /// deployment, so one deployment's assertion passes at no other).
    #[arg(long, global = true, env = "ANTEROOM_ACCOUNT_AUDIENCE")]
    pub account_audience: Option<String>,

    /// The claims of a sign-in kept in the account's session for rooms' eligibility rules
    /// (`{"claim": "groups", "value": "fanclub"}`), comma-separated.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_ACCOUNT_CLAIMS",
        value_delimiter = ',',
        default_value = "groups"
    )]
    pub account_claims: Vec<String>,

    /// The buyers' OpenID Connect provider (its issuer URL; discovery at
    /// `/.well-known/openid-configuration`). Unset: no sign-in at a provider.
    #[arg(long, global = true, env = "ANTEROOM_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,

    /// This Anteroom's client id at the OpenID provider.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OIDC_CLIENT_ID",
        default_value = "anteroom"
    )]
    pub oidc_client_id: String,

    /// This Anteroom's client secret at the OpenID provider.
    #[arg(long, global = true, env = "ANTEROOM_OIDC_CLIENT_SECRET")]
    pub oidc_client_secret: Option<Secret>,

    /// The scopes asked of the OpenID provider, space-separated (`openid` is always asked).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_OIDC_SCOPES",
        default_value = "openid profile"
    )]
    pub oidc_scopes: String,

    /// This Anteroom's address as buyers' browsers reach it (`https://queue.example.com`): the
    /// OpenID provider sends them back to `<public url>/auth/callback`. Default: the listen
    /// address over http (development).
    #[arg(long, global = true, env = "ANTEROOM_PUBLIC_URL")]
    pub public_url: Option<String>,

    /// Which payment provider takes the buyers' money: `fake` (the one Anteroom ships, at
    /// `ANTEROOM_PAYMENTS_URL`) or `stripe` (`ANTEROOM_STRIPE_SECRET_KEY` and
    /// `ANTEROOM_STRIPE_WEBHOOK_SECRET` required).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_PAYMENTS",
        value_enum,
        default_value_t = PaymentsKind::Fake
    )]
    pub payments: PaymentsKind,

    /// Stripe's API address (a test server's for tests).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_STRIPE_API_URL",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_url: String,

    /// Stripe's secret API key (`sk_live_...`, `sk_test_...`).
    #[arg(long, global = true, env = "ANTEROOM_STRIPE_SECRET_KEY")]
    pub stripe_secret_key: Option<Secret>,

    /// The signing secret of the webhook endpoint registered at Stripe for
    /// `<public url>/api/payments/stripe/webhook` (`whsec_...`).
    #[arg(long, global = true, env = "ANTEROOM_STRIPE_WEBHOOK_SECRET")]
    pub stripe_webhook_secret: Option<Secret>,

    /// Base URL of the fake payment provider. Required with `ANTEROOM_PAYMENTS=fake` unless
    /// `--dev`, where, unset, the fake (`anteroom fake-payments`) is started inside this
    /// process.
    #[arg(long, global = true, env = "ANTEROOM_PAYMENTS_URL")]
    pub payments_url: Option<String>,

    /// Our merchant id at the payment provider.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_PAYMENTS_MERCHANT",
        default_value = "anteroom"
    )]
    pub payments_merchant: String,

    /// Timeout of one payment provider call, in ms.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_PAYMENTS_TIMEOUT_MS",
        default_value_t = 5000
    )]
    pub payments_timeout_ms: u32,

    /// How long one checkout may wait out the payment provider's 429s, in ms; past it the
    /// answer is 503 with Retry-After and the payment stays recoverable (a retry or
    /// reconciliation settles it), so a busy provider never holds a request for minutes.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_PAYMENTS_BUSY_WAIT_MS",
        default_value_t = 5000
    )]
    pub payments_busy_wait_ms: u32,

    /// Payment calls in flight per instance (the bulkhead).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_CHECKOUT_CONCURRENCY",
        default_value_t = 20
    )]
    pub checkout_concurrency: u32,

    /// How long a checkout waits for a bulkhead slot before 503, in ms.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_CHECKOUT_WAIT_MS",
        default_value_t = 2000
    )]
    pub checkout_wait_ms: u32,

    /// Consecutive provider failures that open the circuit breaker.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_BREAKER_FAILURES",
        default_value_t = 5
    )]
    pub breaker_failures: u32,

    /// How long the breaker stays open before a probe, in ms.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_BREAKER_OPEN_MS",
        default_value_t = 5000
    )]
    pub breaker_open_ms: u32,

    /// Requests of the line and the pages in flight per instance; beyond it, 503 at once.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_GENERAL",
        default_value_t = 1024
    )]
    pub in_flight_general: u32,

    /// Requests of admitted buyers (seat map, holds, checkout) in flight per instance:
    /// their own budget, which a storm of joins cannot take.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_ADMITTED",
        default_value_t = 512
    )]
    pub in_flight_admitted: u32,

    /// Joins in flight per instance.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_JOIN",
        default_value_t = 512
    )]
    pub in_flight_join: u32,

    /// Polls in flight per instance.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_POLL",
        default_value_t = 512
    )]
    pub in_flight_poll: u32,

    /// Seat-map reads in flight per instance.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_SEATMAP",
        default_value_t = 256
    )]
    pub in_flight_seatmap: u32,

    /// Hold requests (create, read, release) in flight per instance.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_HOLD",
        default_value_t = 128
    )]
    pub in_flight_hold: u32,

    /// Checkouts in flight per instance (the payment bulkhead sits inside).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_CHECKOUT",
        default_value_t = 128
    )]
    pub in_flight_checkout: u32,

    /// Operator requests (`/api/admin`, `/admin`) in flight per instance: never shed with the
    /// public budgets, but bounded on their own, since anyone can send them.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_IN_FLIGHT_OPERATOR",
        default_value_t = 64
    )]
    pub in_flight_operator: u32,

    /// How long a client may take to send a request's headers, in ms; then the connection is
    /// closed (slow-loris).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_HEADER_READ_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub header_read_timeout_ms: u64,

    /// How long a client may take to send a request's whole body, in ms; then 408.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_BODY_READ_TIMEOUT_MS",
        default_value_t = 10_000
    )]
    pub body_read_timeout_ms: u64,

    /// How long a request may run once its body is read, in ms; then 503 (every route but
    /// checkout).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_REQUEST_TIMEOUT_MS",
        default_value_t = 15_000
    )]
    pub request_timeout_ms: u64,

    /// How long a checkout may run once its body is read, in ms; then 503. Longer than the
    /// bulkhead wait plus the provider call, so that it only cuts what those bounds missed.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_CHECKOUT_TIMEOUT_MS",
        default_value_t = 60_000
    )]
    pub checkout_timeout_ms: u64,

    /// How long a new Redis connection may take, in ms: while Redis is down, a call fails
    /// (503) after at most this.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_REDIS_CONNECT_TIMEOUT_MS",
        default_value_t = 100
    )]
    pub redis_connect_timeout_ms: u64,

    /// How long one Redis call may take, in ms, before it fails (503).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_REDIS_RESPONSE_TIMEOUT_MS",
        default_value_t = 1000
    )]
    pub redis_response_timeout_ms: u64,

    /// How long a request waits for a Postgres connection, in ms, before 503.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_DB_ACQUIRE_TIMEOUT_MS",
        default_value_t = 3000
    )]
    pub db_acquire_timeout_ms: u64,

    /// Folder for generated development secrets and keys (git-ignored).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_DATA_DIR",
        default_value = ".anteroom"
    )]
    pub data_dir: PathBuf,

    /// The Leptos site settings file (output name, site root, package folder).
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_LEPTOS_CONFIG",
        default_value = "Leptos.toml"
    )]
    pub leptos_config: PathBuf,

    /// Logs as JSON lines instead of text.
    #[arg(
        long,
        global = true,
        env = "ANTEROOM_LOG_JSON",
        default_value_t = false
    )]
    pub log_json: bool,
}
