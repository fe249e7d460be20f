//! Shared by the test modules: a tool type (a name and, optionally, its
//! discriminator's values), configurations from JSON, and the fail-open
//! surfaces of a door and of a local toolbox.

use mcp_gating::{AllowedTools, GatedSurface, OpTool, Policy, SurfaceRules, ToolName};

/// A grouped tool (`Some(ops)`) or a tool without declared values (`None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestTool {
    pub name: String,
    pub ops: Option<Vec<String>>,
}

impl ToolName for TestTool {
    fn tool_name(&self) -> &str {
        &self.name
    }
}

impl OpTool for TestTool {
    fn op_values(&self, _discriminator: &str) -> Option<Vec<String>> {
        self.ops.clone()
    }

    fn with_ops_narrowed(&self, _discriminator: &str, keep: &dyn Fn(&str) -> bool) -> Self {
        Self {
            name: self.name.clone(),
            ops: self
                .ops
                .as_ref()
                .map(|ops| ops.iter().filter(|op| keep(op)).cloned().collect()),
        }
    }
}

/// A grouped tool with these ops.
pub fn grouped(name: &str, ops: &[&str]) -> TestTool {
    TestTool {
        name: name.to_owned(),
        ops: Some(ops.iter().map(|op| op.to_string()).collect()),
    }
}

/// A tool that declares no discriminator values.
pub fn plain(name: &str) -> TestTool {
    TestTool {
        name: name.to_owned(),
        ops: None,
    }
}

/// A configuration from the test's own JSON.
pub fn config(json: &str) -> AllowedTools {
    serde_json::from_str(json).expect("test configuration parses")
}

/// The door's surface (`door`, [`SurfaceRules::door`]) under `allowed`, fail-open.
pub fn door_surface<T: OpTool>(tools: &[T], allowed: &AllowedTools) -> GatedSurface<T> {
    GatedSurface::new(
        "door",
        tools,
        allowed,
        Policy::FailOpen,
        SurfaceRules::door(),
    )
}

/// A local toolbox's surface (`local`, [`SurfaceRules::local`]) under
/// `allowed`, fail-open.
pub fn local_surface<T: OpTool>(tools: &[T], allowed: &AllowedTools) -> GatedSurface<T> {
    GatedSurface::new(
        "local",
        tools,
        allowed,
        Policy::FailOpen,
        SurfaceRules::local(),
    )
}
