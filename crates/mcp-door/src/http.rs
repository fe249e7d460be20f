//! The door over HTTP (axum): `POST /v1/mcp`, the `/mcp` redirect, the 401
//! challenge and the protected-resource metadata (HIP-0300 §1.1, §1.6,
//! §1.7; RFC 9728).

use std::sync::Arc;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use axum::routing::{any, get, post};
use mcp_proto::{Message, Response, parse_message};
use serde_json::{Value, json};

use crate::credentials::Credentials;
use crate::door::{Answer, Door};
use crate::listen::{ListenLimits, read_body, serve_app};

/// The door's path (HIP-0300 §1.1).
pub const DOOR_PATH: &str = "/v1/mcp";
/// The framework-default path that answers 308 to [`DOOR_PATH`].
pub const LEGACY_PATH: &str = "/mcp";
/// The protected-resource metadata path (RFC 9728 §3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// An axum router serving `door`:
///
/// - `POST /v1/mcp`: one JSON-RPC message per request, answered with
///   `application/json` (notifications and responses get 202);
///   `GET`/`DELETE` get 405.
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
    Router::new()
        .route(DOOR_PATH, post(mcp).get(not_allowed).delete(not_allowed))
        .route(LEGACY_PATH, any(legacy))
        .route(METADATA_PATH, get(metadata_origin))
        .route(&format!("{METADATA_PATH}{DOOR_PATH}"), get(metadata_door))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(Arc::clone(&door))
        .merge(crate::ops::ops_router(door))
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

async fn mcp(State(door): State<Arc<Door>>, request: Request) -> HttpResponse {
    let headers = request.headers().clone();
    let config = door.config();
    let read = read_body(request, config.body_read_timeout, config.max_request_bytes).await;
    let body = match read {
        Ok(body) => body,
        Err(answer) => return answer,
    };
    let request = match parse_message(&body) {
        Ok(Message::Request(r)) => r,
        Ok(_) => return StatusCode::ACCEPTED.into_response(),
        Err(e) => {
            return json_response(StatusCode::BAD_REQUEST, &Response::error(e.id, e.error));
        }
    };
    let credentials = Credentials::from_headers(&headers);
    let revision = headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok());
    match door.answer(&request, &credentials, revision).await {
        Answer::Response(r) => json_response(StatusCode::OK, &r),
        Answer::Challenge(r) => {
            let origin = origin(&door, &headers);
            let challenge = format!("Bearer resource_metadata=\"{origin}{METADATA_PATH}\"");
            let mut response = json_response(StatusCode::UNAUTHORIZED, &r);
            if let Ok(v) = HeaderValue::from_str(&challenge) {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, v);
            }
            response
        }
    }
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
