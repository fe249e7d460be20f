//! Other MCP servers as tool sources: an MCP client of one server (a child
//! process over stdio, or a streamable HTTP endpoint) that keeps it
//! running and passes calls through unchanged.
//!
//! [`MountedServer::start`] connects in the background and returns at
//! once; [`MountedServer::tools_within`] waits a bounded time for the first
//! list; [`MountedServer::call_tool_raw`] sends a `tools/call` params text
//! as written and returns the server's `result` text as written (only
//! `_meta.progressToken` is replaced, by a token of the connection, so
//! progress of calls from many callers never mixes). What the server asks
//! of its client (`roots/list`, `sampling/createMessage`,
//! `elicitation/create`) goes to a [`ClientHandler`].
//!
//! A server that fails to start, exits, hangs on `initialize` or writes a
//! message longer than [`Limits::max_message_bytes`] costs one `tracing`
//! warning and its tools: calls in flight get an `isError` result naming
//! it, and it is started again after a backoff (0.5 s doubling to 30 s). A
//! child runs in a process group of its own, killed when the server is
//! unmounted, and (Linux) dies with its parent; its stderr is copied to
//! `tracing` one line at a time, prefixed with its name, at most 100 lines
//! per 10 s.
//!
//! Gating is not this crate's: an agent runtime puts a
//! `mcp_gating::GatedSurface` over [`MountedServer::tools`] and checks a
//! call against it before [`MountedServer::call_tool_raw`].
//!
//! # Example
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use mcp_mount::{Limits, MountSpec, MountedServer, NoClient, StdioServer, Transport};
//! use mcp_proto::Implementation;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let spec = MountSpec {
//!     name: "everything".into(),
//!     transport: Transport::Stdio(StdioServer {
//!         command: "npx".into(),
//!         args: vec!["-y".into(), "@modelcontextprotocol/server-everything".into()],
//!         ..StdioServer::default()
//!     }),
//! };
//! let me = Implementation::new("my-agent", "1.0.0");
//! let server = MountedServer::start(spec, Limits::default(), me, Arc::new(NoClient));
//! let tools = server.tools_within(Duration::from_secs(10)).await;
//! println!("{} tools", tools.len());
//! let params = serde_json::value::RawValue::from_string(
//!     r#"{"name":"echo","arguments":{"message":"hi"}}"#.to_owned(),
//! )?;
//! let result = server.call_tool_raw(&params, None).await?;
//! println!("{}", result.get());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

mod client;
mod http;
mod link;
pub mod spec;
mod stdio;
mod wire;

pub use client::{BoxFuture, ClientHandler, MountedServer, NoClient, Status};
pub use spec::{HttpServer, Limits, MountSpec, StdioServer, Transport, validate_name};
