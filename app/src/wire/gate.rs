//! In front of the ticketer's own site (API.md "The gate"): the room's gate settings as the
//! operator sends them ([`Gate`], checked here), the hand-over token's claims, a redemption's
//! answer, a done report, and the few rules about addresses both ends need: what a target may
//! be ([`target_origin`]), what a return path may be ([`return_path`]).
//!
//! Invariants: a target is an `https` URL, or `http` on a loopback host (a developer's
//! machine); its origin (`scheme://host[:port]`, lower case) is a hand-over token's `aud`; a
//! protected prefix is an absolute path without query; a return path stays on the target's
//! origin (it starts with one `/`, never `//` or a backslash, and carries no control
//! character), so no address sends a buyer to a site of someone's choosing.

use serde::{Deserialize, Serialize};

use super::{BuyerId, Confirmation, ErrorBody, EventId, unprocessable};

/// The most path prefixes one room protects.
pub const MAX_PROTECTED: usize = 20;
/// The longest URL or path a gate setting or a return address may have.
pub const MAX_URL_LEN: usize = 2000;

/// The hand-over token's claims: signed with the admission key (same JWKS), for the target's
/// origin only (`aud`), for a minute (`exp`), redeemable once (`jti`, the same for every token
/// of one admission, so a buyer polling twice does not get two hand-overs to give away).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct HandoverClaims {
    pub sub: BuyerId,
    pub evt: EventId,
    /// The target's origin.
    pub aud: String,
    pub iat: i64,
    pub exp: i64,
    pub jti: String,
    /// The room's epoch of the admission.
    pub epc: u32,
    /// When the admission behind it ends (unix seconds): how long the site may let the buyer
    /// shop.
    pub until: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cnf: Option<Confirmation>,
}

/// `POST /api/handoff/redeem`'s body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Redeem {
    pub token: String,
}

/// `POST /api/handoff/redeem`'s answer, the first time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Redeemed {
    pub sub: BuyerId,
    pub evt: EventId,
    pub jti: String,
    pub exp: i64,
    /// When the admission ends (the token's `until`).
    pub until: i64,
}

/// `POST /api/events/{id}/admissions/done`'s body: the hand-over's `jti` or the buyer (`sub`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Done {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jti: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub: Option<BuyerId>,
}

impl Done {
    /// Exactly one of the two, of a sane length.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        match (&self.jti, &self.sub) {
            (Some(id), None) if (1..=64).contains(&id.len()) => Ok(()),
            (None, Some(id)) if (1..=64).contains(&id.as_str().len()) => Ok(()),
            _ => Err(unprocessable(
                "send either {\"jti\"} (the hand-over's) or {\"sub\"} (the buyer's), 1 to 64 characters",
            )),
        }
    }
}

/// The origin of a target or probe URL (`scheme://host[:port]`), if it may be one: `https`,
/// or `http` on a loopback host; no user name or password; no blanks or control characters.
pub fn target_origin(url: &str) -> Option<String> {
    if url.len() > MAX_URL_LEN || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    if authority.is_empty() || authority.contains('@') || authority.contains('\\') {
        return None;
    }
    let host = authority
        .strip_prefix('[')
        .and_then(|h| h.split_once(']').map(|(h, _)| h))
        .unwrap_or_else(|| authority.split(':').next().unwrap_or(""));
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "::1");
    let allowed = scheme == "https" || (scheme == "http" && loopback);
    (allowed && !host.is_empty()).then(|| format!("{scheme}://{authority}"))
}

/// The host (with its port unless a default one) of a target URL that [`target_origin`]
/// accepts, as [`canonical_host`] spells it. The server's alone (the gate), like the two
/// spellings below: the buyer's WASM carries none of them.
#[cfg(feature = "ssr")]
pub fn target_host(url: &str) -> Option<String> {
    target_origin(url).and_then(|o| {
        o.split_once("://")
            .and_then(|(_, host)| canonical_host(host))
    })
}

