//! MCP tool sources and their composition, without a transport.
//!
//! A [`ToolSource`] lists its tools and calls one. A [`Composition`] holds
//! sources in order: their lists are merged first-wins by tool name, and a
//! call goes to the first source that owns the name, or that claims it
//! ([`ToolSource::claims`]: a mounted server's names stay its own while it
//! is down or has them gated out). Names can be reserved to one source
//! ([`Composition::reserve`]): the local toolbox's, in a server that also
//! forwards to a door (HIP-0300 §2.2, "a local name wins").
//!
//! # Gating
//!
//! A [`GatedSource`](gated::GatedSource) is a source seen through an
//! `allowedTools` allowlist (`mcp-gating`): the source's list after the
//! allowlist, and every call checked against it before it reaches the
//! source. Gating is per source, before the merge, so a tool gated out of
//! a source is routed as if the source never had it; one source's
//! allowlist entry never changes another's surface. `"<tool>:<value>"`
//! entries allow one value of the tool's discriminator argument (`action`,
//! `op`), narrowing the listed schema's enum too.
//!
//! # Other MCP servers
//!
//! With the feature `mount` (default), a
//! [`MountedSource`](mounted::MountedSource) is another MCP server as a
//! source: a child process over stdio or a streamable HTTP endpoint,
//! kept running by `mcp-mount`, its calls passed through byte for byte, its
//! progress relayed under the caller's own token, its `roots/list`
//! answered from a function you give, its sampling and elicitation
//! requests sent to the client of a call in flight that offers them.
//!
//! # Example: an agent runtime's registry of two gated servers
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use mcp_gating::{AllowedTools, Policy};
//! use mcp_sources::gated::GatedSource;
//! use mcp_sources::mounted::MountedSource;
//! use mcp_sources::{CallContext, CallRequest, Composition, ToolSource};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let allowed: Arc<AllowedTools> =
//!     Arc::new(serde_json::from_str(r#"{"github": ["get_issue"]}"#)?);
//! let mount = |name: &str, command: &str, args: &[&str]| -> Arc<dyn ToolSource> {
//!     let spec = mcp_mount::MountSpec {
//!         name: name.into(),
//!         transport: mcp_mount::Transport::Stdio(mcp_mount::StdioServer {
//!             command: command.into(),
//!             args: args.iter().map(|a| a.to_string()).collect(),
//!             ..Default::default()
//!         }),
//!     };
//!     let source = Arc::new(MountedSource::start(
//!         spec,
//!         mcp_mount::Limits::default(),
//!         Duration::from_secs(10),
//!         "action",
//!         Arc::new(Vec::new),
//!         mcp_proto::Implementation::new("my-agent", "1.0.0"),
//!     ));
//!     let rules = source.surface_rules();
//!     Arc::new(GatedSource::new(source, &[], allowed.clone(), Policy::FailOpen, rules))
//! };
//! let tools = Composition::new(vec![
//!     mount("knowledge-base", "kb-mcp", &[]),
//!     mount("github", "github-mcp-server", &["stdio"]),
//! ]);
//! for tool in tools.list_tools().await.tools {
//!     println!("{}", tool.name);
//! }
//! let call = CallRequest::new(serde_json::value::RawValue::from_string(
//!     r#"{"name":"get_issue","arguments":{"owner":"o","repo":"r","issue_number":1}}"#.into(),
//! )?)?;
//! let result = tools.call_tool(call, CallContext::default()).await?;
//! println!("{}", result.get());
//! # Ok(()) }
//! ```

#![deny(missing_docs)]

mod context;
pub mod gated;
#[cfg(feature = "mount")]
pub mod mounted;
pub mod source;

pub use context::{
    ClientLog, ClientRequests, NotificationSink, ProgressReporter, relaying_progress,
};
pub use source::{
    BoxFuture, CallContext, CallRequest, Composition, MergedList, SourceList, SourceRun, ToolCall,
    ToolSource, result_text, unknown_tool,
};
