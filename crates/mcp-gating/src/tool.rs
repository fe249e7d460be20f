//! What the gating needs to know about a tool: its name, and for op-level
//! entries, the values of its discriminator.

use std::borrow::Cow;

/// Anything that has an MCP tool name (MCP 2025-11-25 server/tools, `Tool.name`).
///
/// Implemented for `str`, `String`, `Cow<str>`, references and boxes of
/// those, and (feature `proto`) `mcp_proto::Tool`, so the core works on plain
/// names as well as on full tool definitions.
pub trait ToolName {
    /// The tool's name, compared byte for byte with allowlist entries.
    fn tool_name(&self) -> &str;
}

impl ToolName for str {
    fn tool_name(&self) -> &str {
        self
    }
}

impl ToolName for String {
    fn tool_name(&self) -> &str {
        self
    }
}

impl ToolName for Cow<'_, str> {
    fn tool_name(&self) -> &str {
        self
    }
}

impl<T: ToolName + ?Sized> ToolName for &T {
    fn tool_name(&self) -> &str {
        (**self).tool_name()
    }
}

impl<T: ToolName + ?Sized> ToolName for Box<T> {
    fn tool_name(&self) -> &str {
        (**self).tool_name()
    }
}

/// A tool whose input may carry a discriminator (`op` for the door's grouped
/// subsystem tools, HIP-0300 §1.3; `action` for local tools), so that
/// `"<tool>:<op>"` entries can narrow it.
///
/// The provided methods describe a tool that declares no values (plain
/// names): nothing to narrow, and every op entry for it is taken on trust.
pub trait OpTool: ToolName + Clone {
    /// The values the tool's input schema declares for property
    /// `discriminator`, in schema order without repeats; `None` when the
    /// schema declares no such values (or there is no schema).
    fn op_values(&self, discriminator: &str) -> Option<Vec<String>> {
        let _ = discriminator;
        None
    }

    /// A new tool equal to `self` except that its input schema admits only
    /// the values of `discriminator` for which `keep` is true. `self` is left
    /// as it was; a tool without declared values comes back unchanged.
    fn with_ops_narrowed(&self, discriminator: &str, keep: &dyn Fn(&str) -> bool) -> Self {
        let _ = (discriminator, keep);
        self.clone()
    }
}

impl OpTool for String {}

impl OpTool for &str {}

impl OpTool for Cow<'_, str> {}
