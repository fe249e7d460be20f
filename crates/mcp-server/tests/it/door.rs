//! The door as a tool source of the binary (HIP-0300 §2.2 and §4 for a
//! local server), through the real `hanzo-mcp` and an in-process fake
//! door (`mcp-fake-door`): the list merge with the local `git` winning,
//! `initialize` never waiting for the network, `tools/list` waiting at
//! most `--door-wait`, the door's list announced with `list_changed`, calls
//! forwarded verbatim (unlisted names too), 401 → sign-in result, a
//! hanging or dead door → local-only with one stderr line and a call
//! result naming the tool, `--no-door`, and the bearer canary.

use std::path::Path;

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

use crate::common::{
    CANARY, Proc, behind_fake_door, fake_door_called, first_text, free_address, local_names,
    merged_names, merged_with_door, names, serve_in_temp_root, serve_with_door,
};

/// The tool names a server with `--no-door` lists.
fn listed_without_door() -> Vec<String> {
    let (mut server, _root) = serve_in_temp_root(&[]);
    server.initialize("2025-11-25");
    let names = names(&server.call(1, "tools/list", json!({})));
    server.wait();
    names
}

/// Waits for `notifications/tools/list_changed`, skipping other notifications.
fn expect_list_changed(server: &mut Proc) {
    loop {
        let message = server.recv();
        if message["method"] == "notifications/tools/list_changed" {
            return;
        }
        assert!(
            message.get("id").is_none(),
            "unexpected response while waiting for list_changed: {message}"
        );
    }
}

#[test]
fn hanging_door_initialize_and_list_answer_local_only() {
    let (door, mut setup, init) = behind_fake_door(Behaviour::Hang, &["--door-wait", "0.3"]);
    let server = &mut setup.server;
    assert_eq!(init["capabilities"]["tools"]["listChanged"], true);
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), listed_without_door());
    // The door was asked (in the background) and never answered.
    assert_eq!(door.lists_answered(), 0);
    assert!(!door.requests_for("tools/list").is_empty());
}

#[test]
fn merged_list_local_first_git_local_and_list_changed_sent() {
    // The door answers nothing until released, so the first tools/list
    // (door wait 0) is local-only whatever the machine's load.
    let (door, mut setup, _) = behind_fake_door(Behaviour::Held, &["--door-wait", "0"]);
    let server = &mut setup.server;
    let local = listed_without_door();
    let first = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&first), local);
    assert_eq!(door.lists_answered(), 0);

    door.release();
    expect_list_changed(server);
    let second = server.call(2, "tools/list", json!({}));
    // Local first, then the door's tools whose names are not local.
    assert_eq!(names(&second), merged_with_door(local.clone()));
    let tools = second["result"]["tools"].as_array().expect("tools");
    let git: Vec<&Value> = tools.iter().filter(|t| t["name"] == "git").collect();
    assert_eq!(git.len(), 1);
    // The door's `git` shows only while the toolbox has no `git` of its own.
    assert_eq!(
        git[0]["description"] == "Cloud git subsystem.",
        !local.iter().any(|name| name == "git")
    );
    assert_eq!(
        second["result"]["_meta"]["hanzo.ai/unavailable"],
        json!(["kms"])
    );
}

#[test]
fn call_is_forwarded_verbatim() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::Normal, &[]);
    let server = &mut setup.server;
    let arguments = json!({"op": "list_agents", "input": {"limit": 3, "tags": ["a", "b"]}});
    let response = server.call_tool(1, "agents", arguments.clone());
    assert_eq!(response["result"], fake_door_called("agents", &arguments));
    let calls = door.requests_for("tools/call");
    assert_eq!(calls.len(), 1);
    let params = calls[0].params().expect("params");
    assert_eq!(params["name"], "agents");
    assert_eq!(params["arguments"], arguments);
    assert_eq!(calls[0].header("content-type"), Some("application/json"));
    assert_eq!(
        calls[0].header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(calls[0].header("mcp-protocol-version"), Some("2026-07-28"));
    assert_eq!(calls[0].header("mcp-method"), Some("tools/call"));
    assert_eq!(calls[0].header("mcp-name"), Some("agents"));
    let bearer = format!("Bearer {CANARY}");
    assert_eq!(calls[0].header("authorization"), Some(bearer.as_str()));
}

#[test]
fn unauthorized_call_is_a_sign_in_result() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::Unauthorized, &[]);
    let server = &mut setup.server;
    let response = server.call_tool(1, "agents", json!({}));
    let result = &response["result"];
    assert_eq!(result["isError"], true);
    let text = first_text(result);
    assert!(text.contains("hanzo auth login"), "{text}");
    assert!(text.contains(&door.challenge_metadata_url()), "{text}");
    assert_eq!(door.requests_for("tools/call").len(), 1);
}

