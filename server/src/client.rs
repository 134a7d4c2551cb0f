//! Who is asking: the client's address, read through the proxies trusted to name it, and the
//! buckets every per-address limit counts in.
//!
//! Invariants (issue 16, findings 2 and 3): the client is the connection's peer, unless the
//! peer is a trusted proxy (`ANTEROOM_TRUSTED_PROXIES`); then the forwarding header those
//! proxies write (`ANTEROOM_FORWARDED_HEADER`) is read from the right, one hop at a time, and
//! the client is the first address that is not itself a trusted proxy. Whatever a client
//! writes into that header lies left of what our proxies appended, so it is never read past
//! the client's real address; a hop that does not parse ends the walk at the proxy that
//! wrote it. An IPv6 client counts as its /64 (one host commonly has a whole /64 to pick
//! addresses from); the per-network limits count an IPv4 /24, and an IPv6 /64 together with
//! its /56 and /48, each allowed a multiple of the limit ([`Client::networks`]): one customer
//! is commonly given a /56 or a whole /48, which is 65,536 /64s. [`Client::of`]
//! is the one function that decides, and every per-address limit takes its subject from a
//! [`Client`].

use std::{
    fmt,
    net::{IpAddr, Ipv6Addr, SocketAddr},
    str::FromStr,
};

use axum::{
    extract::ConnectInfo,
    http::{Extensions, HeaderMap},
};

use crate::{
    config::Config,
    error::Error,
    net::{Cidr, ForwardedHeader},
};

/// The client of a request, as [`Client::of`] found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client {
    pub ip: IpAddr,
}

impl Client {
    /// The client of a request that came from `peer` with `headers`.
    pub fn of(peer: IpAddr, headers: &HeaderMap, config: &Config) -> Self {
        let trusted = |ip: IpAddr| config.trusted_proxies.iter().any(|c| c.contains(ip));
        let mut ip = peer.to_canonical();
        if trusted(ip) {
            for hop in hops(headers, config.forwarded_header).into_iter().rev() {
                let Some(hop) = hop else { break };
                ip = hop;
                if !trusted(ip) {
                    break;
                }
            }
        }
        Self { ip }
    }

    /// The client of a request, from its connection's peer (in `extensions`) and `headers`.
    pub fn from_request(
        extensions: &Extensions,
        headers: &HeaderMap,
        config: &Config,
    ) -> Result<Self, Error> {
        let ConnectInfo(peer) = extensions
            .get::<ConnectInfo<SocketAddr>>()
            .ok_or_else(|| Error::Internal("served without the peer's address".into()))?;
        Ok(Self::of(peer.ip(), headers, config))
    }

    /// The subject of the per-address limits: the address, or for IPv6 its /64.
    pub fn address(&self) -> String {
        match self.ip {
            IpAddr::V4(ip) => ip.to_string(),
            IpAddr::V6(_) => self.network(),
        }
    }

    /// The network an address counts as: the IPv4 /24 or the IPv6 /64.
    pub fn network(&self) -> String {
        self.block(64).to_string()
    }

    /// The buckets the per-network limits count this client in, each with the multiple of
    /// the limit it may reach: the IPv4 /24 (1); the IPv6 /64 (1), its /56 (4) and its /48
    /// (16). An allocation of a /48 is then worth 16 networks' share, not 65,536.
    pub fn networks(&self) -> Vec<Network> {
        let prefixes: &[(u8, u32)] = match self.ip {
            IpAddr::V4(_) => &[(24, 1)],
            IpAddr::V6(_) => &[(64, 1), (56, 4), (48, 16)],
        };
        prefixes
            .iter()
            .map(|&(prefix, scale)| Network {
                cidr: self.block(prefix).to_string(),
                scale,
            })
            .collect()
    }

    /// The block of `prefix_v6` bits holding an IPv6 client, or the /24 of an IPv4 one.
    fn block(&self, prefix_v6: u8) -> Cidr {
        Cidr::of(self.ip, if self.ip.is_ipv4() { 24 } else { prefix_v6 })
    }
}

/// One bucket of the per-network limits: a block of addresses and the multiple of the
/// configured limit it may reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub cidr: String,
    pub scale: u32,
}

impl Network {
    /// This bucket's share of `limit`.
    pub fn limit(&self, limit: u32) -> u32 {
        limit.saturating_mul(self.scale)
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.ip.fmt(f)
    }
}

/// The addresses of `header`, left to right over all its lines (`None` for a hop that names
/// no address: `unknown`, an obfuscated name, garbage).
fn hops(headers: &HeaderMap, header: ForwardedHeader) -> Vec<Option<IpAddr>> {
    let name = match header {
        ForwardedHeader::XForwardedFor => "x-forwarded-for",
        ForwardedHeader::Forwarded => "forwarded",
    };
    let mut hops = Vec::new();
    for line in headers.get_all(name) {
        let Ok(line) = line.to_str() else {
            hops.push(None);
            continue;
        };
        for element in line.split(',') {
            let address = match header {
                ForwardedHeader::XForwardedFor => Some(element),
                ForwardedHeader::Forwarded => element.split(';').find_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    key.trim().eq_ignore_ascii_case("for").then_some(value)
                }),
            };
            hops.push(address.and_then(node_address));
        }
    }
    hops
}

