use serde::Serialize;
use serde_json::Value;

use crate::decode::{DecodeError, FromValue, wire_deserialize, wire_struct};
use crate::types::{ClientCapabilities, Implementation, Meta, ServerCapabilities};

/// Who may share a cached result (MCP 2026-07-28 `CacheableResult.cacheScope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// No user-specific data: any cache may share it.
    Public,
    /// Only within the same authorization context.
    Private,
}

impl FromValue for CacheScope {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        match value.as_str() {
            Some("public") => Ok(Self::Public),
            Some("private") => Ok(Self::Private),
            _ => Err(DecodeError::invalid(r#""public" or "private""#, &value)),
        }
    }
}

wire_deserialize!(CacheScope);

wire_struct! {
    /// Params of a request that has only `_meta`, such as `ping`,
    /// `server/discover` and `roots/list` (MCP 2025-11-25 `RequestParams`).
    #[derive(Default)]
    pub struct RequestParams {
        /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// Params of a notification that has only `_meta`, such as
    /// `notifications/initialized` (MCP 2025-11-25 `NotificationParams`).
    #[derive(Default)]
    pub struct NotificationParams {
        /// Notification metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// Params of a paginated list request such as `tools/list` (MCP 2025-11-25
    /// `PaginatedRequestParams`).
    #[derive(Default)]
    pub struct PaginatedRequestParams {
        /// The `nextCursor` of the previous page; absent for the first page.
        pub cursor: Option<String> as "cursor",
        /// Request metadata: `progressToken`, `io.modelcontextprotocol/*`.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// The members every list result has after its items (MCP 2026-07-28
    /// `PaginatedResult` and `CacheableResult`, which `ListToolsResult`,
    /// `ListResourcesResult`, `ListResourceTemplatesResult` and
    /// `ListPromptsResult` extend; up to 2025-11-25 `PaginatedResult` is
    /// `nextCursor` and `_meta` only).
    ///
    /// Each list result embeds it as `page`, flattened: its members stand on
    /// the wire beside the items, as in
    /// `{"tools": [..], "nextCursor": "2", "ttlMs": 300000, "cacheScope": "public"}`.
    /// 2026-07-28 requires `ttlMs`, `cacheScope` and `resultType`; they are
    /// optional here so a reply of an older revision can still be read.
    #[derive(Default)]
    pub struct PaginatedResult {
        /// Opaque cursor for the next page; absent on the last page.
        pub next_cursor: Option<String> as "nextCursor",
        /// How long the list may be cached, in milliseconds (2026-07-28).
        pub ttl_ms: Option<u64> as "ttlMs",
        /// Who may share the cached list (2026-07-28).
        pub cache_scope: Option<CacheScope> as "cacheScope",
        /// `"complete"` (2026-07-28; absent means complete).
        pub result_type: Option<String> as "resultType",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

impl PaginatedResult {
    /// A page with `nextCursor` only: `Some` for every page but the last.
    pub fn with_next_cursor(next_cursor: Option<String>) -> Self {
        Self {
            next_cursor,
            ..Self::default()
        }
    }
}

/// Defines a list result (such as MCP 2026-07-28 `ListToolsResult`): the
/// page's items under their wire name, then the members of
/// [`PaginatedResult`] in `page`, flattened; and [`ResultMembers`], which
/// sets them in `page`.
macro_rules! list_result {
    (
        $(#[$attr:meta])*
        pub struct $name:ident {
            $(#[$items_attr:meta])*
            pub $items:ident: Vec<$item:ty> as $key:literal,
        }
    ) => {
        $crate::decode::wire_struct! {
            $(#[$attr])*
            #[derive(Default)]
            pub struct $name {
                $(#[$items_attr])*
                pub $items: Vec<$item> as $key,
                /// `nextCursor`, the caching members, `resultType`, `_meta`
                /// and the members not known to this crate, beside the items
                /// on the wire.
                pub page: $crate::types::PaginatedResult as ..,
            }
        }

        impl $crate::types::ResultMembers for $name {
            fn mark_complete(&mut self) {
                self.page.mark_complete();
            }
            fn allow_caching(&mut self, ttl_ms: u64, scope: $crate::types::CacheScope) {
                self.page.allow_caching(ttl_ms, scope);
            }
        }
    };
}

pub(crate) use list_result;

wire_struct! {
    /// A result with no members of its own, as for `ping` and
    /// `logging/setLevel` (MCP 2025-11-25 `EmptyResult`; `resultType` in
    /// 2026-07-28).
    #[derive(Default)]
    pub struct EmptyResult {
        /// `"complete"` (2026-07-28; absent means complete).
        pub result_type: Option<String> as "resultType",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// Params of `initialize` (MCP 2025-11-25 basic/lifecycle; not in 2026-07-28).
    #[derive(Default)]
    pub struct InitializeRequestParams {
        /// The revision the client wants, such as `"2025-11-25"`; kept as a
        /// string because a client may ask for one we do not know.
        pub protocol_version: String as "protocolVersion",
        /// What the client supports.
        pub capabilities: ClientCapabilities as "capabilities",
        /// The client's name and version.
        pub client_info: Implementation as "clientInfo",
        /// Request metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// The result of `initialize` (MCP 2025-11-25 basic/lifecycle).
    #[derive(Default)]
    pub struct InitializeResult {
        /// The revision the server will speak (see [`crate::Revision::negotiate`]).
        pub protocol_version: String as "protocolVersion",
        /// What the server supports.
        pub capabilities: ServerCapabilities as "capabilities",
        /// The server's name and version.
        pub server_info: Implementation as "serverInfo",
        /// How to use the server, for the model.
        pub instructions: Option<String> as "instructions",
        /// Metadata.
        pub meta: Option<Meta> as "_meta",
    }
}

wire_struct! {
    /// The result of `server/discover` (MCP 2026-07-28 basic). The server's
    /// [`Implementation`] travels in `_meta` under [`crate::meta::SERVER_INFO`].
    /// 2026-07-28 requires `ttlMs`, `cacheScope` and `resultType`; they are
    /// optional here so a reply missing them can still be read.
    #[derive(Default)]
    pub struct DiscoverResult {
        /// Revisions the server speaks, such as `["2026-07-28"]`.
        pub supported_versions: Vec<String> as "supportedVersions",
        /// What the server supports.
        pub capabilities: ServerCapabilities as "capabilities",
        /// How to use the server, for the model.
        pub instructions: Option<String> as "instructions",
        /// How long the answer may be cached, in milliseconds.
        pub ttl_ms: Option<u64> as "ttlMs",
        /// Who may share the cached answer.
        pub cache_scope: Option<CacheScope> as "cacheScope",
        /// `"complete"`.
        pub result_type: Option<String> as "resultType",
        /// Metadata, including `io.modelcontextprotocol/serverInfo`.
        pub meta: Option<Meta> as "_meta",
    }
}
