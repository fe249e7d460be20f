//! Other MCP servers mounted as sources (`--server`, `[[servers]]`):
//! through the binary, with the tests' own small stdio server
//! (`tests/fixtures/mounted_server.py`, which logs every line it gets),
//! another `hanzo-mcp` over streamable HTTP, and a loopback door.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

use crate::common::servers::{fixture, server_everything};
use crate::common::stdio::Proc;
use crate::common::{CANARY, call_params, first_text, listening_port, serve_no_door, tool_names};

/// `--server NAME=python3 <fixture> --prefix PREFIX --log LOG <extra>`.
fn server_flag(name: &str, prefix: &str, log: &Path, extra: &str) -> String {
    format!(
        "{name}=python3 {} --prefix {prefix} --log {} {extra}",
        fixture(),
        log.display()
    )
}

/// Every line the fixture server at `log` received, as JSON (its first
/// line, `{"pid": N}`, included).
fn received(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line in the log"))
        .collect()
}

/// SIGKILL to process `pid`.
fn kill(pid: i64) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -9 {pid}");
}

/// Kills the fixture server that logs to `log` (its first line names its
/// pid).
fn kill_fixture(log: &Path) {
    kill(received(log)[0]["pid"].as_i64().expect("the fixture's pid"));
}

/// The `tools/call` names the fixture server at `log` received.
fn calls_received(log: &Path) -> Vec<String> {
    received(log)
        .iter()
        .filter(|m| m["method"] == "tools/call")
        .map(|m| m["params"]["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// Waits until `check` holds, for at most 20 s (a safety net, not a
/// timing assertion); whether it did.
fn eventually(mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(20) {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

/// Kills the fixture that logs to `log` and holds its restart (see the
/// fixture's `FILE.hold`) until a call of `server` to `kb_ops read` (ids
/// from `id` on) answers with an error result naming `kb`; then lets it
/// start and calls until one succeeds. While it is down its names stay
/// its own: never an unknown tool, never another source. Returns the next
/// free id.
fn kill_and_bring_back(server: &mut Proc, log: &Path, mut id: i64) -> i64 {
    let hold = PathBuf::from(format!("{}.hold", log.display()));
    std::fs::write(&hold, "").expect("hold the restart");
    kill_fixture(log);
    let mut read = |server: &mut Proc| {
        id += 1;
        let answer = server.call_tool(id, "kb_ops", json!({ "action": "read" }));
        assert!(answer["error"].is_null(), "never an unknown tool: {answer}");
        let result = &answer["result"];
        if result["isError"] == true {
            assert!(first_text(result).contains("\"kb\""), "{answer}");
            return false;
        }
        assert_eq!(first_text(result), "ran read", "{answer}");
        true
    };
    let down = eventually(|| !read(server));
    assert!(down, "a call saw kb down");
    std::fs::remove_file(&hold).expect("release the restart");
    let back = eventually(|| read(server));
    assert!(back, "kb came back");
    id + 1
}

struct Setup {
    server: Proc,
    root: tempfile::TempDir,
    logs: tempfile::TempDir,
    kb_log: PathBuf,
    big_log: PathBuf,
    door: FakeDoor,
}

/// `hanzo-mcp serve` on a temporary root with the door at a fake one, the
/// bearer [`CANARY`], the fixture mounted as `kb` (prefix `kb_`) and `big`
/// (prefix `big_`), and `extra` arguments; initialized (2025-11-25, with
/// `roots` not declared so the root is `--root`'s).
fn start(extra: &[&str]) -> Setup {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let logs = tempfile::tempdir().expect("logs");
    let home = logs.path().to_str().expect("utf-8").to_owned();
    let kb = server_flag("kb", "kb_", &logs.path().join("kb.log"), "");
    let big = server_flag("big", "big_", &logs.path().join("big.log"), "");
    let root_arg = root.path().to_str().expect("utf-8").to_owned();
    let mut args = vec![
        "serve",
        "--root",
        &root_arg,
        "--server",
        &kb,
        "--server",
        &big,
        "--server-wait",
        "20",
    ];
    args.extend_from_slice(extra);
    let mut server = Proc::spawn_with_env(
        &args,
        &[
            ("HANZO_MCP_DOOR", door.url().as_str()),
            ("HANZO_API_KEY", CANARY),
            ("HOME", home.as_str()),
        ],
    );
    server.initialize("2025-11-25");
    Setup {
        server,
        root,
        kb_log: logs.path().join("kb.log"),
        big_log: logs.path().join("big.log"),
        logs,
        door,
    }
}

/// The next message that is not `notifications/tools/list_changed` (one
/// comes when a mounted server's first list arrives).
fn next_other_than_list_changed(server: &mut Proc) -> Value {
    loop {
        let message = server.recv();
        if message["method"] != "notifications/tools/list_changed" {
            return message;
        }
    }
}

/// `hanzo-mcp serve --root <root> --no-door --server <server>
/// --server-wait 20 <extra>`, not yet initialized.
fn serve_mounted(root: &Path, server: &str, extra: &[&str]) -> Proc {
    let mut args = vec!["--server", server, "--server-wait", "20"];
    args.extend_from_slice(extra);
    serve_no_door(root, &args, &[])
}

/// [`serve_mounted`] with the fixture as `kb` (tools `kb_*`, logging to
/// `<logs>/kb.log`), `logs` being the root too.
fn serve_kb(logs: &Path, extra: &[&str]) -> Proc {
    let kb = server_flag("kb", "kb_", &logs.join("kb.log"), "");
    serve_mounted(logs, &kb, extra)
}

/// `hanzo-mcp serve --http 127.0.0.1:0 --no-door --root <root> <extra>`
/// (with `env`) and the port it listens on, once it does.
fn serve_http(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> (Proc, u16) {
    let root = root.to_str().expect("a UTF-8 path");
    let mut args = vec![
        "serve",
        "--http",
        "127.0.0.1:0",
        "--no-door",
        "--root",
        root,
    ];
    args.extend_from_slice(extra);
    let server = Proc::spawn_with_env(&args, env);
    let mut port = None;
    assert!(
        eventually(|| {
            port = listening_port(server.id());
            port.is_some()
        }),
        "the server listens"
    );
    (server, port.expect("a port"))
}

fn list(server: &mut Proc, id: i64) -> Value {
    server.call(id, "tools/list", json!({}))["result"].clone()
}

#[test]
fn a_line_break_in_the_params_never_carries_a_second_call_to_a_mounted_server() {
    let logs = tempfile::tempdir().expect("logs");
    let mut server = serve_kb(
        logs.path(),
        &["--allowed-tools", r#"{"local":[],"kb":["kb_env"]}"#],
    );
    server.initialize("2025-11-25");
    assert_eq!(tool_names(&list(&mut server, 1)), ["kb_env"]);
    // A carriage return is JSON whitespace, and Python's text-mode stdin
    // (the fixture's, and the official SDK's) ends a line there: the
    // gated-out call between the two would be a message of its own.
    let injected = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"kb_ops","arguments":{"action":"write"}}}"#;
    server.send_line(&format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{{\"name\":\"kb_env\",\"arguments\":{{\"name\":\"HOME\"}},\"x\":\r{injected}\r}}}}"
    ));
    let answer = next_other_than_list_changed(&mut server);
    assert_eq!(answer["id"], 2, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(calls_received(&logs.path().join("kb.log")), ["kb_env"]);
}

#[test]
fn mounted_servers_are_merged_in_order_and_gated_per_server() {
    // `big_env:HOME`: big_env has no `action` argument, so the entry
    // cannot be enforced and the tool is withheld.
    let allowed =
        r#"{"local":["fs"],"big":["big_echo","big_ops:read","common","big_roots","big_env:HOME"]}"#;
    let mut setup = start(&["--allowed-tools", allowed]);
    let listed = list(&mut setup.server, 1);
    let kb = [
        "kb_echo",
        "kb_ops",
        "kb_slow",
        "kb_grow",
        "kb_roots",
        "kb_sample",
        "kb_env",
        "kb_issue",
        "kb_flood",
        "common",
    ];
    let mut expected: Vec<&str> = vec!["fs"];
    expected.extend(kb);
    // `common` is kb's (the earlier source); `fs` is the local tool's.
    expected.extend(["big_echo", "big_ops", "big_roots"]);
    expected.extend(["describe", "agents", "billing"]);
    assert_eq!(tool_names(&listed), expected);
    let ops = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "big_ops")
        .unwrap();
    assert_eq!(
        ops["inputSchema"]["properties"]["action"]["enum"],
        json!(["read"])
    );

    // Refused, and never seen by the server that has them, nor the door.
    let server = &mut setup.server;
    let refused = [
        (2, call_params("big_ops", json!({ "action": "write" }))),
        (3, call_params("big_slow", json!({}))),
        (4, call_params("big_env", json!({ "name": "HOME" }))),
        (
            14,
            call_params(
                "big_env",
                json!({ "name": "HANZO_API_KEY", "action": "HOME" }),
            ),
        ),
    ];
    for (id, params) in refused {
        let answer = server.call(id, "tools/call", params);
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    let ran = server.call_tool(5, "big_ops", json!({ "action": "read" }));
    assert_eq!(first_text(&ran["result"]), "ran read");
    assert_eq!(calls_received(&setup.big_log), ["big_ops"]);
    assert!(setup.door.requests_for("tools/call").is_empty());

    // The name both list is kb's; the warning names both.
    let common = server.call_tool(6, "common", json!({}));
    assert_eq!(first_text(&common["result"]), "kb_common");
    let warned = setup.server.stderr_lines();
    assert!(
        warned
            .iter()
            .any(|l| l.contains("big_env:HOME") && l.contains("withheld")),
        "{warned:?}"
    );
    assert!(
        warned.iter().any(|l| l.contains("common")
            && l.contains("kept")
            && l.contains("kb")
            && l.contains("big")),
        "{warned:?}"
    );
}

#[test]
fn arguments_and_results_pass_byte_for_byte_and_no_secret_reaches_the_child() {
    let mut setup = start(&[]);
    let arguments = r#"{"n":123456789012345678901234567890,"f":1E400,"z":-0,"s":"\ud800\u00e9","k":{"b":1,"a":2}}"#;
    setup.server.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"kb_echo","arguments":{arguments}}}}}"#
    ));
    let line = setup.server.response(7).to_owned();
    assert!(line.contains(&format!(r#""raw":{arguments}"#)), "{line}");
    assert!(
        line.contains(r#""odd":[1E400,-0,123456789012345678901234567890]"#),
        "{line}"
    );
    let env = setup
        .server
        .call_tool(8, "kb_env", json!({ "name": "HANZO_API_KEY" }));
    assert_eq!(first_text(&env["result"]), "");
    let home = setup
        .server
        .call_tool(9, "kb_env", json!({ "name": "HOME" }));
    assert_eq!(
        first_text(&home["result"]),
        setup.logs.path().to_str().unwrap()
    );
    // The roots a mounted server is told are the local tools'.
    let roots = setup.server.call_tool(10, "kb_roots", json!({}));
    let told: Value = serde_json::from_str(first_text(&roots["result"])).unwrap();
    let root = setup.root.path().canonicalize().unwrap();
    assert_eq!(
        told["roots"][0]["uri"],
        format!("file://{}", root.display())
    );
}

#[test]
fn progress_and_cancellation_are_relayed_with_ids_mapped() {
    let mut setup = start(&[]);
    let server = &mut setup.server;
    server.request(
        11,
        "tools/call",
        json!({ "name": "kb_slow", "arguments": {}, "_meta": { "progressToken": "mine" } }),
    );
    let progress = next_other_than_list_changed(server);
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "mine");
    // The server saw a token of hanzo-mcp's, not the caller's.
    let sent = received(&setup.kb_log);
    let call = sent.iter().find(|m| m["method"] == "tools/call").unwrap();
    let theirs = &call["params"]["_meta"]["progressToken"];
    assert!(theirs.is_string() && *theirs != "mine", "{theirs}");
    server.send(&json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": 11, "reason": "test" }
    }));
    let their_id = call["id"].clone();
    let log = setup.kb_log.clone();
    assert!(
        eventually(|| received(&log)
            .iter()
            .any(|m| m.get("cancelled") == Some(&their_id))),
        "the mounted server heard of the cancellation: {:?}",
        received(&log)
    );
}

#[test]
fn a_mounted_server_gets_initialized_before_any_other_request() {
    let mut setup = start(&[]);
    list(&mut setup.server, 1);
    let methods: Vec<Value> = received(&setup.kb_log)
        .iter()
        .skip(1)
        .take(3)
        .map(|message| message["method"].clone())
        .collect();
    assert_eq!(
        methods,
        [
            json!("initialize"),
            json!("notifications/initialized"),
            json!("tools/list")
        ]
    );
}

#[test]
fn an_entry_that_cannot_narrow_a_tool_is_warned_about_once() {
    let logs = tempfile::tempdir().unwrap();
    let mut server = serve_kb(
        logs.path(),
        &["--allowed-tools", r#"{"kb": ["kb_echo:x", "kb_ops:read"]}"#],
    );
    server.initialize("2025-11-25");
    for id in 1..=3 {
        let names = tool_names(&list(&mut server, id));
        assert!(names.contains(&"kb_ops".to_owned()) && !names.contains(&"kb_echo".to_owned()));
    }
    assert_eq!(server.wait().code(), Some(0));
    let warned = server
        .stderr_lines()
        .iter()
        .filter(|line| line.contains("\"kb_echo:x\"") && line.contains("withheld"))
        .count();
    assert_eq!(warned, 1, "one warning for three lists");
}

#[test]
fn list_changes_are_relayed_and_a_killed_child_comes_back() {
    let mut setup = start(&[]);
    let server = &mut setup.server;
    // The first list is in (and its list_changed sent) once this answers.
    list(server, 20);
    server.request(12, "tools/call", call_params("kb_grow", json!({})));
    let grown = next_other_than_list_changed(server);
    assert_eq!(first_text(&grown["result"]), "grown");
    let changed = server.recv();
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    assert!(tool_names(&list(server, 13)).contains(&"kb_extra".to_owned()));

    kill_and_bring_back(server, &setup.kb_log, 14);
    assert!(setup.door.requests_for("tools/call").is_empty());
    let pids: Vec<i64> = received(&setup.kb_log)
        .iter()
        .filter_map(|m| m["pid"].as_i64())
        .collect();
    assert_eq!(pids.len(), 2, "{pids:?}");
}

#[test]
fn a_server_that_never_initializes_costs_at_most_the_wait() {
    let logs = tempfile::tempdir().unwrap();
    let log_file = logs.path().join("hang.log");
    let hang = server_flag("hang", "h_", &log_file, "--hang-init");
    let mut server = serve_no_door(
        logs.path(),
        &["--server", &hang, "--server-wait", "0.5"],
        &[],
    );
    server.initialize("2025-11-25");
    let listed = server.call(1, "tools/list", json!({}));
    // Answered while the mounted server's initialize is still pending:
    // had the list waited for more than its limit, the server would have
    // been given up and started again, and its log would name a second
    // pid. (The log is read once the server has logged the initialize: a
    // loaded machine may start it after the list is answered.)
    assert!(eventually(|| received(&log_file)
        .last()
        .is_some_and(|l| l["method"] == "initialize")));
    let log = received(&log_file);
    assert_eq!(
        log.iter().filter(|l| l.get("pid").is_some()).count(),
        1,
        "{log:?}"
    );
    let names = tool_names(&listed["result"]);
    assert!(names.contains(&"fs".to_owned()) && !names.iter().any(|n| n.starts_with("h_")));
    let call = server.call_tool(2, "h_echo", json!({}));
    assert_eq!(call["error"]["code"], -32602, "{call}");
}

#[test]
fn an_http_server_is_mounted_from_the_configuration_file() {
    let dir = tempfile::tempdir().unwrap();
    let (_inner, port) = serve_http(
        dir.path(),
        &["--test-tools"],
        &[("HANZO_MCP_HTTP_BEARER", "inner-bearer-7d1f")],
    );
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[[servers]]\nname = \"web\"\nurl = \"http://127.0.0.1:{port}/mcp\"\nbearer_env = \"WEB_TOKEN\"\n\n[[servers]]\nname = \"kb\"\ncommand = \"python3\"\nargs = [{:?}, \"--prefix\", \"kb_\", \"--log\", {:?}]\n",
            fixture(),
            dir.path().join("kb.log").display().to_string()
        ),
    )
    .unwrap();
    let mut outer = serve_no_door(
        dir.path(),
        &["--config", config.to_str().unwrap(), "--server-wait", "20"],
        &[("WEB_TOKEN", "inner-bearer-7d1f")],
    );
    outer.initialize("2025-11-25");
    let names = tool_names(&outer.call(1, "tools/list", json!({}))["result"]);
    // Local tools, then web's (the inner server's test tool), then kb's.
    assert_eq!(names[12], "test_sleep", "{names:?}");
    assert!(
        names[13..]
            .iter()
            .all(|n| n.starts_with("kb_") || n == "common"),
        "{names:?}"
    );
    outer.request(
        2,
        "tools/call",
        json!({ "name": "test_sleep", "arguments": { "ms": 300, "steps": 3 }, "_meta": { "progressToken": 5 } }),
    );
    let mut progress = 0;
    let result = loop {
        let message = outer.recv();
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], 5);
            progress += 1;
        } else if message["method"] != "notifications/tools/list_changed" {
            break message;
        }
    };
    assert_eq!(
        result["result"]["content"][0]["text"], "slept 300 ms",
        "{result}"
    );
    assert!(progress >= 1, "progress relayed over HTTP");
    // The bearer's variable is the server's secret: neither another
    // mounted server nor a program the tools run sees it.
    let env = outer.call_tool(3, "kb_env", json!({ "name": "WEB_TOKEN" }));
    assert_eq!(env["result"]["content"][0]["text"], "", "{env}");
    let run = outer.call_tool(
        4,
        "exec",
        json!({ "action": "run", "command": "echo \"token=${WEB_TOKEN:-none}\"" }),
    );
    assert!(
        run["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .contains("token=none"),
        "{run}"
    );
}

