//! The JSON-RPC request id (JSON-RPC 2.0 §4, MCP 2025-11-25 basic).

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::decode::{DecodeError, FromValue};

/// A request id: a string or an integer (MCP 2025-11-25 basic: "the ID MUST
/// NOT be null"). Floats, `null`, arrays and objects are refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id (JSON-RPC allows any integer; we keep the `i64` range).
    Number(i64),
    /// A string id.
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Number(n) => write!(f, "{n}"),
            Self::String(s) => write!(f, "{s:?}"),
        }
    }
}

from_variants!(RequestId { Number(i64), String(String) });

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}

impl FromValue for RequestId {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::String(s) => Ok(Self::String(s)),
            Value::Number(ref n) => match n.as_i64() {
                Some(i) => Ok(Self::Number(i)),
                None => Err(DecodeError::invalid("a string or an integer", &value)),
            },
            other => Err(DecodeError::invalid("a string or an integer", &other)),
        }
    }
}

crate::decode::wire_deserialize!(RequestId);
