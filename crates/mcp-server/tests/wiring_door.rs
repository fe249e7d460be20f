//! The door as a tool source of the binary :
//! merge after the local tools, `initialize` never waiting for the network,
//! `tools/list` waiting at most `--door-wait`, `list_changed` when the
//! door's list arrives, unlisted names forwarded, `--no-door`.

mod common;

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

fn local_names() -> Vec<String> {
    mcp_local_tools::Toolbox::with_default_tools()
        .names()
        .into_iter()
        .map(String::from)
        .collect()
}

fn serve(door: &FakeDoor, root: &std::path::Path, extra: &[&str]) -> Server {
    let mut args = vec!["serve", "--root", root.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    Server::spawn_with_env(
        &args,
        &[
            ("HANZO_MCP_DOOR", &door.url()),
            ("HANZO_API_KEY", "wiring-test-key"),
        ],
    )
}

#[test]
fn door_tools_follow_the_local_ones_and_keep_the_door_meta() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve(&door, root.path(), &[]);
    let init = server.initialize("2025-11-25");
    assert_eq!(
        init["capabilities"],
        json!({ "tools": { "listChanged": true } })
    );
    let list = server.call(1, "tools/list", json!({}));
    // The door's tools whose names are not local (the local `git` wins).
    let mut expected = local_names();
    let door_only: Vec<String> = ["describe", "agents", "billing", "git"]
        .map(String::from)
        .into_iter()
        .filter(|name| !expected.contains(name))
        .collect();
    expected.extend(door_only);
    assert_eq!(names(&list), expected);
    assert_eq!(list["result"]["_meta"], mcp_fake_door::normal_meta());
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn names_not_local_are_forwarded_even_unlisted() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve(&door, root.path(), &[]);
    server.initialize("2025-11-25");
    let arguments = json!({ "op": "list_agents", "input": { "limit": 3 } });
    let listed = server.call(1, "tools/call", call_params("agents", arguments.clone()));
    assert_eq!(
        listed["result"],
        json!({
            "content": [{ "type": "text", "text": "called agents" }],
            "structuredContent": { "name": "agents", "arguments": arguments },
            "isError": false,
            "resultType": "complete"
        })
    );
    let unlisted = server.call(2, "tools/call", call_params("deploy_agent", json!({})));
    assert_eq!(
        unlisted["result"]["content"][0]["text"],
        "called deploy_agent"
    );
    let failed = server.call(3, "tools/call", call_params("explode", json!({})));
    assert_eq!(failed["error"]["code"], -32603);
    assert_eq!(failed["error"]["message"], "subsystem exploded");
    assert_eq!(server.wait().code(), Some(0));
    let forwarded: Vec<Value> = door
        .requests_for("tools/call")
        .iter()
        .filter_map(|r| r.params())
        .map(|p| json!({ "name": p["name"], "arguments": p["arguments"] }))
        .collect();
    assert_eq!(
        forwarded,
        vec![
            json!({ "name": "agents", "arguments": arguments }),
            json!({ "name": "deploy_agent", "arguments": {} }),
            json!({ "name": "explode", "arguments": {} }),
        ]
    );
}

#[test]
fn a_hanging_door_delays_neither_initialize_nor_the_local_list() {
    let door = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve(&door, root.path(), &["--door-wait", "0.2"]);
    let init = server.initialize("2025-11-25");
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let local = server.call(
        2,
        "tools/call",
        call_params("fs", json!({ "action": "list", "path": "." })),
    );
    assert!(local.get("result").is_some(), "{local}");
}

#[test]
fn list_changed_is_sent_when_the_door_list_arrives() {
    let door =
        FakeDoor::start(Behaviour::Slow(std::time::Duration::from_millis(800))).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve(&door, root.path(), &["--door-wait", "0"]);
    server.initialize("2025-11-25");
    let first = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&first), local_names());
    // The door's list arrives later: one notification.
    let notification = server.recv();
    assert_eq!(
        notification,
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed" })
    );
    let second = server.call(2, "tools/list", json!({}));
    // The door's tools whose names are not local (the local `git` wins).
    let mut expected = local_names();
    let door_only: Vec<String> = ["describe", "agents", "billing", "git"]
        .map(String::from)
        .into_iter()
        .filter(|name| !expected.contains(name))
        .collect();
    expected.extend(door_only);
    assert_eq!(names(&second), expected);
}

#[test]
fn no_door_turns_forwarding_off() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("tempdir");
    let mut server = serve(&door, root.path(), &["--no-door"]);
    let init = server.initialize("2025-11-25");
    assert_eq!(init["capabilities"], json!({ "tools": {} }));
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let call = server.call(2, "tools/call", call_params("agents", json!({})));
    assert_eq!(call["error"]["code"], -32602);
    assert_eq!(server.wait().code(), Some(0));
    assert!(door.requests().is_empty());
}
