//! Outbound HTTP for the tools that reach the network (`fetch`, `ui`),
//! safe against server-side request forgery.
//!
//! The tools make requests from the user's machine, which sits inside the
//! user's network, so by default no request may reach loopback, private,
//! shared (RFC 6598), link-local (cloud metadata), unique-local, multicast,
//! unspecified or reserved addresses ([`classify`]):
//!
//! - a URL naming an address literal (any spelling the URL standard
//!   accepts: `http://2130706433/`, `http://[::ffff:127.0.0.1]/`) is checked
//!   before connecting;
//! - a name is resolved by [`GuardedResolver`], the client's resolver hook,
//!   which refuses the name when any address it resolves to is refused; the
//!   client connects only to what the hook returned;
//! - redirects are followed by hand (at most [`MAX_REDIRECTS`]), each hop
//!   checked the same way, and the peer address of every response is
//!   checked once more;
//! - proxies from the environment are ignored (a proxy would connect on
//!   our behalf, out of the guard's sight).
//!
//! The client is the tools' own: no default headers but its user agent
//! ([`USER_AGENT`]), no cookies, no credential of the server (the door's
//! bearer never reaches this module).

// `fetch` uses every helper; `ui` alone uses fewer.
#![cfg_attr(not(feature = "fetch"), allow(dead_code))]

mod guard;

use std::sync::{Arc, OnceLock};

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, Response, StatusCode, Url};

pub use guard::{
    ALLOW_PRIVATE_VAR, AddressClass, GuardedResolver, LookupFn, NetPolicy, Refused, ResolveError,
    classify,
};

/// Redirects followed before a request is refused: 5.
pub const MAX_REDIRECTS: usize = 5;

/// The `User-Agent` of every request: `hanzo-mcp/<version>`.
pub const USER_AGENT: &str = concat!(
    "hanzo-mcp/",
    env!("CARGO_PKG_VERSION"),
    " (+https://github.com/hanzoai/mcp)"
);

/// The tools' HTTP client and the policy it enforces. Cheap to clone.
#[derive(Clone, Debug)]
pub(crate) struct Http {
    policy: Arc<NetPolicy>,
    client: Arc<OnceLock<Result<reqwest::Client, String>>>,
}

/// One request as the caller asked for it.
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Option<Vec<u8>>,
}

/// A response whose head has arrived, after redirects.
#[derive(Debug)]
pub(crate) struct Arrived {
    /// The URL that answered (after redirects).
    pub(crate) url: Url,
    /// Redirects followed.
    pub(crate) redirects: usize,
    pub(crate) response: Response,
}

/// A body read up to a cap.
#[derive(Debug)]
pub(crate) struct Body {
    pub(crate) bytes: Vec<u8>,
    /// False when the body went on past the cap (reading stopped there).
    pub(crate) complete: bool,
}

impl Http {
    /// A client enforcing `policy`; built on first use.
    pub(crate) fn new(policy: NetPolicy) -> Http {
        Http {
            policy: Arc::new(policy),
            client: Arc::new(OnceLock::new()),
        }
    }

