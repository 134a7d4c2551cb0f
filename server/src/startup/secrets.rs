//! The secrets every instance of a deployment must share: the session secret, configured or
//! kept in the data folder (generated there only with `--dev`, or once by `anteroom secrets`),
//! and the break-glass token's check. A start refused for a secret touches nothing else.

use crate::{
    config::{Config, Secret},
    devdata::{self, Strictness},
};

use super::BoxError;

/// The configured secret, else the one kept in the data folder as `name`. With `--dev` a
/// missing one is generated there; outside it the start is refused (`env` names the setting),
/// since instances behind one load balancer that each generated their own would answer one
/// another's buyers with 401s.
fn secret_or_file(
    config: &Config,
    configured: Option<&Secret>,
    name: &str,
    env: &str,
) -> Result<(Secret, bool), BoxError> {
    if let Some(s) = configured.filter(|s| !s.expose().is_empty()) {
        return Ok((s.clone(), false));
    }
    let strictness = Strictness::for_dev(config.dev);
    if !config.dev {
        let path = config.data_dir.join(name);
        return match devdata::read_secret(&path, strictness)? {
            Some(value) => Ok((Secret::new(value), false)),
            None => Err(format!(
                "no {name}: set {env} (the same value on every instance), or run `anteroom \
                 secrets` once on a data folder every instance shares ({}); outside --dev no \
                 secret is generated at start",
                config.data_dir.display()
            )
            .into()),
        };
    }
    let (value, created) = devdata::secret_file(&config.data_dir, name, strictness)?;
    Ok((Secret::new(value), created))
}

/// `anteroom secrets`: writes into the data folder, once, what a production deployment's
/// instances must share and the environment does not set (the session secret, an admission
/// signing key), each 0600 in a 0700 folder. What is there already is
/// kept. Returns a line for each, saying what was written or found.
pub fn write_secrets(config: &Config) -> Result<Vec<String>, BoxError> {
    let mut lines = Vec::new();
    for (name, configured, env) in [(
        SESSION_SECRET_FILE,
        &config.session_secret,
        "ANTEROOM_SESSION_SECRET",
    )] {
        if configured.as_ref().is_some_and(|s| !s.expose().is_empty()) {
            lines.push(format!("{name}: set by {env}, nothing written"));
            continue;
        }
        let (value, created) = devdata::secret_file(&config.data_dir, name, Strictness::Refuse)?;
        let path = config.data_dir.join(name);
        drop(value);
        lines.push(if created {
            format!("{name}: written to {}", path.display())
        } else {
            format!("{name}: kept in {} already", path.display())
        });
    }
    let dir = crate::tokens::rotation::key_dir(config);
    let before = crate::tokens::keys::read_dir(&dir, Strictness::Refuse)?.len();
    let keys = crate::tokens::keys::load_or_generate(&dir, Strictness::Refuse)?;
    lines.push(if keys.len() > before {
        format!("admission key: generated in {}", dir.display())
    } else {
        format!(
            "admission keys: {} in {} already",
            keys.len(),
            dir.display()
        )
    });
    Ok(lines)
}

/// The shortest break-glass token the server accepts from configuration.
pub const MIN_BREAK_GLASS_CHARS: usize = 32;

/// A configured break-glass token too short to resist guessing is refused at start.
pub(super) fn check_break_glass_token(token: &str) -> Result<(), String> {
    if token.chars().count() < MIN_BREAK_GLASS_CHARS {
        return Err(format!(
            "the break-glass admin token (ANTEROOM_ADMIN_TOKEN) must have at least \
             {MIN_BREAK_GLASS_CHARS} characters; generate one with `openssl rand -base64 32`"
        ));
    }
    Ok(())
}

/// The session secret: configured, or kept in the data folder (generated there with `--dev`).
pub(super) fn session_secret(config: &Config) -> Result<Secret, BoxError> {
    Ok(secret_or_file(
        config,
        config.session_secret.as_ref(),
        SESSION_SECRET_FILE,
        "ANTEROOM_SESSION_SECRET",
    )?
    .0)
}

/// The session secret's file in the data folder, when none is configured.
const SESSION_SECRET_FILE: &str = "session_secret";
