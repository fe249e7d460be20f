use crate::decode::wire_struct;
use crate::types::ResourceContents;

wire_struct! {
    /// A resource the server can read (MCP 2025-11-25 server/resources `Resource`).
    #[derive(Default)]
    pub struct Resource {
        /// The resource URI.
        pub uri: String as "uri",
        use BaseMetadata;
        /// What the resource is.
        pub description: Option<String> as "description",
        /// MIME type, if known.
        pub mime_type: Option<String> as "mimeType",
        /// Size in bytes of the raw content, if known.
        pub size: Option<u64> as "size",
        use Icons;
        use Annotated;
        use MetaObject;
    }

    /// A family of resources named by an RFC 6570 URI template (MCP 2025-11-25
    /// server/resources `ResourceTemplate`).
    #[derive(Default)]
    pub struct ResourceTemplate {
        /// The URI template, such as `file:///{path}`.
        pub uri_template: String as "uriTemplate",
        use BaseMetadata;
        /// What the resources are.
        pub description: Option<String> as "description",
        /// MIME type of every matching resource, if they share one.
        pub mime_type: Option<String> as "mimeType",
        use Icons;
        use Annotated;
        use MetaObject;
    }

    /// The result of `resources/list` (MCP 2025-11-25 server/resources;
    /// caching members since 2026-07-28).
    #[derive(Default)]
    pub struct ListResourcesResult {
        /// The resources of this page.
        pub resources: Vec<Resource> as "resources",
        use PaginatedResult;
    }

    /// The result of `resources/templates/list` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ListResourceTemplatesResult {
        /// The templates of this page.
        pub resource_templates: Vec<ResourceTemplate> as "resourceTemplates",
        use PaginatedResult;
    }

    /// Params of `resources/read` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ReadResourceRequestParams {
        /// The resource to read.
        pub uri: String as "uri",
        use RequestParams;
    }

    /// The result of `resources/read` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ReadResourceResult {
        /// The resource's contents (one or more parts).
        pub contents: Vec<ResourceContents> as "contents",
        use CacheableResult;
    }

    /// Params of `notifications/resources/updated` (MCP 2025-11-25 server/resources).
    #[derive(Default)]
    pub struct ResourceUpdatedNotificationParams {
        /// The resource that changed.
        pub uri: String as "uri",
        use NotificationParams;
    }
}
