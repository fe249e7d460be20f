//! `--allowed-tools` through the binary: gating per source before the
//! merge, gated-out names unknown (-32602) and never forwarded, op and
//! action entries whose refusals name the refused value and the allowed
//! ones, the narrowed schemas, the `tools` listing with its warnings, and
//! bad configurations refused at start.

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

use crate::common::{WithDoor, behind_fake_door, listed_tool, names, refusal, run, tool_names};

/// A fake door and a server at it past the handshake, with `allowed` as
/// its `--allowed-tools`.
fn gated(allowed: &str) -> (FakeDoor, WithDoor) {
    let (door, setup, _) = behind_fake_door(Behaviour::Normal, &["--allowed-tools", allowed]);
    (door, setup)
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
    let (door, mut setup) = gated(r#"{"local": ["fs"], "door": []}"#);
    let (server, root) = (&mut setup.server, setup.root.path());
    std::fs::write(root.join("a.txt"), "alpha\n").expect("write");

    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs"]);

    let read = server.call_tool(2, "fs", json!({ "action": "read", "path": "a.txt" }));
    assert_eq!(read["result"]["content"][0]["text"], "alpha\n");

    for (id, name) in [
        (3, "code"),
        (4, "workspace"),
        (5, "billing"),
        (6, "describe"),
        (7, "anything"),
    ] {
        let response = server.call_tool(id, name, json!({}));
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
    // A door the allowlist denies is never contacted, not even listed.
    assert_eq!(door.requests_for("tools/list").len(), 0);
}

#[test]
fn door_limited_to_billing() {
    let (door, mut setup) = gated(r#"{"local": ["fs"], "door": ["billing"]}"#);
    let server = &mut setup.server;

    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["fs", "billing"]);

    for (id, name) in [
        (2, "git"),
        (3, "describe"),
        (4, "agents"),
        (5, "list_agents"),
    ] {
        let response = server.call_tool(id, name, json!({ "op": "x" }));
        assert_eq!(response["error"]["code"], -32602, "{name}: {response}");
    }
    let billing = server.call_tool(6, "billing", json!({ "op": "get_balance", "input": {} }));
    assert_eq!(
        billing["result"]["content"][0]["text"], "called billing",
        "{billing}"
    );
    // billing is allowed whole, so its op called by its own name is too.
    let op = server.call_tool(7, "get_balance", json!({}));
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
    let (door, mut setup) = gated(r#"{"local": [], "door": ["agents:list_agents"]}"#);
    let server = &mut setup.server;
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), ["agents"]);
    let schema = &list["result"]["tools"][0]["inputSchema"];
    assert_eq!(
        schema["properties"]["op"]["enum"],
        json!(["list_agents"]),
        "{schema}"
    );

    let refused = server.call_tool(2, "agents", json!({ "op": "deploy_agent" }));
    assert_eq!(refused["error"]["code"], -32602);
    let direct = server.call_tool(3, "deploy_agent", json!({}));
    assert_eq!(direct["error"]["code"], -32602);
    let allowed = server.call_tool(4, "agents", json!({ "op": "list_agents" }));
    assert_eq!(allowed["result"]["content"][0]["text"], "called agents");
    let by_op_name = server.call_tool(5, "list_agents", json!({}));
    assert_eq!(
        by_op_name["result"]["content"][0]["text"],
        "called list_agents"
    );
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(forwarded_names(&door), ["agents", "list_agents"]);
}

/// `hanzo-mcp tools <args>` with `env`.
fn tools_command(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut argv = vec!["tools"];
    argv.extend_from_slice(args);
    run(&argv, env)
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
    assert_eq!(tool_names(&listed), ["fs"]);
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

/// `hanzo-mcp serve` and `hanzo-mcp tools` with `--no-door --root
/// <temporary> --allowed-tools <config>`: each stops at start with exit
/// status 2 (a setting to change) and nothing on stdout; each command's
/// stderr.
fn refused_at_start(config: &str) -> Vec<(&'static str, String)> {
    let root = tempfile::tempdir().expect("tempdir");
    let root = root.path().to_str().expect("utf-8");
    ["serve", "tools"]
        .into_iter()
        .map(|command| {
            let out = run(
                &[
                    command,
                    "--no-door",
                    "--root",
                    root,
                    "--allowed-tools",
                    config,
                ],
                &[],
            );
            assert_eq!(out.status.code(), Some(2), "{command} {config}");
            assert!(out.stdout.is_empty(), "{command} {config}");
            (command, String::from_utf8_lossy(&out.stderr).into_owned())
        })
        .collect()
}

#[test]
fn an_allowed_tools_key_naming_no_source_is_refused_with_status_2() {
    let cases = [
        (
            r#"{"Local":["fs"],"door":[]}"#,
            r#"hanzo-mcp: configuration: --allowed-tools: unknown server "Local" (the servers here are "local" and "door")"#,
        ),
        (
            r#"{"local":["fs"],"doors":[],"fs":[]}"#,
            r#"hanzo-mcp: configuration: --allowed-tools: unknown servers "doors", "fs" (the servers here are "local" and "door")"#,
        ),
    ];
    for (config, expected) in cases {
        for (command, stderr) in refused_at_start(config) {
            assert_eq!(stderr, format!("{expected}\n"), "{command} {config}");
        }
    }
}

#[test]
fn the_known_servers_are_still_accepted_by_tools() {
    let root = tempfile::tempdir().expect("tempdir");
    let out = tools_command(
        &[
            "--no-door",
            "--root",
            root.path().to_str().expect("utf-8"),
            "--allowed-tools",
            r#"{"local":["fs"],"door":[]}"#,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0));
    let listed: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(tool_names(&listed), ["fs"]);
}

#[test]
fn a_bad_configuration_is_a_clear_error_at_start() {
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
        for (_, stderr) in refused_at_start(config) {
            assert!(stderr.starts_with("hanzo-mcp: configuration: "), "{stderr}");
            assert!(stderr.contains(expected), "{config}: {stderr}");
        }
    }
}

#[test]
fn a_refused_local_action_names_the_action_and_the_allowed_ones() {
    let (door, mut setup) = gated(r#"{"local": ["fs:read"]}"#);
    let (server, root) = (&mut setup.server, setup.root.path());
    std::fs::write(root.join("a.txt"), "alpha\n").expect("write");

    let write = server.call_tool(
        1,
        "fs",
        json!({ "action": "write", "path": "b.txt", "content": "beta" }),
    );
    assert_eq!(
        write,
        json!({ "jsonrpc": "2.0", "id": 1, "error": refusal("fs", "action", "write", &["read"]) })
    );
    assert!(!root.join("b.txt").exists());

    let none = server.call_tool(2, "fs", json!({}));
    assert_eq!(
        none["error"],
        json!({
            "code": -32602,
            "message": "tool \"fs\" needs an allowed action here (allowed: read)",
            "data": {"tool": "fs", "action": null, "allowed": ["read"]}
        })
    );

    let read = server.call_tool(3, "fs", json!({ "action": "read", "path": "a.txt" }));
    assert_eq!(
        read["result"],
        json!({"content": [{"type": "text", "text": "alpha\n"}]})
    );

    assert_eq!(server.wait().code(), Some(0));
    assert!(door.requests_for("tools/call").is_empty());
}

/// Hanzo's action names are aliases of ours: `"fs:stat"` allows `info`,
/// and a call may say `stat` or `info`; an alias of another action is still
/// refused.
#[test]
fn an_action_alias_allows_and_calls_the_action_it_names() {
    let (door, mut setup) = gated(r#"{"local": ["fs:stat"]}"#);
    let (server, root) = (&mut setup.server, setup.root.path());
    std::fs::write(root.join("a.txt"), "alpha\n").expect("write");

    let list = server.call(1, "tools/list", json!({}));
    let fs = listed_tool(&list, "fs");
    assert_eq!(
        fs["inputSchema"]["properties"]["action"]["enum"],
        json!(["info"])
    );

    for (id, action) in [(2, "stat"), (3, "info")] {
        let info = server.call_tool(id, "fs", json!({ "action": action, "path": "a.txt" }));
        let text = info["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains("6 bytes"), "{action}: {info}");
    }
    // `search_text` is Hanzo's name for `search`, which is not allowed.
    let search = server.call_tool(4, "fs", json!({ "action": "search_text", "pattern": "a" }));
    assert_eq!(
        search["error"],
        refusal("fs", "action", "search_text", &["info"])
    );
    assert_eq!(server.wait().code(), Some(0));
    assert!(door.requests_for("tools/call").is_empty());
}

#[test]
fn the_narrowed_action_description_names_only_the_allowed_actions() {
    let (_door, mut setup) = gated(r#"{"local": ["fs:read", "fs:help"], "door": []}"#);
    let server = &mut setup.server;
    let list = server.call(1, "tools/list", json!({}));
    let action = &listed_tool(&list, "fs")["inputSchema"]["properties"]["action"];
    assert_eq!(action["enum"], json!(["read", "help"]), "{action}");
    assert_eq!(action["description"], "read | help.", "{action}");
}

#[test]
fn a_refused_door_op_names_the_op_and_the_allowed_ones() {
    let (door, mut setup) = gated(r#"{"local": [], "door": ["describe", "agents:list_agents"]}"#);
    let server = &mut setup.server;
    let refused = server.call_tool(1, "agents", json!({ "op": "deploy_agent" }));
    assert_eq!(
        refused["error"],
        refusal("agents", "op", "deploy_agent", &["list_agents"])
    );
    let describe = server.call_tool(2, "describe", json!({ "op": "deploy_agent" }));
    assert_eq!(
        describe["error"],
        refusal("describe", "op", "deploy_agent", &["list_agents"])
    );
    let allowed = server.call_tool(3, "agents", json!({ "op": "list_agents" }));
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
