use serde_json::Value;

use crate::decode::{JsonObject, wire_struct};
use crate::types::ContentBlock;

wire_struct! {
    /// A tool the server offers (MCP 2025-11-25 server/tools `Tool`; `title`
    /// and `outputSchema` since 2025-06-18, `icons` and `execution` since
    /// 2025-11-25). See [`crate::validate_tool_name`] for the rule on `name`.
    #[derive(Default)]
    pub struct Tool {
        use BaseMetadata;
        /// What the tool does, for the model.
        pub description: Option<String> as "description",
        /// JSON Schema of the arguments; an object schema (`"type": "object"`).
        pub input_schema: JsonObject as "inputSchema",
        /// JSON Schema of `structuredContent` in the result.
        pub output_schema: Option<JsonObject> as "outputSchema",
        /// Behaviour hints.
        pub annotations: Option<ToolAnnotations> as "annotations",
        use Icons;
        /// How the tool runs (task support, 2025-11-25).
        pub execution: Option<ToolExecution> as "execution",
        use MetaObject;
    }

    /// Hints about a tool's behaviour; hints only, never to be trusted from an
    /// untrusted server (MCP 2025-03-26 `ToolAnnotations`).
    #[derive(Default)]
    pub struct ToolAnnotations {
        /// Display name.
        pub title: Option<String> as "title",
        /// The tool does not change its environment (default false).
        pub read_only_hint: Option<bool> as "readOnlyHint",
        /// The tool may destroy data (default true; meaningful when not read-only).
        pub destructive_hint: Option<bool> as "destructiveHint",
        /// Repeating a call has no further effect (default false).
        pub idempotent_hint: Option<bool> as "idempotentHint",
        /// The tool talks to an open world, such as the web (default true).
        pub open_world_hint: Option<bool> as "openWorldHint",
    }

    /// How a tool runs (MCP 2025-11-25 `ToolExecution`).
    #[derive(Default)]
    pub struct ToolExecution {
        /// `"forbidden"`, `"optional"` or `"required"`: whether the tool may be
        /// run as a task.
        pub task_support: Option<String> as "taskSupport",
    }

    /// The result of `tools/list` (MCP 2025-11-25 server/tools; `ttlMs`,
    /// `cacheScope` and `resultType` since 2026-07-28, where they are required).
    #[derive(Default)]
    pub struct ListToolsResult {
        /// The tools of this page.
        pub tools: Vec<Tool> as "tools",
        use PaginatedResult;
    }

    /// The params of `tools/call` (MCP 2025-11-25 server/tools; in 2026-07-28
    /// `_meta` carries the keys of [`crate::meta`]). Members such as
    /// 2026-07-28's `inputResponses` and `requestState` or 2025-11-25's `task`
    /// stay in `extra`.
    #[derive(Default)]
    pub struct CallToolRequestParams {
        /// The tool to call.
        pub name: String as "name",
        /// The arguments, an object matching the tool's `inputSchema`.
        pub arguments: Option<JsonObject> as "arguments",
        use RequestParams;
    }

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
    #[derive(Default)]
    pub struct CallToolResult {
        /// Unstructured output.
        pub content: Vec<ContentBlock> as "content",
        /// Structured output matching the tool's `outputSchema`.
        pub structured_content: Option<Value> as "structuredContent",
        /// Whether the tool call failed (absent means false).
        pub is_error: Option<bool> as "isError",
        use Result;
    }
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
