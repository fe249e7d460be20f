//! Typed methods: one unit struct per MCP method, carrying its name, params
//! type and result type (after lsp-types' `Request`/`Notification` traits).
//!
//! A handler written against `M: Method` cannot pair the wrong params and
//! result. Methods not listed here pass through [`crate::Message`] as raw
//! JSON without loss.
//!
//! ```
//! use mcp_proto::methods::{CallTool, Method};
//! use mcp_proto::{CallToolRequestParams, Request};
//!
//! let req = Request::typed::<CallTool>(1, &CallToolRequestParams {
//!     name: "fs".into(),
//!     ..Default::default()
//! }).unwrap();
//! assert_eq!(req.method, "tools/call");
//! let params: CallToolRequestParams = req.parse_params().unwrap();
//! assert_eq!(params.name, "fs");
//! ```

use serde::Serialize;

use crate::decode::FromValue;
use crate::message::{Notification, Request, RequestId};
use crate::types::{
    CallToolRequestParams, CallToolResult, CancelledNotificationParams, CompleteRequestParams,
    CompleteResult, CreateMessageRequestParams, CreateMessageResult, DiscoverResult,
    ElicitRequestParams, ElicitResult, EmptyResult, GetPromptRequestParams, GetPromptResult,
    InitializeRequestParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListRootsResult, ListToolsResult, LoggingMessageNotificationParams,
    NotificationParams, PaginatedRequestParams, ProgressNotificationParams,
    ReadResourceRequestParams, ReadResourceResult, RequestParams,
    ResourceUpdatedNotificationParams, SetLevelRequestParams,
};

impl Request {
    /// A request for the typed method `M` with `params`.
    ///
    /// # Errors
    /// Only if `params` cannot be turned into JSON, which never happens for
    /// the types of this crate.
    pub fn typed<M: Method>(
        id: impl Into<RequestId>,
        params: &M::Params,
    ) -> Result<Self, serde_json::Error> {
        Ok(Self::new(
            id,
            M::METHOD,
            Some(serde_json::to_value(params)?),
        ))
    }
}

impl Notification {
    /// A notification for the typed method `M` with `params`.
    ///
    /// # Errors
    /// Only if `params` cannot be turned into JSON, which never happens for
    /// the types of this crate.
    pub fn typed<M: NotificationMethod>(params: &M::Params) -> Result<Self, serde_json::Error> {
        Ok(Self::new(M::METHOD, Some(serde_json::to_value(params)?)))
    }
}

/// A request method: its wire name and the types of its params and result.
pub trait Method {
    /// The method name on the wire, such as `"tools/call"`.
    const METHOD: &'static str;
    /// The params object.
    type Params: Serialize + FromValue;
    /// The result object.
    type Result: Serialize + FromValue;
}

/// A notification method: its wire name and the type of its params.
pub trait NotificationMethod {
    /// The method name on the wire, such as `"notifications/progress"`.
    const METHOD: &'static str;
    /// The params object.
    type Params: Serialize + FromValue;
}

/// The unit struct of a method and its `NAME`; `$trait` is the trait it
/// implements, named in the doc of `NAME`.
macro_rules! method_struct {
    ($(#[$doc:meta])* $name:ident, $method:literal, $trait:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        pub struct $name;

        impl $name {
            #[doc = concat!(
                "The method name on the wire ([`", stringify!($trait), "::METHOD`], usable ",
                "without the trait in scope, in patterns too)."
            )]
            pub const NAME: &'static str = $method;
        }
    };
}

macro_rules! request_method {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty, $result:ty) => {
        method_struct!($(#[$doc])* $name, $method, Method);

        impl Method for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
            type Result = $result;
        }
    };
}

