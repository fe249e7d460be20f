//! The MCP wire types: every field of revisions 2024-11-05 to 2026-07-28.
//!
//! Each struct keeps members it does not know in `extra` and writes them
//! back, so a value that passes through comes out equal to what came in.
//! Optional members are left out when `None`. Decoding errors name the
//! member at fault (see [`crate::FromValue`]).

pub(crate) mod bases;
mod capabilities;
mod completion;
mod content;
mod elicitation;
mod implementation;
mod lifecycle;
mod logging;
mod notifications;
mod object_schema;
mod prompts;
mod resources;
mod roots;
mod sampling;
mod tools;

pub use capabilities::{
    ClientCapabilities, ListChangedCapability, PromptsCapability, ResourcesCapability,
    RootsCapability, ServerCapabilities, ToolsCapability,
};
pub use completion::{
    CompleteRequestParams, CompleteResult, Completion, CompletionArgument, CompletionContext,
};
pub use content::{
    Annotations, AudioContent, ContentBlock, EmbeddedResource, ImageContent, ResourceContents,
    ResourceLink, Role, TextContent,
};
pub use elicitation::{ElicitRequestParams, ElicitResult, InputRequiredResult};
pub use implementation::{Icon, Implementation};
pub use lifecycle::{
    CacheScope, DiscoverResult, EmptyResult, InitializeRequestParams, InitializeResult,
    NotificationParams, PaginatedRequestParams, PaginatedResult, RequestParams,
};
pub use logging::{LoggingLevel, LoggingMessageNotificationParams, SetLevelRequestParams};
pub use notifications::{CancelledNotificationParams, ProgressNotificationParams, ProgressToken};
pub use object_schema::ObjectSchema;
pub use prompts::{
    GetPromptRequestParams, GetPromptResult, ListPromptsResult, Prompt, PromptArgument,
    PromptMessage,
};
pub use resources::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, Resource, ResourceTemplate, ResourceUpdatedNotificationParams,
};
pub use roots::{ListRootsResult, Root};
pub use sampling::{
    CreateMessageRequestParams, CreateMessageResult, ModelPreferences, SamplingContent,
    SamplingMessage, ToolResultContent, ToolUseContent,
};
pub use tools::{
    CallToolRequestParams, CallToolResult, ListToolsResult, Tool, ToolAnnotations, ToolExecution,
    read_as, repeated_argument, repeated_key,
};

/// A `_meta` object: keys such as those in [`crate::meta`] mapped to any
/// JSON (MCP 2025-11-25 basic "_meta").
pub type Meta = serde_json::Map<String, serde_json::Value>;

/// The members revision 2026-07-28 adds to results, set on the typed
/// result before it is serialized (MCP 2026-07-28 schema: `Result` has
/// `resultType`; `CacheableResult` adds `ttlMs` and `cacheScope`). A
/// result of an older revision has none of them; each is `None` there.
///
/// A wire struct that uses the base `Result`, `CacheableResult` or
/// `PaginatedResult` (see [`crate::decode`]'s `wire_struct!`) gets its impl
/// from there.
pub trait ResultMembers {
    /// `resultType: "complete"`, unless the result has a `resultType`.
    fn mark_complete(&mut self);
    /// `ttlMs` and `cacheScope`, each unless the result has it; a result
    /// that is not cacheable has neither and ignores this.
    fn allow_caching(&mut self, ttl_ms: u64, scope: CacheScope) {
        let _ = (ttl_ms, scope);
    }
}

/// `initialize` belongs to the revisions before 2026-07-28, whose results
/// have none of these members.
impl ResultMembers for InitializeResult {
    fn mark_complete(&mut self) {}
}
