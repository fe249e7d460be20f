//! The streamable HTTP transport (MCP 2025-11-25 and 2026-07-28
//! basic/transports) as an [`axum::Router`] another runtime can mount, and
//! [`serve_http`] for `hanzo-mcp serve --http ADDR`.
//!
//! Every message reaches the same session code as stdio does
//! ([`crate::session`]), parsed once and never turned back into bytes: a
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

mod check;
mod pipe;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use mcp_proto::{ErrorObject, Message, RequestId, Revision, error_code, meta};
use serde_json::Value;
use tokio::sync::Semaphore;

use crate::error::ServerError;
use crate::server::Server;
use check::{PROTOCOL_VERSION, SESSION_ID, header as text};
use pipe::{OneShot, Pipe, Replies, Reply};

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
    /// [`Semaphore::MAX_PERMITS`] as that many.
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

/// A 2025-11-25 session: one server connection plus the revision its
/// `initialize` negotiated.
struct Session {
    pipe: Pipe,
    revision: Mutex<Option<String>>,
    /// When a request last named it, or when a sweep last saw it busy.
    last_seen: Mutex<Instant>,
}

impl Session {
    fn new(server: Arc<Server>) -> Self {
        Self {
            pipe: Pipe::start(server),
            revision: Mutex::new(None),
            last_seen: Mutex::new(Instant::now()),
        }
    }

    fn touch(&self) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }
}

type Sessions = Mutex<HashMap<String, Arc<Session>>>;

/// Ends every session of `sessions` idle for longer than `idle`, as DELETE
/// ends it. A session is busy while anything but the map holds it (a
/// request being answered, an open stream); a sweep counts that as use.
fn sweep(sessions: &Sessions, idle: Duration) {
    let now = Instant::now();
    let mut ended = Vec::new();
    sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .retain(|_, session| {
            if Arc::strong_count(session) > 1 {
                session.touch();
                return true;
            }
            let seen = *session
                .last_seen
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if now.saturating_duration_since(seen) < idle {
                return true;
            }
            ended.push(session.clone());
            false
        });
    for session in ended {
        session.pipe.finish_input();
    }
}

/// Sweeps `sessions` every quarter of `idle` (no more often than every
/// 10 ms, at least once a minute) for as long as the router holding them
/// lives.
async fn sweeper(sessions: Weak<Sessions>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
    loop {
        tokio::time::sleep(every).await;
        let Some(sessions) = sessions.upgrade() else {
            return;
        };
        sweep(&sessions, idle);
    }
}

#[derive(Clone)]
struct Transport {
    server: Arc<Server>,
    config: Arc<HttpConfig>,
    sessions: Arc<Sessions>,
}

