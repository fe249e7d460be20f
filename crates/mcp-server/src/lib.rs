//! `hanzo-mcp`, the local MCP server of HIP-0300 §2, as a library: tool
//! sources composed in order, a lifecycle that speaks every revision from
//! 2024-11-05 to 2026-07-28, and a concurrent stdio transport.
//!
//! The binary is a thin user of this crate; runtimes that embed the server
//! build a [`Composition`] of [`ToolSource`]s and either call
//! [`Server::serve`] on a byte stream or drive a session message by
//! message with [`Server::connect`].
//!
//! # Layers
//!
//! - [`source`]: a tool source lists and calls tools; a [`Composition`]
//!   merges lists first-wins and routes a call to the first owner.
//! - [`lifecycle`]: the `initialize` handshake and the stateless
//!   `server/discover` style, decided per request.
//! - [`server`]: the server's settings and sources, and [`Server::serve`]
//!   for one newline-delimited connection; each connection is a session
//!   (parsed messages in, tagged messages out) whose concerns live one to
//!   a file: dispatch by method type, the handshake, requests in flight
//!   and their bound, tools, resources and prompts, subscriptions, roots.
//! - [`connection`]: a session's ends as messages ([`Server::connect`]),
//!   which the stdio and HTTP transports adapt and an embedder's own
//!   transport can use.
//! - [`features`]: resources, prompts and completions, each a trait
//!   registered on the [`Server`] ([`ResourceSource`], [`PromptSource`],
//!   [`CompletionSource`]).
//! - [`logging`]: `notifications/message` filtered by the client's level.
//! - [`peer`]: requests from the server to the client (sampling,
//!   elicitation, roots), answered by id.
//! - [`http`]: the streamable HTTP transport, an axum router over the same
//!   dispatch as stdio.
//! - [`local`], [`door`], [`gated`]: the sources `hanzo-mcp` composes: the
//!   local toolbox, the door (HIP-0300 §2.2), and an `allowedTools` view of
//!   either (gating per source, before the merge).
//! - [`client_roots`]: the local toolbox confined to the client's MCP roots
//!   when no `--root` is given.
//! - [`assembly`]: the composition `hanzo-mcp` serves, built from
//!   [`assembly::Options`].
//! - [`cli`]: the `hanzo-mcp` command line, which only parses arguments.
//!
//! # Example: a server with one tool of your own
//!
//! A [`ToolSource`] lists its tools and answers calls to the names it owns.
//! A [`Server`] over a [`Composition`] of sources runs one session per
//! connection: [`Server::connect`] gives its ends as messages
//! ([`Connection`]), which any transport can carry; [`Server::serve`] is
//! the stdio transport over the same session (`tokio::io::stdin()` and
//! `stdout()`, or any byte stream). The wire types come from
//! [`mcp_proto`], re-exported here.
//!
//! ```
//! use std::sync::Arc;
//! use mcp_local_server::mcp_proto::{
//!     CallToolResult, Implementation, InitializeRequestParams, InitializeResult, Message,
//!     Request, Tool, methods,
//! };
//! use mcp_local_server::source::{BoxFuture, CallRequest, ToolCall, result_text, unknown_tool};
//! use mcp_local_server::{
//!     CallContext, Composition, Incoming, Server, ServerConfig, SourceList, ToolSource,
//! };
//! use serde_json::{Value, json};
//!
//! struct Echo;
//!
//! impl ToolSource for Echo {
//!     fn name(&self) -> &str {
//!         "echo-source"
//!     }
//!     fn list_tools(&self) -> BoxFuture<'_, SourceList> {
//!         let tool: Tool = serde_json::from_value(json!({
//!             "name": "echo",
//!             "description": "Returns its `text` argument.",
//!             "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}
//!         }))
//!         .expect("a valid tool");
//!         Box::pin(async move { SourceList { tools: vec![tool], meta: None } })
//!     }
//!     fn owns(&self, tool: &str) -> bool {
//!         tool == "echo"
//!     }
//!     fn call_tool(&self, call: CallRequest, _cx: CallContext) -> ToolCall<'_> {
//!         Box::pin(async move {
//!             if call.name() != "echo" {
//!                 return Err(unknown_tool(call.name()));
//!             }
//!             // The params as the caller wrote them, decoded on demand.
//!             let params = call.params()?;
//!             let text = params
//!                 .arguments
//!                 .as_ref()
//!                 .and_then(|a| a.get("text"))
//!                 .and_then(Value::as_str)
//!                 .unwrap_or_default();
//!             result_text(&CallToolResult::text(text))
//!         })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let composition = Composition::new(vec![Arc::new(Echo)]);
//! let server = Arc::new(Server::new(
//!     composition,
//!     ServerConfig::new(Implementation::new("my-server", "1.0.0")),
//! ));
//! let mut connection = server.connect();
//!
//! // Typed messages (a stateless 2026-07-28 client skips `initialize`).
//! let initialize = Request::typed::<methods::Initialize>(1, &InitializeRequestParams {
//!     protocol_version: "2025-11-25".into(),
//!     client_info: Implementation::new("example", "0"),
//!     ..Default::default()
//! }).unwrap();
//! connection.send(Message::Request(initialize)).await.unwrap();
//! let Message::Response(init) = connection.recv().await.unwrap().message().unwrap() else {
//!     panic!("a response");
//! };
//! let init: InitializeResult = init.parse_result().unwrap();
//! assert_eq!(init.protocol_version, "2025-11-25");
//! assert_eq!(init.server_info.name, "my-server");
//!
//! // Or text, parsed by the session as a transport's bytes would be.
//! for message in [
//!     json!({"jsonrpc": "2.0", "method": methods::Initialized::NAME}),
//!     json!({"jsonrpc": "2.0", "id": 2, "method": methods::CallTool::NAME,
//!         "params": {"name": "echo", "arguments": {"text": "hello"}}}),
//! ] {
//!     connection.send(Incoming::Text(message.to_string().into_bytes())).await.unwrap();
//! }
//! let call = connection.recv().await.unwrap();
//! assert_eq!(call.bytes, br#"{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello"}]}}"#);
//!
//! // Dropping the input ends the session; its output then ends too.
//! let (input, mut output) = connection.split();
//! drop(input);
//! assert!(output.recv().await.is_none());
//! # }
//! ```
#![deny(missing_docs)]

/// The MCP wire types this crate speaks (the `mcp-proto` crate).
pub use mcp_proto;

pub mod assembly;
#[doc(hidden)]
pub mod cli;
pub mod client_roots;
pub mod config;
pub mod connection;
mod deferred_door;
pub mod doctor;
pub mod door;
pub mod error;
pub mod features;
pub use mcp_sources::gated;
#[cfg(feature = "http")]
pub mod http;
pub mod install;
pub mod lifecycle;
pub mod local;
pub mod logging;
mod mode_view;
pub mod mounted;
mod outbox;
pub mod peer;
pub mod programs;
pub mod progress;
pub mod server;
mod session;
pub use mcp_sources::source;
mod stdio;
#[cfg(feature = "test-tools")]
pub mod test_tools;

pub use connection::{Connection, ConnectionInput, ConnectionOutput, Incoming, SessionEnded};
pub use error::ServerError;
pub use features::{
    CompletionSource, PromptSource, ResourceSource, ResourceUpdates, RootsListener,
};
pub use logging::Logger;
pub use outbox::{Kind, Outgoing};
pub use peer::Peer;
pub use server::{Server, ServerConfig};
pub use source::{CallContext, Composition, SourceList, ToolSource};
