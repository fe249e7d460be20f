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
//! - [`server`]: the connection loop: framing, concurrency, cancellation,
//!   progress, shutdown.
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
//! - [`cli`]: the `hanzo-mcp` command line.
#![deny(missing_docs)]

pub mod cli;
pub mod client_roots;
pub mod door;
pub mod error;
pub mod features;
mod framing;
pub mod gated;
pub mod http;
pub mod lifecycle;
pub mod local;
pub mod logging;
pub mod outbox;
pub mod peer;
pub mod progress;
pub mod server;
pub mod source;
pub mod test_tools;

pub use error::ServerError;
pub use features::{
    CompletionSource, PromptSource, ResourceSource, ResourceUpdates, RootsListener,
};
pub use logging::Logger;
pub use peer::Peer;
pub use server::{Server, ServerConfig};
pub use source::{CallContext, Composition, SourceList, ToolSource};
