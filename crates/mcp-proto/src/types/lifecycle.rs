use crate::decode::{wire_enum, wire_struct};
use crate::types::{ClientCapabilities, Implementation, ServerCapabilities};

wire_enum! {
    /// Who may share a cached result (MCP 2026-07-28 `CacheableResult.cacheScope`).
    pub enum CacheScope {
        /// No user-specific data: any cache may share it.
        Public as "public",
        /// Only within the same authorization context.
        Private as "private",
    }
    expecting r#""public" or "private""#
}

wire_struct! {
    /// Params of a request that has only `_meta`, such as `ping`,
    /// `server/discover` and `roots/list` (MCP 2025-11-25 `RequestParams`).
    #[derive(Default)]
    pub struct RequestParams {
        use RequestParams;
    }

    /// Params of a notification that has only `_meta`, such as
    /// `notifications/initialized` (MCP 2025-11-25 `NotificationParams`).
    #[derive(Default)]
    pub struct NotificationParams {
        use NotificationParams;
    }

    /// Params of a paginated list request such as `tools/list` (MCP 2025-11-25
    /// `PaginatedRequestParams`).
    #[derive(Default)]
    pub struct PaginatedRequestParams {
        /// The `nextCursor` of the previous page; absent for the first page.
        pub cursor: Option<String> as "cursor",
        use RequestParams;
    }

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
        use CacheableResult;
    }

    /// A result with no members of its own, as for `ping` and
    /// `logging/setLevel` (MCP 2025-11-25 `EmptyResult`; `resultType` in
    /// 2026-07-28).
    #[derive(Default)]
    pub struct EmptyResult {
        use Result;
    }

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
        use RequestParams;
    }

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
        use MetaObject;
    }

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
        use CacheableResult;
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
