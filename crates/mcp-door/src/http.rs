//! The door over HTTP (axum): `POST /v1/mcp`, the `/mcp` redirect, the 401
//! challenge and the protected-resource metadata (HIP-0300 §1.1, §1.6,
//! §1.7; RFC 9728).

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::routing::{any, get, post};
use mcp_proto::methods::{Initialize, Method};
use mcp_proto::{
    ErrorObject, Message, Response, ResponsePayload, Revision, error_code, parse_message,
};
use serde_json::{Value, json};

use crate::credentials::Credentials;
use crate::door::{Answer, Answered, Door};
use crate::envelope::Plain;
use mcp_streamable_http::checks as transport;
use mcp_streamable_http::{ListenLimits, read_body, serve_app};

pub use mcp_proto::DOOR_PATH;
/// The framework-default path that answers 308 to [`DOOR_PATH`].
pub const LEGACY_PATH: &str = "/mcp";
/// The protected-resource metadata path (RFC 9728 §3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// An axum router serving `door`:
///
/// - `POST /v1/mcp`: one JSON-RPC message per request, answered with
///   `application/json` (or one SSE event when `Accept` admits only
///   `text/event-stream`; notifications and responses get 202), after the
///   [`transport`](mcp_streamable_http::checks) checks: a foreign `Origin` 403, a
///   `Content-Type` other than JSON 415, an `Accept` admitting neither
///   406, an `MCP-Protocol-Version` unknown (-32022) or disagreeing with
///   the body (-32020) 400, each a JSON-RPC error with the request's id
///   when it could be read; `GET`/`DELETE` get 405.
/// - any method on `/mcp`: 308 to `/v1/mcp`.
/// - `GET /.well-known/oauth-protected-resource` and
///   `GET /.well-known/oauth-protected-resource/v1/mcp`: RFC 9728 metadata
///   naming the configured issuer.
/// - `GET /healthz`, `/readyz`, `/metrics`, `/openapi.json`,
///   `/openapi.yaml`: [`crate::ops_router`].
///
/// Mount it in a larger router with `Router::merge`.
pub fn router(door: Arc<Door>) -> Router {
    let limit = door.config().max_request_bytes;
    let guarded = door.config().loopback_hosts_only;
    let router = Router::new()
        .route(DOOR_PATH, post(mcp).get(not_allowed).delete(not_allowed))
        .route(LEGACY_PATH, any(legacy))
        .route(METADATA_PATH, get(metadata_origin))
        .route(&format!("{METADATA_PATH}{DOOR_PATH}"), get(metadata_door))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(Arc::clone(&door))
        .merge(crate::ops::ops_router(Arc::clone(&door)));
    if guarded {
        router.layer(axum::middleware::from_fn_with_state(door, host_guard))
    } else {
        router
    }
}

/// [`DoorConfig::loopback_hosts_only`](crate::DoorConfig): a request
/// whose `Host` names neither this machine nor a configured origin gets
/// 403 and a JSON-RPC error, before any route sees it.
async fn host_guard(
    State(door): State<Arc<Door>>,
    request: Request,
    next: axum::middleware::Next,
) -> HttpResponse {
    let config = door.config();
    let known: Vec<String> = config
        .origin
        .iter()
        .chain(&config.allowed_origins)
        .cloned()
        .collect();
    if transport::host_ok(request.headers(), &known) {
        return next.run(request).await;
    }
    json_response(
        StatusCode::FORBIDDEN,
        &Response::error(
            None,
            ErrorObject::invalid_request(
                "Host not allowed: this door serves only requests addressed to this machine \
                 (localhost, 127.0.0.1, [::1]) or to its configured origins",
            ),
        ),
    )
}

/// Serves `door` on `listener` for as long as the task runs, within
/// [`ListenLimits::default`]: a client has 10 s to send a request's headers,
/// and at most 512 connections are served at once ([`serve_app`] with
/// [`router`] takes other limits and a shutdown signal).
pub async fn serve(listener: tokio::net::TcpListener, door: Arc<Door>) {
    serve_app(
        listener,
        router(door),
        ListenLimits::default(),
        std::future::pending(),
    )
    .await;
}

fn json_response(status: StatusCode, body: &impl serde::Serialize) -> HttpResponse {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "null".into());
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        text,
    )
        .into_response()
}

