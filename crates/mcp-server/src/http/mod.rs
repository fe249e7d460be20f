//! The streamable HTTP transport (MCP 2025-11-25 and 2026-07-28
//! basic/transports) as an [`axum::Router`] another runtime can mount, and
//! [`serve_http`] for `hanzo-mcp serve --http ADDR`.
//!
//! Every message reaches the same session code as stdio does
//! (`src/session/`), parsed once and never turned back into bytes: a
//! 2025-11-25 session is one long-lived session, a 2026-07-28 request a
//! session of its own that ends with its answer. The transport adds only
//! what HTTP needs:
//!
//! - Bearer (when configured): `Authorization: Bearer <token>` or 401.
//! - `Origin`: absent, loopback, or configured; otherwise 403 (DNS
//!   rebinding, MCP 2025-11-25 basic/transports security warning).
//! - `MCP-Protocol-Version`: a revision we do not know gets 400 with -32022
//!   `{supported, requested}`.
//! - 2026-07-28 (header or body `_meta` names it): POST only (GET and DELETE
//!   get 405); `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` must
//!   match the body or 400 with -32020; a request whose `_meta` lacks its
//!   revision or `clientCapabilities` is 400 with -32602 (SEP-2575); each
//!   `Mcp-Param-*` header of a `tools/call` must match the argument its
//!   tool's `x-mcp-header` annotation names, literal or `=?base64?…?=`, or
//!   400 with -32020 (SEP-2243); -32022 and -32021 answers are 400; -32601
//!   is 404. Session ids are ignored.
//! - 2025-11-25 and earlier: `initialize` mints an `Mcp-Session-Id`; later
//!   messages must carry it (400 without, 404 for one that ended); DELETE
//!   ends it; GET opens the session's stream for server notifications.
//! - A notification or response is answered 202. A request is answered with
//!   `application/json`, or with `text/event-stream` when notifications for
//!   it (progress) come before its response and the client accepts SSE.
//! - Sessions are bounded: at most [`HttpConfig::max_sessions`] live at once
//!   (a further `initialize` gets 503 with a -32603 error body; live
//!   sessions are never evicted, so one client cannot end another's), and a
//!   session with no request for [`HttpConfig::session_idle`] and no open
//!   stream is ended as DELETE ends it (later requests get 404).
//! - A request the client cancels (`notifications/cancelled`) gets no
//!   response (MCP 2025-11-25 basic/utilities/cancellation), so its POST
//!   ends without one: its SSE stream closes, or a JSON-only POST gets 204.
//! - A request id already in flight in the session is refused with 400 and
//!   -32600; the request in flight keeps its answer.
//! - A body larger than [`HttpConfig::max_body_bytes`] gets 413 with -32600.
//! - A POST whose `Content-Type` is not `application/json` (parameters such
//!   as `; charset=utf-8` allowed) gets 415 with -32600 (MCP 2025-11-25
//!   basic/transports: the body is one JSON-RPC message).
//! - A body meant as a response (an `id`, `result` or `error`, no `method`)
//!   that is malformed is never answered with a JSON-RPC error (JSON-RPC 2.0
//!   §5): it gets 202 and goes to its session's connection, which fails the
//!   server request it answers at once with -32603, as on stdio.
//! - `initialize` naming a live `Mcp-Session-Id` goes to that session, which
//!   refuses it (-32600) as stdio refuses a second `initialize`.
//! - [`serve_http`] closes an HTTP/1 connection whose request header is not
//!   complete within [`HttpConfig::header_read_timeout`], and serves at most
//!   [`HttpConfig::max_connections`] connections at once: beyond that it
//!   stops accepting, so further clients wait in the listen backlog until a
//!   connection closes.
//! - A POST body that has not fully arrived [`HttpConfig::body_read_timeout`]
//!   after its header gets 408 with -32600 (no `id`), and the connection is
//!   closed.

mod answer;
pub mod bearer;
mod check;
mod post;
mod routing;
mod serve;
mod sessions;

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use mcp_proto::{ErrorObject, Message, RequestId, Revision};

use crate::server::Server;
use check::{PROTOCOL_VERSION, header as text};
use post::on_post;
pub use serve::{check_config, serve_http};
use sessions::{HttpSession, Sessions, on_delete, on_get, sweeper};

/// Settings of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// The MCP endpoint's path. Default `/mcp`.
    pub path: String,
    /// When set, every request must carry `Authorization: Bearer <bearer>`;
    /// required by [`serve_http`] for a non-loopback address. Never logged.
    pub bearer: Option<String>,
    /// Origins accepted besides loopback ones, exactly as browsers send them
    /// (`https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// The largest request body accepted, in bytes; a larger one gets 413.
    /// Default 8 MiB, the stdio line limit.
    pub max_body_bytes: usize,
    /// The most 2025-11-25 sessions live at once; an `initialize` beyond it
    /// gets 503 with a -32603 error body. Default 256.
    pub max_sessions: usize,
    /// How long a session may go without a request and without an open
    /// stream before it is ended as DELETE ends it. Default 30 minutes.
    pub session_idle: Duration,
    /// How long [`serve_http`] waits for a connection's request header to
    /// be complete before closing the connection (slow-header defence).
    /// Default 10 s.
    pub header_read_timeout: Duration,
    /// The most connections [`serve_http`] serves at once; beyond it no
    /// further connection is accepted until one closes (clients wait in the
    /// listen backlog). Default 512; 0 is taken as 1, and more than
    /// [`tokio::sync::Semaphore::MAX_PERMITS`] as that many.
    pub max_connections: usize,
    /// How long a POST's whole body may take to arrive once its header is
    /// read; a late one gets 408 with a -32600 error body and the
    /// connection is closed (slow-body defence). Default 30 s.
    pub body_read_timeout: Duration,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            path: "/mcp".into(),
            bearer: None,
            allowed_origins: Vec::new(),
            max_body_bytes: mcp_proto::framing::DEFAULT_MAX_LINE_LEN,
            max_sessions: 256,
            session_idle: Duration::from_secs(30 * 60),
            header_read_timeout: Duration::from_secs(10),
            max_connections: 512,
            body_read_timeout: Duration::from_secs(30),
        }
    }
}

