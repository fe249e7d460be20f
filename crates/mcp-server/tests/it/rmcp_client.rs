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

use crate::common::{hanzo_mcp, local_names};

const TEXT: &str = "first line\nsecond line: ünïcödé\n\nlast line\n";

/// `hanzo-mcp <args>` with `env` (see `hanzo_mcp`), as rmcp's transport.
fn child(args: &[&str], env: &[(&str, &str)]) -> TokioChildProcess {
    let mut command = hanzo_mcp();
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let (transport, _stderr) = TokioChildProcess::builder(tokio::process::Command::from(command))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn hanzo-mcp");
    transport
}

/// `hanzo-mcp serve --no-door --root <root>`, with its state folder (`exec`
/// spools, the state database) in `state`.
fn spawn(root: &Path, state: &Path) -> TokioChildProcess {
    child(
        &["serve", "--no-door", "--root", utf8(root)],
        &[("HANZO_MCP_STATE", utf8(state))],
    )
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
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
    assert_eq!(names, local_names());
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

/// rmcp connects to `hanzo-mcp` with a lifecycle (the `initialize`
/// handshake when `None`), finds the revision it expects, the server's name
/// and its tools, lists every tool and reads a file back.
macro_rules! lifecycle {
    ($($name:ident: $mode:expr => $version:expr;)*) => {$(
        #[tokio::test]
        async fn $name() {
            let root = tempfile::tempdir().expect("tempdir");
            let state = tempfile::tempdir().expect("state");
            std::fs::write(root.path().join("note.txt"), TEXT).expect("write");
            let transport = spawn(root.path(), state.path());
            let mode: Option<ClientLifecycleMode> = $mode;
            let client = match mode {
                None => client_config().serve(transport).await.expect("initialize"),
                Some(mode) => client_config()
                    .serve_with_lifecycle(transport, mode)
                    .await
                    .expect("the lifecycle"),
            };
            let info = client.peer_info().expect("server info");
            assert_eq!(info.protocol_version, $version);
            assert_eq!(
                info.server_info.as_ref().map(|i| i.name.as_str()),
                Some("hanzo-mcp")
            );
            assert!(info.capabilities.tools.is_some());
            list_and_read(&client, root.path()).await;
            client.cancel().await.expect("close");
        }
    )*};
}

lifecycle! {
    rmcp_client_with_the_2025_11_25_handshake: None => ProtocolVersion::V_2025_11_25;
    rmcp_client_with_the_2026_07_28_discover_lifecycle: Some(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }) => ProtocolVersion::V_2026_07_28;
    rmcp_auto_lifecycle_picks_discover: Some(ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }) => ProtocolVersion::V_2026_07_28;
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
    let state = tempfile::tempdir().expect("state");
    let root = dir.path().canonicalize().expect("canonical root");
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"demo\"\n").expect("write");
    std::fs::create_dir(root.join("src")).expect("mkdir");
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn alpha() {}\n\npub struct Beta;\n\nimpl Beta {\n    pub fn gamma(&self) {}\n}\n",
    )
    .expect("write");
    let client = client_config()
        .serve(spawn(&root, state.path()))
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
    let names = crate::common::local_names();
    assert!(
        capabilities.starts_with(&format!("local tools: {}\n", names.join(", "))),
        "{capabilities}"
    );
    assert!(
        capabilities.contains(&format!("\nroots:\n  {}\n", root.display())),
        "{capabilities}"
    );

    let ran = call_text(
        &client,
        "exec",
        json!({ "action": "run", "command": ["sh", "-c", "ls; exit 0"] }),
    )
    .await;
    assert!(
        ran.starts_with("$ sh -c 'ls; exit 0'\nexit code 0 · "),
        "{ran}"
    );
    assert!(
        ran.ends_with(" ms\n--- stdout ---\nCargo.toml\nsrc\n"),
        "{ran}"
    );

    let started = call_text(
        &client,
        "exec",
        json!({ "action": "run", "background": true, "command": "cat" }),
    )
    .await;
    assert!(started.starts_with("job 1 started (pid "), "{started}");
    call_text(
        &client,
        "exec",
        json!({ "action": "write", "id": "1", "text": "echoed\n", "eof": true }),
    )
    .await;
    let waited = call_text(
        &client,
        "exec",
        json!({ "action": "wait", "id": "1", "timeout_ms": 30_000 }),
    )
    .await;
    assert!(
        waited.starts_with("echoed\n[job 1: exit code 0, "),
        "{waited}"
    );
    client.cancel().await.expect("close");
}

