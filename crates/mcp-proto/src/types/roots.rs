use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::Meta;

/// A root the client exposes, a `file://` URI (MCP 2025-11-25 client/roots).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct Root {
    /// The root's URI, such as `file:///home/user/project`.
    pub uri: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Root {
    uri: "uri" required,
    name: "name" optional,
    meta: "_meta" optional,
});

/// The result of `roots/list` (MCP 2025-11-25 client/roots).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsResult {
    /// The client's roots.
    pub roots: Vec<Root>,
    /// `"complete"` (2026-07-28; absent means complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ListRootsResult {
    roots: "roots" required,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});