impl Transport {
    fn session(&self, id: &str) -> Option<Arc<Session>> {
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

/// Serves `server` over streamable HTTP on `addr` until `shutdown`
/// completes. Refuses (`ServerError::Config`) a configured bearer that is
/// empty or only whitespace, a non-loopback `addr` without a bearer, and an
/// address that cannot be bound. `on_bound` gets the bound
/// address (useful with port 0).
pub async fn serve_http<S>(
    server: Arc<Server>,
    addr: SocketAddr,
    config: HttpConfig,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: S,
) -> Result<(), ServerError>
where
    S: Future<Output = ()> + Send + 'static,
{
    if config
        .bearer
        .as_deref()
        .is_some_and(|b| b.trim().is_empty())
    {
        return Err(ServerError::Config(format!(
            "--http {addr}: the bearer (HANZO_MCP_HTTP_BEARER) is empty or only whitespace"
        )));
    }
    if !addr.ip().is_loopback() && config.bearer.as_deref().is_none_or(str::is_empty) {
        return Err(ServerError::Config(format!(
            "--http {addr}: a non-loopback address needs a bearer (HANZO_MCP_HTTP_BEARER)"
        )));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ServerError::Config(format!("--http {addr}: cannot bind: {e}")))?;
    let bound = listener
        .local_addr()
        .map_err(|e| ServerError::Config(format!("--http {addr}: {e}")))?;
    tracing::info!(%bound, path = config.path, "serving MCP over streamable HTTP");
    on_bound(bound);
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(config.header_read_timeout);
    let slots = Arc::new(Semaphore::new(
        config.max_connections.clamp(1, Semaphore::MAX_PERMITS),
    ));
    let app = router(server, config);
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // A slot first: at the cap nothing is accepted until a connection
        // closes, so further clients wait in the listen backlog.
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(error) => {
                    // Out of descriptors and the like: wait, then go on.
                    tracing::warn!(%error, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let connection =
            http1.serve_connection(TokioIo::new(stream), TowerToHyperService::new(app.clone()));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "HTTP connection ended with an error");
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// An HTTP answer carrying a JSON-RPC error; without an `id` member when
/// the id is unknown (mcp-proto omits it: the MCP schemas allow only a
/// string or an integer there).
fn rpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    let body = Message::Response(mcp_proto::Response::error(id, error));
    (status, axum::Json(body)).into_response()
}

/// Bearer, `Origin` and (without a bearer) `Host`, checked on every method.
fn guard(transport: &Transport, headers: &HeaderMap) -> Option<Response> {
    if let Some(bearer) = &transport.config.bearer
        && !check::bearer_ok(headers, bearer)
    {
        let mut response = rpc_error(
            StatusCode::UNAUTHORIZED,
            None,
            ErrorObject::invalid_request("missing or wrong bearer token"),
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

/// Reads the body of `request` within [`HttpConfig::body_read_timeout`]:
/// `Err` is the 408 answer (-32600, no `id`, `Connection: close`) for a body
/// that did not arrive in time.
async fn read_body(
    transport: &Transport,
    request: Request,
) -> Result<Result<Bytes, BytesRejection>, Response> {
    let limit = transport.config.body_read_timeout;
    match tokio::time::timeout(limit, Bytes::from_request(request, &())).await {
        Ok(body) => Ok(body),
        Err(_) => {
            let mut response = rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                None,
                ErrorObject::invalid_request(format!(
                    "the request body did not arrive within {} s",
                    limit.as_secs_f64()
                )),
            );
            response
                .headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
            Err(response)
        }
    }
}

async fn on_post(
    State(transport): State<Transport>,
    headers: HeaderMap,
    request: Request,
) -> Response {
    if let Some(refused) = guard(&transport, &headers) {
        return refused;
    }
    if !check::json_content_type(&headers) {
        return rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            ErrorObject::invalid_request("Content-Type must be application/json"),
        );
    }
    let body = match read_body(&transport, request).await {
        Ok(body) => body,
        Err(late) => return late,
    };
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return rpc_error(
                StatusCode::PAYLOAD_TOO_LARGE,
                None,
                ErrorObject::invalid_request(format!(
                    "request body larger than {} bytes",
                    transport.config.max_body_bytes
                )),
            );
        }
        Err(rejection) => {
            return rpc_error(
                rejection.status(),
                None,
                ErrorObject::invalid_request(rejection.body_text()),
            );
        }
    };
    let message = match mcp_proto::parse_message(&body) {
        Ok(message) => message,
        Err(bad) => {
            return match check::meant_as_response(&body) {
                Some(_) => malformed_response(&transport, &headers, body.to_vec()).await,
                None => rpc_error(StatusCode::BAD_REQUEST, bad.id, bad.error),
            };
        }
    };
    // Decoded once for the checks below; the session reads the message.
    let params = match &message {
        Message::Request(request) => match request.params_value() {
            Ok(params) => params,
            Err(error) => {
                return rpc_error(StatusCode::BAD_REQUEST, Some(request.id.clone()), error);
            }
        },
        Message::Notification(notification) => notification.params.clone(),
        Message::Response(_) => None,
    };
    let id = match &message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    let revision = match header_revision(&headers, id.clone()) {
        Ok(revision) => revision,
        Err(refused) => return *refused,
    };
    if let (Some(header), Some(body)) = (revision, check::body_revision(params.as_ref()))
        && header.as_str() != body
    {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            check::mismatch(format!(
                "MCP-Protocol-Version is {:?} but params._meta names {body:?}",
                header.as_str()
            )),
        );
    }
    let body_stateless = check::body_revision(params.as_ref())
        .and_then(Revision::parse)
        .is_some_and(Revision::is_stateless);
    let stateless = match revision {
        Some(revision) => revision.is_stateless(),
        None => body_stateless,
    };
    if stateless {
        post_stateless(&transport, &headers, message, params.as_ref()).await
    } else {
        post_session(&transport, &headers, revision, message, params.as_ref()).await
    }
}

/// A POST of a malformed response (JSON-RPC 2.0 §5: never answered with
/// a response, so no error body carries its id): 202 once it reaches the
/// session's connection, which fails the server request it answers at once
/// (-32603, as on stdio). 400 with a null-id error when no session takes
/// it: a 2026-07-28 POST (those clients send no responses) or no
/// `Mcp-Session-Id`; 404 for a session that ended.
async fn malformed_response(transport: &Transport, headers: &HeaderMap, body: Vec<u8>) -> Response {
    let stateless = text(headers, PROTOCOL_VERSION)
        .and_then(Revision::parse)
        .is_some_and(Revision::is_stateless);
    if stateless {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request("2026-07-28 clients send no responses"),
        );
    }
    let session = match session_of(transport, headers) {
        Ok(session) => session,
        Err(refused) => return *refused,
    };
    if session.pipe.send_malformed(body).await {
        StatusCode::ACCEPTED.into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    }
}