async fn mcp(State(door): State<Arc<Door>>, mut request: Request) -> HttpResponse {
    // The headers taken, not copied: reading the body needs none of them.
    let headers = std::mem::take(request.headers_mut());
    let config = door.config();
    let read = read_body(request, config.body_read_timeout, config.max_request_bytes).await;
    let body = match read {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    // Read before the checks so that every refusal carries the id; a
    // plain request in one pass (with a plain `tools/call`'s params: the
    // call then carries them), anything else as `parse_message` reads it.
    let (parsed, call) = match crate::envelope::plain_request(&body) {
        Some(Plain::Request(request)) => (Ok(Message::Request(request)), None),
        Some(Plain::Call { request, call }) => (Ok(Message::Request(request)), Some(call)),
        None => (parse_message(&body), None),
    };
    let id = match &parsed {
        Ok(Message::Request(r)) => Some(r.id.clone()),
        Ok(_) => None,
        Err(e) => e.id.clone(),
    };
    let accepts = transport::accepts(&headers);
    if let Err((status, error)) = browser_checks(&door, &headers, accepts) {
        return json_response(status, &Response::error(id, error));
    }
    let request = match parsed {
        Ok(Message::Request(r)) => r,
        Ok(_) => return StatusCode::ACCEPTED.into_response(),
        Err(e) => {
            return json_response(StatusCode::BAD_REQUEST, &Response::error(e.id, e.error));
        }
    };
    // A plain `tools/call`'s params read once (with the envelope, or
    // here): its `_meta` revision for the checks below, and the rest for
    // the door's answer.
    let scanned = call.or_else(|| crate::door::scan_call(&request));
    let body_revision = match &scanned {
        Some(call) => call.revision.clone().map(std::borrow::Cow::Owned),
        None => request.meta_protocol_version(),
    };
    let revision = match protocol_revision(&headers, &request.method, body_revision.as_deref()) {
        Ok(revision) => revision,
        Err(error) => {
            return json_response(StatusCode::BAD_REQUEST, &Response::error(id, error));
        }
    };
    // The origin was checked above, so a cookie here is a credential.
    let credentials = Credentials::from_headers(&headers);
    let header_revision = revision.map(Revision::as_str);
    let answered = door
        .answer_scanned(&request, scanned, &credentials, header_revision)
        .await;
    let answered = match answered {
        Answered::Called(id, result) => match Answered::write(&id, &result) {
            // A call's result (200, as any result), written straight from it.
            Some(text) => return answer_response(StatusCode::OK, accepts.json, text),
            None => Answered::Called(id, result).into_answer(),
        },
        Answered::Answer(answer) => answer,
    };
    let (status, response) = match answered {
        Answer::Response(r) => {
            let stateless = revision
                .or_else(|| body_revision.as_deref().and_then(Revision::parse))
                .is_some_and(Revision::is_stateless);
            let unknown_method = matches!(&r.payload,
                ResponsePayload::Error(e) if e.code == error_code::METHOD_NOT_FOUND);
            // MCP 2026-07-28 basic/transports: an unknown method is 404.
            let status = if stateless && unknown_method {
                StatusCode::NOT_FOUND
            } else {
                StatusCode::OK
            };
            (status, r)
        }
        Answer::Challenge(r) => (StatusCode::UNAUTHORIZED, r),
    };
    let text = serde_json::to_string(&response).unwrap_or_else(|_| "null".into());
    let mut answer = answer_response(status, accepts.json, text);
    if status == StatusCode::UNAUTHORIZED {
        let origin = origin(&door, &headers);
        let challenge = format!("Bearer resource_metadata=\"{origin}{METADATA_PATH}\"");
        if let Ok(v) = HeaderValue::from_str(&challenge) {
            answer.headers_mut().insert(header::WWW_AUTHENTICATE, v);
        }
    }
    answer
}

/// The checks that keep a browser from calling on a visitor's behalf
/// ([`transport`]): the `Origin` (403), the `Content-Type` (415) and the
/// `Accept` (406), each refusal a -32600 error.
fn browser_checks(
    door: &Door,
    headers: &HeaderMap,
    accepts: transport::Accepts,
) -> Result<(), (StatusCode, ErrorObject)> {
    // Without an `Origin` there is none to compare (`origin_ok` passes it):
    // the door's own origin is worked out only for one that came.
    if headers.contains_key(header::ORIGIN) {
        origin_allowed(door, headers)?;
    }
    if !transport::json_content_type(headers) {
        return Err((
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorObject::invalid_request("Content-Type must be application/json"),
        ));
    }
    if !accepts.json && !accepts.sse {
        return Err((
            StatusCode::NOT_ACCEPTABLE,
            ErrorObject::invalid_request("Accept must admit application/json or text/event-stream"),
        ));
    }
    Ok(())
}

/// The `Origin` check of [`browser_checks`] (403): the door's own origin
/// or one of the configured ones.
fn origin_allowed(door: &Door, headers: &HeaderMap) -> Result<(), (StatusCode, ErrorObject)> {
    let own = origin(door, headers);
    let mut accepted: Vec<&str> = vec![own.as_str()];
    accepted.extend(door.config().allowed_origins.iter().map(String::as_str));
    if !transport::origin_ok(headers, &accepted, false) {
        let given = transport::header(headers, "origin").unwrap_or("");
        return Err((
            StatusCode::FORBIDDEN,
            ErrorObject::invalid_request(format!(
                "Origin {given:?} is not allowed: only {own} and the configured origins may call \
                 this door from a browser"
            )),
        ));
    }
    Ok(())
}

/// The revision `MCP-Protocol-Version` names, checked against `body`, the
/// one the request's `_meta` names (MCP 2026-07-28 basic/transports, protocol version header):
/// -32022 for a revision the door does not know, -32020 when the header
/// and the body disagree or a body naming a stateless revision comes
/// without the header. `Ok(None)` when neither names one (a 2025-era
/// client before or without the handshake), and for an unknown header on
/// `initialize`, which negotiates the revision itself.
fn protocol_revision(
    headers: &HeaderMap,
    method: &str,
    body: Option<&str>,
) -> Result<Option<Revision>, ErrorObject> {
    /// The header, its name made once.
    const PROTOCOL_VERSION: HeaderName = HeaderName::from_static(transport::PROTOCOL_VERSION);
    let Some(value) = headers.get(&PROTOCOL_VERSION) else {
        return match body.and_then(Revision::parse) {
            Some(r) if r.is_stateless() => Err(transport::mismatch(format!(
                "MCP-Protocol-Version is missing; params._meta names {:?}",
                r.as_str()
            ))),
            _ => Ok(None),
        };
    };
    let requested = value.to_str().unwrap_or("").trim();
    let Some(revision) = Revision::parse(requested) else {
        if method == Initialize::METHOD {
            return Ok(None);
        }
        return Err(ErrorObject::unsupported_protocol_version(
            requested,
            &Revision::ALL,
        ));
    };
    match body {
        Some(body) if body != requested => Err(transport::mismatch(format!(
            "MCP-Protocol-Version is {requested:?} but params._meta names {body:?}"
        ))),
        _ => Ok(Some(revision)),
    }
}

/// `text`, a JSON-RPC response, as `application/json` when `json`, else
/// as an SSE stream of one `message` event (MCP 2026-07-28
/// basic/transports), for a client whose `Accept` admits only that.
fn answer_response(status: StatusCode, json: bool, text: String) -> HttpResponse {
    if json {
        return (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            text,
        )
            .into_response();
    }
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        )],
        format!("event: message\ndata: {text}\n\n"),
    )
        .into_response()
}

