//! The answer to one POST: `application/json` when the response comes
//! first, else a `text/event-stream` of the messages sent while handling
//! it and then its response (MCP 2025-11-25 basic/transports).

use std::convert::Infallible;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use futures_util::stream::{self, Stream};
use mcp_proto::{ErrorObject, error_code};

use super::routing::{Replies, Reply};
use super::rpc_error;
use crate::outbox::{Kind, Outgoing};

/// `bytes` (one JSON-RPC message) as an `application/json` answer.
pub(super) fn json_body(status: StatusCode, bytes: Vec<u8>) -> Response {
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

/// The HTTP status a 2026-07-28 response travels with (MCP 2026-07-28
/// basic/transports, request metadata), by its error code.
pub(super) fn stateless_status(error: Option<i64>) -> StatusCode {
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
pub(super) async fn answer<R: Replies, K: Send + Sync + 'static>(
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
                    (Kind::Response { error, .. }, true) => stateless_status(*error),
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
pub(super) fn sse_response<R: Replies, K: Send + Sync + 'static>(
    first: Option<Outgoing>,
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

pub(super) fn sse_stream<S>(events: S) -> Response
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