/// A 2026-07-28 POST: headers checked against the body, then one connection
/// for this request alone.
async fn post_stateless(
    transport: &Transport,
    headers: &HeaderMap,
    message: Message,
    params: Option<&Value>,
) -> Response {
    let id = match &message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    let version = text(headers, PROTOCOL_VERSION).unwrap_or("");
    let checked = if version.is_empty() {
        Err(check::mismatch(format!(
            "MCP-Protocol-Version is missing; params._meta[\"{}\"] names {:?}",
            meta::PROTOCOL_VERSION,
            check::body_revision(params).unwrap_or("")
        )))
    } else {
        check::stateless_headers(headers, version, method_of(&message), params)
    };
    let checked = checked.and_then(|()| match &message {
        Message::Request(_) => crate::lifecycle::check_stateless_meta(params),
        _ => Ok(()),
    });
    let checked = match (checked, &message) {
        (Ok(()), Message::Request(request)) if request.method == "tools/call" => {
            check_param_headers(transport, headers, params).await
        }
        (checked, _) => checked,
    };
    if let Err(error) = checked {
        return rpc_error(StatusCode::BAD_REQUEST, id, error);
    }
    match message {
        // Nothing lasts between 2026-07-28 requests; a request is cancelled
        // by closing its stream (MCP 2026-07-28 basic/transports).
        Message::Notification(_) => StatusCode::ACCEPTED.into_response(),
        Message::Response(_) => rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request("2026-07-28 clients send no responses"),
        ),
        Message::Request(request) => {
            let sse = accepts_sse(headers);
            answer(
                OneShot::start(transport.server.clone(), request),
                sse,
                true,
                (),
            )
            .await
        }
    }
}

/// [`check::param_headers`] for a `tools/call` whose tool is in the
/// merged list; a call of a tool not listed has no annotations to check.
async fn check_param_headers(
    transport: &Transport,
    headers: &HeaderMap,
    params: Option<&Value>,
) -> Result<(), ErrorObject> {
    let Some(params) = params else {
        return Ok(());
    };
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Ok(());
    };
    let merged = transport.server.composition().merged().await;
    match merged.list().tools.iter().find(|tool| tool.name == name) {
        Some(tool) => check::param_headers(headers, tool, params),
        None => Ok(()),
    }
}

/// An `initialize` naming no live session: a new session answers it and,
/// once it negotiated a revision, is kept under a fresh `Mcp-Session-Id`
/// (503 when [`HttpConfig::max_sessions`] are live).
async fn open_session(transport: &Transport, request: mcp_proto::Request) -> Response {
    let id = Some(request.id.clone());
    sweep(&transport.sessions, transport.config.session_idle);
    if session_count(transport) >= transport.config.max_sessions {
        return too_many_sessions(id, transport.config.max_sessions);
    }
    let session = Arc::new(Session::new(transport.server.clone()));
    let replies = session.pipe.request(request, None, false).await;
    let reply = match replies {
        Some(mut replies) => loop {
            match replies.next().await {
                Some(Reply::Response(out)) => break Some(out),
                Some(Reply::Event(_)) => {}
                Some(Reply::Cancelled) | None => break None,
            }
        },
        None => None,
    };
    let Some(reply) = reply else {
        return rpc_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            id,
            ErrorObject::internal_error("the connection ended before answering initialize"),
        );
    };
    let negotiated = negotiated_revision(&reply.bytes);
    let mut response = json_body(StatusCode::OK, reply.bytes);
    if let Some(negotiated) = negotiated {
        let mut sessions = transport
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if sessions.len() >= transport.config.max_sessions {
            drop(sessions);
            session.pipe.finish_input();
            return too_many_sessions(id, transport.config.max_sessions);
        }
        *session
            .revision
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(negotiated);
        let session_id = uuid::Uuid::new_v4().simple().to_string();
        if let Ok(value) = HeaderValue::from_str(&session_id) {
            response.headers_mut().insert(SESSION_ID, value);
        }
        sessions.insert(session_id, session);
    }
    response
}

