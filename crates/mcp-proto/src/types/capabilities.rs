use crate::decode::{JsonObject, wire_struct};

wire_struct! {
    /// What a client supports (MCP 2025-11-25 basic/lifecycle
    /// `ClientCapabilities`; in 2026-07-28 sent per request in `_meta`).
    ///
    /// Capabilities this crate does not model (such as `tasks`) stay in `extra`.
    #[derive(Default)]
    pub struct ClientCapabilities {
        /// Experimental, non-standard capabilities by name.
        pub experimental: Option<JsonObject> as "experimental",
        /// Present if the client can list roots.
        pub roots: Option<RootsCapability> as "roots",
        /// Present if the client can sample from an LLM (`context`, `tools` settings).
        pub sampling: Option<JsonObject> as "sampling",
        /// Present if the client supports elicitation (`form`, `url` settings).
        pub elicitation: Option<JsonObject> as "elicitation",
        /// MCP extensions by identifier, such as `io.modelcontextprotocol/ui` (2026-07-28).
        pub extensions: Option<JsonObject> as "extensions",
    }

    /// What a server supports (MCP 2025-11-25 basic/lifecycle
    /// `ServerCapabilities`; 2026-07-28 `server/discover`).
    ///
    /// Capabilities this crate does not model (such as `tasks`) stay in `extra`.
    #[derive(Default)]
    pub struct ServerCapabilities {
        /// Experimental, non-standard capabilities by name.
        pub experimental: Option<JsonObject> as "experimental",
        /// Present if the server sends log messages.
        pub logging: Option<JsonObject> as "logging",
        /// Present if the server offers argument completion.
        pub completions: Option<JsonObject> as "completions",
        /// Present if the server offers prompts.
        pub prompts: Option<PromptsCapability> as "prompts",
        /// Present if the server offers resources.
        pub resources: Option<ResourcesCapability> as "resources",
        /// Present if the server offers tools.
        pub tools: Option<ToolsCapability> as "tools",
        /// MCP extensions by identifier, such as `io.modelcontextprotocol/tasks` (2026-07-28).
        pub extensions: Option<JsonObject> as "extensions",
    }

    /// The server's `resources` capability.
    #[derive(Default)]
    pub struct ResourcesCapability {
        /// Whether the server supports `resources/subscribe`.
        pub subscribe: Option<bool> as "subscribe",
        /// Whether the server sends `notifications/resources/list_changed`.
        pub list_changed: Option<bool> as "listChanged",
    }

    /// A capability whose one setting is `listChanged` (MCP 2025-11-25
    /// basic/lifecycle): the server's `prompts` and `tools` capabilities and
    /// the client's `roots` capability have this shape.
    #[derive(Default)]
    pub struct ListChangedCapability {
        /// Whether the peer sends a `notifications/.../list_changed`
        /// notification when the list changes.
        pub list_changed: Option<bool> as "listChanged",
    }
}

/// The client's `roots` capability: `listChanged` says whether it sends
/// `notifications/roots/list_changed` (up to 2025-11-25; 2026-07-28 has no
/// roots notifications and the capability no settings).
pub type RootsCapability = ListChangedCapability;

/// The server's `prompts` capability: `listChanged` says whether it sends
/// `notifications/prompts/list_changed`.
pub type PromptsCapability = ListChangedCapability;

/// The server's `tools` capability: `listChanged` says whether it sends
/// `notifications/tools/list_changed`.
pub type ToolsCapability = ListChangedCapability;
