//! The checks the streamable HTTP transport makes on a POST before its
//! message is read (MCP 2025-11-25 and 2026-07-28 basic/transports):
//! `Origin`, `Host`, `Content-Type`, `Accept`, and `MCP-Protocol-Version`
//! against the body. The door uses them, and so does `hanzo-mcp serve
//! --http` (crate `mcp-local-server`): one implementation for both.
//!
//! Why they matter: a web page can make a visitor's browser POST to any
//! address with the visitor's cookies, but only with a `Content-Type` of
//! `text/plain`, `application/x-www-form-urlencoded` or
//! `multipart/form-data` unless the server agrees to more (CORS preflight,
//! which neither server answers), and always with the page's `Origin`.
//! Requiring `application/json` and refusing foreign origins leaves such
//! a request nothing to reach.

use axum::http::HeaderMap;
use mcp_proto::{ErrorObject, error_code, meta};
use serde_json::Value;

/// `MCP-Protocol-Version` (MCP 2025-11-25 and 2026-07-28 basic/transports).
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";

/// A header's value as text without surrounding whitespace (RFC 9110
/// field values); `None` when absent or not visible ASCII.
pub fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
}

/// An `http` or `https` origin (RFC 6454 §4): scheme and host in lower
/// case, the port explicit (80 and 443 when omitted), so two spellings of
/// one origin compare equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// `http` or `https`.
    pub scheme: String,
    /// A name, an IPv4 address, or an IPv6 address without brackets.
    pub host: String,
    /// The port, explicit or the scheme's default.
    pub port: u16,
}

impl Origin {
    /// Parses `scheme://host[:port]` (a trailing `/` tolerated). `None` for
    /// anything else: another scheme, a path, userinfo, `null`.
    pub fn parse(text: &str) -> Option<Origin> {
        let (scheme, rest) = text.trim().split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default = match scheme.as_str() {
            "http" => 80,
            "https" => 443,
            _ => return None,
        };
        let authority = rest.strip_suffix('/').unwrap_or(rest);
        let (host, port) = authority_parts(authority)?;
        let port = match port {
            None => default,
            Some(p) => p.parse().ok()?,
        };
        Some(Origin {
            scheme,
            host: host.to_ascii_lowercase(),
            port,
        })
    }

    /// Whether the host is `localhost` or a loopback IP address.
    pub fn is_loopback(&self) -> bool {
        is_loopback_host(&self.host)
    }
}

/// The host and port text of a `host[:port]` authority, the host of an
/// IPv6 address without its brackets. `None` when it is malformed.
fn authority_parts(authority: &str) -> Option<(&str, Option<&str>)> {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (host, rest) = v6.split_once(']')?;
        match rest {
            "" => (host, None),
            _ => (host, Some(rest.strip_prefix(':')?)),
        }
    } else {
        match authority.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    let bad = |c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':'));
    (!host.is_empty() && !host.contains(bad)).then_some((host, port))
}

/// `localhost` (any case) or a loopback IP address.
fn is_loopback_host(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            // `::ffff:127.0.0.1` is 127.0.0.1.
            .is_ok_and(|ip| ip.to_canonical().is_loopback())
}

/// Whether the request's `Origin` is acceptable (MCP 2025-11-25 and
/// 2026-07-28 basic/transports: servers validate it; 403 otherwise):
/// absent (not a browser), equal to one of `accepted` (origins as
/// configured, compared after [`Origin::parse`], so case and an explicit
/// default port do not matter), or, when `loopback` is set, any loopback
/// origin. `null`, and anything that is not an http(s) origin, is refused.
pub fn origin_ok(headers: &HeaderMap, accepted: &[&str], loopback: bool) -> bool {
    let Some(value) = headers.get("origin") else {
        return true;
    };
    let Some(origin) = value.to_str().ok().and_then(Origin::parse) else {
        return false;
    };
    (loopback && origin.is_loopback())
        || accepted
            .iter()
            .any(|a| Origin::parse(a).is_some_and(|a| a == origin))
}

/// Whether the request's `Host` names a server reachable only on loopback
/// (MCP 2025-11-25 basic/transports, security warning: DNS rebinding). A
/// page at `http://evil.example:PORT` whose name was rebound to 127.0.0.1
/// is same-origin to the browser, which then need not send `Origin`, but
/// its `Host` still says `evil.example`.
///
/// Accepted: no `Host` (HTTP/1.0; HTTP/2 carries the authority elsewhere),
/// a loopback host (`localhost`, `127.0.0.0/8`, `[::1]`, any port), or the
/// host of one of `allowed_origins` (a server reached under another name
/// is configured there, e.g. `http://mcp.internal:3000`). Everything else,
/// a `Host` that is not text included, is refused.
pub fn host_ok(headers: &HeaderMap, allowed_origins: &[String]) -> bool {
    let Some(host) = headers.get("host") else {
        return true;
    };
    let Some((host, _)) = host.to_str().ok().and_then(|h| authority_parts(h.trim())) else {
        return false;
    };
    is_loopback_host(host)
        || allowed_origins.iter().any(|origin| {
            Origin::parse(origin).is_some_and(|allowed| allowed.host.eq_ignore_ascii_case(host))
        })
}

