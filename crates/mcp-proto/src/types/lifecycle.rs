use serde::Serialize;
use serde_json::Value;

use crate::decode::{DecodeError, FromValue, JsonObject, wire_deserialize, wire_struct_decode};
use crate::types::{ClientCapabilities, Implementation, Meta, ServerCapabilities};

/// Who may share a cached result (MCP 2026-07-28 `CacheableResult.cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any cache may share it.
    Public,
    /// Only within the same authorization context.
    Private,
}

impl FromValue for CacheScope {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value.as_str() {
            Some("public") => Ok(Self::Public),
            Some("private") => Ok(Self::Private),
            _ => Err(DecodeError::invalid(r#""public" or "private""#, &value)),
        }
    }
}

wire_deserialize!(CacheScope);

/// Params of a request that has only `_meta`, such as `ping`,
/// `server/discover` and `roots/list` (MCP 2025-11-25 `RequestParams`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct RequestParams {
    /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(RequestParams {
    meta: "_meta" optional,
});

/// Params of a notification that has only `_meta`, such as
/// `notifications/initialized` (MCP 2025-11-25 `NotificationParams`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct NotificationParams {
    /// Notification metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(NotificationParams {
    meta: "_meta" optional,
});

/// Params of a paginated list request such as `tools/list` (MCP 2025-11-25
/// `PaginatedRequestParams`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct PaginatedRequestParams {
    /// The `nextCursor` of the previous page; absent for the first page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(PaginatedRequestParams {
    cursor: "cursor" optional,
    meta: "_meta" optional,
});

/// The members every list result has after its items (MCP 2026-07-28
/// `PaginatedResult` and `CacheableResult`, which `ListToolsResult`,
/// `ListResourcesResult`, `ListResourceTemplatesResult` and
/// `ListPromptsResult` extend; up to 2025-11-25 `PaginatedResult` is
/// `nextCursor` and `_meta` only).
///
/// Each list result embeds it as `page`, flattened: its members stand on
/// the wire beside the items, as in
/// `{"tools": [..], "nextCursor": "2", "ttlMs": 300000, "cacheScope": "public", "resultType": "complete"}`.
/// 2026-07-28 requires `ttlMs`, `cacheScope` and `resultType`; they are
/// optional here so a reply of an older revision can still be read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PaginatedResult {
    /// Opaque cursor for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// How long the list may be cached, in milliseconds (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may share the cached list (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
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

wire_struct_decode!(PaginatedResult {
    next_cursor: "nextCursor" optional,
    ttl_ms: "ttlMs" optional,
    cache_scope: "cacheScope" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

impl PaginatedResult {
    /// A page with `nextCursor` only: `Some` for every page but the last.
    pub fn with_next_cursor(next_cursor: Option<String>) -> Self {
        Self {
            next_cursor,
            ..Self::default()
        }
    }
}

/// A result with no members of its own, as for `ping` and
/// `logging/setLevel` (MCP 2025-11-25 `EmptyResult`; `resultType` in
/// 2026-07-28).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
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

wire_struct_decode!(EmptyResult {
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// Params of `initialize` (MCP 2025-11-25 basic/lifecycle; not in 2026-07-28).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The revision the client wants, such as `"2025-11-25"`; kept as a
    /// string because a client may ask for one we do not know.
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// The client's name and version.
    pub client_info: Implementation,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(InitializeRequestParams {
    protocol_version: "protocolVersion" required,
    capabilities: "capabilities" required,
    client_info: "clientInfo" required,
    meta: "_meta" optional,
});

/// The result of `initialize` (MCP 2025-11-25 basic/lifecycle).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server will speak (see [`crate::Revision::negotiate`]).
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// The server's name and version.
    pub server_info: Implementation,
    /// How to use the server, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(InitializeResult {
    protocol_version: "protocolVersion" required,
    capabilities: "capabilities" required,
    server_info: "serverInfo" required,
    instructions: "instructions" optional,
    meta: "_meta" optional,
});

/// The result of `server/discover` (MCP 2026-07-28 basic). The server's
/// [`Implementation`] travels in `_meta` under [`crate::meta::SERVER_INFO`].
/// 2026-07-28 requires `ttlMs`, `cacheScope` and `resultType`; they are
/// optional here so a reply missing them can still be read.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Revisions the server speaks, such as `["2026-07-28"]`.
    pub supported_versions: Vec<String>,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// How to use the server, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long the answer may be cached, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may share the cached answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// `"complete"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// Metadata, including `io.modelcontextprotocol/serverInfo`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(DiscoverResult {
    supported_versions: "supportedVersions" required,
    capabilities: "capabilities" required,
    instructions: "instructions" optional,
    ttl_ms: "ttlMs" optional,
    cache_scope: "cacheScope" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});
