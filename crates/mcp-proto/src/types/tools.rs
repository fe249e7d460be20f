use serde::Serialize;
use serde_json::Value;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::{ContentBlock, Icon, Meta, PaginatedResult};

/// A tool the server offers (MCP 2025-11-25 server/tools `Tool`; `title`
/// and `outputSchema` since 2025-06-18, `icons` and `execution` since
/// 2025-11-25).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// The tool name; see [`crate::validate_tool_name`] for the rule.
    pub name: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; an object schema (`"type": "object"`).
    pub input_schema: JsonObject,
    /// JSON Schema of `structuredContent` in the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<JsonObject>,
    /// Behaviour hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Icons for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// How the tool runs (task support, 2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Tool {
    name: "name" required,
    title: "title" optional,
    description: "description" optional,
    input_schema: "inputSchema" required,
    output_schema: "outputSchema" optional,
    annotations: "annotations" optional,
    icons: "icons" optional,
    execution: "execution" optional,
    meta: "_meta" optional,
});

/// Hints about a tool's behaviour; hints only, never to be trusted from an
/// untrusted server (MCP 2025-03-26 `ToolAnnotations`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not change its environment (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data (default true; meaningful when not read-only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call has no further effect (default false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool talks to an open world, such as the web (default true).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ToolAnnotations {
    title: "title" optional,
    read_only_hint: "readOnlyHint" optional,
    destructive_hint: "destructiveHint" optional,
    idempotent_hint: "idempotentHint" optional,
    open_world_hint: "openWorldHint" optional,
});

/// How a tool runs (MCP 2025-11-25 `ToolExecution`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// `"forbidden"`, `"optional"` or `"required"`: whether the tool may be
    /// run as a task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_support: Option<String>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ToolExecution {
    task_support: "taskSupport" optional,
});

/// The result of `tools/list` (MCP 2025-11-25 server/tools; `ttlMs`,
/// `cacheScope` and `resultType` since 2026-07-28, where they are required).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListToolsResult {
    /// The tools of this page.
    pub tools: Vec<Tool>,
    /// `nextCursor`, the caching members, `resultType`, `_meta` and the
    /// members not known to this crate, beside the items on the wire.
    #[serde(flatten)]
    pub page: PaginatedResult,
}

wire_struct_decode!(ListToolsResult {
    tools: "tools" required,
    ..page
});

/// The params of `tools/call` (MCP 2025-11-25 server/tools; in 2026-07-28
/// `_meta` carries the keys of [`crate::meta`]). Members such as
/// 2026-07-28's `inputResponses` and `requestState` or 2025-11-25's `task`
/// stay in `extra`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallToolRequestParams {
    /// The tool to call.
    pub name: String,
    /// The arguments, an object matching the tool's `inputSchema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<JsonObject>,
    /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CallToolRequestParams {
    name: "name" required,
    arguments: "arguments" optional,
    meta: "_meta" optional,
});

/// The result of `tools/call` (MCP 2025-11-25 server/tools;
/// `structuredContent` since 2025-06-18, `resultType` since 2026-07-28).
///
/// A tool's own failure is a result with `isError: true`, not a JSON-RPC
/// error, so the model can see it.
///
/// ```
/// use mcp_proto::CallToolResult;
///
/// let r = CallToolResult::error("file not found: a.txt");
/// assert_eq!(
///     serde_json::to_string(&r).unwrap(),
///     r#"{"content":[{"type":"text","text":"file not found: a.txt"}],"isError":true}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Structured output matching the tool's `outputSchema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool call failed (absent means false).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
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

impl CallToolResult {
    /// A successful result with one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            ..Self::default()
        }
    }

    /// A failed result with one text block and `isError: true`.
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(text)],
            is_error: Some(true),
            ..Self::default()
        }
    }
}

wire_struct_decode!(CallToolResult {
    content: "content" required,
    structured_content: "structuredContent" optional,
    is_error: "isError" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});
