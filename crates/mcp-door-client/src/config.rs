//! Door configuration: address, bearer source, time limits, cache bounds.

use std::time::Duration;

use crate::bearer::{Bearer, BearerDiscovery};

/// The API base used when `HANZO_API_BASE` is unset (HIP-0300 §2.2).
pub const DEFAULT_API_BASE: &str = "https://api.hanzo.ai";
pub use mcp_proto::DOOR_PATH;
/// The protocol revision the door speaks, and so the one every forwarded
/// request is written in (HIP-0300 §1.1).
pub const DOOR_REVISION: &str = "2026-07-28";

/// The door address from a lookup of environment variables:
/// `HANZO_MCP_DOOR` when set and not empty, else
/// `${HANZO_API_BASE:-https://api.hanzo.ai}/v1/mcp`, with trailing `/` on
/// the base removed (HIP-0300 §2.2).
///
/// ```
/// use mcp_door_client::door_address;
/// assert_eq!(door_address(|_| None), "https://api.hanzo.ai/v1/mcp");
/// let base = |k: &str| (k == "HANZO_API_BASE").then(|| "https://api.lux.cloud/".to_owned());
/// assert_eq!(door_address(base), "https://api.lux.cloud/v1/mcp");
/// ```
pub fn door_address(lookup: impl Fn(&str) -> Option<String>) -> String {
    if let Some(door) = lookup("HANZO_MCP_DOOR").filter(|d| !d.trim().is_empty()) {
        return door.trim().to_owned();
    }
    let base = lookup("HANZO_API_BASE")
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_API_BASE.to_owned());
    format!("{}{DOOR_PATH}", base.trim().trim_end_matches('/'))
}

/// Time limits for talking to the door (HIP-0300 §2.2: "bounds every wait").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// TCP (and TLS) connection set-up; default 2 s.
    pub connect: Duration,
    /// A whole `tools/list`, every page and redirect included; default 5 s.
    pub list: Duration,
    /// A whole forwarded `tools/call`, the streamed answer included; default 120 s.
    pub call: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(2),
            list: Duration::from_secs(5),
            call: Duration::from_secs(120),
        }
    }
}

/// How long the door's list is kept (HIP-0300 §2.2: "cached briefly").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CachePolicy {
    /// Lifetime when the door gives no `ttlMs`; default 5 min.
    pub default_ttl: Duration,
    /// Smallest lifetime a door's `ttlMs` can ask for; default 10 s.
    pub min_ttl: Duration,
    /// Largest lifetime a door's `ttlMs` can ask for; default 1 h.
    pub max_ttl: Duration,
    /// How long a failed fetch is kept before the next try; default 30 s.
    pub retry_after: Duration,
}

impl Default for CachePolicy {
    fn default() -> Self {
        CachePolicy {
            default_ttl: Duration::from_secs(300),
            min_ttl: Duration::from_secs(10),
            max_ttl: Duration::from_secs(3600),
            retry_after: Duration::from_secs(30),
        }
    }
}

impl CachePolicy {
    /// The lifetime of a list whose last page said `ttlMs` (milliseconds):
    /// `default_ttl` when absent, else `ttlMs` clamped to `min_ttl..=max_ttl`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_door_client::CachePolicy;
    /// let policy = CachePolicy::default();
    /// assert_eq!(policy.ttl_for(None), Duration::from_secs(300));
    /// assert_eq!(policy.ttl_for(Some(1)), Duration::from_secs(10));
    /// assert_eq!(policy.ttl_for(Some(60_000)), Duration::from_secs(60));
    /// assert_eq!(policy.ttl_for(Some(u64::MAX)), Duration::from_secs(3600));
    /// ```
    pub fn ttl_for(&self, ttl_ms: Option<u64>) -> Duration {
        match ttl_ms {
            None => self.default_ttl,
            Some(ms) => {
                Duration::from_millis(ms).clamp(self.min_ttl, self.max_ttl.max(self.min_ttl))
            }
        }
    }
}

/// Where the bearer comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum BearerSource {
    /// Send no `Authorization` header.
    None,
    /// Always this bearer (runtimes that hold their own credential).
    Fixed(Bearer),
    /// Discover it on first use, off the async threads (HIP-0300 §2.2 order).
    Discover(BearerDiscovery),
}

