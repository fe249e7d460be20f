use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};

/// What a client supports (MCP 2025-11-25 basic/lifecycle
/// `ClientCapabilities`; in 2026-07-28 sent per request in `_meta`).
///
/// Capabilities this crate does not model (such as `tasks`) stay in `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present if the client can list roots.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// Present if the client can sample from an LLM (`context`, `tools` settings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampling: Option<JsonObject>,
    /// Present if the client supports elicitation (`form`, `url` settings).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<JsonObject>,
    /// MCP extensions by identifier, such as `io.modelcontextprotocol/ui` (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ClientCapabilities {
    experimental: "experimental" optional,
    roots: "roots" optional,
    sampling: "sampling" optional,
    elicitation: "elicitation" optional,
    extensions: "extensions" optional,
});

/// The client's `roots` capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// Whether the client sends `notifications/roots/list_changed`
    /// (up to 2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(RootsCapability {
    list_changed: "listChanged" optional,
});

/// What a server supports (MCP 2025-11-25 basic/lifecycle
/// `ServerCapabilities`; 2026-07-28 `server/discover`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub experimental: Option<JsonObject>,
    /// Present if the server sends log messages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logging: Option<JsonObject>,
    /// Present if the server offers argument completion.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completions: Option<JsonObject>,
    /// Present if the server offers prompts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// Present if the server offers resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// Present if the server offers tools.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// MCP extensions by identifier, such as `io.modelcontextprotocol/tasks` (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<JsonObject>,
    /// Members not known to this crate (such as `tasks`), kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ServerCapabilities {
    experimental: "experimental" optional,
    logging: "logging" optional,
    completions: "completions" optional,
    prompts: "prompts" optional,
    resources: "resources" optional,
    tools: "tools" optional,
    extensions: "extensions" optional,
});

/// The server's `prompts` capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// Whether the server sends `notifications/prompts/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(PromptsCapability {
    list_changed: "listChanged" optional,
});

/// The server's `resources` capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// Whether the server supports `resources/subscribe`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// Whether the server sends `notifications/resources/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ResourcesCapability {
    subscribe: "subscribe" optional,
    list_changed: "listChanged" optional,
});

/// The server's `tools` capability.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// Whether the server sends `notifications/tools/list_changed`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ToolsCapability {
    list_changed: "listChanged" optional,
});
