//! Every cookie Anteroom sets, and the reading of the cookies a request carries.
//! Invariants: each cookie is HttpOnly (no script, ours or injected, reads a token), has
//! `Path=/`, and lives no longer than the token in it; only the session cookie and the
//! sign-ins' (a buyer's and an operator's) are `SameSite=Lax` (a link from another site to an event page must find the
//! buyer's session; the identity provider's redirect back must find the sign-in's state),
//! every other one is `Strict`. Outside `--dev` every cookie is `Secure` and named with the
//! `__Host-` prefix, and only that name is read: a browser accepts such a cookie only from
//! this very host over HTTPS, so a sibling subdomain or a plain-HTTP page cannot plant a
//! session of its choosing. These are decided here and nowhere else: [`Cookie::header`] is the
//! only place a `Set-Cookie` is written, [`read`] the only place one is read, [`sets`] the only
//! place a response's are looked at.

use axum::http::{HeaderMap, HeaderValue, header};
use chrono::{DateTime, Utc};

use crate::config::Config;

/// The browser cookie of a buyer's session.
pub const SESSION_COOKIE: &str = "anteroom_session";
/// The browser cookie of an operator's session (API.md: `__Host-anteroom-op`): a random
/// secret whose session lives on the server (`operators::sessions`).
pub const OPERATOR_COOKIE: &str = "anteroom-op";
/// The browser cookie of a sign-in under way at the identity provider (`accounts`).
pub const SIGN_IN_COOKIE: &str = "anteroom_sign_in";
/// The browser cookie of an operator's sign-in under way at the company's provider.
pub const OPERATOR_SIGN_IN_COOKIE: &str = "anteroom-op-sign-in";
/// How long a sign-in may take at the provider.
pub const SIGN_IN_TTL_SECS: u64 = 600;
/// The longest an operator's session lasts (its cookie; the server ends it then too).
pub const OPERATOR_TTL_SECS: i64 = 12 * 3600;

/// The cookie that carries the admission token of one event in a browser.
pub fn admission_cookie_name(event_id: &str) -> String {
    format!("anteroom_admission_{event_id}")
}

/// The cookie that carries a buyer's place receipt for one event in a browser.
pub fn place_cookie_name(event_id: &str) -> String {
    format!("anteroom_place_{event_id}")
}

