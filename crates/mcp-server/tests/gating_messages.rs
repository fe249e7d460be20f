//! `--allowed-tools` op and action entries through the binary: a refused
//! value is -32602 (docs/ARCHITECTURE.md, "Gating": refused like an unknown tool,
//! never forwarded) whose message and `data` say which value was refused and
//! which are allowed, and the narrowed schema's description names only the
//! allowed values.

mod common;

use common::{Server, call_params};
use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

fn serve_gated(door: &FakeDoor, root: &std::path::Path, allowed: &str) -> Server {
    let mut server = Server::spawn_with_env(
        &[
            "serve",
            "--root",
            root.to_str().expect("utf-8"),
            "--allowed-tools",
            allowed,
        ],
        &[
            ("HANZO_MCP_DOOR", &door.url()),
            ("HANZO_API_KEY", "gating-messages-key"),
        ],
    );
    server.initialize("2025-11-25");
    server
}

fn tool<'v>(list: &'v Value, name: &str) -> &'v Value {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {list}"))
}

#[test]
fn a_refused_local_action_names_the_action_and_the_allowed_ones() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("a.txt"), "alpha\n").expect("write");
    let mut server = serve_gated(&door, root.path(), r#"{"local": ["fs:read"]}"#);

    let write = server.call(
        1,
        "tools/call",
        call_params(
            "fs",
            json!({ "action": "write", "path": "b.txt", "content": "beta" }),
        ),
    );
    assert_eq!(
        write,
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32602,
                "message": "tool \"fs\" does not allow action \"write\" here (allowed: read)",
                "data": {"tool": "fs", "action": "write", "allowed": ["read"]}
            }
        })
    );
    assert!(!root.path().join("b.txt").exists());

    let none = server.call(2, "tools/call", call_params("fs", json!({})));
    assert_eq!(
        none["error"],
        json!({
            "code": -32602,
            "message": "tool \"fs\" needs an allowed action here (allowed: read)",
            "data": {"tool": "fs", "action": null, "allowed": ["read"]}
        })
    );

    let read = server.call(
        3,
        "tools/call",
        call_params("fs", json!({ "action": "read", "path": "a.txt" })),
    );
    assert_eq!(
        read["result"],
        json!({"content": [{"type": "text", "text": "alpha\n"}]})
    );

    assert_eq!(server.wait().code(), Some(0));
    assert!(door.requests_for("tools/call").is_empty());
}

#[test]
fn the_narrowed_action_description_names_only_the_allowed_actions() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve_gated(
        &door,
        root.path(),
        r#"{"local": ["fs:read", "fs:help"], "door": []}"#,
    );
    let list = server.call(1, "tools/list", json!({}));
    let action = &tool(&list, "fs")["inputSchema"]["properties"]["action"];
    assert_eq!(action["enum"], json!(["read", "help"]), "{action}");
    assert_eq!(action["description"], "read | help.", "{action}");
}

#[test]
fn a_refused_door_op_names_the_op_and_the_allowed_ones() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve_gated(
        &door,
        root.path(),
        r#"{"local": [], "door": ["describe", "agents:list_agents"]}"#,
    );
    let refused = server.call(
        1,
        "tools/call",
        call_params("agents", json!({ "op": "deploy_agent" })),
    );
    assert_eq!(
        refused["error"],
        json!({
            "code": -32602,
            "message": "tool \"agents\" does not allow op \"deploy_agent\" here (allowed: list_agents)",
            "data": {"tool": "agents", "op": "deploy_agent", "allowed": ["list_agents"]}
        })
    );
    let describe = server.call(
        2,
        "tools/call",
        call_params("describe", json!({ "op": "deploy_agent" })),
    );
    assert_eq!(
        describe["error"],
        json!({
            "code": -32602,
            "message": "tool \"describe\" does not allow op \"deploy_agent\" here (allowed: list_agents)",
            "data": {"tool": "describe", "op": "deploy_agent", "allowed": ["list_agents"]}
        })
    );
    let allowed = server.call(
        3,
        "tools/call",
        call_params("agents", json!({ "op": "list_agents" })),
    );
    assert_eq!(allowed["result"]["content"][0]["text"], "called agents");
    assert_eq!(server.wait().code(), Some(0));
    let forwarded: Vec<Value> = door
        .requests_for("tools/call")
        .iter()
        .filter_map(|r| r.params())
        .map(|p| p["name"].clone())
        .collect();
    assert_eq!(forwarded, [json!("agents")]);
}