#[derive(Clone)]
struct Transport {
    server: Arc<Server>,
    config: Arc<HttpConfig>,
    sessions: Arc<Sessions>,
}

impl Transport {
    fn session(&self, id: &str) -> Option<Arc<HttpSession>> {
        let session = self
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()?;
        session.touch();
        Some(session)
    }
}

/// The MCP endpoint for `server` at `config.path` (GET, POST, DELETE), ready
/// to mount in any axum application or to serve as a tower service.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    let path = config.path.clone();
    let limit = config.max_body_bytes;
    let sessions: Arc<Sessions> = Arc::default();
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(sweeper(Arc::downgrade(&sessions), config.session_idle));
    }
    let transport = Transport {
        server,
        config: Arc::new(config),
        sessions,
    };
    Router::new()
        .route(&path, get(on_get).post(on_post).delete(on_delete))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(transport)
}

/// An HTTP answer carrying a JSON-RPC error; without an `id` member when
/// the id is unknown (mcp-proto omits it: the MCP schemas allow only a
/// string or an integer there).
fn rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    let body = Message::Response(mcp_proto::Response::error(id, error));
    (status, axum::Json(body)).into_response()
}

/// The text of the 401 answer: what to send, and where the token is, for a
/// user who meets it in a client's log. The path of a generated bearer
/// file is not named (an unauthenticated caller need not learn it); the
/// server's start-up line on stderr names it.
const BEARER_REFUSED: &str = "missing or wrong bearer token: send `Authorization: Bearer <token>`, \
     the token being HANZO_MCP_HTTP_BEARER where the server was started, or the contents of the \
     file its stderr named at start (\"clients must send ...\")";

/// Bearer, `Origin` and (without a bearer) `Host`, checked on every method.
fn guard(transport: &Transport, headers: &HeaderMap) -> Option<Response> {
    if let Some(bearer) = &transport.config.bearer
        && !check::bearer_ok(headers, bearer)
    {
        let mut response = rpc_error(
            StatusCode::UNAUTHORIZED,
            None,
            ErrorObject::invalid_request(BEARER_REFUSED),
        );
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return Some(response);
    }
    if !check::origin_ok(headers, &transport.config.allowed_origins) {
        return Some(rpc_error(
            StatusCode::FORBIDDEN,
            None,
            ErrorObject::invalid_request("Origin not allowed"),
        ));
    }
    if transport.config.bearer.as_deref().is_none_or(str::is_empty)
        && !check::host_ok(headers, &transport.config.allowed_origins)
    {
        return Some(rpc_error(
            StatusCode::FORBIDDEN,
            None,
            ErrorObject::invalid_request("Host not allowed"),
        ));
    }
    None
}

/// The revision `MCP-Protocol-Version` names: `Ok(None)` when absent, `Err`
/// (400, -32022 with `id`) when it names no revision we know. `supported`
/// lists the revisions served statelessly, as `server/discover` does (the
/// handshake revisions are negotiated by `initialize`, never by this error).
fn header_revision(
    headers: &HeaderMap,
    id: Option<RequestId>,
) -> Result<Option<Revision>, Box<Response>> {
    let Some(value) = headers.get(PROTOCOL_VERSION) else {
        return Ok(None);
    };
    let requested = value.to_str().unwrap_or("").trim();
    match Revision::parse(requested) {
        Some(revision) => Ok(Some(revision)),
        None => Err(Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            ErrorObject::unsupported_protocol_version(
                requested,
                &crate::lifecycle::Lifecycle::stateless_revisions(),
            ),
        ))),
    }
}

fn accepts_sse(headers: &HeaderMap) -> bool {
    text(headers, "accept").is_some_and(|a| a.contains("text/event-stream") || a.contains("*/*"))
}

/// 405 with `Allow: POST` (the only method every revision accepts).
fn method_not_allowed() -> Response {
    let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    response
}

/// The environment variable holding the bearer HTTP clients must send; read
/// by `hanzo-mcp serve --http` (never a flag, so it stays out of `ps`).
pub const BEARER_ENV: &str = "HANZO_MCP_HTTP_BEARER";

pub use crate::cli::parse_addr;

/// The [`HttpConfig`] of `hanzo-mcp serve --http`: defaults, with the bearer
/// from [`BEARER_ENV`] when set and not empty.
pub fn config_from_env() -> HttpConfig {
    HttpConfig {
        bearer: std::env::var(BEARER_ENV).ok().filter(|b| !b.is_empty()),
        ..HttpConfig::default()
    }
}
