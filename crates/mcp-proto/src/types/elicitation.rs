use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::Meta;

/// Params of `elicitation/create`, form or URL mode (MCP 2025-11-25
/// client/elicitation: `ElicitRequestFormParams`, `ElicitRequestURLParams`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestParams {
    /// `"form"` (the default when absent) or `"url"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// What is asked, for the user.
    pub message: String,
    /// Form mode: a flat object schema of primitive fields.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<JsonObject>,
    /// URL mode: the page the user must visit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// URL mode: the id of this elicitation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ElicitRequestParams {
    mode: "mode" optional,
    message: "message" required,
    requested_schema: "requestedSchema" optional,
    url: "url" optional,
    elicitation_id: "elicitationId" optional,
    meta: "_meta" optional,
});

/// The result of `elicitation/create` (MCP 2025-11-25 client/elicitation).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElicitResult {
    /// `"accept"`, `"decline"` or `"cancel"`.
    pub action: String,
    /// Form mode, on accept: the values by field name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<JsonObject>,
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

wire_struct_decode!(ElicitResult {
    action: "action" required,
    content: "content" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// A 2026-07-28 result asking the client for input before the request can
/// complete (`resultType: "input_required"`; MCP 2026-07-28 `InputRequiredResult`).
/// Each entry of `inputRequests` is a sampling, roots or elicitation
/// request, kept as JSON.
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// The requests to answer, by key; answers go back in `inputResponses`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<JsonObject>,
    /// Opaque state to send back with the retried request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// `"input_required"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<String>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(InputRequiredResult {
    input_requests: "inputRequests" optional,
    request_state: "requestState" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});