#[test]
fn dead_door_is_local_only_with_one_stderr_line() {
    let url = format!("http://{}/v1/mcp", free_address());
    let mut setup = serve_with_door(&url, &["--door-wait", "5"]);
    let server = &mut setup.server;
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), listed_without_door());
    for id in 2..5 {
        let response = server.call_tool(id, "agents", json!({}));
        assert_eq!(response["result"]["isError"], true);
        let text = first_text(&response["result"]);
        assert!(
            text.starts_with(&format!(
                "tool 'agents' is not a local tool, and the door ({url}) could not be reached: "
            )),
            "{text}"
        );
    }
    // A typo of a local tool's name: the line names the tool and says it
    // is not local, so the caller can tell a typo from a door outage.
    let response = server.call_tool(5, "fsx", json!({}));
    assert_eq!(response["result"]["isError"], true);
    let content = response["result"]["content"]
        .as_array()
        .expect("a content array");
    assert_eq!(content.len(), 1, "{response}");
    let text = first_text(&response["result"]);
    assert!(!text.contains('\n'), "one line: {text:?}");
    if cfg!(target_os = "linux") {
        assert_eq!(
            text,
            format!(
                "tool 'fsx' is not a local tool, and the door ({url}) could not be reached: \
                 Connection refused (os error 111)"
            )
        );
    } else {
        assert!(
            text.starts_with(&format!(
                "tool 'fsx' is not a local tool, and the door ({url}) could not be reached: "
            )),
            "{text}"
        );
    }
    server.wait();
    let outage: Vec<String> = server
        .stderr_lines()
        .into_iter()
        .filter(|line| line.contains("door unavailable"))
        .collect();
    assert_eq!(outage.len(), 1, "{outage:?}");
}

#[test]
fn no_door_forwards_nothing() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::Normal, &["--no-door"]);
    let server = &mut setup.server;
    let response = server.call_tool(1, "agents", json!({}));
    assert_eq!(response["error"]["code"], -32602);
    server.wait();
    assert!(door.requests().is_empty());
}

/// Every file under `dir`, read lossily.
fn files_contain(dir: &Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return hits;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            hits.extend(files_contain(&path, needle));
        } else if let Ok(bytes) = std::fs::read(&path)
            && String::from_utf8_lossy(&bytes).contains(needle)
        {
            hits.push(path.display().to_string());
        }
    }
    hits
}

#[test]
fn bearer_canary_never_leaks() {
    let elsewhere = FakeDoor::start(Behaviour::Normal).expect("other origin");
    for behaviour in [
        Behaviour::Normal,
        Behaviour::Unauthorized,
        Behaviour::Sse,
        Behaviour::Html502,
        Behaviour::Garbage,
        Behaviour::InvalidNames,
        Behaviour::RedirectTo(elsewhere.url()),
        Behaviour::RedirectLoop,
    ] {
        let door = FakeDoor::start(behaviour.clone()).expect("fake door");
        let mut setup = serve_with_door(&door.url(), &["--door-wait", "5", "--log-level", "trace"]);
        let server = &mut setup.server;
        let mut seen = server.initialize("2025-11-25").to_string();
        seen.push_str(&server.call(1, "tools/list", json!({})).to_string());
        seen.push_str(
            &server
                .call_tool(2, "agents", json!({"op": "list_agents"}))
                .to_string(),
        );
        server.close_stdin();
        for message in server.drain() {
            seen.push_str(&message.to_string());
        }
        server.wait();
        for line in server.stderr_lines() {
            seen.push_str(&line);
        }
        assert!(!seen.contains(CANARY), "{behaviour:?}: the bearer leaked");
        assert!(
            files_contain(setup.home.path(), CANARY).is_empty(),
            "{behaviour:?}: the bearer was written under HOME"
        );
        assert!(
            files_contain(setup.root.path(), CANARY).is_empty(),
            "{behaviour:?}: the bearer was written under the root"
        );
        assert!(
            door.requests().iter().any(|r| r.to_text().contains(CANARY)),
            "{behaviour:?}: the door never received the bearer"
        );
    }
    let redirected = elsewhere.requests();
    assert!(!redirected.is_empty(), "nothing was redirected");
    for request in redirected {
        assert!(
            !request.to_text().contains(CANARY),
            "the bearer was sent to another origin"
        );
    }
}

