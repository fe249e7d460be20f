use serde::Serialize;

use crate::decode::{JsonObject, wire_struct_decode};
use crate::types::{Annotations, CacheScope, Icon, Meta, PaginatedResult, ResourceContents};

/// A resource the server can read (MCP 2025-11-25 server/resources `Resource`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource URI.
    pub uri: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Size in bytes of the raw content, if known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(Resource {
    uri: "uri" required,
    name: "name" required,
    title: "title" optional,
    description: "description" optional,
    mime_type: "mimeType" optional,
    size: "size" optional,
    icons: "icons" optional,
    annotations: "annotations" optional,
    meta: "_meta" optional,
});

/// A family of resources named by an RFC 6570 URI template (MCP 2025-11-25
/// server/resources `ResourceTemplate`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The URI template, such as `file:///{path}`.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// MIME type of every matching resource, if they share one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Icons for display.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Display hints.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ResourceTemplate {
    uri_template: "uriTemplate" required,
    name: "name" required,
    title: "title" optional,
    description: "description" optional,
    mime_type: "mimeType" optional,
    icons: "icons" optional,
    annotations: "annotations" optional,
    meta: "_meta" optional,
});

/// The result of `resources/list` (MCP 2025-11-25 server/resources;
/// caching members since 2026-07-28).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourcesResult {
    /// The resources of this page.
    pub resources: Vec<Resource>,
    /// `nextCursor`, the caching members, `resultType`, `_meta` and the
    /// members not known to this crate, beside the items on the wire.
    #[serde(flatten)]
    pub page: PaginatedResult,
}

wire_struct_decode!(ListResourcesResult {
    resources: "resources" required,
    ..page
});

/// The result of `resources/templates/list` (MCP 2025-11-25 server/resources).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListResourceTemplatesResult {
    /// The templates of this page.
    pub resource_templates: Vec<ResourceTemplate>,
    /// `nextCursor`, the caching members, `resultType`, `_meta` and the
    /// members not known to this crate, beside the items on the wire.
    #[serde(flatten)]
    pub page: PaginatedResult,
}

wire_struct_decode!(ListResourceTemplatesResult {
    resource_templates: "resourceTemplates" required,
    ..page
});

/// Params of `resources/read` (MCP 2025-11-25 server/resources).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct ReadResourceRequestParams {
    /// The resource to read.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ReadResourceRequestParams {
    uri: "uri" required,
    meta: "_meta" optional,
});

/// The result of `resources/read` (MCP 2025-11-25 server/resources).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The resource's contents (one or more parts).
    pub contents: Vec<ResourceContents>,
    /// How long the contents may be cached, in milliseconds (2026-07-28).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Who may share the cached contents (2026-07-28).
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

wire_struct_decode!(ReadResourceResult {
    contents: "contents" required,
    ttl_ms: "ttlMs" optional,
    cache_scope: "cacheScope" optional,
    result_type: "resultType" optional,
    meta: "_meta" optional,
});

/// Params of `notifications/resources/updated` (MCP 2025-11-25 server/resources).
#[derive(Debug, Clone, PartialEq, Default, Serialize, schemars::JsonSchema)]
pub struct ResourceUpdatedNotificationParams {
    /// The resource that changed.
    pub uri: String,
    /// Metadata.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Members not known to this crate, kept as they came.
    #[serde(flatten)]
    pub extra: JsonObject,
}

wire_struct_decode!(ResourceUpdatedNotificationParams {
    uri: "uri" required,
    meta: "_meta" optional,
});
