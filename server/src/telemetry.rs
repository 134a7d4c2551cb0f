//! Structured logs through `tracing`: text for people, JSON lines with `--log-json`.
//! `RUST_LOG` filters (default: info, with sqlx's statement logs at warn).

use tracing_subscriber::{EnvFilter, fmt};

pub fn init(json: bool) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let builder = fmt().with_env_filter(filter);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}