#[test]
fn door_tools_follow_the_local_ones_and_keep_the_door_meta() {
    let (_door, mut setup, init) = behind_fake_door(Behaviour::Normal, &[]);
    let server = &mut setup.server;
    assert_eq!(
        init["capabilities"],
        json!({ "tools": { "listChanged": true } })
    );
    let list = server.call(1, "tools/list", json!({}));
    // The door's tools whose names are not local (the local `git` wins).
    assert_eq!(names(&list), merged_names());
    assert_eq!(list["result"]["_meta"], mcp_fake_door::normal_meta());
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn names_not_local_are_forwarded_even_unlisted() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::Normal, &[]);
    let server = &mut setup.server;
    let arguments = json!({ "op": "list_agents", "input": { "limit": 3 } });
    let listed = server.call_tool(1, "agents", arguments.clone());
    assert_eq!(listed["result"], fake_door_called("agents", &arguments));
    let unlisted = server.call_tool(2, "deploy_agent", json!({}));
    assert_eq!(
        unlisted["result"]["content"][0]["text"],
        "called deploy_agent"
    );
    let failed = server.call_tool(3, "explode", json!({}));
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
    let (_door, mut setup, init) = behind_fake_door(Behaviour::Hang, &["--door-wait", "0.2"]);
    let server = &mut setup.server;
    assert_eq!(init["protocolVersion"], "2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let local = server.call_tool(2, "fs", json!({ "action": "list", "path": "." }));
    assert!(local.get("result").is_some(), "{local}");
}

#[test]
fn list_changed_is_sent_when_the_door_list_arrives() {
    let (_door, mut setup, _) = behind_fake_door(
        Behaviour::Slow(std::time::Duration::from_millis(800)),
        &["--door-wait", "0"],
    );
    let server = &mut setup.server;
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
    assert_eq!(names(&second), merged_names());
}

/// A first `tools/list` that waited for the door's list already shows it:
/// no `list_changed` follows for that list (the client would list again
/// for nothing).
#[test]
fn a_list_that_waited_for_the_door_is_not_followed_by_list_changed() {
    // The door's list lands while the first tools/list waits for it.
    let (_door, mut setup, _) = behind_fake_door(
        Behaviour::Slow(std::time::Duration::from_millis(400)),
        &["--door-wait", "10"],
    );
    let server = &mut setup.server;
    let mut seen = Vec::new();
    for (id, method) in [(1, "tools/list"), (2, "ping")] {
        server.request(id, method, json!({}));
        loop {
            let message = server.recv();
            let answer = message["id"] == id;
            seen.push(message);
            if answer {
                break;
            }
        }
    }
    let list = seen.iter().find(|m| m["id"] == 1).expect("the list");
    assert_eq!(names(list), merged_names());
    assert!(
        !seen
            .iter()
            .any(|m| m["method"] == "notifications/tools/list_changed"),
        "{seen:?}"
    );
}

#[test]
fn no_door_turns_forwarding_off() {
    let (door, mut setup, init) = behind_fake_door(Behaviour::Normal, &["--no-door"]);
    let server = &mut setup.server;
    // `mode` can change a session's list even without the door.
    assert_eq!(
        init["capabilities"],
        json!({ "tools": { "listChanged": true } })
    );
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let call = server.call_tool(2, "agents", json!({}));
    assert_eq!(call["error"]["code"], -32602);
    assert_eq!(server.wait().code(), Some(0));
    assert!(door.requests().is_empty());
}

/// An embedder's assembly connects nowhere until the door's probe is
/// started ([`DoorProbe::start`](mcp_local_server::assembly::DoorProbe::start)),
/// then once, and tells what it found.
#[tokio::test]
async fn an_assembled_door_connects_only_once_its_probe_is_started() {
    use std::time::Duration;

    use mcp_local_server::assembly::{DoorReach, Options, assemble};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let root = tempfile::tempdir().expect("root");
    let mut options = Options::new();
    options.roots = vec![root.path().to_path_buf()];
    let address = listener.local_addr().expect("address");
    options.door_address = Some(format!("http://{address}/v1/mcp"));
    let assembly = assemble(&options).await.expect("assembly");
    let probe = assembly.door.clone().expect("the door is on");
    let early = tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
    assert!(early.is_err(), "a connect before the probe was started");
    probe.start();
    let accepted = tokio::time::timeout(Duration::from_secs(10), listener.accept()).await;
    assert!(matches!(accepted, Ok(Ok(_))), "no connect once started");
    assert_eq!(
        probe.reach_within(Duration::from_secs(10)).await,
        DoorReach::Reachable
    );
    // Started once: asking again connects no more.
    probe.start();
    let again = tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
    assert!(again.is_err(), "a second connect");
}