/// Whether a POST's `Content-Type` is `application/json`, any case, with
/// or without parameters such as `; charset=utf-8` (MCP 2025-11-25
/// basic/transports: the body is a JSON-RPC message). A missing header is
/// refused.
pub fn json_content_type(headers: &HeaderMap) -> bool {
    header(headers, "content-type").is_some_and(|value| {
        let essence = value.split(';').next().unwrap_or("").trim();
        essence.eq_ignore_ascii_case("application/json")
    })
}

/// What a request's `Accept` admits of the two answers the transport has
/// (MCP 2026-07-28 basic/transports: a JSON object or an SSE stream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Accepts {
    /// `application/json`, `application/*` or `*/*` with a non-zero weight.
    pub json: bool,
    /// `text/event-stream`, `text/*` or `*/*` with a non-zero weight.
    pub sse: bool,
}

/// What `Accept` admits (RFC 9110 §12.5.1): everything when there is no
/// `Accept`; otherwise the media ranges listed, a range weighted `q=0`
/// excluded.
pub fn accepts(headers: &HeaderMap) -> Accepts {
    let values: Vec<&str> = headers
        .get_all("accept")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if values.is_empty() {
        return Accepts {
            json: true,
            sse: true,
        };
    }
    let mut out = Accepts {
        json: false,
        sse: false,
    };
    for range in values.iter().flat_map(|v| v.split(',')) {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .and_then(|q| q.trim().parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        if refused {
            continue;
        }
        match media.as_str() {
            "*/*" => {
                out.json = true;
                out.sse = true;
            }
            "application/json" | "application/*" => out.json = true,
            "text/event-stream" | "text/*" => out.sse = true,
            _ => {}
        }
    }
    out
}

/// The revision a request's body names in
/// `params._meta["io.modelcontextprotocol/protocolVersion"]`, if any;
/// `params` is the message's params.
pub fn body_revision(params: Option<&Value>) -> Option<&str> {
    params?.get("_meta")?.get(meta::PROTOCOL_VERSION)?.as_str()
}

/// The error for headers that disagree with the body: -32020
/// (`HeaderMismatchError`, MCP 2026-07-28 schema).
pub fn mismatch(what: String) -> ErrorObject {
    ErrorObject::new(
        error_code::HEADER_MISMATCH,
        format!("header mismatch: {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(name: &'static str, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn origins_compare_by_scheme_host_and_port() {
        let accepted = ["https://app.example.com"];
        for (origin, ok) in [
            ("https://app.example.com", true),
            ("HTTPS://App.Example.com:443", true),
            ("https://app.example.com/", true),
            ("http://app.example.com", false),
            ("https://app.example.com:8443", false),
            ("https://app.example.com.evil.example", false),
            ("https://user@app.example.com", false),
            ("null", false),
            ("http://localhost:5173", false),
        ] {
            assert_eq!(
                origin_ok(&with("origin", origin), &accepted, false),
                ok,
                "{origin}"
            );
        }
        assert!(origin_ok(&with("origin", "http://[::1]:3000"), &[], true));
        assert!(origin_ok(&HeaderMap::new(), &[], false));
    }

    #[test]
    fn loopback_hosts_include_ipv4_mapped_ones() {
        for host in [
            "localhost:1",
            "127.0.0.1",
            "127.9.9.9:80",
            "[::1]:8",
            "[::ffff:127.0.0.1]:8",
        ] {
            assert!(host_ok(&with("host", host), &[]), "{host}");
        }
        for host in [
            "[::ffff:10.0.0.1]:8",
            "localhost.evil.example",
            "2130706433",
            "[::2]",
        ] {
            assert!(!host_ok(&with("host", host), &[]), "{host}");
        }
    }

    #[test]
    fn accept_admits_what_it_lists() {
        let cases = [
            ("application/json, text/event-stream", (true, true)),
            ("*/*", (true, true)),
            ("text/event-stream", (false, true)),
            ("application/json;q=0, text/event-stream", (false, true)),
            ("text/html", (false, false)),
        ];
        for (value, (json, sse)) in cases {
            assert_eq!(
                accepts(&with("accept", value)),
                Accepts { json, sse },
                "{value}"
            );
        }
        assert_eq!(
            accepts(&HeaderMap::new()),
            Accepts {
                json: true,
                sse: true
            }
        );
    }
}
