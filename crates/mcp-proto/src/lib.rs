//! The Model Context Protocol on the wire, for every revision from
//! 2024-11-05 to 2026-07-28: the JSON-RPC 2.0 envelope, the MCP types,
//! typed methods, revision negotiation and the tool-name rule.
//!
//! This crate is pure data: no I/O runtime, no HTTP. Every type keeps the
//! members it does not know and writes them back, so a message that passes
//! through comes out equal to what came in; and every error names the member
//! at fault instead of saying "data did not match any variant".
//!
//! # Example: read a message and answer it
//!
//! ```
//! use mcp_proto::methods::{CallTool, Method};
//! use mcp_proto::{parse_message, CallToolRequestParams, CallToolResult, Message, Response};
//!
//! let line = br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#;
//! let Message::Request(req) = parse_message(line).unwrap() else { panic!("a request") };
//! assert_eq!(req.method, CallTool::METHOD);
//!
//! let params: CallToolRequestParams = req.parse_params().unwrap();
//! let text = params.arguments.as_ref().and_then(|a| a["text"].as_str()).unwrap_or_default();
//! let result = CallToolResult::text(text);
//!
//! let answer = Response::success(req.id, serde_json::to_value(&result).unwrap());
//! assert_eq!(
//!     serde_json::to_value(&answer).unwrap(),
//!     serde_json::json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}})
//! );
//! ```
//!
//! # Example: errors that name the member at fault
//!
//! ```
//! use mcp_proto::{parse_message, error_code};
//!
//! let err = parse_message(br#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#).unwrap_err();
//! assert_eq!(err.error.code, error_code::INVALID_REQUEST);
//! assert_eq!(err.error.message, r#"jsonrpc must be "2.0", found "1.0""#);
//! assert_eq!(err.id, Some(1.into()));
//!
//! let err = parse_message(b"[]").unwrap_err();
//! assert_eq!(err.error.message, "batches are not supported since 2025-06-18");
//! ```
//!
//! # Example: revisions
//!
//! ```
//! use mcp_proto::{ErrorObject, Revision};
//!
//! // `initialize` asks for a revision; the server echoes it or offers its newest legacy one.
//! assert_eq!(Revision::negotiate("2025-06-18"), Revision::V2025_06_18);
//! // A stateless request for an unknown revision gets -32022 with {supported, requested}.
//! let err = ErrorObject::unsupported_protocol_version("1900-01-01", &[Revision::V2026_07_28]);
//! assert_eq!(err.code, -32022);
//! assert_eq!(err.data.unwrap()["requested"], "1900-01-01");
//! ```
//!
//! # Modules
//!
//! - [`message`]: the envelope and [`parse_message`].
//! - [`types`]: the MCP types (re-exported at the root).
//! - [`methods`]: one type per method with its params and result.
//! - [`revision`]: [`Revision`] and negotiation.
//! - [`meta`]: reserved `_meta` keys.
//! - [`param_header`]: tool parameters mirrored into HTTP headers
//!   (`x-mcp-header`, 2026-07-28).
//! - [`framing`]: newline-delimited reader and writer for stdio.
//! - [`sse`]: incremental `text/event-stream` parser.
//! - [`schema`]: JSON Schema of the types, through schemars.
//! - [`decode`]: [`FromValue`], decoding with member paths in errors.
//! - [`error`]: [`ErrorObject`] and the named error codes; [`all_errors`]:
//!   [`Error`], every error of this crate in one type.
//!
//! # Cargo features
//!
//! - `tokio` (off by default): `framing::AsyncFrameReader` and
//!   `framing::AsyncFrameWriter` over tokio's `AsyncBufRead` / `AsyncWrite`.
#![deny(missing_docs)]

/// `From<T>` for an enum, one impl for each listed variant that holds a `T`.
macro_rules! from_variants {
    ($enum:ident { $($variant:ident($ty:ty)),* $(,)? }) => {$(
        impl From<$ty> for $enum {
            fn from(value: $ty) -> Self {
                Self::$variant(value)
            }
        }
    )*};
}

pub mod all_errors;
pub mod decode;
pub mod error;
pub mod framing;
mod id;
pub mod message;
pub mod meta;
pub mod methods;
pub mod param_header;
pub mod recover;
pub mod revision;
pub mod router;
pub mod schema;
pub mod sse;
pub mod tool_name;
pub mod types;

/// The path of a HIP-0300 door on its API host (HIP-0300 §1.1): the
/// streamable HTTP endpoint that takes every `POST` of the protocol.
pub const DOOR_PATH: &str = "/v1/mcp";

pub use all_errors::Error;
pub use decode::{DecodeError, DecodeErrorKind, FromValue, JsonObject};
pub use error::{ErrorObject, error_code};
pub use message::{
    Message, MessageError, Notification, Request, RequestId, Response, ResponsePayload,
    message_from_value, parse_message,
};
pub use revision::Revision;
pub use tool_name::{MAX_TOOL_NAME_LEN, ToolNameError, validate_tool_name};
pub use types::*;