/// One spelling of a host (with its port) for every one a proxy routes alike: lower case,
/// without the root's trailing dot, without a default port (`:80`, `:443`: on either scheme,
/// so that more spellings meet a room rather than fewer). `None` for what is no host: empty,
/// blanks, a user part, a bad port, characters no host name has.
#[cfg(feature = "ssr")]
pub fn canonical_host(host: &str) -> Option<String> {
    let host = host.trim().to_ascii_lowercase();
    let (name, port) = match host.rsplit_once(':') {
        // An IPv6 literal's colons are inside its brackets.
        Some((name, port)) if !port.contains(']') => (name, Some(port)),
        _ => (host.as_str(), None),
    };
    let name = name.strip_suffix('.').unwrap_or(name);
    let named = if let Some(inner) = name.strip_prefix('[') {
        inner.strip_suffix(']').is_some_and(|ip| {
            !ip.is_empty()
                && ip
                    .chars()
                    .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
        })
    } else {
        !name.is_empty()
            && name.len() <= 253
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
            && !name.contains("..")
    };
    let port = match port {
        None | Some("80" | "443") => None,
        Some(p) => Some(p.parse::<u16>().ok().filter(|p| *p > 0)?),
    };
    named.then(|| match port {
        Some(port) => format!("{name}:{port}"),
        None => name.to_owned(),
    })
}

/// One spelling of a request's path for every one an origin may serve alike (RFC 3986): the
/// unreserved characters percent-decoded (`%63` is `c`), other escapes kept in upper case,
/// empty segments merged (`//`), dot segments resolved (`/x/../`). `None` for a path that
/// does not normalise cleanly, which the gate refuses: not absolute, a bad escape, an escaped
/// slash, backslash or NUL (origins disagree on them), a `..` above the root, a blank or
/// control character, or longer than [`MAX_URL_LEN`].
#[cfg(feature = "ssr")]
pub fn canonical_path(path: &str) -> Option<String> {
    if !path.starts_with('/') || path.len() > MAX_URL_LEN {
        return None;
    }
    let mut segments: Vec<String> = Vec::new();
    // Whether the path names a folder: it ends with `/` or with a dot segment.
    let mut folder = false;
    for raw in path[1..].split('/') {
        let segment = decode_unreserved(raw)?;
        folder = matches!(segment.as_str(), "" | "." | "..");
        match segment.as_str() {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            _ => segments.push(segment),
        }
    }
    let mut canonical = format!("/{}", segments.join("/"));
    if folder && !segments.is_empty() {
        canonical.push('/');
    }
    Some(canonical)
}

