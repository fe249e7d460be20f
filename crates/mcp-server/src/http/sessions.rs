//! 2025-11-25 sessions over HTTP: `initialize` opens one under a fresh
//! `Mcp-Session-Id`, later messages must name it, DELETE and idleness end
//! it, GET opens its standalone stream (MCP 2025-11-25 basic/transports,
//! session management).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_proto::{ErrorObject, RequestId, Revision};

use super::answer::{json_body, sse_response};
use super::check::{SESSION_ID, header as text};
use super::routing::{LiveSession, Replies, Reply};
use super::{Transport, accepts_sse, guard, header_revision, method_not_allowed, rpc_error};
use crate::server::Server;

/// A 2025-11-25 session: one server connection plus the revision its
/// `initialize` negotiated.
pub(super) struct HttpSession {
    pub(super) live: LiveSession,
    pub(super) revision: Mutex<Option<String>>,
    /// When a request last named it, or when a sweep last saw it busy.
    last_seen: Mutex<Instant>,
}

impl HttpSession {
    pub(super) fn new(server: Arc<Server>) -> Self {
        Self {
            live: LiveSession::start(server),
            revision: Mutex::new(None),
            last_seen: Mutex::new(Instant::now()),
        }
    }

    pub(super) fn touch(&self) {
        *self
            .last_seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Instant::now();
    }
}

pub(super) type Sessions = Mutex<HashMap<String, Arc<HttpSession>>>;

/// Ends every session of `sessions` idle for longer than `idle`, as DELETE
/// ends it. A session is busy while anything but the map holds it (a
/// request being answered, an open stream); a sweep counts that as use.
pub(super) fn sweep(sessions: &Sessions, idle: Duration) {
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
        session.live.finish_input();
    }
}

/// Sweeps `sessions` every quarter of `idle` (no more often than every
/// 10 ms, at least once a minute) for as long as the router holding them
/// lives.
pub(super) async fn sweeper(sessions: Weak<Sessions>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(60));
    loop {
        tokio::time::sleep(every).await;
        let Some(sessions) = sessions.upgrade() else {
            return;
        };
        sweep(&sessions, idle);
    }
}

pub(super) fn session_count(transport: &Transport) -> usize {
    transport
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .len()
}

/// 503 for an `initialize` when [`HttpConfig::max_sessions`] are live.
pub(super) fn too_many_sessions(id: Option<RequestId>, max: usize) -> Response {
    rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        id,
        ErrorObject::internal_error(format!(
            "too many sessions: {max} are live; end one (DELETE) or retry later"
        )),
    )
}

/// The session `Mcp-Session-Id` names: 400 when the header is missing, 404
/// when no such session is live (never was, or ended); the error carries
/// `request`, the id of the request refused (none for a GET or DELETE).
pub(super) fn session_of(
    transport: &Transport,
    headers: &HeaderMap,
    request: Option<RequestId>,
) -> Result<Arc<HttpSession>, Box<Response>> {
    let Some(id) = text(headers, SESSION_ID) else {
        return Err(Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            request,
            ErrorObject::invalid_request(
                "Mcp-Session-Id is required: send initialize first to open a session",
            ),
        )));
    };
    transport.session(id).ok_or_else(|| {
        Box::new(rpc_error(
            StatusCode::NOT_FOUND,
            request,
            ErrorObject::invalid_request(format!(
                "session {:?} not found or ended",
                mcp_proto::error::excerpt(id, mcp_proto::error::MAX_QUOTED_BYTES)
            )),
        ))
    })
}

/// An `initialize` naming no live session: a new session answers it and,
/// once it negotiated a revision, is kept under a fresh `Mcp-Session-Id`
/// (503 when [`HttpConfig::max_sessions`] are live).
pub(super) async fn open_session(transport: &Transport, request: mcp_proto::Request) -> Response {
    let id = Some(request.id.clone());
    sweep(&transport.sessions, transport.config.session_idle);
    if session_count(transport) >= transport.config.max_sessions {
        return too_many_sessions(id, transport.config.max_sessions);
    }
    let session = Arc::new(HttpSession::new(transport.server.clone()));
    let replies = session.live.request(request, None, false).await;
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
            session.live.finish_input();
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

/// The refusal of a GET or DELETE, if any: bearer, `Origin` and `Host`,
/// then 405 for a 2026-07-28 request (those revisions only POST).
fn session_method(transport: &Transport, headers: &HeaderMap) -> Option<Response> {
    if let Some(refused) = guard(transport, headers) {
        return Some(refused);
    }
    match header_revision(headers, None) {
        Ok(revision) if revision.is_some_and(Revision::is_stateless) => Some(method_not_allowed()),
        Ok(_) => None,
        Err(refused) => Some(*refused),
    }
}

pub(super) async fn on_get(State(transport): State<Transport>, headers: HeaderMap) -> Response {
    if let Some(refused) = session_method(&transport, &headers) {
        return refused;
    }
    if headers.get(SESSION_ID).is_none() {
        return method_not_allowed();
    }
    if !accepts_sse(&headers) {
        return StatusCode::NOT_ACCEPTABLE.into_response();
    }
    let session = match session_of(&transport, &headers, None) {
        Ok(session) => session,
        Err(refused) => return *refused,
    };
    match session.live.open_standalone() {
        Some(replies) => sse_response(None, replies, session),
        None => rpc_error(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open GET stream"),
        ),
    }
}

pub(super) async fn on_delete(State(transport): State<Transport>, headers: HeaderMap) -> Response {
    if let Some(refused) = session_method(&transport, &headers) {
        return refused;
    }
    if let Err(refused) = session_of(&transport, &headers, None) {
        return *refused;
    }
    let id = text(&headers, SESSION_ID).unwrap_or("");
    let ended = transport
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(id);
    if let Some(session) = ended {
        session.live.finish_input();
    }
    StatusCode::OK.into_response()
}

/// The `protocolVersion` an `initialize` response negotiated.
pub(super) fn negotiated_revision(response: &[u8]) -> Option<String> {
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
