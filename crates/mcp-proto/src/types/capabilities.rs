use crate::decode::{JsonObject, wire_struct};

/// Defines a set of capabilities (MCP 2025-11-25 basic/lifecycle
/// `ClientCapabilities`, `ServerCapabilities`) as a wire struct, deriving
/// `Default` (no capability). Each capability is written `name: Settings,`:
/// it is optional, present if the peer supports it, and named on the wire
/// as in Rust. Both sets begin with `experimental` and end with
/// `extensions`, which the macro adds.
macro_rules! capability_set {
    ($(
        $(#[$attr:meta])*
        pub struct $name:ident { $($body:tt)* }
    )*) => {$(
        capability_set!(@set [$(#[$attr])* #[derive(Default)] pub struct $name]
            /// Experimental, non-standard capabilities by name.
            experimental: JsonObject,
            $($body)*
            /// MCP extensions by identifier, such as `io.modelcontextprotocol/ui`
            /// (2026-07-28).
            extensions: JsonObject,
        );
    )*};
    (@set $head:tt $($(#[$cap_attr:meta])* $cap:ident: $settings:ty,)*) => {
        $crate::decode::wire_struct!(@field $head
            [$(
                $(#[$cap_attr])*
                #[serde(skip_serializing_if = "Option::is_none")]
                pub $cap: Option<$settings>,
            )*]
            [$(optional $cap: stringify!($cap),)*]);
    };
}

capability_set! {
    /// What a client supports (MCP 2025-11-25 basic/lifecycle
    /// `ClientCapabilities`; in 2026-07-28 sent per request in `_meta`).
    ///
    /// Capabilities this crate does not model (such as `tasks`) stay in `extra`.
    pub struct ClientCapabilities {
        /// Present if the client can list roots.
        roots: RootsCapability,
        /// Present if the client can sample from an LLM (`context`, `tools` settings).
        sampling: JsonObject,
        /// Present if the client supports elicitation (`form`, `url` settings).
        elicitation: JsonObject,
    }

    /// What a server supports (MCP 2025-11-25 basic/lifecycle
    /// `ServerCapabilities`; 2026-07-28 `server/discover`).
    ///
    /// Capabilities this crate does not model (such as `tasks`) stay in `extra`.
    pub struct ServerCapabilities {
        /// Present if the server sends log messages.
        logging: JsonObject,
        /// Present if the server offers argument completion.
        completions: JsonObject,
        /// Present if the server offers prompts.
        prompts: PromptsCapability,
        /// Present if the server offers resources.
        resources: ResourcesCapability,
        /// Present if the server offers tools.
        tools: ToolsCapability,
    }
}

wire_struct! {
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
