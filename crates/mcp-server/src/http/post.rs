//! POST: one JSON-RPC message per body, checked against the headers,
//! then handed to its session (2025-11-25) or to a one-shot session of its
//! own (2026-07-28).

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use mcp_proto::{ErrorObject, Message, RequestId, Revision, meta};
use serde_json::Value;
use std::sync::PoisonError;

use super::answer::answer;
use super::check::{self, PROTOCOL_VERSION, SESSION_ID, header as text};
use super::routing::OneShot;
use super::sessions::{open_session, session_of};
use super::{Transport, accepts_sse, guard, header_revision, rpc_error};

pub(super) async fn on_post(
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
    let config = &transport.config;
    let read =
        mcp_streamable_http::read_body(request, config.body_read_timeout, config.max_body_bytes)
            .await;
    let body = match read {
        Ok(body) => body,
        Err(refused) => return refused,
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
    let revision = match revision_of(&headers, &message, params.as_ref()) {
        Ok(revision) => revision,
        Err(refused) => return *refused,
    };
    let stateless = match revision {
        Some(revision) => revision.is_stateless(),
        None => check::body_revision(params.as_ref())
            .and_then(Revision::parse)
            .is_some_and(Revision::is_stateless),
    };
    if stateless {
        post_stateless(&transport, &headers, message, params.as_ref()).await
    } else {
        post_session(&transport, &headers, revision, message, params.as_ref()).await
    }
}

/// The id of `message` when it is a request.
fn request_id(message: &Message) -> Option<RequestId> {
    match message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    }
}

/// The revision `MCP-Protocol-Version` names (`None` when absent), which
/// must be the one the body's `_meta` names when it names one: 400 with
/// -32022 for an unknown revision, -32020 for a mismatch.
fn revision_of(
    headers: &HeaderMap,
    message: &Message,
    params: Option<&Value>,
) -> Result<Option<Revision>, Box<Response>> {
    let id = request_id(message);
    let revision = header_revision(headers, id.clone())?;
    if let (Some(header), Some(body)) = (revision, check::body_revision(params))
        && header.as_str() != body
    {
        return Err(Box::new(rpc_error(
            StatusCode::BAD_REQUEST,
            id,
            check::mismatch(format!(
                "MCP-Protocol-Version is {:?} but params._meta names {body:?}",
                header.as_str()
            )),
        )));
    }
    Ok(revision)
}

/// A POST of a malformed response (JSON-RPC 2.0 §5: never answered with
/// a response, so no error body carries its id): 202 once it reaches the
/// session's connection, which fails the server request it answers at once
/// (-32603, as on stdio). 400 with a null-id error when no session takes
/// it: a 2026-07-28 POST (those clients send no responses) or no
/// `Mcp-Session-Id`; 404 for a session that ended.
pub(super) async fn malformed_response(
    transport: &Transport,
    headers: &HeaderMap,
    body: Vec<u8>,
) -> Response {
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
    let session = match session_of(transport, headers, None) {
        Ok(session) => session,
        Err(refused) => return *refused,
    };
    if session.live.send_malformed(body).await {
        StatusCode::ACCEPTED.into_response()
    } else {
        StatusCode::NOT_FOUND.into_response()
    }
}

/// A 2026-07-28 POST: headers checked against the body, then one connection
/// for this request alone.
pub(super) async fn post_stateless(
    transport: &Transport,
    headers: &HeaderMap,
    message: Message,
    params: Option<&Value>,
) -> Response {
    let id = request_id(&message);
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
        (Ok(()), Message::Request(request))
            if request.method == mcp_proto::methods::CallTool::NAME =>
        {
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
/// merged list with annotations; a call of a tool not listed, or without
/// them, has nothing to check.
pub(super) async fn check_param_headers(
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
    match merged.param_headers(name) {
        Some(annotations) => check::param_headers(headers, annotations, params),
        None => Ok(()),
    }
}

/// A 2025-11-25 (or earlier) POST: `initialize` opens a session, anything
/// else goes to the session its `Mcp-Session-Id` names.
pub(super) async fn post_session(
    transport: &Transport,
    headers: &HeaderMap,
    revision: Option<Revision>,
    message: Message,
    params: Option<&Value>,
) -> Response {
    let id = request_id(&message);
    let live = text(headers, SESSION_ID).and_then(|id| transport.session(id));
    let message = match message {
        Message::Request(request)
            if request.method == mcp_proto::methods::Initialize::NAME && live.is_none() =>
        {
            return open_session(transport, request).await;
        }
        message => message,
    };
    let session = match live {
        Some(session) => session,
        None => match session_of(transport, headers, id.clone()) {
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
            if notification.method == mcp_proto::methods::Cancelled::NAME
                && let Some(cancelled) = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
            {
                session.live.cancelled(&cancelled);
            }
            if session.live.send(Message::Notification(notification)).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
        Message::Response(response) => {
            if session.live.send(Message::Response(response)).await {
                StatusCode::ACCEPTED.into_response()
            } else {
                StatusCode::NOT_FOUND.into_response()
            }
        }
        Message::Request(request) => {
            let token = progress_token(params);
            let sse = accepts_sse(headers);
            let id = request.id.clone();
            match session.live.request(request, token, sse).await {
                Some(replies) => answer(replies, sse, false, session).await,
                None => in_flight(id),
            }
        }
    }
}

/// 400 with -32600 for a request whose id is already in flight (JSON-RPC
/// 2.0 §4; the same message the connection gives on stdio).
pub(super) fn in_flight(id: RequestId) -> Response {
    let text = serde_json::to_string(&id).unwrap_or_default();
    rpc_error(
        StatusCode::BAD_REQUEST,
        Some(id),
        ErrorObject::invalid_request(format!("request id {text} is already in flight")),
    )
}

/// The JSON text of a request's `_meta.progressToken`, as its progress
/// notifications will name it.
pub(super) fn progress_token(params: Option<&Value>) -> Option<String> {
    Some(params?.get("_meta")?.get(meta::PROGRESS_TOKEN)?.to_string())
}

/// The method of a request or notification; `""` for a response.
pub(super) fn method_of(message: &Message) -> &str {
    match message {
        Message::Request(request) => &request.method,
        Message::Notification(notification) => &notification.method,
        Message::Response(_) => "",
    }
}
