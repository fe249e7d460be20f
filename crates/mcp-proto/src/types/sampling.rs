use serde::Serialize;
use serde_json::Value;

use crate::decode::{
    DecodeError, FromValue, JsonObject, serialize_opt_number, wire_deserialize, wire_struct,
};
use crate::types::{ContentBlock, Role, Tool};

/// The content of a sampling message: one block or a list of blocks
/// (MCP 2025-11-25 client/sampling; lists since 2025-11-25).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum SamplingContent {
    /// A single block.
    One(Box<ContentBlock>),
    /// Several blocks.
    Many(Vec<ContentBlock>),
}

impl FromValue for SamplingContent {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value {
            Value::Array(_) => Vec::from_value(value).map(Self::Many),
            other => ContentBlock::from_value(other).map(|b| Self::One(Box::new(b))),
        }
    }
}

wire_deserialize!(SamplingContent);

wire_struct! {
    /// One message of a sampling conversation (MCP 2025-11-25 `SamplingMessage`).
    pub struct SamplingMessage {
        /// Who speaks.
        pub role: Role as "role",
        /// What is said.
        pub content: SamplingContent as "content",
        use MetaObject;
    }

    /// The server's model preferences for sampling; priorities from 0 to 1
    /// (MCP 2025-11-25 `ModelPreferences`).
    #[derive(Default)]
    pub struct ModelPreferences {
        /// Model name hints, most preferred first; each `{"name": ...}`.
        pub hints: Option<Vec<JsonObject>> as "hints",
        /// How much cost matters.
        #[serde(serialize_with = "serialize_opt_number")]
        pub cost_priority: Option<f64> as "costPriority",
        /// How much speed matters.
        #[serde(serialize_with = "serialize_opt_number")]
        pub speed_priority: Option<f64> as "speedPriority",
        /// How much capability matters.
        #[serde(serialize_with = "serialize_opt_number")]
        pub intelligence_priority: Option<f64> as "intelligencePriority",
    }

    /// Params of `sampling/createMessage` (MCP 2025-11-25 client/sampling).
    #[derive(Default)]
    pub struct CreateMessageRequestParams {
        /// The conversation.
        pub messages: Vec<SamplingMessage> as "messages",
        /// Model preferences.
        pub model_preferences: Option<ModelPreferences> as "modelPreferences",
        /// System prompt.
        pub system_prompt: Option<String> as "systemPrompt",
        /// `"none"`, `"thisServer"` or `"allServers"` (deprecated).
        pub include_context: Option<String> as "includeContext",
        /// Sampling temperature.
        #[serde(serialize_with = "serialize_opt_number")]
        pub temperature: Option<f64> as "temperature",
        /// Most tokens to generate.
        pub max_tokens: u64 as "maxTokens",
        /// Sequences that stop generation.
        pub stop_sequences: Option<Vec<String>> as "stopSequences",
        /// Provider-specific metadata.
        pub metadata: Option<JsonObject> as "metadata",
        /// Tools the model may use (since 2025-11-25).
        pub tools: Option<Vec<Tool>> as "tools",
        /// `{"mode": "auto" | "none" | "required"}` (since 2025-11-25).
        pub tool_choice: Option<JsonObject> as "toolChoice",
        use RequestParams;
    }

    /// The result of `sampling/createMessage` (MCP 2025-11-25 client/sampling).
    pub struct CreateMessageResult {
        /// Who speaks (the model: `assistant`).
        pub role: Role as "role",
        /// What the model said.
        pub content: SamplingContent as "content",
        /// The model used.
        pub model: String as "model",
        /// Why generation stopped, such as `endTurn` or `toolUse`.
        pub stop_reason: Option<String> as "stopReason",
        use Result;
    }

    /// A model's request to use a tool, in sampling (MCP 2025-11-25 `ToolUseContent`).
    #[derive(Default)]
    pub struct ToolUseContent {
        /// Id that the matching tool result refers to.
        pub id: String as "id",
        /// The tool's name.
        pub name: String as "name",
        /// The tool's arguments.
        pub input: JsonObject as "input",
        use MetaObject;
    }

    /// The result of a tool use, in sampling (MCP 2025-11-25 `ToolResultContent`).
    #[derive(Default)]
    pub struct ToolResultContent {
        /// The `id` of the tool use answered.
        pub tool_use_id: String as "toolUseId",
        /// Unstructured output.
        pub content: Vec<ContentBlock> as "content",
        /// Structured output.
        pub structured_content: Option<Value> as "structuredContent",
        /// Whether the tool failed.
        pub is_error: Option<bool> as "isError",
        use MetaObject;
    }
}
