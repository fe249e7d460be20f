//! Per-server tool allowlists for MCP (an agent's `allowedTools`: `null`, or
//! a map from server name to the tools it may use): expose only a subset of
//! each server's tools to an agent, and make sure what is not exposed cannot
//! be called.
//!
//! The core, [`resolve_allowed_tools`], is a pure filter over anything with a
//! tool name ([`ToolName`]); [`Policy`] layers fail-open or deny-by-default on
//! it; [`GatedSurface`] applies a configuration to one tool source, narrows
//! `"<tool>:<op>"` entries in the tool's schema, and decides whether a call
//! is routed to that source (docs/ARCHITECTURE.md, "Gating"; HIP-0300 §1.3).
//!
//! # Example: one server's tools
//!
//! A configuration is JSON `null` (no filtering) or an object mapping server
//! names to lists of tool names. A server the map does not name keeps all its
//! tools (fail-open per server); `[]` denies everything.
//!
//! ```
//! use mcp_gating::{resolve_allowed_tools, AllowedTools};
//!
//! let config: AllowedTools =
//!     serde_json::from_str(r#"{"workflow": ["signal_state_transition"], "shell": []}"#)?;
//! let workflow = ["create_issue", "signal_state_transition", "merge_pull_request"];
//!
//! assert_eq!(
//!     resolve_allowed_tools(workflow, &config, "workflow"),
//!     ["signal_state_transition"]
//! );
//! assert!(resolve_allowed_tools(["exec"], &config, "shell").is_empty());
//! assert_eq!(resolve_allowed_tools(["search"], &config, "knowledge"), ["search"]);
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # Example: deny-by-default
//!
//! ```
//! use mcp_gating::{AllowedTools, Policy};
//!
//! let config = AllowedTools::from_servers([("workflow", ["signal_state_transition"])])?;
//! assert!(Policy::DenyByDefault.resolve(["search"], &config, "knowledge").is_empty());
//! assert_eq!(Policy::FailOpen.resolve(["search"], &config, "knowledge"), ["search"]);
//! # Ok::<(), mcp_gating::ConfigError>(())
//! ```
//!
//! # Example: gating a source for routing
//!
//! A server builds one [`GatedSurface`] per source (`local`, `door`) before
//! it merges their lists, lists [`GatedSurface::tools`], and asks
//! [`GatedSurface::check_call`] (or [`route_call`] over all surfaces) where a
//! `tools/call` goes. Here the door has two grouped tools and `describe`, and
//! the worker may only read invoices:
//!
//! ```
//! use mcp_gating::{
//!     AllowedTools, CallDecision, GatedSurface, OpArg, OpTool, Policy, SurfaceRules, ToolName,
//!     route_call,
//! };
//!
//! /// A grouped tool: a name and the values of its `op` enum.
//! #[derive(Clone, Debug, PartialEq)]
//! struct Grouped(&'static str, Vec<&'static str>);
//!
//! impl ToolName for Grouped {
//!     fn tool_name(&self) -> &str {
//!         self.0
//!     }
//! }
//!
//! impl OpTool for Grouped {
//!     fn op_values(&self, _discriminator: &str) -> Option<Vec<String>> {
//!         Some(self.1.iter().map(|op| op.to_string()).collect())
//!     }
//!     fn with_ops_narrowed(&self, _discriminator: &str, keep: &dyn Fn(&str) -> bool) -> Self {
//!         Grouped(self.0, self.1.iter().copied().filter(|op| keep(op)).collect())
//!     }
//! }
//!
//! let door_tools = [
//!     Grouped("describe", vec![]),
//!     Grouped("billing", vec!["get_invoice", "refund_invoice"]),
//!     Grouped("git", vec!["create_repo"]),
//! ];
//! let config: AllowedTools =
//!     serde_json::from_str(r#"{"door": ["describe", "billing:get_invoice"]}"#)?;
//! let door = GatedSurface::new("door", &door_tools, &config, Policy::FailOpen, SurfaceRules::door());
//!
//! // Listed: describe, and billing with its enum narrowed; git is gone.
//! assert_eq!(door.tools(), [Grouped("describe", vec![]), Grouped("billing", vec!["get_invoice"])]);
//! // The input was not changed.
//! assert_eq!(door_tools[1], Grouped("billing", vec!["get_invoice", "refund_invoice"]));
//!
//! let permitted = CallDecision::Permitted;
//! assert_eq!(door.check_call("billing", OpArg::Value("get_invoice")), permitted);
//! assert_eq!(door.check_call("get_invoice", OpArg::Absent), permitted); // the op's own name
//! assert_eq!(door.check_call("describe", OpArg::Value("get_invoice")), permitted);
//! // Refused: answer -32602 as for an unknown tool; never forward.
//! assert!(matches!(door.check_call("billing", OpArg::Value("refund_invoice")), CallDecision::Refused(_)));
//! assert!(matches!(door.check_call("describe", OpArg::Value("refund_invoice")), CallDecision::Refused(_)));
//! // Not owned: the next source may own it; if none does, -32602.
//! assert_eq!(door.check_call("git", OpArg::Value("create_repo")), CallDecision::NotOwned);
//! assert_eq!(door.check_call("refund_invoice", OpArg::Absent), CallDecision::NotOwned);
//!
//! // Ungated (null), the door owns every name, listed or not.
//! let open = GatedSurface::new("door", &door_tools, &AllowedTools::unrestricted(), Policy::FailOpen, SurfaceRules::door());
//! assert_eq!(open.check_call("anything_else", OpArg::Absent), permitted);
//!
//! // Routing over all sources in order: local first, then the door.
//! let local_tools = [Grouped("fs", vec!["read", "write"]), Grouped("git", vec!["status"])];
//! let local = GatedSurface::new("local", &local_tools, &config, Policy::FailOpen, SurfaceRules::local());
//! let sources = [local, door];
//! let route = |name: &str, op: &'static str| route_call(&sources, name, |_| OpArg::Value(op));
//! assert_eq!(route("git", "status"), Some(0)); // local is not named in the config: open
//! assert_eq!(route("billing", "get_invoice"), Some(1));
//! assert_eq!(route("billing", "refund_invoice"), None); // -32602, never forwarded
//! assert_eq!(route("agents", "list"), None); // the gated door does not own it
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! # The contract for a server
//!
//! Per source, whenever its list is (re)read: `GatedSurface::new(source,
//! &tools, &allowed, policy, rules)`, with `SurfaceRules::local()` for `local`
//! and `SurfaceRules::door()` for `door`. Then:
//!
//! - `tools/list`: each surface's [`GatedSurface::tools`], merged in source
//!   order (first name wins);
//! - `tools/call`: ask the surfaces in order ([`GatedSurface::check_call`],
//!   or `check_call_params` with feature `proto`, or [`route_call`] for the
//!   whole walk): [`CallDecision::Permitted`] → call that source;
//!   [`CallDecision::NotOwned`] → ask the next; [`CallDecision::Refused`] or
//!   no owner → the unknown-tool error (-32602), sent to no source;
//! - at start: warn about [`GatedSurface::unmatched_entries`].
//!
//! # Configuration in TOML
//!
//! The same shape deserializes from a TOML table (`local = ["fs"]`,
//! `door = []`); TOML has no `null`, so a missing `#[serde(default)]` field of
//! type [`AllowedTools`] stands for it. Malformed entries (`""`, `":op"`,
//! `"tool:"`, `"a:b:c"`) and a repeated server are errors that name the
//! server and the entry ([`ConfigError`]).
//!
//! # Cargo features
//!
//! - `proto` (off by default): implements [`ToolName`] and [`OpTool`] for
//!   `mcp_proto::Tool` (reading and narrowing the discriminator in its
//!   `inputSchema`), and adds `OpArg::from_arguments` and
//!   `GatedSurface::check_call_arguments` for `tools/call` arguments. Pulls
//!   in `mcp-proto` (and `serde_json`, which mcp-proto already uses).
//!
//! Without features the only dependency is `serde`.
#![deny(missing_docs)]

mod config;
mod error;
mod hash;
mod policy;
#[cfg(feature = "proto")]
mod proto;
mod resolve;
#[cfg(any(feature = "proto", test))]
mod schema;
mod surface;
mod tool;

pub use config::{AllowedTools, Entry, ServerAllowlist, ToolGrant};
pub use error::ConfigError;
pub use policy::{Grant, Policy};
pub use resolve::{resolve_allowed_tools, unmatched_entries};
pub use surface::{
    CallDecision, GatedSurface, Mismatch, OpArg, Refusal, SurfaceRules, UnmatchedEntry, route_call,
};
pub use tool::{OpTool, ToolName};