#[test]
fn the_official_everything_server_is_mounted_gated_and_relayed() {
    let script = server_everything();
    let logs = tempfile::tempdir().unwrap();
    let root = logs.path().to_str().unwrap().to_owned();
    let everything = format!("everything=node {} stdio", script.display());
    let kb = server_flag("kb", "kb_", &logs.path().join("kb.log"), "");
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    // A third server, over streamable HTTP: another hanzo-mcp whose one
    // tool not named like a local one is `test_sleep`.
    let (_web_server, port) = serve_http(logs.path(), &["--http-no-auth", "--test-tools"], &[]);
    let web = format!("web=http://127.0.0.1:{port}/mcp");
    let allowed = r#"{"everything":["echo","get-env","trigger-long-running-operation","get-sum"]}"#;
    let mut server = Proc::spawn_with_env(
        &[
            "serve",
            "--root",
            &root,
            "--server",
            &everything,
            "--server",
            &kb,
            "--server",
            &web,
            "--server-wait",
            "30",
            "--allowed-tools",
            allowed,
        ],
        &[
            ("HANZO_MCP_DOOR", door.url().as_str()),
            ("HANZO_API_KEY", CANARY),
            ("HOME", root.as_str()),
        ],
    );
    server.initialize("2025-11-25");
    let names = tool_names(&list(&mut server, 1));
    let at = |name: &str| names.iter().position(|n| n == name);
    // local, then everything (gated to four).
    assert_eq!(at("fs"), Some(0));
    let mounted: Vec<&str> = names[12..16].iter().map(String::as_str).collect();
    assert_eq!(
        mounted,
        [
            "echo",
            "get-env",
            "get-sum",
            "trigger-long-running-operation"
        ]
    );
    // Then kb, then web, then the door.
    assert_eq!(at("kb_echo"), Some(16));
    assert_eq!(at("test_sleep"), at("common").map(|c| c + 1));
    assert_eq!(at("describe"), at("test_sleep").map(|t| t + 1));
    assert_eq!(at("get-tiny-image"), None);
    let slept = server.call_tool(9, "test_sleep", json!({ "ms": 1 }));
    assert_eq!(first_text(&slept["result"]), "slept 1 ms", "{slept}");

    let refused = server.call_tool(2, "get-tiny-image", json!({}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        door.requests_for("tools/call").is_empty(),
        "a gated-out name never reaches the door"
    );

    server.send_line(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"caf\u00e9 \ud83d\ude00"}}}"#);
    let echoed = server.response(3).to_owned();
    assert!(echoed.contains("Echo: café 😀"), "{echoed}");

    let env = server.call_tool(4, "get-env", json!({}));
    let text = first_text(&env["result"]);
    assert!(text.contains("PATH") && !text.contains(CANARY), "{text}");

    server.request(
        5,
        "tools/call",
        json!({ "name": "trigger-long-running-operation", "arguments": { "duration": 1, "steps": 3 },
                "_meta": { "progressToken": "everything-progress" } }),
    );
    let mut progress = 0;
    let done = loop {
        let message = server.recv();
        match message["method"].as_str() {
            Some("notifications/progress") => {
                assert_eq!(message["params"]["progressToken"], "everything-progress");
                progress += 1;
            }
            Some(_) => {}
            None => break message,
        }
    };
    assert_eq!(done["id"], 5, "{done}");
    assert!(progress >= 2, "{progress} progress notifications");
}