async fn not_allowed() -> HttpResponse {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
    )
        .into_response()
}

async fn legacy() -> HttpResponse {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, HeaderValue::from_static(DOOR_PATH))],
    )
        .into_response()
}

async fn metadata_origin(State(door): State<Arc<Door>>, headers: HeaderMap) -> HttpResponse {
    metadata(&door, &headers, "")
}

async fn metadata_door(State(door): State<Arc<Door>>, headers: HeaderMap) -> HttpResponse {
    metadata(&door, &headers, DOOR_PATH)
}

/// RFC 9728 §2 metadata: the resource is the origin the client reached (or
/// the door's URL for the suffixed form), its authorization server the
/// configured issuer.
fn metadata(door: &Door, headers: &HeaderMap, suffix: &str) -> HttpResponse {
    let mut body = json!({
        "resource": format!("{}{suffix}", origin(door, headers)),
        "bearer_methods_supported": ["header"],
        "resource_name": "MCP door",
    });
    if let Some(issuer) = &door.config().issuer {
        body["authorization_servers"] = Value::Array(vec![Value::String(issuer.clone())]);
    }
    json_response(StatusCode::OK, &body)
}

/// The origin the client reached: the configured one, else `Host` with
/// `X-Forwarded-Proto` (`http` unless it says `https`). A `Host` with
/// characters outside a host name and port is replaced by `localhost`.
fn origin(door: &Door, headers: &HeaderMap) -> String {
    if let Some(o) = &door.config().origin {
        return o.trim_end_matches('/').to_owned();
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
        })
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}")
}