/// A cookie to hand to a browser, by what it carries.
pub enum Cookie<'a> {
    /// A buyer's session token, as long as a session lasts.
    Session { token: &'a str },
    /// An admission token of one event, gone when the token expires.
    Admission {
        event_id: &'a str,
        token: &'a str,
        expires_at: DateTime<Utc>,
    },
    /// A place receipt of one event, as long as a session lasts.
    Place { event_id: &'a str, receipt: &'a str },
    /// Clears the place receipt of one event (a place given up for another).
    PlaceGone { event_id: &'a str },
    /// An operator's session.
    Operator { token: &'a str },
    /// Clears the operator's session (signing out).
    OperatorSignedOut,
    /// A sign-in under way at the identity provider: its signed state.
    SignIn { state: &'a str },
    /// Clears the sign-in's state (the provider came back).
    SignedIn,
    /// An operator's sign-in under way at the company's provider: its signed state.
    OperatorSignIn { state: &'a str },
    /// Clears it.
    OperatorSignedIn,
    /// The buyer's choice of language (`?lang=`), for a year: always one of `app::lang`'s tags.
    Language { lang: app::lang::Lang },
}

impl Cookie<'_> {
    /// The `Set-Cookie` value of this cookie under `config`.
    pub fn header(&self, config: &Config) -> HeaderValue {
        let session_secs = u64::from(config.session_ttl_hours) * 3600;
        let (name, value, same_site, max_age) = match self {
            Cookie::Session { token } => (SESSION_COOKIE.into(), *token, "Lax", session_secs),
            Cookie::Admission {
                event_id,
                token,
                expires_at,
            } => (
                admission_cookie_name(event_id),
                *token,
                "Strict",
                (*expires_at - Utc::now()).num_seconds().max(0) as u64,
            ),
            Cookie::Place { event_id, receipt } => (
                place_cookie_name(event_id),
                *receipt,
                "Strict",
                session_secs,
            ),
            Cookie::PlaceGone { event_id } => (place_cookie_name(event_id), "", "Strict", 0),
            Cookie::Operator { token } => (
                OPERATOR_COOKIE.into(),
                *token,
                "Strict",
                OPERATOR_TTL_SECS as u64,
            ),
            Cookie::OperatorSignedOut => (OPERATOR_COOKIE.into(), "", "Strict", 0),
            Cookie::SignIn { state } => (SIGN_IN_COOKIE.into(), *state, "Lax", SIGN_IN_TTL_SECS),
            Cookie::SignedIn => (SIGN_IN_COOKIE.into(), "", "Lax", 0),
            Cookie::OperatorSignIn { state } => (
                OPERATOR_SIGN_IN_COOKIE.into(),
                *state,
                "Lax",
                SIGN_IN_TTL_SECS,
            ),
            Cookie::OperatorSignedIn => (OPERATOR_SIGN_IN_COOKIE.into(), "", "Lax", 0),
            Cookie::Language { lang } => (
                app::lang::COOKIE.into(),
                lang.tag(),
                "Lax",
                LANGUAGE_TTL_SECS,
            ),
        };
        let (prefix, secure) = if config.dev {
            ("", "")
        } else {
            (HOST_PREFIX, "; Secure")
        };
        HeaderValue::from_str(&format!(
            "{prefix}{name}={value}; Path=/; HttpOnly; SameSite={same_site}; \
             Max-Age={max_age}{secure}"
        ))
        .expect("ids are [a-z0-9-] and tokens base64url and dots")
    }

    /// Adds this cookie to a response's headers (beside any other cookie set there).
    pub fn set(&self, config: &Config, headers: &mut HeaderMap) {
        headers.append(header::SET_COOKIE, self.header(config));
    }
}

/// How long a buyer's choice of language is kept: a year.
const LANGUAGE_TTL_SECS: u64 = 365 * 24 * 3600;

/// The name prefix of every cookie outside `--dev`: the browser keeps a `__Host-` cookie only
/// if it is `Secure`, has `Path=/` and no `Domain`, and came from a secure origin.
const HOST_PREFIX: &str = "__Host-";

/// The value of our cookie `name` (as [`Cookie::header`] names it under `config`) in the
/// request's headers.
pub fn read<'a>(config: &Config, headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    if config.dev {
        cookie(headers, name)
    } else {
        cookie(headers, &format!("{HOST_PREFIX}{name}"))
    }
}

/// Whether the response `headers` set the cookie `name` (under its `__Host-` name outside
/// `--dev`, as [`Cookie::header`] writes it).
pub fn sets(config: &Config, headers: &HeaderMap, name: &str) -> bool {
    let name = if config.dev {
        format!("{name}=")
    } else {
        format!("{HOST_PREFIX}{name}=")
    };
    headers
        .get_all(header::SET_COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.starts_with(&name))
}

/// The value of cookie `name`, exactly so named, in the request's `Cookie` headers.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_response_sets_a_cookie_under_the_name_it_was_written_with() {
        let soon = Utc::now() + chrono::Duration::seconds(600);
        for dev in [true, false] {
            let config = Config {
                dev,
                ..Config::defaults()
            };
            let mut headers = HeaderMap::new();
            Cookie::Admission {
                event_id: "e",
                token: "t",
                expires_at: soon,
            }
            .set(&config, &mut headers);
            assert!(sets(&config, &headers, "anteroom_admission_e"), "dev {dev}");
            assert!(
                !sets(&config, &headers, "anteroom_admission_f"),
                "dev {dev}"
            );
            assert!(!sets(&config, &headers, "anteroom_admission_"), "dev {dev}");
        }
    }

    #[test]
    fn every_cookie_is_http_only_and_secure_and_host_only_outside_dev() {
        let mut config = Config::defaults();
        let soon = Utc::now() + chrono::Duration::seconds(600);
        let cookies = [
            Cookie::Session { token: "t" },
            Cookie::Admission {
                event_id: "e",
                token: "t",
                expires_at: soon,
            },
            Cookie::Place {
                event_id: "e",
                receipt: "r",
            },
            Cookie::PlaceGone { event_id: "e" },
            Cookie::Operator { token: "t" },
            Cookie::OperatorSignedOut,
            Cookie::SignIn { state: "s" },
            Cookie::SignedIn,
            Cookie::OperatorSignIn { state: "s" },
            Cookie::OperatorSignedIn,
        ];
        for dev in [false, true] {
            config.dev = dev;
            for cookie in &cookies {
                let value = cookie.header(&config);
                let value = value.to_str().unwrap();
                assert!(value.contains("; Path=/; HttpOnly; SameSite="), "{value}");
                assert_eq!(value.ends_with("; Secure"), !dev, "{value}");
                assert_eq!(value.starts_with("__Host-anteroom"), !dev, "{value}");
            }
        }
        config.dev = true;
        let admission = cookies[1].header(&config);
        let admission = admission.to_str().unwrap();
        assert!(admission.starts_with("anteroom_admission_e=t; "));
        let max_age: u64 = admission
            .rsplit_once("Max-Age=")
            .unwrap()
            .1
            .parse()
            .unwrap();
        assert!((598..=600).contains(&max_age), "{admission}");
        assert!(
            cookies[0]
                .header(&config)
                .to_str()
                .unwrap()
                .contains("SameSite=Lax")
        );
        assert_eq!(
            cookies[5].header(&config).to_str().unwrap(),
            "anteroom-op=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"
        );
    }

    #[test]
    fn outside_dev_only_the_host_prefixed_name_is_read() {
        let mut h = HeaderMap::new();
        h.append("cookie", "a=1; anteroom_session=planted".parse().unwrap());
        let mut config = Config::defaults();
        assert_eq!(read(&config, &h, SESSION_COOKIE), None);
        h.append("cookie", "__Host-anteroom_session=ours".parse().unwrap());
        assert_eq!(read(&config, &h, SESSION_COOKIE), Some("ours"));
        config.dev = true;
        assert_eq!(read(&config, &h, SESSION_COOKIE), Some("planted"));
        assert_eq!(read(&config, &h, "missing"), None);
    }
}
