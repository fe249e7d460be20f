//! The HTTP side: every request logged, then routed, then answered as the
//! current [`Behaviour`] says.

use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::{Value, json};

use crate::answer::{
    call_answer, challenge, discover_result, json_response, list_result, plain, raw_response,
    redirect, rpc_error, rpc_result, sse_answer,
};
use crate::behaviour::Behaviour;
use crate::lenient_json::parse_lenient;
use crate::request_log::LoggedRequest;
use crate::{DOOR_PATH, LEGACY_PATH, METADATA_PATH, Shared, lock};

/// Answers any request: logs it, answers the paths other than the door's,
/// applies the behaviour, then reads and answers the JSON-RPC message.
pub(crate) async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    lock(&shared.log).push(LoggedRequest::received(&method, &uri, &headers, &body));
    let behaviour = lock(&shared.behaviour).clone();
    if let Some(response) = off_the_door(&shared, &method, uri.path()) {
        return response;
    }
    if let Some(response) = before_reading(&shared, &behaviour).await {
        return response;
    }
    match read_message(&headers, &body) {
        ControlFlow::Continue(message) => answer(&shared, &behaviour, &headers, &message),
        ControlFlow::Break(response) => response,
    }
}

/// The answer to anything but a POST to the door's path: the metadata for
/// a GET of it, `405` for another method, `308` from the legacy path,
/// `404` elsewhere. `None` for a POST to [`DOOR_PATH`].
fn off_the_door(shared: &Shared, method: &Method, route: &str) -> Option<Response> {
    if method == Method::GET && route.starts_with(METADATA_PATH) {
        let metadata = json!({
            "resource": format!("{}{DOOR_PATH}", shared.origin),
            "authorization_servers": ["https://hanzo.id"],
            "bearer_methods_supported": ["header"]
        });
        return Some(json_response(StatusCode::OK, &metadata));
    }
    if method != Method::POST {
        return Some(plain(
            StatusCode::METHOD_NOT_ALLOWED,
            "text/plain",
            "POST only",
        ));
    }
    if route == LEGACY_PATH {
        return Some(redirect(StatusCode::PERMANENT_REDIRECT, DOOR_PATH));
    }
    if route != DOOR_PATH {
        return Some(plain(StatusCode::NOT_FOUND, "text/plain", "not found"));
    }
    None
}

/// What `behaviour` does before the message is read: answers the POST
/// without reading it (401, HTML, garbage, redirects), or waits (forever,
/// a while, or until released) and returns `None`.
async fn before_reading(shared: &Shared, behaviour: &Behaviour) -> Option<Response> {
    match behaviour {
        Behaviour::Unauthorized => return Some(challenge(shared, true)),
        Behaviour::UnauthorizedBare => return Some(challenge(shared, false)),
        Behaviour::Html502 => {
            return Some(plain(
                StatusCode::BAD_GATEWAY,
                "text/html; charset=utf-8",
                "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n\
                 <body><h1>502 Bad Gateway</h1><p>The upstream did not answer.</p></body></html>\n",
            ));
        }
        Behaviour::Error500 => {
            return Some(plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                "application/json",
                "{\"error\":\"internal error\"}",
            ));
        }
        Behaviour::Garbage => {
            return Some(plain(
                StatusCode::OK,
                "application/json",
                "this is not json {]",
            ));
        }
        Behaviour::Hang => {
            std::future::pending::<()>().await;
        }
        Behaviour::Slow(delay) => tokio::time::sleep(*delay).await,
        Behaviour::Held | Behaviour::HeldRawCallResult(_) => {
            let mut released = shared.released.subscribe();
            // The sender lives in `shared`, so waiting can only end by release.
            let _ = released.wait_for(|released| *released).await;
        }
        Behaviour::RedirectTo(location) => {
            return Some(redirect(StatusCode::TEMPORARY_REDIRECT, location));
        }
        Behaviour::RedirectLoop => {
            return Some(redirect(StatusCode::PERMANENT_REDIRECT, DOOR_PATH));
        }
        _ => {}
    }
    None
}

/// A JSON-RPC request, as the door routes it.
struct Message {
    id: Value,
    method: String,
    params: Value,
}

