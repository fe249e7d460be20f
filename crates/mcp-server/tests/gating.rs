//! `--allowed-tools` through the binary: gating per source before
//! the merge, gated-out names unknown (-32602) and never forwarded, the
//! `tools` listing with its warnings, and bad configurations refused at
//! start.

mod common;

use std::process::Command;

use common::{Server, call_params};
use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

fn names(list: &Value) -> Vec<String> {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

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
            ("HANZO_API_KEY", "gating-test-key"),
        ],
    );
    server.initialize("2025-11-25");
    server
}

fn forwarded_names(door: &FakeDoor) -> Vec<String> {
    door.requests_for("tools/call")
        .iter()
        .filter_map(|r| r.params())
        .filter_map(|p| p["name"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn local_fs_only_and_the_door_denied() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    std::fs::write(root.path().join("a.txt"), "alpha\n").expect("write");
    let mut server = serve_gated(&door, root.path(), r#"{"local": ["fs"], "door": []}"#);

    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs"]);

    let read = server.call(
        2,
        "tools/call",
        call_params("fs", json!({ "action": "read", "path": "a.txt" })),
    );
    assert_eq!(read["result"]["content"][0]["text"], "alpha\n");

    for (id, name) in [
        (3, "code"),
        (4, "workspace"),
        (5, "billing"),
        (6, "describe"),
        (7, "anything"),
    ] {
        let response = server.call(id, "tools/call", call_params(name, json!({})));
        assert_eq!(response["error"]["code"], -32602, "{name}: {response}");
        assert_eq!(
            response["error"]["message"],
            format!("unknown tool: {name:?}"),
            "{name}"
        );
    }
    assert_eq!(server.wait().code(), Some(0));
    assert!(
        forwarded_names(&door).is_empty(),
        "{:?}",
        forwarded_names(&door)
    );
}

#[test]
fn door_limited_to_billing() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve_gated(
        &door,
        root.path(),
        r#"{"local": ["fs"], "door": ["billing"]}"#,
    );

    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs", "billing"]);

    for (id, name) in [
        (2, "git"),
        (3, "describe"),
        (4, "agents"),
        (5, "list_agents"),
    ] {
        let response = server.call(id, "tools/call", call_params(name, json!({ "op": "x" })));
        assert_eq!(response["error"]["code"], -32602, "{name}: {response}");
    }
    let billing = server.call(
        6,
        "tools/call",
        call_params("billing", json!({ "op": "get_balance", "input": {} })),
    );
    assert_eq!(
        billing["result"]["content"][0]["text"], "called billing",
        "{billing}"
    );
    // billing is allowed whole, so its op called by its own name is too.
    let op = server.call(7, "tools/call", call_params("get_balance", json!({})));
    assert_eq!(
        op["result"]["content"][0]["text"], "called get_balance",
        "{op}"
    );
    assert_eq!(server.wait().code(), Some(0));
    // Only billing and its op ever reached the door.
    assert_eq!(forwarded_names(&door), ["billing", "get_balance"]);
}

#[test]
fn door_op_entry_narrows_and_refuses_other_ops() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve_gated(
        &door,
        root.path(),
        r#"{"local": [], "door": ["agents:list_agents"]}"#,
    );
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["agents"]);
    let schema = &list["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["op"]["enum"],
        json!(["list_agents"]),
        "{schema}"
    );

    let refused = server.call(
        2,
        "tools/call",
        call_params("agents", json!({ "op": "deploy_agent" })),
    );
    assert_eq!(refused["error"]["code"], -32602);
    let direct = server.call(3, "tools/call", call_params("deploy_agent", json!({})));
    assert_eq!(direct["error"]["code"], -32602);
    let allowed = server.call(
        4,
        "tools/call",
        call_params("agents", json!({ "op": "list_agents" })),
    );
    assert_eq!(allowed["result"]["content"][0]["text"], "called agents");
    let by_op_name = server.call(5, "tools/call", call_params("list_agents", json!({})));
    assert_eq!(
        by_op_name["result"]["content"][0]["text"],
        "called list_agents"
    );
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(forwarded_names(&door), ["agents", "list_agents"]);
}

fn tools_command(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
    command
        .arg("tools")
        .args(args)
        .env_remove("HANZO_MCP_ALLOWED_TOOLS");
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run hanzo-mcp tools")
}

#[test]
fn tools_command_shows_the_gated_list_and_warns_about_unmatched_entries() {
    let root = tempfile::tempdir().expect("tempdir");
    let root = root.path().to_str().expect("utf-8");
    let out = tools_command(
        &[
            "--no-door",
            "--root",
            root,
            "--allowed-tools",
            r#"{"local": ["fs", "fss", "fs:nope"]}"#,
        ],
        &[],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let listed: Vec<&str> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(listed, ["fs"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r#"hanzo-mcp: warning: allowedTools["local"]: "fss" matches no tool"#),
        "{stderr}"
    );
    assert!(stderr.contains(r#""fs:nope""#), "{stderr}");
}

#[test]
fn the_environment_variable_and_a_file_configure_the_same() {
    let root = tempfile::tempdir().expect("tempdir");
    let file = root.path().join("allowed.json");
    std::fs::write(&file, r#"{"local": ["workspace"]}"#).expect("write");
    let root_s = root.path().to_str().expect("utf-8");
    let at_file = format!("@{}", file.display());
    let from_file = tools_command(
        &["--no-door", "--root", root_s, "--allowed-tools", &at_file],
        &[],
    );
    let from_env = tools_command(
        &["--no-door", "--root", root_s],
        &[("HANZO_MCP_ALLOWED_TOOLS", r#"{"local": ["workspace"]}"#)],
    );
    assert!(from_file.status.success());
    assert!(from_env.status.success());
    assert_eq!(from_file.stdout, from_env.stdout);
    let listed: Value = serde_json::from_slice(&from_env.stdout).expect("JSON");
    assert_eq!(listed["tools"].as_array().map(Vec::len), Some(1));
    assert_eq!(listed["tools"][0]["name"], "workspace");
}

#[test]
fn a_bad_configuration_is_a_clear_error_at_start() {
    let root = tempfile::tempdir().expect("tempdir");
    let root_s = root.path().to_str().expect("utf-8");
    let cases = [
        (r#"{"local": "fs"}"#, "--allowed-tools: "),
        (r#"{"local": ["fs:"]}"#, "local"),
        ("not json", "--allowed-tools: "),
        (
            "@/nonexistent/allowed.json",
            "--allowed-tools: cannot read /nonexistent/allowed.json",
        ),
        // A file that never ends is cut at the size bound, not read forever.
        (
            "@/dev/zero",
            "--allowed-tools: /dev/zero is larger than 4194304 bytes",
        ),
    ];
    for (config, expected) in cases {
        for command in ["serve", "tools"] {
            let out = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
                .args([
                    command,
                    "--no-door",
                    "--root",
                    root_s,
                    "--allowed-tools",
                    config,
                ])
                .stdin(std::process::Stdio::null())
                .output()
                .expect("run");
            assert_eq!(out.status.code(), Some(1), "{command} {config}");
            assert!(out.stdout.is_empty(), "{command} {config}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.starts_with("hanzo-mcp: configuration: "), "{stderr}");
            assert!(stderr.contains(expected), "{config}: {stderr}");
        }
    }
}
