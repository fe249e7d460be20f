use crate::decode::wire_struct;
use crate::types::lifecycle::list_result;
use crate::types::{Annotations, CacheScope, Icon, Meta, ResourceContents};

wire_struct! {
    /// A resource the server can read (MCP 2025-11-25 server/resources `Resource`).
    #[derive(Default)]
    pub struct Resource {
        /// The resource URI.
        pub uri: String as "uri",
        /// Programmatic name.
        pub name: String as "name",
        /// Display name.
        pub title: Option<String> as "title",
        /// What the resource is.
        pub description: Option<String> as "description",
        /// MIME type, if known.
        pub mime_type: Option<String> as "mimeType",
        /// Size in bytes of the raw content, if known.
        pub size: Option<u64> as "size",
        /// Icons for display.
        pub icons: Option<Vec<Icon>> as "icons",
        /// Display hints.
        pub annotations: Option<Annotations> as "annotations",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// A family of resources named by an RFC 6570 URI template (MCP 2025-11-25
    /// server/resources `ResourceTemplate`).
    #[derive(Default)]
    pub struct ResourceTemplate {
        /// The URI template, such as `file:///{path}`.
        pub uri_template: String as "uriTemplate",
        /// Programmatic name.
        pub name: String as "name",
        /// Display name.
        pub title: Option<String> as "title",
        /// What the resources are.
        pub description: Option<String> as "description",
        /// MIME type of every matching resource, if they share one.
        pub mime_type: Option<String> as "mimeType",
        /// Icons for display.
        pub icons: Option<Vec<Icon>> as "icons",
        /// Display hints.
        pub annotations: Option<Annotations> as "annotations",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

list_result! {
    /// The result of `resources/list` (MCP 2025-11-25 server/resources;
    /// caching members since 2026-07-28).
    pub struct ListResourcesResult {
        /// The resources of this page.
        pub resources: Vec<Resource> as "resources",
    }
}

list_result! {
    /// The result of `resources/templates/list` (MCP 2025-11-25 server/resources).
    pub struct ListResourceTemplatesResult {
        /// The templates of this page.
        pub resource_templates: Vec<ResourceTemplate> as "resourceTemplates",
    }
}

wire_struct! {
    /// Params of `resources/read` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ReadResourceRequestParams {
        /// The resource to read.
        pub uri: String as "uri",
        /// Request metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// The result of `resources/read` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ReadResourceResult {
        /// The resource's contents (one or more parts).
        pub contents: Vec<ResourceContents> as "contents",
        /// How long the contents may be cached, in milliseconds (2026-07-28).
        pub ttl_ms: Option<u64> as "ttlMs",
        /// Who may share the cached contents (2026-07-28).
        pub cache_scope: Option<CacheScope> as "cacheScope",
        /// `"complete"` (2026-07-28; absent means complete).
        pub result_type: Option<String> as "resultType",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// Params of `notifications/resources/updated` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ResourceUpdatedNotificationParams {
        /// The resource that changed.
        pub uri: String as "uri",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}
