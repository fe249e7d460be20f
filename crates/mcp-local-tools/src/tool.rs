//! The trait a local tool implements.

use std::future::Future;
use std::pin::Pin;

use mcp_proto::{CallToolResult, Tool};
use serde_json::{Map, Value};

use crate::context::ToolContext;

/// The future a [`LocalTool::call`] returns.
pub type CallFuture<'a> = Pin<Box<dyn Future<Output = CallToolResult> + Send + 'a>>;

/// One local tool (HIP-0300 §2.1): an MCP tool named for its area that takes
/// an `action` and that action's fields.
///
/// A failure (bad arguments, a path outside the roots, a missing file) is a
/// `CallToolResult` with `isError: true` and a one-line message, never a
/// panic (MCP 2025-11-25 server/tools, "Error Handling").
pub trait LocalTool: Send + Sync + 'static {
    /// The tool's name as `tools/list` shows it (`fs`, `code`, `workspace`).
    fn name(&self) -> &'static str;

    /// The tool's definition for `tools/list`: input schema derived from the
    /// Rust argument type (schemars), honest annotations.
    fn definition(&self) -> Tool;

    /// Runs one call. `arguments` is `params.arguments` of `tools/call`
    /// (an empty map when absent).
    fn call<'a>(&'a self, arguments: Map<String, Value>, ctx: ToolContext) -> CallFuture<'a>;

    /// How long one call of this tool may run, when the tool bounds its
    /// calls itself (for example `exec` with its `timeout_ms`, up to 600 s).
    /// [`crate::Toolbox::call`] then waits up to the larger of this and its
    /// own bound. Default `None`: the toolbox's bound alone.
    fn time_limit(&self) -> Option<std::time::Duration> {
        None
    }

    /// The tool's actions, each with whether the `review` mode may use it
    /// (it changes no file, process or state, has no capability that
    /// changes something, and the tool runs no programs: see
    /// [`crate::Capability`]), in `help` order; aliases not included. The
    /// `mode` tool's `review` preset is built from this. Default: none (a
    /// tool without actions).
    fn actions(&self) -> Vec<(&'static str, bool)> {
        Vec::new()
    }

    /// The other names the tool's actions answer to (the action names of
    /// Hanzo's other servers, such as `fs` `stat` for `info`), each as
    /// `(alias, action)`, in `help` order. Gating reads an allowlist entry
    /// or a call that uses an alias as the action it names. Default: none.
    fn action_aliases(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
    }

    /// The tool's rows of the capability table: every action (`help`
    /// included, with no capability) with its aliases and what it can do,
    /// in `help` order. Default: none (a tool without actions).
    fn capabilities(&self) -> Vec<crate::capability::ActionCapabilities> {
        Vec::new()
    }
}
