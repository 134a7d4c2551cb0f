//! Typed configuration: defaults that work on a development machine with nothing set, then the
//! environment (`DATABASE_URL`, `REDIS_URL`, `ANTEROOM_*`), then flags; clap layers the three.
//! Secrets are [`Secret`]s, whose `Debug` never shows the value, so they stay out of logs.
//!
//! The settings are declared in `settings` ([`Config`]), the command line in `cli` ([`Cli`]),
//! [`Secret`] in `secret`; here, what the settings mean together (the account audience, the
//! issuers, the public base) and the defaults every test starts from.

mod cli;
mod secret;
mod settings;

pub use cli::{Cli, Command, FakeSettings, KeysCommand, OperatorsCommand};
pub use secret::Secret;
pub use settings::Config;

use clap::{Args, FromArgMatches};

/// Which payment provider takes the buyers' money (`ANTEROOM_PAYMENTS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PaymentsKind {
    /// The fake Anteroom ships (`ANTEROOM_PAYMENTS_URL`, or in-process with `--dev`).
    Fake,
    /// Stripe's PaymentIntents, confirmed on the buyer's page with Stripe.js.
    Stripe,
}

impl Config {
    /// The `aud` ticketers' assertions must carry: the one configured, else the public URL's
    /// origin, else `anteroom` in `--dev`; `None` outside `--dev` with neither.
    pub fn account_audience(&self) -> Option<String> {
        if let Some(audience) = self.account_audience.as_ref().filter(|a| !a.is_empty()) {
            return Some(audience.clone());
        }
        if let Some(url) = &self.public_url {
            return Some(origin(url));
        }
        self.dev.then(|| "anteroom".to_owned())
    }

    /// Every issuer of buyers' accounts: the OpenID provider first, then the ticketers.
    pub fn account_issuers(&self) -> Vec<&str> {
        self.oidc_issuer
            .iter()
            .map(String::as_str)
            .chain(
                self.ticketers
                    .iter()
                    .filter_map(|t| t.trim().split_once('=').map(|(issuer, _)| issuer)),
            )
            .collect()
    }

    /// The issuer an eligibility rule that names none means: the buyers' OpenID provider, else
    /// the one issuer configured; `None` when several ticketers and no provider are.
    pub fn default_issuer(&self) -> Option<&str> {
        match (
            self.oidc_issuer.as_deref(),
            self.account_issuers().as_slice(),
        ) {
            (Some(provider), _) => Some(provider),
            (None, [only]) => Some(only),
            _ => None,
        }
    }

    /// This Anteroom's address as browsers reach it: the configured public URL, else
    /// (development) `http://` and the `Host` a request came with, else the listen address.
    pub fn public_base(&self, host: Option<&str>) -> String {
        let base = match (&self.public_url, host) {
            (Some(url), _) => url.clone(),
            (None, Some(host)) => format!("http://{host}"),
            (None, None) => format!("http://{}", self.addr),
        };
        base.trim_end_matches('/').to_owned()
    }

    /// The configuration with every default and nothing from the environment or the command
    /// line: the starting point of tests, so that an `ANTEROOM_*` variable of the shell that
    /// runs them changes nothing.
    pub fn defaults() -> Self {
        let matches = defaults_only()
            .try_get_matches_from(["anteroom"])
            .expect("the defaults parse");
        Self::from_arg_matches(&matches).expect("the defaults make a configuration")
    }
}

/// The settings' parser with the environment unplugged: every argument loses its `env`.
fn defaults_only() -> clap::Command {
    Config::augment_args(clap::Command::new("anteroom")).mut_args(|arg| arg.env(None))
}

fn parse_prefix(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 64
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ':');
    if ok {
        Ok(s.to_owned())
    } else {
        Err("use 1 to 64 characters of [A-Za-z0-9_:-]".to_owned())
    }
}

/// The origin of `url`: its scheme, host and port, without a path or a trailing slash.
fn origin(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    format!("{scheme}://{host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every setting the server reads from the environment is in `.env.example` (set or
    /// commented out) and in `docs/configuration.md` (in backticks): issue 62.
    #[test]
    fn every_setting_is_in_the_example_and_the_configuration_document() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let example = std::fs::read_to_string(root.join(".env.example")).unwrap();
        let document = std::fs::read_to_string(root.join("docs/configuration.md")).unwrap();
        let settings = Config::augment_args(clap::Command::new("anteroom"));
        let fake = FakeSettings::augment_args(clap::Command::new("fake-payments"));
        let names: Vec<String> = (settings.get_arguments())
            .chain(fake.get_arguments())
            .filter_map(|arg| arg.get_env())
            .map(|env| env.to_string_lossy().into_owned())
            .collect();
        assert!(names.len() > 70, "{names:?}");
        let missing: Vec<&String> = names
            .iter()
            .filter(|name| {
                let set = example.lines().any(|line| {
                    let line = line.trim_start_matches(['#', ' ']);
                    line.starts_with(&format!("{name}="))
                });
                !set || !document.contains(&format!("`{name}`"))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "not in .env.example or docs/configuration.md: {missing:?}"
        );
    }

    #[test]
    fn the_defaults_read_no_environment_variable() {
        use clap::CommandFactory;
        // The full parser reads the environment (this proves the check below can fail) ...
        let full = Cli::command();
        assert!(full.get_arguments().any(|a| a.get_env().is_some()));
        // ... the one behind `Config::defaults` does not, for any setting.
        let defaults = defaults_only();
        let read: Vec<_> = defaults
            .get_arguments()
            .filter_map(|a| a.get_env())
            .collect();
        assert!(read.is_empty(), "{read:?}");
    }

    #[test]
    fn the_account_audience_is_no_shared_word_outside_dev() {
        let mut config = Config::defaults();
        config.dev = false;
        assert_eq!(config.account_audience(), None);
        config.public_url = Some("https://tickets.example:8443/queue/".into());
        assert_eq!(
            config.account_audience().as_deref(),
            Some("https://tickets.example:8443")
        );
        config.account_audience = Some("urn:anteroom:eu-1".into());
        assert_eq!(
            config.account_audience().as_deref(),
            Some("urn:anteroom:eu-1")
        );
        let mut dev = Config::defaults();
        dev.dev = true;
        assert_eq!(dev.account_audience().as_deref(), Some("anteroom"));
        // Ticketers without an audience outside --dev: the server does not start.
        config.account_audience = None;
        config.public_url = None;
        config.ticketers = vec!["https://t.example=https://t.example/jwks".into()];
        assert!(crate::accounts::state::Accounts::from_config(&config).is_err());
    }
}