/// The `clientInfo` the door is told in every request's `_meta`
/// (`io.modelcontextprotocol/clientInfo`, MCP 2026-07-28).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientInfo {
    /// Implementation name; default `mcp-door-client`.
    pub name: String,
    /// Implementation version; default this crate's version.
    pub version: String,
}

impl Default for ClientInfo {
    fn default() -> Self {
        ClientInfo {
            name: env!("CARGO_PKG_NAME").to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }
}

/// How a client speaks of its door in the results it writes itself: a
/// call the door could not answer, a result of the wrong shape, a 401.
/// Those results reach a model, which must learn from one line what
/// failed and what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Wording {
    /// The door's name, written before its address (`door
    /// https://mcp.example/v1/mcp: ...`).
    pub name: String,
    /// What a 401 result tells the caller to do before it tries again,
    /// written after `sign-in required; `.
    pub sign_in: String,
}

impl Wording {
    /// Words for any door: `door <address>: ...`, and a sign-in hint that
    /// names no particular client or command.
    pub fn generic() -> Wording {
        Wording::new(
            "door",
            "give this client a credential the door accepts (its resource metadata names the \
             authorization server)",
        )
    }

    /// The words of Hanzo's local servers (HIP-0300 §2.2):
    /// `hanzo door <address>: ...`, and a 401 that says to run
    /// `hanzo auth login` or set `HANZO_API_KEY`.
    pub fn hanzo() -> Wording {
        Wording::new(
            "hanzo door",
            "run `hanzo auth login` (or set HANZO_API_KEY)",
        )
    }

    /// Words of your own: the door's `name` and the `sign_in` hint.
    pub fn new(name: impl Into<String>, sign_in: impl Into<String>) -> Wording {
        Wording {
            name: name.into(),
            sign_in: sign_in.into(),
        }
    }
}

impl Default for Wording {
    /// [`Wording::generic`].
    fn default() -> Self {
        Wording::generic()
    }
}

/// Everything a [`crate::DoorClient`] needs. Every field is public so a runtime
/// that embeds the crate can set it by hand; [`DoorClientConfig::from_env`] and
/// [`DoorClientConfig::from_lookup`] fill it the HIP-0300 §2.2 way;
/// [`DoorClientConfig::new`] makes a client of any stateless MCP server
/// (revision 2026-07-28) at an address, with no bearer, nothing read from
/// the environment and nothing run, and [`Wording::generic`] words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoorClientConfig {
    /// The door's URL, e.g. `https://api.hanzo.ai/v1/mcp`.
    pub address: String,
    /// Where the bearer comes from.
    pub bearer: BearerSource,
    /// Time limits.
    pub timeouts: Timeouts,
    /// List lifetime bounds.
    pub cache: CachePolicy,
    /// Most `tools/list` pages read; default 100.
    pub max_pages: usize,
    /// Most 307/308 hops followed per request; default 5.
    pub max_redirects: usize,
    /// Largest answer body read, in bytes; default 32 MiB.
    pub max_body_bytes: usize,
    /// Sent as `io.modelcontextprotocol/clientInfo`.
    pub client_info: ClientInfo,
    /// How the results the client writes itself speak of the door.
    pub wording: Wording,
}

impl DoorClientConfig {
    /// A configuration for `address` with no bearer, default limits and
    /// [`Wording::generic`]; set the public fields for the rest (a
    /// [`BearerSource::Fixed`] bearer, say).
    pub fn new(address: impl Into<String>) -> DoorClientConfig {
        DoorClientConfig {
            address: address.into(),
            bearer: BearerSource::None,
            timeouts: Timeouts::default(),
            cache: CachePolicy::default(),
            max_pages: 100,
            max_redirects: 5,
            max_body_bytes: 32 << 20,
            client_info: ClientInfo::default(),
            wording: Wording::generic(),
        }
    }

    /// The configuration from the process environment: [`door_address`],
    /// [`BearerDiscovery::from_env`] and [`Wording::hanzo`]. Reads variables only; nothing runs and
    /// nothing is fetched until the door is first used.
    pub fn from_env() -> DoorClientConfig {
        DoorClientConfig::from_lookup(|key| std::env::var(key).ok())
    }