    fn client(&self) -> Result<&reqwest::Client, String> {
        self.client
            .get_or_init(|| {
                reqwest::Client::builder()
                    .no_proxy()
                    .redirect(reqwest::redirect::Policy::none())
                    .referer(false)
                    .user_agent(USER_AGENT)
                    .dns_resolver(GuardedResolver::new(self.policy.clone()))
                    .connect_timeout(std::time::Duration::from_secs(15))
                    .build()
                    .map_err(|e| format!("cannot build the HTTP client: {}", error_chain(&e)))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Sends `request`, following up to [`MAX_REDIRECTS`] redirects by
    /// hand; every hop is checked ([`check_url`]), and so is the address
    /// each response came from. 303, and 301/302 after a POST, continue as
    /// a GET without body; 307 and 308 keep the method and body.
    /// `Authorization` and `Cookie` headers are dropped when a redirect
    /// changes the origin.
    pub(crate) async fn send(&self, request: Outgoing) -> Result<Arrived, String> {
        let client = self.client()?;
        let Outgoing {
            mut method,
            mut url,
            mut headers,
            mut body,
        } = request;
        let mut redirects = 0;
        loop {
            check_url(&url, &self.policy)?;
            let mut builder = client.request(method.clone(), url.clone());
            builder = builder.headers(headers.clone());
            if let Some(bytes) = &body {
                builder = builder.body(bytes.clone());
            }
            let response = builder.send().await.map_err(|e| request_error(&url, &e))?;
            if let Some(peer) = response.remote_addr() {
                self.policy
                    .check(url.host_str().unwrap_or(""), peer.ip())
                    .map_err(|e| e.to_string())?;
            }
            let status = response.status();
            let location = response.headers().get(reqwest::header::LOCATION);
            if !status.is_redirection() || status == StatusCode::NOT_MODIFIED {
                return Ok(Arrived {
                    url,
                    redirects,
                    response,
                });
            }
            let Some(location) = location else {
                return Ok(Arrived {
                    url,
                    redirects,
                    response,
                });
            };
            if redirects == MAX_REDIRECTS {
                return Err(format!(
                    "too many redirects: {url} redirects again after {MAX_REDIRECTS} (at most {MAX_REDIRECTS} are followed)"
                ));
            }
            let next = location
                .to_str()
                .ok()
                .and_then(|l| url.join(l).ok())
                .ok_or_else(|| format!("{url} redirects to an unusable Location"))?;
            if next.origin() != url.origin() {
                for name in ["authorization", "cookie", "proxy-authorization"] {
                    headers.remove(name);
                }
            }
            let keep_method = matches!(status.as_u16(), 307 | 308)
                || (matches!(status.as_u16(), 301 | 302) && method != Method::POST);
            if !keep_method {
                if method != Method::HEAD {
                    method = Method::GET;
                }
                body = None;
                headers.remove(reqwest::header::CONTENT_TYPE);
                headers.remove(reqwest::header::CONTENT_LENGTH);
            }
            url = next;
            redirects += 1;
        }
    }
}

/// Reads `response`'s body as it streams, stopping at `cap` bytes; a body
/// longer than `cap` is never held whole.
pub(crate) async fn read_body(response: &mut Response, cap: usize) -> Result<Body, String> {
    let mut bytes = Vec::new();
    if let Some(length) = response.content_length() {
        bytes.reserve(length.min(cap as u64).min(1 << 20) as usize);
    }
    loop {
        let chunk = response.chunk().await.map_err(|e| {
            format!(
                "reading the body of {}: {}",
                response.url(),
                error_chain(&e)
            )
        })?;
        let Some(chunk) = chunk else {
            return Ok(Body {
                bytes,
                complete: true,
            });
        };
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Body {
                bytes,
                complete: false,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
}

/// Parses `text` as an `http` or `https` URL; any other scheme
/// (`file`, `ftp`, `data`, ...) is refused.
pub(crate) fn parse_url(text: &str) -> Result<Url, String> {
    let url = Url::parse(text.trim()).map_err(|e| format!("'{text}' is not a URL: {e}"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "'{text}': the {}: scheme is refused (only http and https)",
            url.scheme()
        ));
    }
    if url.host().is_none() {
        return Err(format!("'{text}' names no host"));
    }
    Ok(url)
}

/// Checks a URL before connecting: http or https, and, when the host is
/// an address literal, that the policy allows it (names are checked by
/// the resolver hook at connection time).
pub(crate) fn check_url(url: &Url, policy: &NetPolicy) -> Result<(), String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "{url}: the {}: scheme is refused (only http and https)",
            url.scheme()
        ));
    }
    match url.host() {
        Some(url::Host::Ipv4(ip)) => policy
            .check(&ip.to_string(), ip.into())
            .map_err(|e| e.to_string()),
        Some(url::Host::Ipv6(ip)) => policy
            .check(&ip.to_string(), ip.into())
            .map_err(|e| e.to_string()),
        Some(url::Host::Domain(_)) => Ok(()),
        None => Err(format!("{url} names no host")),
    }
}

/// Caller headers as a `HeaderMap`; `Host` is refused (the URL decides
/// it), and so are names or values HTTP cannot carry.
pub(crate) fn caller_headers<'a>(
    headers: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("headers: '{name}' is not a header name"))?;
        if header == reqwest::header::HOST {
            return Err("headers: 'Host' cannot be set (the URL decides it)".to_owned());
        }
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("headers: the value of '{name}' is not a header value"))?;
        map.append(header, value);
    }
    Ok(map)
}

/// A failed request as one line: the refusal, when the resolver hook
/// refused the host, else what went wrong.
fn request_error(url: &Url, error: &reqwest::Error) -> String {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(resolve) = e.downcast_ref::<ResolveError>() {
            return resolve.to_string();
        }
        source = e.source();
    }
    if error.is_timeout() {
        return format!("{url}: timed out");
    }
    format!("{url}: {}", error_chain(error))
}

/// An error and its sources, `: `-separated, without repeats.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut source = Some(error);
    while let Some(e) = source {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = e.source();
    }
    parts.join(": ")
}

/// The media type of a response, lower-cased, without parameters
/// (`text/html`); empty when not given.
pub(crate) fn media_type(headers: &HeaderMap) -> String {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}