#[test]
fn sampling_is_relayed_to_a_client_that_offers_it_and_refused_otherwise() {
    let logs = tempfile::tempdir().unwrap();
    // A client with sampling: the request reaches it and its answer goes back.
    let mut server = serve_kb(logs.path(), &[]);
    server.handshake("2025-11-25", json!({ "sampling": {} }));
    server.request(1, "tools/call", call_params("kb_sample", json!({})));
    let asked = next_other_than_list_changed(&mut server);
    assert_eq!(asked["method"], "sampling/createMessage", "{asked}");
    assert_eq!(asked["params"]["maxTokens"], 5);
    server.send(&json!({
        "jsonrpc": "2.0", "id": asked["id"],
        "result": { "role": "assistant", "content": { "type": "text", "text": "sampled" }, "model": "m" }
    }));
    let answer = next_other_than_list_changed(&mut server);
    let told: Value = serde_json::from_str(first_text(&answer["result"])).unwrap();
    assert_eq!(told["content"]["text"], "sampled", "{answer}");

    // A client without it: the server gets the standard error.
    let mut server = serve_kb(logs.path(), &[]);
    server.initialize("2025-11-25");
    let answer = server.call_tool(1, "kb_sample", json!({}));
    let told: Value = serde_json::from_str(first_text(&answer["result"])).unwrap();
    assert_eq!(told["code"], -32601, "{answer}");
}

