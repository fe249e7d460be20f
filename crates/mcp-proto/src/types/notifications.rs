use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::decode::{
    DecodeError, FromValue, serialize_number, serialize_opt_number, wire_deserialize, wire_struct,
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

wire_struct! {
    /// Params of `notifications/progress` (MCP 2025-11-25 basic/utilities/progress;
    /// `message` since 2025-03-26).
    pub struct ProgressNotificationParams {
        /// The token from the request's `_meta.progressToken`.
        pub progress_token: ProgressToken as "progressToken",
        /// Progress so far; grows with each notification (unit chosen by the sender).
        #[serde(serialize_with = "serialize_number")]
        pub progress: f64 as "progress",
        /// The total, when known, in the same unit.
        #[serde(serialize_with = "serialize_opt_number")]
        pub total: Option<f64> as "total",
        /// A human-readable status line.
        pub message: Option<String> as "message",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// Params of `notifications/cancelled` (MCP 2025-11-25
    /// basic/utilities/cancellation). `requestId` is required in 2026-07-28 and
    /// optional in 2025-11-25 (where a task may be cancelled instead).
    #[derive(Default)]
    pub struct CancelledNotificationParams {
        /// The id of the request to cancel.
        pub request_id: Option<RequestId> as "requestId",
        /// Why, for logs.
        pub reason: Option<String> as "reason",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}
