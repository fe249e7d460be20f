//! The `workspace` tool on real folders, exact outputs.

use crate::common::{Sandbox, assert_outside_roots, call, toolbox_result};
use mcp_local_tools::{DoorReport, ToolContext, Toolbox};
use serde_json::json;

#[tokio::test]
async fn detect_projects_and_languages() {
    let s = Sandbox::new();
    s.write("Cargo.toml", "[workspace]\n");
    s.write("crates/a/Cargo.toml", "[package]\n");
    s.write("crates/a/src/lib.rs", "");
    s.write("crates/a/src/main.rs", "");
    s.write("web/package.json", "{}");
    s.write("web/index.ts", "");
    s.write("tool.py", "");
    s.write(".gitignore", "target/\n");
    s.write("target/x.rs", "");
    std::fs::create_dir(s.root.join(".git")).unwrap();
    let root = s.root.to_string_lossy().into_owned();
    let r = call("workspace", &s.roots, json!({"action": "detect"})).await;
    assert_eq!(
        r,
        (
            false,
            format!(
                "roots:\n  {root}\ndirectory: .\ngit root: {root}\nprojects:\n  rust: Cargo.toml\n  rust: crates/a/Cargo.toml\n  node: web/package.json\nlanguages (7 files counted):\n  Rust: 2\n  TOML: 2\n  JSON: 1\n  Python: 1\n  TypeScript: 1\n"
            )
        )
    );
}

#[tokio::test]
async fn detect_refuses_outside() {
    let s = Sandbox::new();
    let detect = json!({"action": "detect", "path": ".."});
    assert_outside_roots(&s.tool("workspace").call(detect).await);
}

#[tokio::test]
async fn capabilities_report_tools_roots_and_door_without_secrets() {
    let s = Sandbox::new();
    let toolbox = Toolbox::with_default_tools();
    let root = s.root.to_string_lossy().into_owned();
    let run = async |toolbox: Toolbox| {
        let ctx = ToolContext::new(s.roots.clone());
        let args = json!({"action": "capabilities"});
        let result = toolbox_result(&toolbox, "workspace", ctx, args).await;
        result.content[0].as_text().unwrap().to_owned()
    };
    assert_eq!(
        run(toolbox.clone()).await,
        format!(
            "local tools: fs, code, workspace, exec, git, fetch, ui, think, memory, plan, tasks\ncompiled features: fs, code, workspace, exec, git, fetch, ui, think, memory, plan, tasks, mode\nroots:\n  {root}\ndoor: none configured\n"
        )
    );
    toolbox.surroundings().set_door(Some(DoorReport {
        address: "https://key:s3cret@api.example.test/v1/mcp?token=abc".to_owned(),
        answered: Some(false),
        note: Some("connection refused".to_owned()),
    }));
    let text = run(toolbox.clone()).await;
    assert!(
        text.ends_with("door: https://api.example.test/v1/mcp (unavailable: connection refused)\n"),
        "{text}"
    );
    assert!(!text.contains("s3cret") && !text.contains("abc"));
}
