//! The official Rust SDK (rmcp) as the client of the real `hanzo-mcp`
//! binary: the 2025-11-25 `initialize` handshake and the 2026-07-28
//! `server/discover` lifecycle, each listing every tool and reading a file
//! the test wrote through `fs` `read`.

use std::path::Path;
use std::process::Stdio;

use rmcp::model::{CallToolRequestParams, ClientConfig, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::json;

const TEXT: &str = "first line\nsecond line: ünïcödé\n\nlast line\n";

fn spawn(root: &Path) -> TokioChildProcess {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
    command
        .arg("serve")
        .arg("--no-door")
        .arg("--root")
        .arg(root)
        .env("RUST_LOG", "warn");
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hanzo-mcp");
    transport
}

fn client_config() -> ClientConfig {
    let mut config = ClientConfig::default();
    config.protocol_version = ProtocolVersion::V_2025_11_25;
    config
}

/// Lists every tool and reads the file back through `fs` `read`.
async fn list_and_read(client: &RunningService<RoleClient, ClientConfig>, root: &Path) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    let expected: Vec<String> = mcp_local_tools::Toolbox::with_default_tools()
        .names()
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(names, expected);
    assert!(names.iter().any(|n| n == "fs"));

    let arguments = json!({ "action": "read", "path": root.join("note.txt") });
    let params = CallToolRequestParams::new("fs")
        .with_arguments(arguments.as_object().expect("object").clone());
    let result = client.call_tool(params).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(result.content.len(), 1);
    let text = result.content[0].as_text().expect("text content");
    assert_eq!(text.text, TEXT);
}

#[tokio::test]
async fn rmcp_client_with_the_2025_11_25_handshake() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("note.txt"), TEXT).expect("write");
    let client = client_config()
        .serve(spawn(root.path()))
        .await
        .expect("initialize handshake");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("hanzo-mcp")
    );
    assert!(info.capabilities.tools.is_some());
    list_and_read(&client, root.path()).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn rmcp_client_with_the_2026_07_28_discover_lifecycle() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("note.txt"), TEXT).expect("write");
    let client = client_config()
        .serve_with_lifecycle(
            spawn(root.path()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("server/discover");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("hanzo-mcp")
    );
    list_and_read(&client, root.path()).await;
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn rmcp_auto_lifecycle_picks_discover() {
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("note.txt"), TEXT).expect("write");
    let client = client_config()
        .serve_with_lifecycle(
            spawn(root.path()),
            ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        )
        .await
        .expect("auto lifecycle");
    let info = client.peer_info().expect("server info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    list_and_read(&client, root.path()).await;
    client.cancel().await.expect("close");
}

/// Calls `name` with `arguments` and returns the text of its one content
/// block; fails the test on an `isError` result.
async fn call_text(
    client: &RunningService<RoleClient, ClientConfig>,
    name: &'static str,
    arguments: serde_json::Value,
) -> String {
    let params = CallToolRequestParams::new(name)
        .with_arguments(arguments.as_object().expect("object").clone());
    let result = client.call_tool(params).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
    assert_eq!(result.content.len(), 1, "{name}: {result:?}");
    result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone()
}

#[tokio::test]
async fn rmcp_client_runs_one_action_of_each_local_tool() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical root");
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"demo\"\n").expect("write");
    std::fs::create_dir(root.join("src")).expect("mkdir");
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn alpha() {}\n\npub struct Beta;\n\nimpl Beta {\n    pub fn gamma(&self) {}\n}\n",
    )
    .expect("write");
    let client = client_config()
        .serve(spawn(&root))
        .await
        .expect("initialize handshake");

    let listed = call_text(&client, "fs", json!({ "action": "list", "path": "." })).await;
    assert_eq!(listed, "Cargo.toml\nsrc/\n");

    let outline = call_text(
        &client,
        "code",
        json!({ "action": "outline", "path": "src/lib.rs" }),
    )
    .await;
    assert_eq!(
        outline,
        "1: fn alpha\n3: struct Beta\n5: impl Beta\n  6: fn gamma\n"
    );

    let capabilities = call_text(&client, "workspace", json!({ "action": "capabilities" })).await;
    assert!(
        capabilities.starts_with(&format!(
            "local tools: fs, code, workspace, git\ncompiled features: fs, code, workspace, git\nroots:\n  {}\n",
            root.display()
        )),
        "{capabilities}"
    );
    client.cancel().await.expect("close");
}