#[test]
fn a_mounted_child_dies_with_the_server() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("kb.log");
    let mut server = serve_kb(logs.path(), &[]);
    server.initialize("2025-11-25");
    list(&mut server, 1);
    let pid = received(&log)[0]["pid"].as_i64().unwrap();
    let alive = |pid: i64| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        })
    };
    assert!(alive(pid));
    kill(i64::from(server.id()));
    assert!(
        eventually(|| !alive(pid)),
        "the mounted child {pid} outlived the server"
    );
}

#[test]
fn a_mounted_server_is_told_when_the_clients_roots_change() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    std::fs::create_dir_all(&first).unwrap();
    std::fs::create_dir_all(&second).unwrap();
    let log = dir.path().join("kb.log");
    let kb = server_flag("kb", "kb_", &log, "");
    // No --root: the local tools, and so the mounted servers, follow the
    // client's roots.
    let mut command = crate::common::hanzo_mcp();
    command
        .args(["serve", "--no-door", "--server", &kb, "--server-wait", "20"])
        .current_dir(&first);
    let mut server = Proc::start(command);
    server.handshake("2025-11-25", json!({ "roots": { "listChanged": true } }));
    let uri = |dir: &Path| format!("file://{}", dir.canonicalize().unwrap().display());
    let answer_roots = |server: &mut Proc, dir: &Path| {
        let asked = next_other_than_list_changed(server);
        assert_eq!(asked["method"], "roots/list", "{asked}");
        server.send(&json!({ "jsonrpc": "2.0", "id": asked["id"],
            "result": { "roots": [ { "uri": uri(dir) } ] } }));
    };
    answer_roots(&mut server, &first);
    list(&mut server, 1);
    server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    answer_roots(&mut server, &second);
    assert!(
        eventually(|| received(&log)
            .iter()
            .any(|m| m["method"] == "notifications/roots/list_changed")),
        "kb was told: {:?}",
        received(&log)
    );
    let told = server.call_tool(2, "kb_roots", json!({}));
    let told: Value = serde_json::from_str(first_text(&told["result"])).unwrap();
    assert_eq!(told["roots"][0]["uri"], uri(&second));
}

