use std::collections::BTreeMap;

use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::Meta;

/// Params of `completion/complete` (MCP 2025-11-25 server/utilities/completion).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct CompleteRequestParams {
    /// What is being completed: `{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`, kept as JSON.
    #[serde(rename = "ref")]
    pub reference: JsonObject,
    /// The argument being completed.
    pub argument: CompletionArgument,
    /// Values of arguments already given (since 2025-06-18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CompleteRequestParams {
    reference: "ref" required,
    argument: "argument" required,
    context: "context" optional,
    meta: "_meta" optional,
});

/// The argument being completed: its name and the text typed so far.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct CompletionArgument {
    /// Argument name.
    pub name: String,
    /// The partial value.
    pub value: String,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CompletionArgument {
    name: "name" required,
    value: "value" required,
});

/// Already-given argument values for a completion.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct CompletionContext {
    /// Values by argument name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(CompletionContext {
    arguments: "arguments" optional,
});

/// The result of `completion/complete`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The suggestions.
    pub completion: Completion,
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

wire_struct_decode!(CompleteResult {
    completion: "completion" required,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// Completion suggestions: at most 100 values.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// Suggested values.
    pub values: Vec<String>,
    /// How many suggestions exist in all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more exist than were sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Completion {
    values: "values" required,
    total: "total" optional,
    has_more: "hasMore" optional,
});