/// rmcp runs `git` through hanzo-mcp in a fresh repository, with a door
/// that lists its own `git`: the list carries the local one only (a local
/// name wins, HIP-0300 §2.2), and init, commit, status, log and diff go to
/// the machine's git.
#[tokio::test]
async fn rmcp_client_drives_the_local_git_while_the_door_lists_one() {
    let door = mcp_fake_door::FakeDoor::start(mcp_fake_door::Behaviour::Normal).expect("door");
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().canonicalize().expect("canonical root");
    let home = tempfile::tempdir().expect("home");
    let door_url = door.url();
    let transport = child(
        &["serve", "--door-wait", "10", "--root", utf8(&root)],
        &[
            ("HANZO_MCP_DOOR", &door_url),
            ("HANZO_API_KEY", "test-key"),
            ("HOME", utf8(home.path())),
            ("HANZO_MCP_STATE", utf8(home.path())),
            // The commit needs an identity; the machine's git reads it from here.
            ("GIT_AUTHOR_NAME", "Ada"),
            ("GIT_AUTHOR_EMAIL", "ada@example.test"),
            ("GIT_COMMITTER_NAME", "Ada"),
            ("GIT_COMMITTER_EMAIL", "ada@example.test"),
        ],
    );
    let client = client_config().serve(transport).await.expect("initialize");

    let tools = client.list_all_tools().await.expect("tools/list");
    let gits: Vec<_> = tools.iter().filter(|t| t.name == "git").collect();
    assert_eq!(gits.len(), 1, "one git in the list");
    assert_eq!(gits[0].title.as_deref(), Some("Git"), "the local git");
    assert!(
        tools.iter().any(|t| t.name == "billing"),
        "the door's tools follow"
    );

    call_text(&client, "git", json!({ "action": "init", "name": "main" })).await;
    std::fs::write(root.join("a.txt"), "one\n").expect("write");
    call_text(&client, "git", json!({ "action": "add", "all": true })).await;
    let committed = call_text(
        &client,
        "git",
        json!({ "action": "commit", "message": "first commit" }),
    )
    .await;
    assert!(committed.contains("first commit"), "{committed}");
    std::fs::write(root.join("a.txt"), "one\ntwo\n").expect("write");
    let status = call_text(&client, "git", json!({ "action": "status" })).await;
    assert!(status.contains("a.txt"), "{status}");
    let log = call_text(&client, "git", json!({ "action": "log", "count": 5 })).await;
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(log.contains(" Ada: first commit"), "{log}");
    let diff = call_text(&client, "git", json!({ "action": "diff" })).await;
    assert!(diff.contains("\n+two\n"), "{diff}");
    assert!(
        door.requests_for("tools/call").is_empty(),
        "no git call reached the door"
    );
    client.cancel().await.expect("close");
}

/// rmcp runs `fetch get` and `ui list` through hanzo-mcp against loopback
/// servers (allowed by `--fetch-allow-private`; refused without it).
#[tokio::test]
async fn rmcp_client_fetches_a_page_and_lists_a_registry() {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/page.html",
            get(|| async {
                axum::response::Html(
                    "<html><head><title>T</title></head><body><nav><a href=\"/\">Home</a></nav>\
                     <article><h1>Hello</h1><p>The article text, long enough to be the main content of this page.</p>\
                     <p>A second paragraph of the article.</p></article><footer>footer</footer></body></html>",
                )
            }),
        )
        .route(
            "/r/registry.json",
            get(|| async {
                axum::Json(json!({"name": "test", "items": [
                    {"name": "button", "type": "registry:ui", "title": "Button", "description": "A button."},
                    {"name": "card", "type": "registry:ui", "description": "A card."}
                ]}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move { axum::serve(listener, app).await });

    let root = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state");
    let registries = format!("test=http://{addr}/r");
    let start = |allow: bool| {
        let mut args = vec!["serve", "--no-door", "--root", utf8(root.path())];
        if allow {
            args.push("--fetch-allow-private");
        }
        child(
            &args,
            &[
                ("HANZO_MCP_STATE", utf8(state.path())),
                ("HANZO_MCP_UI_REGISTRIES", &registries),
                ("HANZO_API_KEY", "canary-key"),
            ],
        )
    };
    let url = format!("http://{addr}/page.html");

    let client = client_config()
        .serve(start(true))
        .await
        .expect("initialize");
    let page = call_text(&client, "fetch", json!({ "action": "get", "url": url })).await;
    assert!(page.contains("The article text"), "{page}");
    assert!(
        !page.contains("Home"),
        "navigation is not main content: {page}"
    );
    let listed = call_text(&client, "ui", json!({ "action": "list_components" })).await;
    assert!(listed.contains("button"), "{listed}");
    assert!(listed.contains("card"), "{listed}");
    client.cancel().await.expect("close");

    let guarded = client_config()
        .serve(start(false))
        .await
        .expect("initialize");
    let params = CallToolRequestParams::new("fetch").with_arguments(
        json!({ "action": "get", "url": url })
            .as_object()
            .expect("object")
            .clone(),
    );
    let refused = guarded.call_tool(params).await.expect("tools/call");
    assert_eq!(refused.is_error, Some(true));
    let text = &refused.content[0].as_text().expect("text").text;
    assert!(text.contains("loopback"), "{text}");
    guarded.cancel().await.expect("close");
}