#[test]
fn a_name_the_allowlist_gives_a_server_is_its_own_before_its_list_arrives() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let logs = tempfile::tempdir().unwrap();
    let hang = server_flag("kb", "kb_", &logs.path().join("kb.log"), "--hang-init");
    let mut server = Proc::spawn_with_env(
        &[
            "serve",
            "--root",
            logs.path().to_str().unwrap(),
            "--server",
            &hang,
            "--server-wait",
            "0.3",
            "--allowed-tools",
            r#"{"kb": ["kb_ops:read", "billing"]}"#,
        ],
        &[
            ("HANZO_MCP_DOOR", door.url().as_str()),
            ("HANZO_API_KEY", CANARY),
        ],
    );
    server.initialize("2025-11-25");
    // `billing` is also the door's: named for kb, it is kb's alone.
    for (id, name) in [(1, "kb_ops"), (2, "billing")] {
        let answer = server.call_tool(id, name, json!({ "action": "read" }));
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
    }
    assert!(door.requests_for("tools/call").is_empty());
}

#[test]
fn a_mounted_servers_own_discriminator_named_twice_in_any_case_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("kb.log");
    let config = dir.path().join("c.toml");
    std::fs::write(
        &config,
        format!(
            "[[servers]]\nname = \"kb\"\ncommand = \"python3\"\nargs = [{:?}, \"--prefix\", \"kb_\", \"--log\", {:?}]\ndiscriminator = \"method\"\n\n[allowed_tools]\nkb = [\"kb_issue:create\"]\n",
            fixture(),
            log.display().to_string()
        ),
    )
    .unwrap();
    let mut server = serve_no_door(
        dir.path(),
        &["--config", config.to_str().unwrap(), "--server-wait", "20"],
        &[],
    );
    server.initialize("2025-11-25");
    let ok = server.call_tool(1, "kb_issue", json!({ "method": "create" }));
    assert_eq!(ok["result"]["content"][0]["text"], "ran create", "{ok}");
    server.send_line(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"kb_issue","arguments":{"method":"update","method":"create"}}}"#);
    let twice: Value = serde_json::from_str(server.response(2)).unwrap();
    assert_eq!(twice["error"]["code"], -32602, "{twice}");
    assert!(
        twice["error"]["message"]
            .as_str()
            .unwrap()
            .contains("twice"),
        "{twice}"
    );
    // A server that ignores case (Go's encoding/json) would run the last
    // of `method`/`METHOD`, or the name `Name` gives: refused alike.
    let case_variants = [
        r#"{"name":"kb_issue","arguments":{"method":"create","METHOD":"update"}}"#,
        r#"{"name":"kb_issue","Name":"kb_delete","arguments":{"method":"create"}}"#,
        r#"{"name":"kb_issue","arguments":{"method":"create"},"Arguments":{"method":"update"}}"#,
    ];
    for (id, params) in (3..).zip(case_variants) {
        server.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#
        ));
        let refused: Value = serde_json::from_str(server.response(id)).unwrap();
        assert_eq!(refused["error"]["code"], -32602, "{refused}");
    }
    assert_eq!(calls_received(&log), ["kb_issue"]);
}

#[test]
fn a_child_that_writes_without_a_line_end_is_an_outage_not_a_hang() {
    let logs = tempfile::tempdir().unwrap();
    let mut server = serve_kb(logs.path(), &[]);
    server.initialize("2025-11-25");
    let answer = server.call_tool(1, "kb_flood", json!({}));
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    assert!(first_text(&answer["result"]).contains("\"kb\""), "{answer}");
}

