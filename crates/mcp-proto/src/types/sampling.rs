use serde::Serialize;
use serde_json::Value;

use crate::decode::{
    DecodeError, FromValue, JsonObject, serialize_opt_number, wire_deserialize, wire_struct_decode,
};
use crate::types::{ContentBlock, Meta, Role, Tool};

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

/// One message of a sampling conversation (MCP 2025-11-25 `SamplingMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingContent,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(SamplingMessage {
    role: "role" required,
    content: "content" required,
    meta: "_meta" optional,
});

/// The server's model preferences for sampling; priorities from 0 to 1
/// (MCP 2025-11-25 `ModelPreferences`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Model name hints, most preferred first; each `{"name": ...}`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<JsonObject>>,
    /// How much cost matters.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_opt_number"
    )]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_opt_number"
    )]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_opt_number"
    )]
    pub intelligence_priority: Option<f64>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ModelPreferences {
    hints: "hints" optional,
    cost_priority: "costPriority" optional,
    speed_priority: "speedPriority" optional,
    intelligence_priority: "intelligencePriority" optional,
});

/// Params of `sampling/createMessage` (MCP 2025-11-25 client/sampling).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageRequestParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model preferences.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// System prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// `"none"`, `"thisServer"` or `"allServers"` (deprecated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include_context: Option<String>,
    /// Sampling temperature.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_opt_number"
    )]
    pub temperature: Option<f64>,
    /// Most tokens to generate.
    pub max_tokens: u64,
    /// Sequences that stop generation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonObject>,
    /// Tools the model may use (since 2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// `{"mode": "auto" | "none" | "required"}` (since 2025-11-25).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<JsonObject>,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CreateMessageRequestParams {
    messages: "messages" required,
    model_preferences: "modelPreferences" optional,
    system_prompt: "systemPrompt" optional,
    include_context: "includeContext" optional,
    temperature: "temperature" optional,
    max_tokens: "maxTokens" required,
    stop_sequences: "stopSequences" optional,
    metadata: "metadata" optional,
    tools: "tools" optional,
    tool_choice: "toolChoice" optional,
    meta: "_meta" optional,
});

/// The result of `sampling/createMessage` (MCP 2025-11-25 client/sampling).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (the model: `assistant`).
    pub role: Role,
    /// What the model said.
    pub content: SamplingContent,
    /// The model used.
    pub model: String,
    /// Why generation stopped, such as `endTurn` or `toolUse`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
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

wire_struct_decode!(CreateMessageResult {
    role: "role" required,
    content: "content" required,
    model: "model" required,
    stop_reason: "stopReason" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// A model's request to use a tool, in sampling (MCP 2025-11-25 `ToolUseContent`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct ToolUseContent {
    /// Id that the matching tool result refers to.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The tool's arguments.
    pub input: JsonObject,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ToolUseContent {
    id: "id" required,
    name: "name" required,
    input: "input" required,
    meta: "_meta" optional,
});

/// The result of a tool use, in sampling (MCP 2025-11-25 `ToolResultContent`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The `id` of the tool use answered.
    pub tool_use_id: String,
    /// Unstructured output.
    pub content: Vec<ContentBlock>,
    /// Structured output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// Whether the tool failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ToolResultContent {
    tool_use_id: "toolUseId" required,
    content: "content" required,
    structured_content: "structuredContent" optional,
    is_error: "isError" optional,
    meta: "_meta" optional,
});
