//! The operators' state, built once at startup: the break-glass token (off unless
//! configured), the passkeys' relying party, and the company's OpenID provider with the claim
//! that maps a person to a role.

use super::{oidc::CompanySignIn, passkeys::Passkeys};
use crate::config::Config;
use crate::config::Secret;

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
