use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::{ContentBlock, Icon, Meta, PaginatedResult, Role};

/// A prompt template the server offers (MCP 2025-11-25 server/prompts `Prompt`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments the template takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Prompt {
    name: "name" required,
    title: "title" optional,
    description: "description" optional,
    arguments: "arguments" optional,
    icons: "icons" optional,
    meta: "_meta" optional,
});

/// One argument of a [`Prompt`] (MCP 2025-11-25 `PromptArgument`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct PromptArgument {
    /// Argument name.
    pub name: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument means.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(PromptArgument {
    name: "name" required,
    title: "title" optional,
    description: "description" optional,
    required: "required" optional,
});

/// One message of a rendered prompt (MCP 2025-11-25 `PromptMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PromptMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(PromptMessage {
    role: "role" required,
    content: "content" required,
});

/// Params of `prompts/get` (MCP 2025-11-25 server/prompts).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct GetPromptRequestParams {
    /// The prompt to render.
    pub name: String,
    /// Argument values by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(GetPromptRequestParams {
    name: "name" required,
    arguments: "arguments" optional,
    meta: "_meta" optional,
});

/// The result of `prompts/get` (MCP 2025-11-25 server/prompts).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// What the rendered prompt is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The rendered messages.
    pub messages: Vec<PromptMessage>,
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

wire_struct_decode!(GetPromptResult {
    description: "description" optional,
    messages: "messages" required,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// The result of `prompts/list` (MCP 2025-11-25 server/prompts).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListPromptsResult {
    /// The prompts of this page.
    pub prompts: Vec<Prompt>,
    /// `nextCursor`, the caching members, `resultType`, `_meta` and the
    /// members not known to this crate, beside the items on the wire.
    #[serde(flatten)]
    pub page: PaginatedResult,
}

wire_struct_decode!(ListPromptsResult {
    prompts: "prompts" required,
    ..page
});
