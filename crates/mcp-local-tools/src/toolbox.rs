//! The trait a local tool implements, and the toolbox that holds them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_proto::{CallToolResult, Tool};
use serde_json::{Map, Value};

use crate::context::{Surroundings, ToolContext};

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
}

/// An ordered set of local tools, looked up by name.
#[derive(Clone, Default)]
pub struct Toolbox {
    tools: Vec<Arc<dyn LocalTool>>,
    surroundings: Surroundings,
}

impl std::fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Toolbox")
            .field(
                "tools",
                &self.tools.iter().map(|t| t.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Toolbox {
    /// An empty toolbox.
    pub fn new() -> Toolbox {
        Toolbox::default()
    }

    /// Every tool whose Cargo feature is on, in the order `fs`, `code`,
    /// `workspace`.
    pub fn with_default_tools() -> Toolbox {
        #[allow(unused_mut)]
        let mut toolbox = Toolbox::new();
        #[cfg(feature = "fs")]
        toolbox.add(crate::fs::FsTool::new());
        #[cfg(feature = "code")]
        toolbox.add(crate::code::CodeTool::new());
        #[cfg(feature = "workspace")]
        {
            let workspace = crate::workspace::WorkspaceTool::new(toolbox.surroundings());
            toolbox.add(workspace);
        }
        toolbox
    }

    /// Adds `tool`; a tool with the same name replaces the earlier one in
    /// its place.
    pub fn add(&mut self, tool: impl LocalTool) -> &mut Toolbox {
        let tool: Arc<dyn LocalTool> = Arc::new(tool);
        self.surroundings.add_tool(tool.name());
        match self.tools.iter_mut().find(|t| t.name() == tool.name()) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
        self
    }

    /// The tools' definitions, in the order they were added.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools.iter().map(|t| t.definition()).collect()
    }

    /// The tool named `name`, if any.
    pub fn get(&self, name: &str) -> Option<Arc<dyn LocalTool>> {
        self.tools.iter().find(|t| t.name() == name).cloned()
    }

    /// The names of the tools, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// The shared facts tools may report (door status, tool names); the
    /// server sets the door with [`Surroundings::set_door`].
    pub fn surroundings(&self) -> Surroundings {
        self.surroundings.clone()
    }

    /// Calls the tool `name`; `None` when there is no such tool (the server
    /// answers that with JSON-RPC -32602).
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        ctx: ToolContext,
    ) -> Option<CallToolResult> {
        let tool = self.get(name)?;
        Some(tool.call(arguments, ctx).await)
    }
}