    /// As [`DoorClientConfig::from_env`], with variables from `lookup`.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> DoorClientConfig {
        let mut config = DoorClientConfig::new(door_address(&lookup));
        config.bearer = BearerSource::Discover(BearerDiscovery::from_lookup(&lookup));
        config.wording = Wording::hanzo();
        config
    }

    /// Whether a bearer sent to [`address`](Self::address) would cross the
    /// network in clear text: the scheme is `http` and the host is not a
    /// loopback one (`localhost`, `127.0.0.0/8`, `[::1]`). A server should
    /// refuse such an address unless told otherwise (HIP-0300 Security
    /// Considerations: bearers travel only in `Authorization`, and never
    /// where others can read them). An address that does not parse is not
    /// judged here; the client refuses it when first used.
    pub fn sends_bearer_in_clear(&self) -> bool {
        let Ok(url) = reqwest::Url::parse(self.address.trim()) else {
            return false;
        };
        if url.scheme() != "http" {
            return false;
        }
        let host = url.host_str().unwrap_or_default();
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let loopback = host.eq_ignore_ascii_case("localhost")
            || bare
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        !loopback
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clear_text_bearer_only_for_remote_http() {
        for (address, clear) in [
            ("http://door.example/v1/mcp", true),
            ("http://10.0.0.1:8080/v1/mcp", true),
            ("HTTP://door.example/v1/mcp", true),
            ("http://[2001:db8::1]/v1/mcp", true),
            ("https://door.example/v1/mcp", false),
            ("http://127.0.0.1:9/v1/mcp", false),
            ("http://127.7.0.1/v1/mcp", false),
            ("http://localhost:8080/v1/mcp", false),
            ("http://LOCALHOST/v1/mcp", false),
            ("http://[::1]:9/v1/mcp", false),
            ("not a url", false),
        ] {
            assert_eq!(
                DoorClientConfig::new(address).sends_bearer_in_clear(),
                clear,
                "{address}"
            );
        }
    }

    fn vars<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |key| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| (*v).to_owned())
        }
    }

    #[test]
    fn address_prefers_hanzo_mcp_door() {
        let lookup = vars(&[
            ("HANZO_MCP_DOOR", "http://127.0.0.1:8080/v1/mcp"),
            ("HANZO_API_BASE", "https://api.lux.cloud"),
        ]);
        assert_eq!(door_address(lookup), "http://127.0.0.1:8080/v1/mcp");
    }

    #[test]
    fn address_from_base_tolerates_trailing_slashes_and_empty_values() {
        assert_eq!(
            door_address(vars(&[("HANZO_API_BASE", "https://api.lux.cloud//")])),
            "https://api.lux.cloud/v1/mcp"
        );
        assert_eq!(
            door_address(vars(&[("HANZO_MCP_DOOR", ""), ("HANZO_API_BASE", " ")])),
            "https://api.hanzo.ai/v1/mcp"
        );
    }

    #[test]
    fn from_lookup_fills_defaults_and_discovery() {
        let config = DoorClientConfig::from_lookup(vars(&[
            ("HANZO_API_KEY", "k-1"),
            ("HOME", "/home/u"),
            ("PATH", "/usr/bin"),
        ]));
        assert_eq!(config.address, "https://api.hanzo.ai/v1/mcp");
        assert_eq!(config.timeouts.connect, Duration::from_secs(2));
        assert_eq!(config.timeouts.list, Duration::from_secs(5));
        assert_eq!(config.timeouts.call, Duration::from_secs(120));
        assert_eq!(config.max_pages, 100);
        assert_eq!(config.max_redirects, 5);
        let BearerSource::Discover(discovery) = &config.bearer else {
            panic!("expected discovery, got {:?}", config.bearer);
        };
        assert_eq!(discovery.api_key, Bearer::new("k-1"));
        assert_eq!(
            discovery.config_file.as_deref(),
            Some(std::path::Path::new("/home/u/.hanzo/config.json"))
        );
        assert_eq!(discovery.search_path, Some("/usr/bin".into()));
        assert_eq!(
            format!("{config:?}").matches("k-1").count(),
            0,
            "Debug must not show the bearer"
        );
    }
}
