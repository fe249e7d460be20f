//! JSON-RPC error objects and the error codes MCP uses (JSON-RPC 2.0 §5.1,
//! MCP 2025-11-25 basic, MCP 2026-07-28 basic).

use serde::Serialize;
use serde_json::{Value, json};

use crate::decode::{DecodeError, FromValue, JsonObject, take_required};
use crate::revision::Revision;

/// Named JSON-RPC error codes (JSON-RPC 2.0 §5.1 and the MCP revisions).
pub mod error_code {
    /// Invalid JSON was received: not UTF-8 or not JSON (JSON-RPC 2.0 §5.1).
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON is not a valid request object (JSON-RPC 2.0 §5.1).
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available (JSON-RPC 2.0 §5.1).
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters, such as an unknown tool (JSON-RPC 2.0 §5.1, MCP tools).
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error (JSON-RPC 2.0 §5.1).
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A request the server sent to the client got no answer in time. MCP
    /// names no code for it; this is the one the official TypeScript SDK
    /// uses (`RequestTimeout`), inside the JSON-RPC server-error range.
    pub const REQUEST_TIMEOUT: i64 = -32001;
    /// A resource was not found (MCP 2025-11-25 server/resources).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// An HTTP header disagrees with the message body (MCP 2026-07-28 transports).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability the client did not declare (MCP 2026-07-28 basic).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The requested protocol revision is not supported; data is
    /// `{supported, requested}` (MCP 2026-07-28 basic/versioning).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// The request needs the user to visit a URL first (MCP 2025-11-25 client/elicitation).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
}

/// The most bytes of a caller's name (a tool, a field) an error quotes
/// ([`excerpt`]): twice the MCP limit on a tool name.
pub const MAX_QUOTED_BYTES: usize = 256;

/// `text` as an error message may quote it: whole when it is at most
/// `max_bytes`, else its first bytes up to a character boundary, `…` and
/// the whole length, so a megabyte tool name or field name does not come
/// back (twice) in the error.
///
/// ```
/// use mcp_proto::error::{MAX_QUOTED_BYTES, excerpt};
///
/// assert_eq!(excerpt("fs", MAX_QUOTED_BYTES), "fs");
/// let long = "é".repeat(1000);
/// let cut = excerpt(&long, MAX_QUOTED_BYTES);
/// assert!(cut.len() < 300 && cut.ends_with("… (2000 bytes)"), "{cut}");
/// ```
pub fn excerpt(text: &str, max_bytes: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max_bytes {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = max_bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..end], text.len()))
}

/// The `error` member of a JSON-RPC error response: `{code, message, data?}`
/// (JSON-RPC 2.0 §5.1).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ErrorObject {
    /// The error code; see [`error_code`].
    pub code: i64,
    /// A short description of the error, one sentence.
    pub message: String,
    /// Additional information; its shape depends on `code`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    /// An error object with `code` and `message` and no data.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Adds `data` to the error.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the bytes are not UTF-8 or not JSON.
    pub fn parse_error(message: impl Into<String>) -> Self {
        Self::new(error_code::PARSE_ERROR, message)
    }

    /// -32600: the JSON is not a valid JSON-RPC message.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(error_code::INVALID_REQUEST, message)
    }

    /// -32601 with the message `method not found: <method>`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            error_code::METHOD_NOT_FOUND,
            format!("method not found: {method}"),
        )
    }

    /// -32602: the params do not fit the method (or name an unknown tool).
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(error_code::INVALID_PARAMS, message)
    }

    /// -32603: the server failed while handling a valid request.
    pub fn internal_error(message: impl Into<String>) -> Self {
        Self::new(error_code::INTERNAL_ERROR, message)
    }

    /// -32022 with data `{"supported": [...], "requested": "<requested>"}`
    /// (MCP 2026-07-28 basic/versioning). `supported` is listed in the order
    /// given (newest first by convention).
    pub fn unsupported_protocol_version(requested: &str, supported: &[Revision]) -> Self {
        let list: Vec<&str> = supported.iter().map(|r| r.as_str()).collect();
        Self::new(
            error_code::UNSUPPORTED_PROTOCOL_VERSION,
            format!(
                "Unsupported protocol version {requested:?}; supported: {}",
                list.join(", ")
            ),
        )
        .with_data(json!({ "supported": list, "requested": requested }))
    }
}

impl std::fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for ErrorObject {}

impl FromValue for ErrorObject {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        let mut map = JsonObject::from_value(value)?;
        let code = take_required(&mut map, "code")?;
        let message = take_required(&mut map, "message")?;
        // `data` may legitimately be `null`; keep it as given.
        let data = map.remove("data");
        Ok(Self {
            code,
            message,
            data,
        })
    }
}

crate::decode::wire_deserialize!(ErrorObject);
