//! The ticketer's site's health, as the automatic rate follows it (API.md "The gate": with
//! `auto_rate`, a `target_url` and an `origin_probe_url`, the leader probes the site each
//! second; the rate follows its latency against `target_hold_p99_ms`, and its failures).
//!
//! Invariants: a probe never holds up the ticker (it runs on its own task, and the ticker reads
//! the last result); at most one probe per event is in flight on an instance, however slow the
//! site; a probe that errs, answers a status other than 2xx or 3xx, or takes longer than
//! [`TIMEOUT`] counts as failed; a result older than [`FRESH`] is not used (the rate then
//! follows the rest of its signals); redirects are not followed (a probe asks one address).

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use crate::admission::rate::OriginHealth;

/// The longest a probe waits for the site.
pub const TIMEOUT: Duration = Duration::from_secs(2);
/// How long a probe's result is used.
pub const FRESH: Duration = Duration::from_secs(5);

/// Whether the leader may probe `url` (`origin_probe_url`): outside `--dev`, never a loopback,
/// private, link-local or otherwise internal address (the probe is a request from inside the
/// deployment, of an operator's choosing): 422 otherwise.
pub fn check_target(url: Option<&str>, dev: bool) -> crate::error::Result<()> {
    let Some(url) = url else { return Ok(()) };
    if dev || !internal(url) {
        return Ok(());
    }
    Err(crate::error::Error::Unprocessable(
        "origin_probe_url must be the site's public address, not a loopback or private one".into(),
    ))
}

/// Whether `url`'s host is a name or address of this machine or a private network.
fn internal(url: &str) -> bool {
    let Some(host) = app::wire::target_host(url) else {
        return true;
    };
    let name = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or_default(),
        None => host.split(':').next().unwrap_or_default(),
    };
    if name == "localhost" || name.ends_with(".localhost") || name.ends_with(".internal") {
        return true;
    }
    match name.parse::<std::net::IpAddr>().map(|ip| ip.to_canonical()) {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback()
                || ip.is_private()
                || ip.is_link_local()
                || ip.is_unspecified()
                || ip.is_broadcast()
                || ip.octets()[0] == 100 && (ip.octets()[1] & 0xc0) == 64
        }
        Ok(std::net::IpAddr::V6(ip)) => {
            ip.is_loopback()
                || ip.is_unspecified()
                || (ip.segments()[0] & 0xfe00) == 0xfc00
                || (ip.segments()[0] & 0xffc0) == 0xfe80
        }
        Err(_) => false,
    }
}

/// Event id -> its last probe; the events with a probe in flight. Std locks: held for a map
/// access, never across `.await`.
pub struct Probes {
    last: Mutex<HashMap<String, (Instant, OriginHealth)>>,
    in_flight: Mutex<HashSet<String>>,
    client: reqwest::Client,
}

impl Default for Probes {
    fn default() -> Self {
        Self {
            last: Mutex::default(),
            in_flight: Mutex::default(),
            client: reqwest::Client::builder()
                .timeout(TIMEOUT)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("a plain HTTP client builds"),
        }
    }
}

impl Probes {
    /// The last fresh result of `event_id`'s probe, and the next probe of `url` started unless
    /// one is under way.
    pub fn read_and_probe(self: &Arc<Self>, event_id: &str, url: &str) -> Option<OriginHealth> {
        let started = self
            .in_flight
            .lock()
            .expect("not poisoned")
            .insert(event_id.to_owned());
        if started {
            let probes = self.clone();
            let (event_id, url) = (event_id.to_owned(), url.to_owned());
            tokio::spawn(async move {
                let health = probes.probe(&url).await;
                probes
                    .last
                    .lock()
                    .expect("not poisoned")
                    .insert(event_id.clone(), (Instant::now(), health));
                probes
                    .in_flight
                    .lock()
                    .expect("not poisoned")
                    .remove(&event_id);
            });
        }
        let last = self.last.lock().expect("not poisoned");
        last.get(event_id)
            .filter(|(at, _)| at.elapsed() < FRESH)
            .map(|(_, health)| *health)
    }

    async fn probe(&self, url: &str) -> OriginHealth {
        let started = Instant::now();
        match self.client.get(url).send().await {
            Ok(r) if r.status().is_success() || r.status().is_redirection() => {
                OriginHealth::Answered(started.elapsed().as_secs_f64() * 1000.0)
            }
            Ok(r) => {
                tracing::warn!(%url, status = %r.status(), "the site's probe failed");
                OriginHealth::Failed
            }
            Err(e) => {
                tracing::warn!(%url, error = %e, "the site's probe failed");
                OriginHealth::Failed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::check_target;

    #[test]
    fn a_probe_of_an_internal_address_is_refused_outside_dev() {
        for url in [
            "http://127.0.0.1:8080/health",
            "http://localhost/health",
            "https://10.1.2.3/health",
            "https://192.168.0.1/",
            "https://172.16.5.4/",
            "https://169.254.169.254/latest/meta-data",
            "https://100.64.0.1/",
            "https://[::1]/",
            "https://[fd00::1]/",
            "https://[fe80::1]/",
            "https://0.0.0.0/",
            "https://metadata.google.internal/",
        ] {
            assert!(check_target(Some(url), false).is_err(), "{url}");
            assert!(check_target(Some(url), true).is_ok(), "{url} in --dev");
        }
        for url in ["https://shop.example/health", "https://8.8.8.8/"] {
            assert!(check_target(Some(url), false).is_ok(), "{url}");
        }
        assert!(check_target(None, false).is_ok());
    }
}
