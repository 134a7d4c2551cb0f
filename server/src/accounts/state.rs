//! The accounts' configured parts, built once at startup: the ticketers whose hand-overs are
//! accepted, and the buyers' OpenID provider, if any.

use crate::{
    accounts::{
        assertion::{Assertions, Ticketer},
        jwks::KeySet,
        oidc::Provider,
    },
    config::Config,
};

pub struct Accounts {
    pub assertions: Assertions,
    /// The buyers' OpenID provider (`ANTEROOM_OIDC_ISSUER`), if configured.
    pub provider: Option<Provider>,
}

impl Accounts {
    /// The accounts `config` describes; an error names a setting that does not read.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // A fetch every few minutes at most: no connection is worth keeping.
            .pool_max_idle_per_host(0)
            .build()
            .map_err(|e| e.to_string())?;
        let mut ticketers = Vec::new();
        for entry in config.ticketers.iter().filter(|t| !t.trim().is_empty()) {
            let (issuer, jwks) = entry
                .trim()
                .split_once('=')
                .ok_or_else(|| format!("ANTEROOM_TICKETERS: {entry:?} is not issuer=jwks_url"))?;
            if !(jwks.starts_with("https://") || jwks.starts_with("http://")) {
                return Err(format!("ANTEROOM_TICKETERS: {jwks:?} is not a URL"));
            }
            ticketers.push(Ticketer {
                issuer: issuer.to_owned(),
                keys: KeySet::new(jwks.to_owned(), http.clone()),
            });
        }
        let claim_names: Vec<String> = config
            .account_claims
            .iter()
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty())
            .collect();
        let audience = match config.account_audience() {
            Some(audience) => audience,
            None if ticketers.is_empty() => String::new(),
            None => {
                return Err(
                    "ANTEROOM_TICKETERS needs the audience their assertions carry: set \
                            ANTEROOM_ACCOUNT_AUDIENCE or ANTEROOM_PUBLIC_URL (whose origin is \
                            the default)"
                        .into(),
                );
            }
        };
        Ok(Self {
            assertions: Assertions {
                ticketers,
                audience,
                claim_names: claim_names.clone(),
            },
            provider: config.oidc_issuer.as_ref().map(|issuer| {
                Provider::new(
                    issuer.clone(),
                    config.oidc_client_id.clone(),
                    config
                        .oidc_client_secret
                        .as_ref()
                        .map(|s| s.expose().to_owned()),
                    &config.oidc_scopes,
                    claim_names,
                )
            }),
        })
    }
}