/// A 2025-11-25 (or earlier) POST: `initialize` opens a session, anything
/// else goes to the session its `Mcp-Session-Id` names.
async fn post_session(
    transport: &Transport,
    headers: &HeaderMap,
    revision: Option<Revision>,
    message: Message,
    params: Option<&Value>,
) -> Response {
    let id = match &message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    let live = text(headers, SESSION_ID).and_then(|id| transport.session(id));
    let message = match message {
        Message::Request(request) if request.method == "initialize" && live.is_none() => {
            return open_session(transport, request).await;
        }
        message => message,
    };
    let session = match live {
        Some(session) => session,
        None => match session_of(transport, headers) {
            Ok(session) => session,
            Err(refused) => return *refused,
        },
    };
    let negotiated = session
        .revision
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    if let (Some(asked), Some(negotiated)) = (revision, negotiated)
        && asked.as_str() != negotiated
    {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            ErrorObject::invalid_request(format!(
                "MCP-Protocol-Version is {} but this session negotiated {negotiated}",
                asked.as_str()
            )),
        );
    }
    match message {
        Message::Notification(notification) => {
            if notification.method == "notifications/cancelled"
                && let Some(cancelled) = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
            {
                session.pipe.cancelled(&cancelled);
            }
            if session.pipe.send(Message::Notification(notification)).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
        Message::Response(response) => {
            if session.pipe.send(Message::Response(response)).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
        Message::Request(request) => {
            let token = progress_token(params);
            let sse = accepts_sse(headers);
            let id = request.id.clone();
            match session.pipe.request(request, token, sse).await {
                Some(replies) => answer(replies, sse, false, session).await,
                None => in_flight(id),
            }
        }
    }
}

fn session_count(transport: &Transport) -> usize {
    transport
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .len()
}

/// 503 for an `initialize` when [`HttpConfig::max_sessions`] are live.
fn too_many_sessions(id: Option<RequestId>, max: usize) -> Response {
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        ErrorObject::internal_error(format!(
            "too many sessions: {max} are live; end one (DELETE) or retry later"
        )),
    )
}

/// 400 with -32600 for a request whose id is already in flight (JSON-RPC
/// 2.0 §4; the same message the connection gives on stdio).
fn in_flight(id: RequestId) -> Response {
    let text = serde_json::to_string(&id).unwrap_or_default();
    rpc_error(
        StatusCode::BAD_REQUEST,
        Some(id),
        ErrorObject::invalid_request(format!("request id {text} is already in flight")),
    )
}

/// The session `Mcp-Session-Id` names: 400 when the header is missing, 404
/// when no such session is live (never was, or ended).
fn session_of(transport: &Transport, headers: &HeaderMap) -> Result<Arc<Session>, Box<Response>> {
    let Some(id) = text(headers, SESSION_ID) else {
        return Err(Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request(
                "Mcp-Session-Id is required: send initialize first to open a session",
            ),
        )));
    };
    transport.session(id).ok_or_else(|| {
        Box::new(rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request(format!("session {id:?} not found or ended")),
        ))
    })
}

/// The JSON text of a request's `_meta.progressToken`, as its progress
/// notifications will name it.
fn progress_token(params: Option<&Value>) -> Option<String> {
    Some(params?.get("_meta")?.get(meta::PROGRESS_TOKEN)?.to_string())
}

/// The `protocolVersion` an `initialize` response negotiated.
fn negotiated_revision(response: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        result: Option<Negotiated>,
    }
    #[derive(serde::Deserialize)]
    struct Negotiated {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    let answer: Answer = serde_json::from_slice(response).ok()?;
    Some(answer.result?.protocol_version)
}

/// `bytes` (one JSON-RPC message) as an `application/json` answer.
fn json_body(status: StatusCode, bytes: Vec<u8>) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        bytes,
    )
        .into_response()
}

/// The method of a request or notification; `""` for a response.
fn method_of(message: &Message) -> &str {
    match message {
        Message::Request(request) => &request.method,
        Message::Notification(notification) => &notification.method,
        Message::Response(_) => "",
    }
}

