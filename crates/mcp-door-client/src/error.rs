//! The door client's error type.

use std::time::Duration;

use mcp_proto::ErrorObject;

/// What went wrong talking to the door (HIP-0300 §2.2). Every variant's
/// `Display` is one short line that never contains the bearer nor the body
/// of an answer, so it can go into a tool result or a log line as it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum DoorClientError {
    /// The configured door address is not an absolute `http`/`https` URL.
    #[error("door address '{address}' is not an http(s) URL: {reason}")]
    InvalidAddress {
        /// The address as configured.
        address: String,
        /// Why it was refused.
        reason: String,
    },
    /// The HTTP client could not be built (for example, no TLS backend).
    #[error("could not build the HTTP client: {0}")]
    Client(String),
    /// A proxy variable of the environment would be passed by: the
    /// client would connect straight to the door instead of through the
    /// proxy it names ([`check_proxy_environment`](crate::check_proxy_environment)
    /// says why), so nothing is sent.
    #[error("{0}")]
    Proxy(String),
    /// No connection could be made (refused, unreachable, DNS, TLS).
    #[error("could not connect: {0}")]
    Connect(String),
    /// The door did not finish answering within the time limit.
    #[error("no answer within {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The door answered 401: a bearer is missing or refused. Carries the
    /// resource metadata URL (from `WWW-Authenticate: Bearer
    /// resource_metadata="…"`, else `<origin>/.well-known/oauth-protected-resource`;
    /// HIP-0300 §1.6, RFC 9728 §5.1). The door's URL is kept only when it
    /// is an absolute `https` URL (`http` for `127.0.0.1`, `::1` or
    /// `localhost`) of at most 2048 bytes, without control characters,
    /// user name or password, and without the bearer (as is or
    /// percent-encoded); otherwise the fallback is used.
    #[error("sign-in required (resource metadata: {resource_metadata})")]
    Unauthorized {
        /// Where the OAuth protected-resource metadata is served.
        resource_metadata: String,
    },
    /// The door answered an HTML page (a proxy or console error page).
    #[error("answered an HTML page (HTTP {status}), not JSON-RPC")]
    Html {
        /// The HTTP status code.
        status: u16,
    },
    /// The door answered a status that is neither success, 401 nor a
    /// followed redirect (for example 502, 503, 404).
    #[error("answered HTTP {status}")]
    Status {
        /// The HTTP status code.
        status: u16,
    },
    /// The door answered 2xx with a body that is not a JSON-RPC response to
    /// the request (not JSON, wrong id, wrong content type, empty stream).
    #[error("answered a body that is not a JSON-RPC response: {0}")]
    Garbage(String),
    /// More than the configured number of 307/308 hops, a redirect without
    /// a usable `Location`, or a redirect status that would change the method.
    #[error("bad redirect: {0}")]
    Redirect(String),
    /// The answer was larger than the configured limit, in bytes.
    #[error("answer larger than {0} bytes")]
    TooLarge(usize),
    /// The request failed while sending or reading (connection reset, …).
    #[error("request failed: {0}")]
    Http(String),
    /// The door answered a JSON-RPC error to a `tools/list` page.
    #[error("JSON-RPC error {}: {}", .0.code, .0.message)]
    Rpc(ErrorObject),
}
