//! A tool type for tests: a name and, optionally, its discriminator's values.

use mcp_gating::{OpTool, ToolName};

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
#[allow(dead_code)]
pub fn plain(name: &str) -> TestTool {
    TestTool {
        name: name.to_owned(),
        ops: None,
    }
}
