//! Server features besides tools: resources, prompts and completions
//! (MCP 2025-11-25 server/resources, server/prompts,
//! server/utilities/completion; the same methods in 2026-07-28).
//!
//! Each feature is a trait an embedding runtime implements and registers on
//! the [`Server`](crate::Server) ([`Server::with_resources`](crate::Server::with_resources),
//! [`with_prompts`](crate::Server::with_prompts),
//! [`with_completions`](crate::Server::with_completions)). A server
//! advertises exactly the capabilities of the handlers it holds, and answers
//! the methods of a missing one with -32601.
//!
//! Every method receives the request's [`CallContext`], so a handler can be
//! cancelled, log (`notifications/message`) and ask the client (sampling,
//! elicitation, roots) just as a tool can.
//!
//! # Example: one prompt
//!
//! ```
//! use std::sync::Arc;
//!
//! use mcp_local_server::features::unknown_prompt;
//! use mcp_local_server::source::BoxFuture;
//! use mcp_local_server::{CallContext, Composition, PromptSource, Server, ServerConfig};
//! use mcp_proto::{
//!     ErrorObject, FromValue, GetPromptRequestParams, GetPromptResult, Implementation,
//!     ListPromptsResult,
//! };
//! use serde_json::json;
//!
//! struct Greeting;
//!
//! impl PromptSource for Greeting {
//!     fn list_prompts(
//!         &self,
//!         _cursor: Option<String>,
//!         _cx: CallContext,
//!     ) -> BoxFuture<'_, Result<ListPromptsResult, ErrorObject>> {
//!         Box::pin(async {
//!             ListPromptsResult::from_value(json!({ "prompts": [{ "name": "greet" }] }))
//!                 .map_err(|e| ErrorObject::internal_error(e.to_string()))
//!         })
//!     }
//!
//!     fn get_prompt(
//!         &self,
//!         params: GetPromptRequestParams,
//!         _cx: CallContext,
//!     ) -> BoxFuture<'_, Result<GetPromptResult, ErrorObject>> {
//!         Box::pin(async move {
//!             if params.name != "greet" {
//!                 return Err(unknown_prompt(&params.name));
//!             }
//!             GetPromptResult::from_value(json!({ "messages": [{ "role": "user",
//!                 "content": { "type": "text", "text": "Say hello." } }] }))
//!             .map_err(|e| ErrorObject::internal_error(e.to_string()))
//!         })
//!     }
//! }
//!
//! let info = Implementation::from_value(json!({ "name": "demo", "version": "1.0.0" }))?;
//! let server = Server::new(Composition::default(), ServerConfig::new(info))
//!     .with_prompts(Arc::new(Greeting))
//!     .with_logging();
//! // The handshake now advertises exactly tools, prompts and logging.
//! let era = mcp_local_server::lifecycle::Negotiated::Handshake(
//!     mcp_proto::Revision::LATEST_WITH_HANDSHAKE,
//! );
//! assert_eq!(
//!     serde_json::to_value(server.capabilities(era))?,
//!     json!({ "tools": {}, "prompts": {}, "logging": {} })
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use mcp_proto::FromValue;
use mcp_proto::{
    CompleteRequestParams, CompleteResult, ErrorObject, GetPromptRequestParams, GetPromptResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ReadResourceRequestParams,
    ReadResourceResult, Root, error_code,
};
use serde_json::json;
use tokio::sync::broadcast;

use crate::source::{BoxFuture, CallContext};