/// `segment` with its unreserved escapes decoded and the rest kept (upper case); `None` for a
/// bad escape, an escaped `/`, `\` or NUL, or a character no path carries as it is.
#[cfg(feature = "ssr")]
fn decode_unreserved(segment: &str) -> Option<String> {
    let bytes = segment.as_bytes();
    let mut out = String::with_capacity(segment.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = segment.get(i + 1..i + 3)?;
            let value = u8::from_str_radix(hex, 16).ok()?;
            if value.is_ascii_alphanumeric() || matches!(value, b'-' | b'.' | b'_' | b'~') {
                out.push(char::from(value));
            } else if matches!(value, b'/' | b'\\' | 0) {
                return None;
            } else {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
            }
            i += 3;
        } else if b.is_ascii_graphic() && b != b'\\' {
            out.push(char::from(b));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

/// `path` if it may be a return address on the target's origin.
pub fn return_path(path: &str) -> Option<&str> {
    let safe = path.starts_with('/')
        && !path.starts_with("//")
        && path.len() <= MAX_URL_LEN
        && !path.contains('\\')
        && !path.chars().any(|c| c.is_control() || c.is_whitespace());
    safe.then_some(path)
}

/// Where a buyer lands on the target `target_url`: `back` on its origin when it is a return
/// path there, else the target itself; without a fragment (a hand-over token is appended).
pub fn landing(target_url: &str, back: Option<&str>) -> Option<String> {
    let origin = target_origin(target_url)?;
    let place = match back.and_then(return_path) {
        Some(path) => format!("{origin}{path}"),
        None => target_url.to_owned(),
    };
    Some(place.split('#').next().unwrap_or_default().to_owned())
}

/// The gate settings of a room (part of `Room`, and of `RoomUpdate` as sent); absent ones read
/// as none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Gate {
    /// Where admitted buyers are sent (`None`: Anteroom's own seat map).
    pub target_url: Option<String>,
    /// Path prefixes on the target's host that the gate protects.
    pub protect: Vec<String>,
    /// What the leader probes each second, with the automatic rate.
    pub origin_probe_url: Option<String>,
}

impl Gate {
    /// Whether these settings (a room's, after an update) hang together.
    pub fn validate(&self) -> Result<(), ErrorBody> {
        if let Some(url) = &self.target_url
            && target_origin(url).is_none()
        {
            return Err(unprocessable(
                "target_url must be an https URL (http only on localhost or 127.0.0.1), without user or password",
            ));
        }
        if let Some(url) = &self.origin_probe_url
            && target_origin(url).is_none()
        {
            return Err(unprocessable(
                "origin_probe_url must be an https URL (http only on localhost or 127.0.0.1)",
            ));
        }
        if self.protect.len() > MAX_PROTECTED {
            return Err(unprocessable(format!(
                "protect takes at most {MAX_PROTECTED} path prefixes"
            )));
        }
        for prefix in &self.protect {
            if return_path(prefix).is_none() || prefix.contains(['?', '#']) || prefix.len() > 200 {
                return Err(unprocessable(
                    "each protect prefix is a path of at most 200 characters starting with one /, without ? or #",
                ));
            }
            // The gate matches normalised paths: a prefix spelled otherwise would match none
            // (checked by the server: the operator's form gets its 422).
            #[cfg(feature = "ssr")]
            if canonical_path(prefix).as_deref() != Some(prefix.as_str()) {
                return Err(unprocessable(
                    "each protect prefix is written as the gate compares paths: no //, no . or .. segment, no escaped letter or digit (%63 is c), no escaped / or \\",
                ));
            }
        }
        if !self.protect.is_empty() && self.target_url.is_none() {
            return Err(unprocessable(
                "protect needs a target_url: the prefixes are paths on the target's host",
            ));
        }
        Ok(())
    }

    /// The length of the longest protected prefix that covers `path` (without its query), if
    /// one does: the prefix itself, or below it (`/shop` covers `/shop`, `/shop/` and `/shop/x`,
    /// never `/shopping`), unless the prefix ends with `/`. Where two rooms protect one path,
    /// the longer prefix is the more precise.
    pub fn covers(&self, path: &str) -> Option<usize> {
        self.protect
            .iter()
            .filter(|prefix| {
                path.strip_prefix(prefix.as_str()).is_some_and(|rest| {
                    prefix.ends_with('/') || rest.is_empty() || rest.starts_with('/')
                })
            })
            .map(String::len)
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(feature = "ssr")]
    #[test]
    fn hosts_are_spelled_one_way() {
        for spelling in [
            "shop.test",
            "SHOP.test",
            "shop.test.",
            "shop.test:443",
            "shop.test.:80",
            " shop.test ",
        ] {
            assert_eq!(
                canonical_host(spelling).as_deref(),
                Some("shop.test"),
                "{spelling}"
            );
        }
        assert_eq!(
            canonical_host("shop.test:8443").as_deref(),
            Some("shop.test:8443")
        );
        assert_eq!(canonical_host("[::1]:443").as_deref(), Some("[::1]"));
        assert_eq!(canonical_host("[::1]:9").as_deref(), Some("[::1]:9"));
        for bad in [
            "",
            ":443",
            "user@shop.test",
            "shop.test:0",
            "shop.test:x",
            "shop..test",
            "sh op",
            "[]",
        ] {
            assert_eq!(canonical_host(bad), None, "{bad}");
        }
        assert_eq!(
            target_host("https://Shop.Test.:443/checkout").as_deref(),
            Some("shop.test")
        );
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn paths_are_spelled_one_way_or_refused() {
        for (spelling, canonical) in [
            ("/checkout/pay", "/checkout/pay"),
            ("/%63heckout/pay", "/checkout/pay"),
            ("/%2Fcheckout", ""),
            ("//checkout/pay", "/checkout/pay"),
            ("/checkout//pay", "/checkout/pay"),
            ("/x/../checkout/pay", "/checkout/pay"),
            ("/x/%2e%2E/checkout/pay", "/checkout/pay"),
            ("/./checkout/./pay", "/checkout/pay"),
            ("/checkout/.", "/checkout/"),
            ("/checkout/x/..", "/checkout/"),
            ("/shop/", "/shop/"),
            ("/", "/"),
            ("/a%20b/%7e%41", "/a%20b/~A"),
            ("/a%3fb", "/a%3Fb"),
        ] {
            let expected = (!canonical.is_empty()).then(|| canonical.to_owned());
            assert_eq!(canonical_path(spelling), expected, "{spelling}");
        }
        for bad in [
            "",
            "checkout",
            "http://shop.test/checkout",
            "/..",
            "/x/../..",
            "/%2e%2e/x",
            "/a%5Cb",
            "/a%00",
            "/a\\b",
            "/a%zz",
            "/a%4",
            "/a b",
            "/a\tb",
            "/caf\u{e9}",
        ] {
            assert_eq!(canonical_path(bad), None, "{bad}");
        }
    }

    #[cfg(feature = "ssr")]
    #[test]
    fn a_protect_prefix_is_written_as_the_gate_compares() {
        let gate = |prefix: &str| Gate {
            target_url: Some("https://shop.test/".into()),
            protect: vec![prefix.into()],
            origin_probe_url: None,
        };
        assert!(gate("/checkout").validate().is_ok());
        assert!(gate("/shop/").validate().is_ok());
        for bad in ["/%63heckout", "/a//b", "/a/./b", "/a/../b", "/a%2Fb"] {
            assert!(gate(bad).validate().is_err(), "{bad}");
        }
    }

    #[test]
    fn targets_are_https_or_loopback_http_and_their_origin_is_lower_case() {
        assert_eq!(
            target_origin("https://Shop.Example/checkout?x=1").as_deref(),
            Some("https://shop.example")
        );
        assert_eq!(
            target_origin("http://127.0.0.1:8089/shop/").as_deref(),
            Some("http://127.0.0.1:8089")
        );
        assert_eq!(
            target_origin("http://[::1]:80").as_deref(),
            Some("http://[::1]:80")
        );
        for bad in [
            "http://shop.example/",
            "ftp://127.0.0.1/",
            "https://user:pw@shop.example/",
            "https:///path",
            "https://shop.example/ spaced",
            "javascript:alert(1)",
            "//shop.example/",
            "https://shop\\.example/",
            "",
        ] {
            assert_eq!(target_origin(bad), None, "{bad}");
        }
        assert_eq!(
            target_host("https://shop.example:8443/x").as_deref(),
            Some("shop.example:8443")
        );
    }

    #[test]
    fn return_paths_stay_on_the_origin() {
        assert_eq!(return_path("/shop/a?b=1"), Some("/shop/a?b=1"));
        for bad in [
            "//evil.example/",
            "https://evil.example/",
            "/\\evil",
            "/a\nb",
            "",
            "shop",
        ] {
            assert_eq!(return_path(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_buyer_lands_on_the_target_or_a_path_of_its_origin() {
        let target = "https://shop.example/buy#top";
        assert_eq!(
            landing(target, None).as_deref(),
            Some("https://shop.example/buy")
        );
        assert_eq!(
            landing(target, Some("/shop/item?id=5")).as_deref(),
            Some("https://shop.example/shop/item?id=5")
        );
        assert_eq!(
            landing(target, Some("//evil.example/")).as_deref(),
            Some("https://shop.example/buy")
        );
        assert_eq!(landing("http://shop.example/", None), None);
    }

    #[test]
    fn protected_prefixes_cover_their_paths_only() {
        let gate = Gate {
            target_url: Some("https://shop.example/".into()),
            protect: vec!["/shop".into(), "/api/cart/".into()],
            origin_probe_url: None,
        };
        assert!(gate.validate().is_ok());
        for (yes, longest) in [
            ("/shop", 5),
            ("/shop/", 5),
            ("/shop/x", 5),
            ("/api/cart/1", 10),
        ] {
            assert_eq!(gate.covers(yes), Some(longest), "{yes}");
        }
        for no in ["/", "/shopping", "/api/cart", "/api/other", "/x/shop"] {
            assert_eq!(gate.covers(no), None, "{no}");
        }
    }

    #[test]
    fn gate_settings_that_do_not_hang_together_are_refused() {
        let bad = |gate: Gate| gate.validate().is_err();
        assert!(bad(Gate {
            protect: vec!["/shop".into()],
            ..Gate::default()
        }));
        assert!(bad(Gate {
            target_url: Some("http://shop.example/".into()),
            ..Gate::default()
        }));
        assert!(bad(Gate {
            target_url: Some("https://shop.example/".into()),
            protect: vec!["shop".into()],
            ..Gate::default()
        }));
        assert!(bad(Gate {
            target_url: Some("https://shop.example/".into()),
            protect: vec!["/a".into(); MAX_PROTECTED + 1],
            ..Gate::default()
        }));
        assert!(bad(Gate {
            target_url: Some("https://shop.example/".into()),
            protect: vec!["/a?b".into()],
            ..Gate::default()
        }));
        assert!(bad(Gate {
            origin_probe_url: Some("http://shop.example/health".into()),
            ..Gate::default()
        }));
        assert!(!bad(Gate::default()));
    }

    #[test]
    fn a_done_report_names_one_buyer() {
        let done = |jti: Option<&str>, sub: Option<&str>| Done {
            jti: jti.map(Into::into),
            sub: sub.map(BuyerId::from),
        };
        assert!(done(Some("j"), None).validate().is_ok());
        assert!(done(None, Some("b")).validate().is_ok());
        assert!(done(None, None).validate().is_err());
        assert!(done(Some("j"), Some("b")).validate().is_err());
        assert!(done(Some(&"x".repeat(65)), None).validate().is_err());
    }
}
