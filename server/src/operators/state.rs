//! The operators' state, built once at startup: the break-glass token (off unless
//! configured), the passkeys' relying party, and the company's OpenID provider with the claim
//! that maps a person to a role.

use app::wire::Role;
use webauthn_rs::prelude::{Url, Webauthn, WebauthnBuilder};

use crate::{
    accounts::oidc::Provider,
    config::{Config, Secret},
    tokens::session::Account,
};

pub struct Staff {
    /// `ANTEROOM_ADMIN_TOKEN`: the break-glass credential, `None` (off) by default.
    break_glass: Option<Secret>,
    /// The passkeys' relying party (`None`: no public URL on a domain name).
    pub passkeys: Option<Passkeys>,
    /// The company's OpenID provider for operators, if configured.
    pub company: Option<CompanySignIn>,
}

impl Staff {
    pub fn from_config(config: &Config) -> Result<Self, String> {
        Ok(Staff {
            break_glass: config
                .admin_token
                .clone()
                .filter(|s| !s.expose().is_empty()),
            passkeys: Passkeys::from_config(config),
            company: CompanySignIn::from_config(config)?,
        })
    }

    /// Whether the break-glass token is configured.
    pub fn has_break_glass(&self) -> bool {
        self.break_glass.is_some()
    }

    /// Whether `given` is the configured break-glass token (never when none is), compared in
    /// constant time.
    pub fn is_break_glass(&self, given: &str) -> bool {
        self.break_glass
            .as_ref()
            .is_some_and(|t| constant_time_eq(given.as_bytes(), t.expose().as_bytes()))
    }
}

/// Equality whose time does not depend on where the first differing byte is.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The relying party, if this deployment can have one.
pub struct Passkeys {
    pub webauthn: Webauthn,
    /// The relying party's id (the public host), as the options name it.
    pub rp_id: String,
}

impl Passkeys {
    /// The relying party of `config`'s public URL (or `localhost` in `--dev`); `None`, with a
    /// warning, when that is not a domain (browsers refuse passkeys for an IP address).
    pub fn from_config(config: &Config) -> Option<Self> {
        let (origin, any_port) = match &config.public_url {
            Some(url) => (url.clone(), false),
            None if config.dev => ("http://localhost:3000".to_owned(), true),
            None => {
                tracing::warn!("no ANTEROOM_PUBLIC_URL: operators' passkeys are off");
                return None;
            }
        };
        let built = Url::parse(&origin).ok().and_then(|url| {
            let rp_id = url.domain()?.to_owned();
            let webauthn = WebauthnBuilder::new(&rp_id, &url)
                .ok()?
                .rp_name("Anteroom")
                .allow_any_port(any_port)
                .build()
                .ok()?;
            Some(Passkeys { webauthn, rp_id })
        });
        if built.is_none() {
            tracing::warn!(%origin, "operators' passkeys need a public URL on a domain name: off");
        }
        built
    }
}

/// The company's provider and the claim values that give a role.
pub struct CompanySignIn {
    pub provider: Provider,
    pub role_claim: String,
    roles: Vec<(String, Role)>,
}

impl CompanySignIn {
    /// `None` when no provider is configured; an error for a role mapping that does not read.
    pub fn from_config(config: &Config) -> std::result::Result<Option<Self>, String> {
        let Some(issuer) = &config.operator_oidc_issuer else {
            return Ok(None);
        };
        let mut roles = Vec::new();
        for pair in config.operator_roles.iter().filter(|p| !p.is_empty()) {
            let (value, role) = pair.split_once('=').ok_or_else(|| {
                format!("ANTEROOM_OPERATOR_ROLES takes value=role pairs, not {pair}")
            })?;
            let role = Role::parse(role.trim()).ok_or_else(|| {
                format!("ANTEROOM_OPERATOR_ROLES: a role is viewer, operator or admin, not {role}")
            })?;
            roles.push((value.trim().to_owned(), role));
        }
        // The address and its verification first: the cap on kept values
        // (`accounts::claims::MAX_VALUES`) drops the last ones, and a person with many groups
        // must not lose the address they are matched by.
        let claim_names = vec![
            "email".to_owned(),
            "email_verified".to_owned(),
            "name".to_owned(),
            config.operator_role_claim.clone(),
        ];
        Ok(Some(CompanySignIn {
            provider: Provider::new(
                issuer.clone(),
                config.operator_oidc_client_id.clone(),
                config
                    .operator_oidc_client_secret
                    .as_ref()
                    .map(|s| s.expose().to_owned()),
                &config.operator_oidc_scopes,
                claim_names,
            )
            .fresh(),
            role_claim: config.operator_role_claim.clone(),
            roles,
        }))
    }

    /// The highest role `account`'s claim values map to.
    pub fn role_of(&self, account: &Account) -> Option<Role> {
        account
            .claims
            .0
            .iter()
            .filter_map(|kept| kept.strip_prefix(&format!("{}=", self.role_claim)))
            .filter_map(|value| self.roles.iter().find(|(v, _)| v == value).map(|(_, r)| *r))
            .max()
    }
}