/// Over `--http`, one session's call must never get another session's
/// client to answer the mounted server's sampling request: with calls of
/// two sessions in flight, nobody is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_never_asks_another_sessions_client() {
    let logs = tempfile::tempdir().unwrap();
    let kb = server_flag("kb", "kb_", &logs.path().join("kb.log"), "");
    let (_server, port) = serve_http(
        logs.path(),
        &["--http-no-auth", "--server", &kb, "--server-wait", "20"],
        &[],
    );
    let http = crate::common::http::Http::new(&format!("http://127.0.0.1:{port}/mcp"));
    let victim = http.open_session(json!({ "sampling": {} })).await;
    let attacker = http.open_session(json!({})).await;
    // The victim's long call is in flight (its stream would carry a
    // sampling request, which it would answer).
    let slow = tokio::spawn({
        let victim = victim.clone();
        async move {
            victim
                .post(&json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": { "name": "kb_slow", "arguments": {} } }))
                .await
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer = attacker
        .call(
            2,
            &json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": { "name": "kb_sample", "arguments": {} } }),
        )
        .await;
    let told: Value = serde_json::from_str(first_text(&answer["result"])).unwrap();
    assert_eq!(told["code"], -32601, "{answer}");
    assert!(
        told["message"]
            .as_str()
            .unwrap()
            .contains("several clients"),
        "{answer}"
    );
    slow.abort();
}

#[test]
fn a_cancellation_is_read_while_every_slot_waits_on_a_mounted_server() {
    let logs = tempfile::tempdir().unwrap();
    let mut server = serve_kb(logs.path(), &["--max-in-flight", "2"]);
    server.initialize("2025-11-25");
    list(&mut server, 0);
    // Both slots wait on kb's slow tool (5 s each).
    server.request(1, "tools/call", call_params("kb_slow", json!({})));
    server.request(2, "tools/call", call_params("kb_slow", json!({})));
    server.send(
        &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 1 } }),
    );
    server.request(3, "ping", json!({}));
    // The cancellation frees a slot at once, so the ping is answered before
    // the other slow call ends.
    let first = next_other_than_list_changed(&mut server);
    assert_eq!(first["id"], 3, "{first}");
}