macro_rules! notification_method {
    ($(#[$doc:meta])* $name:ident, $method:literal, $params:ty) => {
        method_struct!($(#[$doc])* $name, $method, NotificationMethod);

        impl NotificationMethod for $name {
            const METHOD: &'static str = $method;
            type Params = $params;
        }
    };
}

request_method!(
    /// `initialize`: opens a session, client to server (2024-11-05 to 2025-11-25).
    Initialize, "initialize", InitializeRequestParams, InitializeResult
);
request_method!(
    /// `ping`: either side checks the other is alive; empty result.
    Ping, "ping", RequestParams, EmptyResult
);
request_method!(
    /// `server/discover`: the server's revisions and capabilities (2026-07-28).
    ServerDiscover, "server/discover", RequestParams, DiscoverResult
);
request_method!(
    /// `tools/list`: one page of the server's tools.
    ListTools, "tools/list", PaginatedRequestParams, ListToolsResult
);
request_method!(
    /// `tools/call`: calls one tool.
    CallTool, "tools/call", CallToolRequestParams, CallToolResult
);
request_method!(
    /// `logging/setLevel`: the lowest log level the client wants (up to 2025-11-25).
    SetLevel, "logging/setLevel", SetLevelRequestParams, EmptyResult
);
request_method!(
    /// `resources/list`: one page of the server's resources.
    ListResources, "resources/list", PaginatedRequestParams, ListResourcesResult
);
request_method!(
    /// `resources/templates/list`: one page of the server's resource templates.
    ListResourceTemplates, "resources/templates/list", PaginatedRequestParams,
    ListResourceTemplatesResult
);
request_method!(
    /// `resources/read`: the contents of one resource.
    ReadResource, "resources/read", ReadResourceRequestParams, ReadResourceResult
);
request_method!(
    /// `resources/subscribe`: updates of one resource, please (up to
    /// 2025-11-25); its params have the shape of `resources/read`'s (`uri`).
    Subscribe, "resources/subscribe", ReadResourceRequestParams, EmptyResult
);
request_method!(
    /// `resources/unsubscribe`: no more updates of one resource (up to
    /// 2025-11-25); params as `resources/subscribe`.
    Unsubscribe, "resources/unsubscribe", ReadResourceRequestParams, EmptyResult
);
request_method!(
    /// `prompts/list`: one page of the server's prompts.
    ListPrompts, "prompts/list", PaginatedRequestParams, ListPromptsResult
);
request_method!(
    /// `prompts/get`: one prompt, filled in with its arguments.
    GetPrompt, "prompts/get", GetPromptRequestParams, GetPromptResult
);
request_method!(
    /// `completion/complete`: completions for a prompt or resource argument.
    Complete, "completion/complete", CompleteRequestParams, CompleteResult
);
request_method!(
    /// `roots/list`: server asks the client for its roots.
    ListRoots, "roots/list", RequestParams, ListRootsResult
);
request_method!(
    /// `sampling/createMessage`: server asks the client's model for a
    /// message (client capability `sampling`).
    CreateMessage, "sampling/createMessage", CreateMessageRequestParams, CreateMessageResult
);
request_method!(
    /// `elicitation/create`: server asks the client's user for input
    /// (client capability `elicitation`, 2025-06-18 and later).
    Elicit, "elicitation/create", ElicitRequestParams, ElicitResult
);
notification_method!(
    /// `notifications/initialized`: the client finished `initialize`.
    Initialized, "notifications/initialized", NotificationParams
);
notification_method!(
    /// `notifications/tools/list_changed`: the server's tool list changed.
    ToolListChanged, "notifications/tools/list_changed", NotificationParams
);
notification_method!(
    /// `notifications/cancelled`: the sender gives up on a request.
    Cancelled, "notifications/cancelled", CancelledNotificationParams
);
notification_method!(
    /// `notifications/progress`: progress of a request that asked for it.
    Progress, "notifications/progress", ProgressNotificationParams
);
notification_method!(
    /// `notifications/message`: one log message, server to client.
    LoggingMessage, "notifications/message", LoggingMessageNotificationParams
);
notification_method!(
    /// `notifications/roots/list_changed`: the client's roots changed.
    RootsListChanged, "notifications/roots/list_changed", NotificationParams
);
notification_method!(
    /// `notifications/resources/updated`: a subscribed resource changed
    /// (up to 2025-11-25).
    ResourceUpdated, "notifications/resources/updated", ResourceUpdatedNotificationParams
);
notification_method!(
    /// `notifications/resources/list_changed`: the server's resource list
    /// changed.
    ResourceListChanged, "notifications/resources/list_changed", NotificationParams
);
notification_method!(
    /// `notifications/prompts/list_changed`: the server's prompt list
    /// changed.
    PromptListChanged, "notifications/prompts/list_changed", NotificationParams
);
