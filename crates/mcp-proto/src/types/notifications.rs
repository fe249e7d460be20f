use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::decode::{
    DecodeError, FromValue, JsonObject, serialize_number, serialize_opt_number, wire_deserialize,
    wire_struct_decode,
};
use crate::id::RequestId;
use crate::types::Meta;

/// A progress token: a string or an integer, chosen by the requester and
/// sent in `_meta.progressToken` (MCP 2025-11-25 basic/utilities/progress).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum ProgressToken {
    /// An integer token.
    Number(i64),
    /// A string token.
    String(String),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl FromValue for ProgressToken {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(ref n) if n.as_i64().is_some() => {
                Ok(Self::Number(n.as_i64().unwrap_or_default()))
            }
            other => Err(DecodeError::invalid("a string or an integer", &other)),
        }
    }
}

wire_deserialize!(ProgressToken);

/// Params of `notifications/progress` (MCP 2025-11-25 basic/utilities/progress;
/// `message` since 2025-03-26).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProgressNotificationParams {
    /// The token from the request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; grows with each notification (unit chosen by the sender).
    #[serde(serialize_with = "serialize_number")]
    pub progress: f64,
    /// The total, when known, in the same unit.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_opt_number"
    )]
    pub total: Option<f64>,
    /// A human-readable status line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ProgressNotificationParams {
    progress_token: "progressToken" required,
    progress: "progress" required,
    total: "total" optional,
    message: "message" optional,
    meta: "_meta" optional,
});

/// Params of `notifications/cancelled` (MCP 2025-11-25
/// basic/utilities/cancellation). `requestId` is required in 2026-07-28 and
/// optional in 2025-11-25 (where a task may be cancelled instead).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CancelledNotificationParams {
    /// The id of the request to cancel.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why, for logs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CancelledNotificationParams {
    request_id: "requestId" optional,
    reason: "reason" optional,
    meta: "_meta" optional,
});
