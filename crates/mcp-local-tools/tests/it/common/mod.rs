//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use mcp_local_tools::{Roots, ToolContext, Toolbox};
use mcp_proto::CallToolResult;
use serde_json::Value;

/// Calls `tool` with `args` under `roots`; returns the whole result.
pub async fn call_result(tool: &str, roots: &Roots, args: Value) -> CallToolResult {
    let toolbox = Toolbox::with_default_tools();
    let Value::Object(map) = args else {
        panic!("args must be an object")
    };
    toolbox
        .call(tool, map, ToolContext::new(roots.clone()))
        .await
        .expect("tool exists")
}

/// Calls `tool` with `args` under `roots`; returns (isError, all text).
pub async fn call(tool: &str, roots: &Roots, args: Value) -> (bool, String) {
    let result = call_result(tool, roots, args).await;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<Vec<_>>()
        .join("");
    (result.is_error == Some(true), text)
}

/// Calls `tool` itself (not through a toolbox) with `args` in `ctx`;
/// returns (isError, all text, structuredContent or null).
pub async fn call_tool(
    tool: &dyn mcp_local_tools::LocalTool,
    ctx: ToolContext,
    args: Value,
) -> (bool, String, Value) {
    let Value::Object(map) = args else {
        panic!("args must be an object")
    };
    let result = tool.call(map, ctx).await;
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .collect::<String>();
    (
        result.is_error == Some(true),
        text,
        result.structured_content.unwrap_or(Value::Null),
    )
}

/// Calls `fs`.
pub async fn fs(roots: &Roots, args: Value) -> (bool, String) {
    call("fs", roots, args).await
}

/// A temp folder holding `root/`, `root_evil/` and `outside/` (with
/// `secret.txt` in the last two); the roots are `[root]`.
pub struct Sandbox {
    pub dir: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub roots: Roots,
}

impl Sandbox {
    #[allow(clippy::new_without_default)]
    pub fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("root");
        for d in ["root", "root_evil", "outside"] {
            std::fs::create_dir(base.join(d)).unwrap();
        }
        std::fs::write(base.join("outside/secret.txt"), "SECRET outside\n").unwrap();
        std::fs::write(base.join("root_evil/secret.txt"), "SECRET evil\n").unwrap();
        let roots = Roots::new(vec![root.clone()]).unwrap();
        Sandbox {
            dir,
            base,
            root,
            roots,
        }
    }

    pub fn write(&self, rel: &str, content: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, rel: impl AsRef<Path>) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    pub fn abs(&self, rel: &str) -> String {
        self.base.join(rel).to_string_lossy().into_owned()
    }
}