/// Where a server's resources come from (MCP 2025-11-25 server/resources).
///
/// `resources/list`, `resources/templates/list` and `resources/read` are
/// routed here. A source that can tell when a resource changes returns
/// [`ResourceUpdates`] from [`updates`](Self::updates): the server then
/// advertises `resources.subscribe`, answers `resources/subscribe` and
/// `resources/unsubscribe`, and sends `notifications/resources/updated` for
/// the subscribed URIs of each connection.
pub trait ResourceSource: Send + Sync {
    /// One page of the direct resources (not templates). `cursor` is the
    /// `nextCursor` of the previous page, `None` for the first; an unknown
    /// cursor is -32602.
    fn list_resources(
        &self,
        cursor: Option<String>,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourcesResult, ErrorObject>>;

    /// One page of the resource templates (RFC 6570 URI templates). The
    /// default lists none.
    fn list_resource_templates(
        &self,
        cursor: Option<String>,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourceTemplatesResult, ErrorObject>> {
        let _ = (cursor, cx);
        Box::pin(async { Ok(ListResourceTemplatesResult::default()) })
    }

    /// The contents of `params.uri`. A URI the source does not know is
    /// [`resource_not_found`] (-32002).
    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<ReadResourceResult, ErrorObject>>;

    /// Whether `uri` names a resource of this source, asked before a
    /// `resources/subscribe` is accepted: `Ok(())`, or
    /// [`resource_not_found`] (-32002) for a URI the source does not know,
    /// as `resources/read` answers it (MCP 2025-11-25 server/resources,
    /// error handling). The default reads the resource and drops its
    /// contents; a source with a cheaper test overrides it.
    fn check_resource(&self, uri: &str, cx: CallContext) -> BoxFuture<'_, Result<(), ErrorObject>> {
        let params = ReadResourceRequestParams::from_value(json!({ "uri": uri }));
        Box::pin(async move {
            let params = params
                .map_err(|e| ErrorObject::invalid_params(format!("resources/subscribe: {e}")))?;
            self.read_resource(params, cx).await.map(|_| ())
        })
    }

    /// The change feed of this source's resources, when it has one; `None`
    /// (the default) means subscriptions are not supported.
    fn updates(&self) -> Option<&ResourceUpdates> {
        None
    }
}

/// Where a server's prompts come from (MCP 2025-11-25 server/prompts).
pub trait PromptSource: Send + Sync {
    /// One page of the prompts. `cursor` as for
    /// [`ResourceSource::list_resources`].
    fn list_prompts(
        &self,
        cursor: Option<String>,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<ListPromptsResult, ErrorObject>>;

    /// The messages of prompt `params.name` with `params.arguments` filled
    /// in. An unknown name is [`unknown_prompt`] (-32602), a missing
    /// required argument -32602.
    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<GetPromptResult, ErrorObject>>;
}

/// Argument completion for prompts and resource templates (MCP 2025-11-25
/// server/utilities/completion).
pub trait CompletionSource: Send + Sync {
    /// Suggestions for `params.argument` of `params.reference`
    /// (`{"type": "ref/prompt", "name"}` or
    /// `{"type": "ref/resource", "uri"}`), at most 100 values.
    fn complete(
        &self,
        params: CompleteRequestParams,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<CompleteResult, ErrorObject>>;
}

/// Receives the client's roots (MCP 2025-11-25 client/roots), registered
/// with [`Server::with_roots_listener`](crate::Server::with_roots_listener).
///
/// When the client declared the `roots` capability in `initialize`, the
/// server sends `roots/list` after `notifications/initialized` and again on
/// each `notifications/roots/list_changed`, and hands every answer here. A
/// fetch that fails (client error, timeout) is logged and changes nothing.
/// Over HTTP every session reports its own client's roots to the same
/// listener, so the latest answer from any session wins.
pub trait RootsListener: Send + Sync {
    /// The client's roots, as its latest `roots/list` result listed them.
    fn roots_changed(&self, roots: Vec<Root>);

    /// The client's first roots are as known as they will be: its first
    /// `roots/list` was answered (after [`roots_changed`](Self::roots_changed))
    /// or failed, or it declared no `roots` capability. Nothing by default.
    fn roots_settled(&self) {}
}

/// A resource source's change feed: [`notify`](Self::notify) a URI and every
/// connection subscribed to it gets `notifications/resources/updated`.
///
/// Cloning shares the feed. A connection that falls more than 256 changes
/// behind skips the ones it missed (logged).
#[derive(Debug, Clone)]
pub struct ResourceUpdates {
    tx: broadcast::Sender<String>,
}

impl Default for ResourceUpdates {
    fn default() -> Self {
        Self::new()
    }
}

impl ResourceUpdates {
    /// A feed nobody listens to yet.
    pub fn new() -> Self {
        let (tx, _) = broadcast::channel(256);
        Self { tx }
    }

    /// Announces that the resource at `uri` changed. Returns how many
    /// connections were listening (subscribed or not).
    pub fn notify(&self, uri: impl Into<String>) -> usize {
        self.tx.send(uri.into()).unwrap_or(0)
    }

    /// A receiver of every URI announced from now on.
    pub fn listen(&self) -> broadcast::Receiver<String> {
        self.tx.subscribe()
    }
}

/// The error for a resource URI no source knows: -32002 with the URI in
/// `data` (MCP 2025-11-25 server/resources, error handling).
pub fn resource_not_found(uri: &str) -> ErrorObject {
    ErrorObject::new(
        error_code::RESOURCE_NOT_FOUND,
        format!("resource not found: {uri}"),
    )
    .with_data(json!({ "uri": uri }))
}

/// The error for a prompt name no source knows: -32602 with the name in
/// `data` (MCP 2025-11-25 server/prompts, error handling).
pub fn unknown_prompt(name: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("unknown prompt: {name:?}"))
        .with_data(json!({ "prompt": name }))
}