/// The address of one hop: `192.0.2.1`, `192.0.2.1:8080`, `2001:db8::1`, `[2001:db8::1]:443`,
/// each maybe in quotes.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(ip) = IpAddr::from_str(node) {
        return Some(ip.to_canonical());
    }
    if let Some(bracketed) = node.strip_prefix('[') {
        let (v6, _) = bracketed.split_once(']')?;
        return Ipv6Addr::from_str(v6)
            .ok()
            .map(|ip| IpAddr::V6(ip).to_canonical());
    }
    SocketAddr::from_str(node)
        .ok()
        .map(|s| s.ip().to_canonical())
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn config(trusted: &[&str], header: ForwardedHeader) -> Config {
        let mut config = Config::defaults();
        config.trusted_proxies = trusted.iter().map(|c| c.parse().unwrap()).collect();
        config.forwarded_header = header;
        config
    }

    fn client(peer: &str, name: &str, values: &[&str], config: &Config) -> String {
        let mut headers = HeaderMap::new();
        for v in values {
            headers.append(
                axum::http::HeaderName::from_str(name).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        Client::of(peer.parse().unwrap(), &headers, config)
            .ip
            .to_string()
    }

    #[test]
    fn the_header_counts_only_when_the_peer_is_a_trusted_proxy() {
        let lb = config(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let xff = "x-forwarded-for";
        assert_eq!(
            client("10.1.2.3", xff, &["203.0.113.7"], &lb),
            "203.0.113.7"
        );
        assert_eq!(
            client("198.51.100.9", xff, &["203.0.113.7"], &lb),
            "198.51.100.9"
        );
        let nobody = config(&[], ForwardedHeader::XForwardedFor);
        assert_eq!(
            client("10.1.2.3", xff, &["203.0.113.7"], &nobody),
            "10.1.2.3"
        );
    }

    #[test]
    fn what_the_client_wrote_itself_is_never_read_past_its_own_address() {
        let lb = config(&["10.0.0.0/8"], ForwardedHeader::XForwardedFor);
        let xff = "x-forwarded-for";
        // The client sent "1.1.1.1"; our balancer appended the client's real address.
        assert_eq!(
            client("10.0.0.1", xff, &["1.1.1.1, 203.0.113.7"], &lb),
            "203.0.113.7"
        );
        // Two trusted hops, over two header lines.
        assert_eq!(
            client("10.0.0.1", xff, &["1.1.1.1, 203.0.113.7", "10.9.9.9"], &lb),
            "203.0.113.7"
        );
        // A hop that names nothing stops the walk at the proxy that wrote it.
        assert_eq!(client("10.0.0.1", xff, &["unknown"], &lb), "10.0.0.1");
        assert_eq!(client("10.0.0.1", xff, &["10.0.0.2"], &lb), "10.0.0.2");
    }

    #[test]
    fn forwarded_elements_name_their_client_in_for() {
        let lb = config(
            &["10.0.0.0/8", "2001:db8:ffff::/48"],
            ForwardedHeader::Forwarded,
        );
        let fwd = "forwarded";
        assert_eq!(
            client(
                "10.0.0.1",
                fwd,
                &["for=1.1.1.1, For=\"[2001:db8:1:2::9]:4711\";proto=https"],
                &lb
            ),
            "2001:db8:1:2::9"
        );
        assert_eq!(
            client(
                "10.0.0.1",
                fwd,
                &["for=\"192.0.2.60:8080\";by=10.0.0.1"],
                &lb
            ),
            "192.0.2.60"
        );
        assert_eq!(client("10.0.0.1", fwd, &["for=_hidden"], &lb), "10.0.0.1");
        // The other header is not read.
        assert_eq!(
            client("10.0.0.1", "x-forwarded-for", &["192.0.2.60"], &lb),
            "10.0.0.1"
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64_and_networks_by_24_or_64() {
        let c = |ip: &str| Client {
            ip: ip.parse().unwrap(),
        };
        assert_eq!(c("2001:db8:1:2:aaaa::1").address(), "2001:db8:1:2::/64");
        assert_eq!(
            c("2001:db8:1:2:aaaa::1").address(),
            c("2001:db8:1:2:ffff:ffff:ffff:ffff").address()
        );
        assert_ne!(
            c("2001:db8:1:2::1").address(),
            c("2001:db8:1:3::1").address()
        );
        assert_eq!(c("203.0.113.7").address(), "203.0.113.7");
        assert_eq!(c("203.0.113.7").network(), "203.0.113.0/24");
        assert_eq!(c("2001:db8:1:2::1").network(), "2001:db8:1:2::/64");
    }

    /// Review finding 8: a /48 counted as 65,536 networks.
    #[test]
    fn an_ipv6_client_counts_in_its_64_56_and_48_and_an_ipv4_one_in_its_24() {
        let c = |ip: &str| Client {
            ip: ip.parse().unwrap(),
        };
        let buckets = |ip: &str| {
            c(ip)
                .networks()
                .into_iter()
                .map(|n| (n.cidr, n.scale))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            buckets("2001:db8:1:2a3::1"),
            [
                ("2001:db8:1:2a3::/64".to_owned(), 1),
                ("2001:db8:1:200::/56".to_owned(), 4),
                ("2001:db8:1::/48".to_owned(), 16),
            ]
        );
        assert_eq!(buckets("203.0.113.7"), [("203.0.113.0/24".to_owned(), 1)]);
        assert_eq!(
            c("2001:db8:1:ffff::1").networks()[2],
            c("2001:db8:1::9").networks()[2]
        );
        assert_eq!(c("2001:db8::1").networks()[2].limit(u32::MAX), u32::MAX);
    }
}