/// The JSON-RPC request in `body`, its headers checked against it; or
/// (`Break`) the answer instead: `400` with -32700 for a body that is not
/// JSON, `202` for a notification, `400` with -32020 for a header mismatch.
fn read_message(headers: &HeaderMap, body: &[u8]) -> ControlFlow<Response, Message> {
    let Some(message) = parse_lenient(body) else {
        let error = rpc_error(Value::Null, -32700, "Parse error", None);
        return ControlFlow::Break(json_response(StatusCode::BAD_REQUEST, &error));
    };
    let id = message.get("id").cloned();
    let method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let Some(id) = id else {
        // A notification: accepted, nothing to answer.
        return ControlFlow::Break(plain(StatusCode::ACCEPTED, "text/plain", ""));
    };
    if let Some(mismatch) = header_mismatch(headers, &method, &params) {
        let error = rpc_error(id, -32020, &mismatch, None);
        return ControlFlow::Break(json_response(StatusCode::BAD_REQUEST, &error));
    }
    ControlFlow::Continue(Message { id, method, params })
}

/// The answer to a request: its JSON-RPC response, sent as JSON, or as an
/// event stream in [`Behaviour::Sse`]; a `tools/call` may be answered
/// otherwise (see [`call_response`]).
fn answer(
    shared: &Shared,
    behaviour: &Behaviour,
    headers: &HeaderMap,
    message: &Message,
) -> Response {
    let Message { id, method, params } = message;
    let answer = match method.as_str() {
        mcp_proto::methods::ListTools::NAME => {
            let n = shared.lists_answered.fetch_add(1, Ordering::SeqCst) + 1;
            let ttl = *lock(&shared.ttl_ms);
            rpc_result(id.clone(), list_result(behaviour, params, n, ttl))
        }
        mcp_proto::methods::CallTool::NAME => {
            match call_response(shared, behaviour, headers, message) {
                ControlFlow::Continue(answer) => answer,
                ControlFlow::Break(response) => return response,
            }
        }
        mcp_proto::methods::ServerDiscover::NAME => rpc_result(id.clone(), discover_result()),
        other => rpc_error(
            id.clone(),
            -32601,
            &format!("Method not found: {other}"),
            None,
        ),
    };
    if *behaviour == Behaviour::Sse {
        let pretty = serde_json::to_string_pretty(&answer).unwrap_or_default();
        return sse_answer(method, params, &pretty);
    }
    json_response(StatusCode::OK, &answer)
}

/// The JSON-RPC response to a `tools/call`, or (`Break`) the answer sent
/// instead: the 401 challenge without `Authorization`, the raw result of
/// [`Behaviour::RawCallResult`] and its kin, as JSON or an event stream.
fn call_response(
    shared: &Shared,
    behaviour: &Behaviour,
    headers: &HeaderMap,
    message: &Message,
) -> ControlFlow<Response, Value> {
    let Message { id, method, params } = message;
    if headers.get(header::AUTHORIZATION).is_none() {
        return ControlFlow::Break(challenge(shared, true));
    }
    match behaviour {
        Behaviour::CallResult(result) => {
            ControlFlow::Continue(rpc_result(id.clone(), result.clone()))
        }
        Behaviour::RawCallResult(result) | Behaviour::HeldRawCallResult(result) => {
            ControlFlow::Break(plain(
                StatusCode::OK,
                "application/json",
                &raw_response(id, result),
            ))
        }
        Behaviour::RawCallResultSse(result) => {
            ControlFlow::Break(sse_answer(method, params, &raw_response(id, result)))
        }
        _ => ControlFlow::Continue(call_answer(id.clone(), params)),
    }
}

/// Checks the 2026-07-28 HTTP headers against the body.
fn header_mismatch(headers: &HeaderMap, rpc_method: &str, params: &Value) -> Option<String> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let body_version = params
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str);
    match (get("mcp-protocol-version"), body_version) {
        (None, _) => return Some("Header mismatch: MCP-Protocol-Version is missing".into()),
        (Some(h), Some(b)) if h != b => {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version header value '{h}' does not match body value '{b}'"
            ));
        }
        _ => {}
    }
    match get("mcp-method") {
        Some(m) if m == rpc_method => {}
        Some(m) => {
            return Some(format!(
                "Header mismatch: Mcp-Method header value '{m}' does not match body value '{rpc_method}'"
            ));
        }
        None => return Some("Header mismatch: Mcp-Method is missing".into()),
    }
    if rpc_method == mcp_proto::methods::CallTool::NAME {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        match get("mcp-name") {
            Some(h) if h == name => {}
            Some(h) => {
                return Some(format!(
                    "Header mismatch: Mcp-Name header value '{h}' does not match body value '{name}'"
                ));
            }
            None => return Some("Header mismatch: Mcp-Name is missing".into()),
        }
    }
    None
}