#[test]
fn a_gated_server_that_is_down_answers_its_allowed_names_with_an_error_result() {
    let logs = tempfile::tempdir().unwrap();
    let log = logs.path().join("kb.log");
    let mut server = serve_kb(
        logs.path(),
        &["--allowed-tools", r#"{"kb": ["kb_ops:read"]}"#],
    );
    server.initialize("2025-11-25");
    list(&mut server, 0);
    kill_and_bring_back(&mut server, &log, 1);
}

#[test]
fn a_root_among_the_hidden_folders_of_home_gives_a_mounted_child_a_home_of_its_own() {
    // `--root ~/.local`: Python's user site-packages (and a `.pth` file
    // there, which runs) are the agent's to write.
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let (home, state) = (dir.join("home"), dir.join("state"));
    std::fs::create_dir_all(home.join(".local")).unwrap();
    // The machine's python3 by another name, as a multi-call program is
    // reached (`cargo` is `rustup`): it is started by that name.
    let python = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    let python = String::from_utf8(python.stdout).expect("a UTF-8 path");
    std::fs::create_dir(dir.join("bin")).unwrap();
    std::os::unix::fs::symlink(python.trim(), dir.join("bin/kbpython")).unwrap();
    let path = format!(
        "{}:{}",
        dir.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kb = format!(
        "kb=kbpython {} --prefix kb_ --log {}",
        fixture(),
        dir.join("kb.log").display()
    );
    let start = |home: &Path, roots: &[PathBuf], env: &[(&str, &Path)]| {
        let mut command = crate::common::hanzo_mcp();
        command
            .args(["serve", "--no-door"])
            .args(
                roots
                    .iter()
                    .flat_map(|root| [std::ffi::OsStr::new("--root"), root.as_os_str()]),
            )
            .args(["--server", &kb, "--server-wait", "20"])
            .current_dir(&dir)
            .env("PATH", &path)
            .env("HOME", home)
            .env("HANZO_MCP_STATE", &state);
        for (name, value) in env {
            command.env(name, value);
        }
        let mut server = Proc::start(command);
        server.initialize("2025-11-25");
        server
    };
    let ask = |server: &mut Proc, id: i64, name: &str| {
        let answer = server.call_tool(id, "kb_env", json!({ "name": name }));
        first_text(&answer["result"]).to_owned()
    };
    // Our working directory holds the root (`python -m x` would import
    // `./x`): the child works in its own folder. A variable naming our
    // home is not passed on once its home is another.
    let own = state.join("servers/kb").display().to_string();
    let mut server = start(
        &home,
        &[home.join(".local")],
        &[("XDG_CACHE_HOME", &home.join(".cache"))],
    );
    assert_eq!(ask(&mut server, 1, "HOME"), own);
    assert_eq!(ask(&mut server, 2, "."), own);
    assert_eq!(ask(&mut server, 3, "argv0"), "kbpython");
    assert_eq!(ask(&mut server, 4, "XDG_CACHE_HOME"), "");
    // OpenSSH reads the account's settings whatever HOME says: the ssh
    // its git runs reads none.
    assert_eq!(ask(&mut server, 5, "GIT_SSH_COMMAND"), "ssh -F /dev/null");
    server.close_stdin();
    server.wait();

    // A dotfiles repository as the root, its folders linked into HOME
    // (`~/.config/git` alone), or a file three levels down (as GNU Stow
    // links `~/.config/git/config` when `~/.config/git` is a folder).
    let dotfiles = dir.join("dotfiles");
    std::fs::create_dir_all(dotfiles.join("git")).unwrap();
    std::fs::create_dir_all(home.join(".config")).unwrap();
    std::os::unix::fs::symlink(dotfiles.join("git"), home.join(".config/git")).unwrap();
    let (stowed, dotfiles2) = (dir.join("stowed"), dir.join("dotfiles2"));
    std::fs::create_dir_all(stowed.join(".config/git")).unwrap();
    std::fs::create_dir_all(&dotfiles2).unwrap();
    std::fs::write(dotfiles2.join("gitconfig"), "").unwrap();
    std::os::unix::fs::symlink(
        dotfiles2.join("gitconfig"),
        stowed.join(".config/git/config"),
    )
    .unwrap();
    for (home, root) in [(&home, &dotfiles), (&stowed, &dotfiles2)] {
        let mut server = start(home, std::slice::from_ref(root), &[]);
        assert_eq!(ask(&mut server, 1, "HOME"), own, "{}", root.display());
        server.close_stdin();
        server.wait();
    }
    // A variable naming a folder that holds a root (`XDG_CONFIG_HOME`
    // with its `git/config` the agent's to write) is not passed on; HOME,
    // which holds no root among its hidden folders here, is.
    let (plain, xdg) = (dir.join("plain"), dir.join("xdg"));
    std::fs::create_dir_all(xdg.join("git")).unwrap();
    std::fs::create_dir_all(&plain).unwrap();
    let mut server = start(&plain, &[xdg.join("git")], &[("XDG_CONFIG_HOME", &xdg)]);
    assert_eq!(ask(&mut server, 1, "HOME"), plain.display().to_string());
    assert_eq!(ask(&mut server, 2, "XDG_CONFIG_HOME"), "");
    server.close_stdin();
    server.wait();
    // Nor is one whose settings link into a root from a folder that is
    // not hidden, and git's settings that include a file of the roots
    // give the child a home of its own.
    let (cfg, dots) = (dir.join("cfg"), dir.join("dots"));
    std::fs::create_dir_all(cfg.join("git")).unwrap();
    std::fs::create_dir_all(&dots).unwrap();
    std::fs::write(dots.join("gitconfig"), "").unwrap();
    std::os::unix::fs::symlink(dots.join("gitconfig"), cfg.join("git/config")).unwrap();
    let mut server = start(
        &plain,
        std::slice::from_ref(&dots),
        &[("XDG_CONFIG_HOME", &cfg)],
    );
    assert_eq!(ask(&mut server, 1, "HOME"), plain.display().to_string());
    assert_eq!(ask(&mut server, 2, "XDG_CONFIG_HOME"), "");
    server.close_stdin();
    server.wait();
    std::fs::write(
        plain.join(".gitconfig"),
        format!("[include]\n\tpath = {}/gitconfig\n", dots.display()),
    )
    .unwrap();
    let mut server = start(&plain, std::slice::from_ref(&dots), &[]);
    assert_eq!(ask(&mut server, 1, "HOME"), own);
    server.close_stdin();
    server.wait();
    // A settings file named in place of git's (`GIT_CONFIG_GLOBAL`) that
    // includes one of the roots is not passed on; nor is a variable naming
    // a root with `~/`, which programs expand themselves.
    std::fs::remove_file(plain.join(".gitconfig")).unwrap();
    let global = dir.join("gitconfig-work");
    std::fs::write(
        &global,
        format!("[include]\n\tpath = {}/gitconfig\n", dots.display()),
    )
    .unwrap();
    std::fs::create_dir(plain.join("proj")).unwrap();
    let mut server = start(
        &plain,
        &[dots.clone(), plain.join("proj")],
        &[
            ("GIT_CONFIG_GLOBAL", &global),
            ("npm_config_userconfig", Path::new("~/proj/.npmrc")),
        ],
    );
    assert_eq!(ask(&mut server, 1, "HOME"), plain.display().to_string());
    assert_eq!(ask(&mut server, 2, "GIT_CONFIG_GLOBAL"), "");
    assert_eq!(ask(&mut server, 3, "npm_config_userconfig"), "");
    server.close_stdin();
    server.wait();

    // A root inside the state folder, which holds the home the child
    // would get: no home is given there, and the child is not started.
    std::fs::create_dir_all(state.join("servers")).unwrap();
    let mut server = start(&home, &[state.join("servers"), home.join(".local")], &[]);
    server.close_stdin();
    server.wait();
    let stderr = server.stderr_lines().join("\n");
    assert!(stderr.contains("of its own was given for it"), "{stderr}");
}

#[test]
fn a_program_the_tools_could_have_written_is_never_started_as_a_mounted_server() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path().canonicalize().unwrap();
    let bin = root.join("bin");
    std::fs::create_dir(&bin).unwrap();
    let marker = root.join("planted-ran");
    // What an agent with file tools could plant in a PATH folder inside
    // its roots: a `python3` that would run first.
    for name in ["python3", "planted"] {
        let body = format!("echo ran > {}\nexit 1", marker.display());
        crate::common::servers::plant(&bin.join(name), &body);
    }
    let path = format!(
        "{}:.:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // And a module in the working directory, for `python3 -m`.
    std::fs::write(
        root.join("plantedmod.py"),
        format!(
            "open({:?}, 'w').write('ran')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let kb = format!(
        "kb=python3 {} --prefix kb_ --log {}/kb.log",
        fixture(),
        root.display()
    );
    // `sh` is the machine's, but the python3 it runs is looked up on the
    // child's own PATH: the folders of the roots are not on it.
    let sh = format!(
        "sh=sh -c 'exec python3 {} --prefix sh_ --log {}/sh.log'",
        fixture(),
        root.display()
    );
    let inside = format!("in={}", bin.join("planted").display());
    // A script of the roots, run by the machine's own interpreter: the
    // agent can rewrite it before a restart.
    std::fs::write(
        root.join("planted.py"),
        format!(
            "open({:?}, 'w').write('ran')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let script = format!("script=python3 {}", root.join("planted.py").display());
    // A data file of the roots is no script: the server starts.
    std::fs::write(root.join("data.log"), "").unwrap();
    let data = format!(
        "data=python3 {} --prefix da_ --log {}",
        fixture(),
        root.join("data.log").display()
    );
    // A script an interpreter runs, whatever its name, and a project
    // folder a flag makes the program work in.
    std::fs::write(root.join("tool.zip"), "print('zip')\n").unwrap();
    let zip = format!("zip=python3 {}", root.join("tool.zip").display());
    let uv = format!("uvdir=python3 -c pass --directory {}", root.display());
    // A script without an extension behind an option's value, behind
    // `env`, in a shell's line; a folder attached to `-C`; an env file.
    std::fs::write(root.join("evil"), "print('evil')\n").unwrap();
    std::fs::write(root.join(".env"), "NODE_OPTIONS=--require ./hook\n").unwrap();
    let evil = root.join("evil").display().to_string();
    let hidden = [
        format!("opt=python3 -W ignore {evil}"),
        format!("viaenv=env python3 {evil}"),
        format!("line=sh -c 'exec python3 {evil}'"),
        format!("attached=env -C{} true", root.display()),
        format!(
            "envfile=python3 -c pass --env-file={}",
            root.join(".env").display()
        ),
    ];
    // And one named by a flag's value.
    let flag = format!("flag=env --file={}", root.join("planted.py").display());
    let link = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(root.join("pylib"), link.path().join("lib")).unwrap();
    let mut command = crate::common::hanzo_mcp();
    command
        .args(["serve", "--no-door", "--root"])
        .arg(&root)
        .args(["--server", &kb, "--server", &sh, "--server", "bare=planted"])
        .args([
            "--server",
            &inside,
            "--server",
            "module=python3 -m plantedmod",
            "--server",
            &script,
            "--server",
            &flag,
            "--server",
            &data,
            "--server",
            &zip,
            "--server",
            &uv,
        ])
        .args(
            hidden
                .iter()
                .flat_map(|server| ["--server", server.as_str()]),
        )
        .args(["--server-wait", "20"])
        .current_dir(&root)
        .env("PATH", &path)
        // Variables that load code from the roots (one through a link),
        // and a HOME in them.
        .env("PYTHONPATH", root.join("pylib"))
        .env(
            "_JAVA_OPTIONS",
            format!("-javaagent:{}/agent.jar", root.display()),
        )
        .env("NODE_PATH", link.path().join("lib"))
        .env("HOME", &root);
    std::fs::create_dir(root.join("pylib")).unwrap();
    std::fs::write(
        root.join("pylib/sitecustomize.py"),
        format!(
            "open({:?}, 'w').write('ran')\n",
            marker.display().to_string()
        ),
    )
    .unwrap();
    let mut server = Proc::start(command);
    server.initialize("2025-11-25");
    // kb and sh run, through the machine's python3 further on PATH.
    let names = tool_names(&server.call(1, "tools/list", json!({}))["result"]);
    assert!(
        names.iter().any(|n| n == "kb_echo"),
        "{names:?} {:?}",
        server.stderr_lines()
    );
    assert!(names.iter().any(|n| n == "sh_echo"), "{names:?}");
    assert!(names.iter().any(|n| n == "da_echo"), "{names:?}");
    let env = |server: &mut Proc, id: i64, name: &str| {
        let answer = server.call_tool(id, "kb_env", json!({ "name": name }));
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("?")
            .to_owned()
    };
    assert_eq!(env(&mut server, 2, "PYTHONPATH"), "");
    assert_eq!(env(&mut server, 3, "_JAVA_OPTIONS"), "");
    assert_eq!(env(&mut server, 4, "NODE_PATH"), "");
    // The child's git takes no folder it stands in for a repository.
    assert_eq!(
        env(&mut server, 6, "GIT_CONFIG_KEY_0"),
        "safe.bareRepository"
    );
    assert_eq!(env(&mut server, 7, "GIT_CONFIG_VALUE_0"), "explicit");
    // Its home is its own, in the state folder the tools never reach
    // (`~/.npm/_npx`, `~/.cache/uv` and the like run code).
    assert_eq!(
        env(&mut server, 5, "HOME"),
        root.join(".local/share/hanzo-mcp/servers/kb")
            .display()
            .to_string()
    );
    assert!(root.join(".local/share/hanzo-mcp/servers/kb").is_dir());
    // It does not work there, though: the folders above its own are the
    // tools' (`.cargo/config.toml` and `node_modules` are looked for
    // upward), and so is ours.
    assert_eq!(env(&mut server, 8, "."), "/");
    server.close_stdin();
    server.wait();
    let stderr = server.stderr_lines().join("\n");
    assert!(
        stderr.contains("could not start \"planted\": no such program on PATH outside the folders the tools may write"),
        "{stderr}"
    );
    let planted = bin.join("planted").display().to_string();
    for (command, what) in [
        (
            planted.as_str(),
            format!("its program {planted} lies inside"),
        ),
        (
            "python3",
            format!(
                "its script {} lies inside",
                root.join("planted.py").display()
            ),
        ),
        (
            "env",
            format!(
                "its script {} lies inside",
                root.join("planted.py").display()
            ),
        ),
        (
            "python3",
            format!("its script {} lies inside", root.join("tool.zip").display()),
        ),
        (
            "python3",
            format!(
                "the folder its --directory names, {} lies inside",
                root.display()
            ),
        ),
        ("python3", format!("its script {evil} lies inside")),
        ("env", format!("its script {evil} lies inside")),
        ("sh", format!("its script {evil} lies inside")),
        (
            "env",
            format!("the folder its -C names, {} lies inside", root.display()),
        ),
        (
            "python3",
            format!("its script {} lies inside", root.join(".env").display()),
        ),
    ] {
        assert!(
            stderr.contains(&format!(
                "not starting {command:?}: {what} the folders the tools may write"
            )),
            "{command} {what}: {stderr}"
        );
    }
    assert_eq!(
        stderr
            .matches(&format!("its script {evil} lies inside"))
            .count(),
        3,
        "{stderr}"
    );
    assert!(!marker.exists(), "a planted program ran");
}
