//! The command line: the subcommands of `anteroom` and their arguments (operators, API keys,
//! the draw's check, the fake payment provider and its behaviour). The settings every command
//! shares are [`Config`], flattened into [`Cli`]; the readers of the commands' words are here.

use std::net::SocketAddr;

use clap::{Args, Parser, Subcommand};

use super::Config;

#[derive(Parser, Debug)]
#[command(
    name = "anteroom",
    version,
    about = "A virtual waiting room and on-sale stack"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub config: Config,
}

#[derive(Subcommand, Debug, Clone)]
pub enum OperatorsCommand {
    /// Adds an operator (or finds the one with that address) and prints a one-time link
    /// (15 minutes) that enrols a passkey for them.
    Add {
        #[arg(long)]
        email: String,
        /// Their name as the audit shows it (default: the address).
        #[arg(long)]
        name: Option<String>,
        /// viewer, operator or admin.
        #[arg(long, value_parser = parse_role)]
        role: app::wire::Role,
        /// `all`, or event ids separated by commas.
        #[arg(long, default_value = "all", value_parser = parse_events)]
        events: app::wire::Events,
    },
}

#[derive(Subcommand, Debug, Clone)]
pub enum KeysCommand {
    /// Adds an API key and prints it, once.
    Add {
        /// What it is for (the audit names it).
        #[arg(long)]
        name: String,
        /// Its scopes (repeat, or separate by commas): stats:read, rooms:write,
        /// events:write, payments:read, audit:read, admissions:done.
        #[arg(long = "scope", required = true, value_delimiter = ',', value_parser = parse_scope)]
        scopes: Vec<app::wire::Scope>,
        /// `all`, or event ids separated by commas.
        #[arg(long, default_value = "all", value_parser = parse_events)]
        events: app::wire::Events,
        /// How long it lasts: `30d` (1 to 365 days; default 90).
        #[arg(long, value_parser = parse_days)]
        expires_in: Option<u32>,
    },
}

#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Migrate the database and serve HTTP (the default).
    Serve,
    /// Apply the database migrations and exit.
    Migrate,
    /// Write the secrets every instance must share into the data folder, once (the session
    /// secret, an admission key), unless the environment sets them; outside `--dev` `serve`
    /// never generates them.
    Secrets,
    /// Migrate, then create the demo event if it does not exist yet.
    Demo,
    /// Operators: add one (and print a one-time link that enrols their passkey).
    Operators {
        #[command(subcommand)]
        command: OperatorsCommand,
    },
    /// API keys for automation: add one (its secret is printed once).
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
    /// Check an event's published draw from its public endpoint alone: the commitment, the
    /// seed and the order of every ticket.
    VerifyDraw {
        /// The base URL of an Anteroom (e.g. http://127.0.0.1:3000).
        #[arg(long)]
        url: String,
        /// The event's id.
        #[arg(long)]
        event: String,
        /// A ticket whose place to print.
        #[arg(long)]
        ticket: Option<String>,
    },
    /// Serve the fake payment provider (for demos and load tests).
    FakePayments {
        /// Address to serve the fake on.
        #[arg(long, default_value = "127.0.0.1:4000")]
        fake_addr: SocketAddr,
        #[command(flatten)]
        settings: FakeSettings,
    },
}

/// The fake's behaviour; flags of `anteroom fake-payments`, and `PUT /settings`.
/// The fake payment provider's behaviour (`anteroom fake-payments`, and the one `--dev`
/// serves in-process).
#[derive(Args, Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FakeSettings {
    /// Latency of a charge, in ms.
    #[arg(long, env = "FAKE_PAYMENTS_LATENCY_MS", default_value_t = 400)]
    pub latency_ms: u64,
    /// Share of charges declined (0 to 1).
    #[arg(long, env = "FAKE_PAYMENTS_DECLINE_RATE", default_value_t = 0.0)]
    pub decline_rate: f64,
    /// Charges per second per merchant before 429.
    #[arg(long, env = "FAKE_PAYMENTS_RATE_PER_SECOND", default_value_t = 100)]
    pub rate_per_second: u32,
    /// Share of calls answered 500 (0 to 1).
    #[arg(long, env = "FAKE_PAYMENTS_FAIL_RATE", default_value_t = 0.0)]
    pub fail_rate: f64,
    /// Share of calls that charge and then never answer (0 to 1).
    #[arg(long, env = "FAKE_PAYMENTS_HANG_RATE", default_value_t = 0.0)]
    pub hang_rate: f64,
}

impl Default for FakeSettings {
    fn default() -> Self {
        Self {
            latency_ms: 400,
            decline_rate: 0.0,
            rate_per_second: 100,
            fail_rate: 0.0,
            hang_rate: 0.0,
        }
    }
}

// The operator commands' arguments (`anteroom operators|keys add`).

/// Reads `all` or a comma-separated list of event ids.
fn parse_events(text: &str) -> std::result::Result<app::wire::Events, String> {
    if text == "all" {
        return Ok(app::wire::Events::All);
    }
    let events = app::wire::Events::Only(text.split(',').map(|s| s.trim().to_owned()).collect());
    events.validate().map_err(|e| e.message)?;
    Ok(events)
}

/// Reads a role's word.
fn parse_role(text: &str) -> std::result::Result<app::wire::Role, String> {
    app::wire::Role::parse(text)
        .ok_or_else(|| format!("a role is viewer, operator or admin, not {text}"))
}

/// Reads a scope's word.
fn parse_scope(text: &str) -> std::result::Result<app::wire::Scope, String> {
    app::wire::Scope::parse(text).ok_or_else(|| {
        let all: Vec<&str> = app::wire::Scope::ALL.iter().map(|s| s.as_str()).collect();
        format!("a scope is one of {}, not {text}", all.join(", "))
    })
}

/// Reads `30d` (or a bare number of days).
fn parse_days(text: &str) -> std::result::Result<u32, String> {
    text.trim_end_matches('d')
        .parse()
        .map_err(|_| format!("an expiry is a number of days like 30d, not {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Secret;

    #[test]
    fn flags_override_defaults() {
        let cli = Cli::parse_from(["anteroom", "migrate", "--addr", "127.0.0.1:0"]);
        assert!(matches!(cli.command, Some(Command::Migrate)));
        assert_eq!(cli.config.addr.port(), 0);
        assert!(!cli.config.dev, "production unless said otherwise");
        assert!(Cli::parse_from(["anteroom", "serve", "--dev"]).config.dev);
        assert!(Cli::try_parse_from(["anteroom", "--redis-prefix", "a{b}"]).is_err());
        let cli = Cli::parse_from([
            "anteroom",
            "--redis-cluster-nodes",
            "redis://a:1,redis://b:2",
        ]);
        assert_eq!(
            cli.config.redis_cluster_nodes,
            vec![Secret::new("redis://a:1"), Secret::new("redis://b:2")]
        );
    }
}