/// The HTTP status a 2026-07-28 response travels with (MCP 2026-07-28
/// basic/transports, request metadata), by its error code.
fn stateless_status(error: Option<i64>) -> StatusCode {
    match error {
        Some(error_code::METHOD_NOT_FOUND) => StatusCode::NOT_FOUND,
        Some(
            error_code::UNSUPPORTED_PROTOCOL_VERSION
            | error_code::MISSING_REQUIRED_CLIENT_CAPABILITY
            | error_code::HEADER_MISMATCH,
        ) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Answers one request: JSON when its response comes first (or the client
/// takes no SSE), else an SSE stream of its notifications then its
/// response. `keep` lives as long as the answer; a dropped [`OneShot`]
/// (a closed stream) stops a 2026-07-28 request's work.
async fn answer<R: Replies, K: Send + Sync + 'static>(
    mut replies: R,
    sse: bool,
    stateless: bool,
    keep: K,
) -> Response {
    loop {
        let Some(reply) = replies.next().await else {
            return rpc_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                None,
                ErrorObject::internal_error("the connection ended before answering"),
            );
        };
        match reply {
            // Cancelled: no response will come. An empty stream that ends
            // at once, or no content for a client that takes no SSE.
            Reply::Cancelled if sse => return sse_stream(stream::empty()),
            Reply::Cancelled => return StatusCode::NO_CONTENT.into_response(),
            Reply::Response(out) => {
                let status = match (&out.kind, stateless) {
                    (crate::outbox::Kind::Response { error, .. }, true) => stateless_status(*error),
                    _ => StatusCode::OK,
                };
                return json_body(status, out.bytes);
            }
            Reply::Event(first) if sse => return sse_response(Some(first), replies, keep),
            // No SSE: the notifications cannot be delivered; wait for the
            // answer.
            Reply::Event(_) => {}
        }
    }
}

/// An SSE response of `first` then everything `replies` yields up to and
/// including the response; `keep` lives as long as the stream.
fn sse_response<R: Replies, K: Send + Sync + 'static>(
    first: Option<crate::outbox::Outgoing>,
    replies: R,
    keep: K,
) -> Response {
    let events = stream::iter(first)
        .chain(stream::unfold(
            (Some(replies), keep),
            |(replies, keep)| async move {
                let mut replies = replies?;
                match replies.next().await? {
                    Reply::Event(event) => Some((event, (Some(replies), keep))),
                    Reply::Response(out) => Some((out, (None, keep))),
                    Reply::Cancelled => None,
                }
            },
        ))
        .map(|message| {
            let text = String::from_utf8(message.bytes).unwrap_or_default();
            Ok::<Event, Infallible>(Event::default().data(text))
        });
    sse_stream(events)
}

fn sse_stream<S>(events: S) -> Response
where
    S: Stream<Item = Result<Event, Infallible>> + Send + 'static,
{
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response();
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

async fn on_get(State(transport): State<Transport>, headers: HeaderMap) -> Response {
    if let Some(refused) = guard(&transport, &headers) {
        return refused;
    }
    let revision = match header_revision(&headers, None) {
        Ok(revision) => revision,
        Err(refused) => return *refused,
    };
    if revision.is_some_and(Revision::is_stateless) || headers.get(SESSION_ID).is_none() {
        return method_not_allowed();
    }
    if !accepts_sse(&headers) {
        return StatusCode::NOT_ACCEPTABLE.into_response();
    }
    let session = match session_of(&transport, &headers) {
        Ok(session) => session,
        Err(refused) => return *refused,
    };
    match session.pipe.open_standalone() {
        Some(replies) => sse_response(None, replies, session),
        None => rpc_error(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open GET stream"),
        ),
    }
}

async fn on_delete(State(transport): State<Transport>, headers: HeaderMap) -> Response {
    if let Some(refused) = guard(&transport, &headers) {
        return refused;
    }
    let revision = match header_revision(&headers, None) {
        Ok(revision) => revision,
        Err(refused) => return *refused,
    };
    if revision.is_some_and(Revision::is_stateless) {
        return method_not_allowed();
    }
    if let Err(refused) = session_of(&transport, &headers) {
        return *refused;
    }
    let id = text(&headers, SESSION_ID).unwrap_or("");
    let ended = transport
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(id);
    if let Some(session) = ended {
        session.pipe.finish_input();
    }
    StatusCode::OK.into_response()
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

/// Parses `--http ADDR`: `IP:PORT` (an IP address and a port, `[::1]:8080`
/// for IPv6), or a bare `PORT` meaning `127.0.0.1:PORT` (the default bind is
/// loopback). Host names are refused: nothing is resolved.
pub fn parse_addr(text: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = text.parse::<u16>() {
        return Ok(SocketAddr::from(([127, 0, 0, 1], port)));
    }
    text.parse().map_err(|_| {
        format!(
            "{text:?} is neither IP:PORT (an IP address and a port) nor a port number \
             (for 127.0.0.1)"
        )
    })
}

/// The [`HttpConfig`] of `hanzo-mcp serve --http`: defaults, with the bearer
/// from [`BEARER_ENV`] when set and not empty.
pub fn config_from_env() -> HttpConfig {
    HttpConfig {
        bearer: std::env::var(BEARER_ENV).ok().filter(|b| !b.is_empty()),
        ..HttpConfig::default()
    }
}
