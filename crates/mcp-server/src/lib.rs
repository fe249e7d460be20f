//! `hanzo-mcp`, the local MCP server of HIP-0300 §2, as a library: tool
//! sources composed in order, a lifecycle that speaks every revision from
//! 2024-11-05 to 2026-07-28, and a concurrent stdio transport.
//!
//! The binary is a thin user of this crate; runtimes that embed the server
//! build a [`Composition`] of [`ToolSource`]s and call [`Server::serve`].
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
//! A [`ToolSource`] lists its tools and answers calls to the names it owns;
//! a [`Server`] over a [`Composition`] of sources serves any byte stream
//! (here an in-memory pipe; `tokio::io::stdin()`/`stdout()` for stdio). The
//! wire types come from [`mcp_proto`], re-exported here.
//!
//! ```
//! use std::sync::Arc;
//! use mcp_local_server::mcp_proto::{CallToolResult, Implementation, Tool};
//! use mcp_local_server::source::{BoxFuture, CallRequest, ToolCall, result_text, unknown_tool};
//! use mcp_local_server::{CallContext, Composition, Server, ServerConfig, SourceList, ToolSource};
//! use serde_json::{Value, json};
//! use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
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
//! // One pipe each way: dropping the client's writing end ends the input.
//! let (mut client_out, server_in) = tokio::io::duplex(64 * 1024);
//! let (server_out, client_in) = tokio::io::duplex(64 * 1024);
//! let serving = tokio::spawn(server.serve(server_in, server_out, std::future::pending()));
//!
//! let mut lines = BufReader::new(client_in).lines();
//! for message in [
//!     json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
//!         "protocolVersion": "2025-11-25", "capabilities": {},
//!         "clientInfo": {"name": "example", "version": "0"}}}),
//!     json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
//!     json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
//!         "params": {"name": "echo", "arguments": {"text": "hello"}}}),
//! ] {
//!     client_out.write_all(format!("{message}\n").as_bytes()).await.unwrap();
//! }
//! let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
//! assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
//! let call: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
//! assert_eq!(call, json!({"jsonrpc": "2.0", "id": 2,
//!     "result": {"content": [{"type": "text", "text": "hello"}]}}));
//!
//! drop(client_out); // end of input: the server finishes and returns
//! serving.await.unwrap().unwrap();
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

pub use error::ServerError;
pub use features::{
    CompletionSource, PromptSource, ResourceSource, ResourceUpdates, RootsListener,
};
pub use logging::Logger;
pub use peer::Peer;
pub use server::{Server, ServerConfig};
pub use source::{CallContext, Composition, SourceList, ToolSource};
