//! Blocks of addresses and the forwarding headers that name a client: the types the settings
//! (`ANTEROOM_TRUSTED_PROXIES`, `ANTEROOM_FORWARDED_HEADER`) and [`crate::client`] share, apart
//! from both so that neither imports the other.

use std::{
    fmt,
    net::{IpAddr, Ipv4Addr, Ipv6Addr},
    str::FromStr,
};

/// A block of addresses, `10.0.0.0/8` or `2001:db8::/32` (a bare address is the block of one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// The block of `prefix` bits that holds `ip`.
    pub fn of(ip: IpAddr, prefix: u8) -> Self {
        let network = match ip {
            IpAddr::V4(ip) => {
                IpAddr::V4(Ipv4Addr::from(
                    masked(u128::from(u32::from(ip)), 32, prefix) as u32,
                ))
            }
            IpAddr::V6(ip) => IpAddr::V6(Ipv6Addr::from(masked(u128::from(ip), 128, prefix))),
        };
        Self { network, prefix }
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                masked(u128::from(u32::from(net)), 32, self.prefix)
                    == masked(u128::from(u32::from(ip)), 32, self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                masked(u128::from(net), 128, self.prefix)
                    == masked(u128::from(ip), 128, self.prefix)
            }
            _ => false,
        }
    }
}

/// The first `prefix` bits of a `width`-bit address (the rest zero).
fn masked(address: u128, width: u8, prefix: u8) -> u128 {
    let host_bits = u32::from(width - prefix.min(width));
    address
        .checked_shr(host_bits)
        .unwrap_or(0)
        .checked_shl(host_bits)
        .unwrap_or(0)
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("{s:?} is not an address block such as 10.0.0.0/8 or 2001:db8::/32");
        let (address, prefix) = match s.trim().split_once('/') {
            Some((address, prefix)) => (address, Some(prefix)),
            None => (s.trim(), None),
        };
        let network = IpAddr::from_str(address).map_err(|_| bad())?.to_canonical();
        let width = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= width)
                .ok_or_else(bad)?,
            None => width,
        };
        Ok(Self { network, prefix })
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

/// The header in which the trusted proxies name the address they received a request from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ForwardedHeader {
    /// `X-Forwarded-For: client, proxy1, proxy2`.
    XForwardedFor,
    /// RFC 7239 `Forwarded: for=client, for="[2001:db8::1]:4711"`.
    Forwarded,
}

/// The reverse proxy in front of a ticketer's site that asks the gate, by the header it
/// names the original request's URI in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GateProxy {
    /// nginx `auth_request`: `X-Original-URI`.
    Nginx,
    /// Traefik `forwardAuth`: `X-Forwarded-Uri`.
    Traefik,
}

impl GateProxy {
    /// The header this proxy names the original URI in.
    pub fn uri_header(self) -> &'static str {
        match self {
            Self::Nginx => "x-original-uri",
            Self::Traefik => "x-forwarded-uri",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_parse_and_contain_their_addresses_only() {
        let block = |s: &str| s.parse::<Cidr>();
        assert!(
            block("10.0.0.0/8")
                .unwrap()
                .contains("10.255.0.1".parse().unwrap())
        );
        assert!(
            !block("10.0.0.0/8")
                .unwrap()
                .contains("11.0.0.1".parse().unwrap())
        );
        assert!(
            block("10.0.0.0/8")
                .unwrap()
                .contains("::ffff:10.0.0.1".parse().unwrap())
        );
        assert!(
            block("192.0.2.1")
                .unwrap()
                .contains("192.0.2.1".parse().unwrap())
        );
        assert!(
            !block("192.0.2.1")
                .unwrap()
                .contains("192.0.2.2".parse().unwrap())
        );
        assert!(
            block("::/0")
                .unwrap()
                .contains("2001:db8::1".parse().unwrap())
        );
        assert!(
            !block("::/0")
                .unwrap()
                .contains("192.0.2.1".parse().unwrap())
        );
        assert!(
            block("0.0.0.0/0")
                .unwrap()
                .contains("192.0.2.1".parse().unwrap())
        );
        for bad in [
            "10.0.0.0/33",
            "2001:db8::/129",
            "host",
            "10.0.0.0/",
            "/8",
            "",
        ] {
            assert!(block(bad).is_err(), "{bad}");
        }
    }
}
