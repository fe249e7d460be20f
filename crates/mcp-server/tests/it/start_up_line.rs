//! What `hanzo-mcp` says on stderr about itself and its door (HIP-0300
//! §2.2: a door that does not answer costs one line), through the real
//! binary: the start-up line in each door state, one outage line per
//! outage whether the door refuses, cannot be resolved, hangs or answers
//! 500, the line when it answers again, and `hanzo-mcp tools` saying the
//! same.

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::json;

use crate::common::{
    CANARY, Proc, behind_fake_door, free_address, local_names, names, run, serve_with_door,
    tool_names,
};

const OUTAGE: &str = "door unavailable (";
const RECOVERY: &str = "the door answers again";

/// The stderr lines of `server` up to and including the first that
/// contains `needle`, appended to `seen`; that line.
fn line_with(server: &mut Proc, needle: &str, seen: &mut Vec<String>) -> String {
    loop {
        let line = server.stderr_line();
        seen.push(line.clone());
        if line.contains(needle) {
            return line;
        }
    }
}

/// The start-up line of `server`, and the stderr lines up to it.
fn start_up_line(server: &mut Proc) -> (String, Vec<String>) {
    let mut seen = Vec::new();
    let line = line_with(server, "hanzo-mcp ", &mut seen);
    (line, seen)
}

/// How many of `lines` contain `needle`.
fn count(lines: &[String], needle: &str) -> usize {
    lines.iter().filter(|line| line.contains(needle)).count()
}

/// The text of a start-up `line` after the log prefix and `hanzo-mcp
/// <version> on stdio: `.
fn start_up_text(line: &str) -> &str {
    let at = line.find("hanzo-mcp ").expect("the start-up line");
    let said = concat!("hanzo-mcp ", env!("CARGO_PKG_VERSION"), " on stdio: ");
    line[at..]
        .strip_prefix(said)
        .unwrap_or_else(|| panic!("not {said:?}: {line}"))
}

/// Closes the session and returns every stderr line, `seen` first.
fn finish(server: &mut Proc, mut seen: Vec<String>) -> Vec<String> {
    server.wait();
    seen.extend(server.stderr_lines());
    seen
}

/// Once the door answers again: a call of `agents` (request `id`) is
/// forwarded and no error, its return is said, and the session closes
/// having said one outage and one return (`seen` holds the lines read so
/// far).
fn recovered(server: &mut Proc, id: i64, mut seen: Vec<String>) {
    let answered = server.call_tool(id, "agents", json!({}));
    assert!(answered["result"].is_object(), "{answered}");
    assert_ne!(answered["result"]["isError"], true, "{answered}");
    line_with(server, RECOVERY, &mut seen);
    let lines = finish(server, seen);
    assert_eq!(count(&lines, OUTAGE), 1, "{lines:#?}");
    assert_eq!(count(&lines, RECOVERY), 1, "{lines:#?}");
}

#[test]
fn a_refused_door_is_said_once_in_the_start_up_line_and_its_return_once_more() {
    let address = free_address();
    let url = format!("http://{address}/v1/mcp");
    let mut setup = serve_with_door(&url, &["--log-level", "info"]);
    let root = setup.root.path().display().to_string();
    let server = &mut setup.server;
    let (line, seen) = start_up_line(server);
    assert_eq!(
        start_up_text(&line),
        format!(
            "{} local tools, roots {root}, door {url}: door unavailable ({address}: Connection \
             refused (os error 111)); serving local tools only until it answers",
            local_names().len()
        )
    );
    assert!(line.contains(" WARN "), "an outage is a warning: {line}");
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let refused = server.call_tool(2, "agents", json!({}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");

    let door = FakeDoor::start_at(address, Behaviour::Normal).expect("fake door");
    recovered(server, 3, seen);
    assert_eq!(door.requests_for("tools/call").len(), 1);
}

#[test]
fn a_door_that_cannot_be_resolved_costs_one_line() {
    // `.invalid` never resolves (RFC 6761).
    let url = "https://door.invalid/v1/mcp";
    let mut setup = serve_with_door(url, &["--log-level", "info"]);
    let server = &mut setup.server;
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    let (line, seen) = start_up_line(server);
    assert!(
        line.contains(&format!("door {url}"))
            && line.contains("cannot resolve door.invalid")
            && (line.contains(OUTAGE) || line.contains("unreachable (")),
        "{line}"
    );
    for id in 2..4 {
        let response = server.call_tool(id, "agents", json!({}));
        assert_eq!(response["result"]["isError"], true, "{response}");
    }
    let lines = finish(server, seen);
    assert_eq!(count(&lines, OUTAGE), 1, "{lines:#?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains(OUTAGE) && l.contains("cannot resolve door.invalid")),
        "{lines:#?}"
    );
}

#[test]
fn a_hanging_door_is_reachable_at_start_then_one_outage_line_then_its_return() {
    let door = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let url = door.url();
    let mut setup = serve_with_door(&url, &["--log-level", "info", "--door-wait", "0.2"]);
    let server = &mut setup.server;
    let (line, mut seen) = start_up_line(server);
    assert!(
        start_up_text(&line).ends_with(&format!("door {url} reachable")),
        "{line}"
    );
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    // The list fetch gives up after its timeout (5 s).
    let outage = line_with(server, OUTAGE, &mut seen);
    assert!(outage.contains(&url), "{outage}");
    door.set_behaviour(Behaviour::Normal);
    recovered(server, 2, seen);
}

#[test]
fn a_door_answering_500_costs_one_line_whatever_is_asked_then_its_return() {
    let (door, mut setup, _) = behind_fake_door(Behaviour::Error500, &["--log-level", "info"]);
    let server = &mut setup.server;
    let list = server.call(1, "tools/list", json!({}));
    assert_eq!(names(&list), local_names());
    for id in 2..5 {
        let response = server.call_tool(id, "agents", json!({}));
        assert_eq!(response["result"]["isError"], true, "{response}");
    }
    let mut seen = Vec::new();
    let outage = line_with(server, OUTAGE, &mut seen);
    assert!(outage.contains("500"), "{outage}");
    door.set_behaviour(Behaviour::Normal);
    recovered(server, 5, seen);
}

#[test]
fn the_start_up_line_counts_the_allowed_local_tools_and_says_the_door_is_off() {
    // `exec:nosuch` allows no action of `exec`: not a tool the list has.
    let mut setup = serve_with_door(
        "http://127.0.0.1:9/v1/mcp",
        &[
            "--log-level",
            "info",
            "--no-door",
            "--allowed-tools",
            r#"{"local":["fs","git:status","exec:nosuch"]}"#,
            "--mode",
            "review",
        ],
    );
    let root = setup.root.path().display().to_string();
    let server = &mut setup.server;
    let (line, seen) = start_up_line(server);
    assert_eq!(
        start_up_text(&line),
        format!("2 local tools, mode review, roots {root}, door off")
    );
    assert!(line.contains(" INFO "), "{line}");
    finish(server, seen);
}

#[test]
fn input_that_ends_at_once_still_gets_the_start_up_line() {
    // The name lookup of `.invalid` may take longer than a session whose
    // input is empty: the line is written either way, with the door's
    // state as far as it is known.
    let url = "https://door.invalid/v1/mcp";
    for _ in 0..4 {
        let out = run(
            &["serve", "--log-level", "info"],
            &[("HANZO_MCP_DOOR", url), ("HANZO_API_KEY", CANARY)],
        );
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr
            .lines()
            .filter(|l| l.contains("hanzo-mcp "))
            .collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        let text = start_up_text(lines[0]);
        assert!(
            text.ends_with(&format!("door {url} (still connecting)"))
                || text.contains("cannot resolve door.invalid"),
            "{stderr}"
        );
    }
}

#[test]
fn tools_says_when_the_door_is_unreachable() {
    let address = free_address();
    let url = format!("http://{address}/v1/mcp");
    let out = run(&["tools"], &[("HANZO_MCP_DOOR", url.as_str())]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<String> = stderr.lines().map(str::to_owned).collect();
    assert_eq!(count(&lines, OUTAGE), 1, "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the list");
    assert_eq!(tool_names(&listed), local_names());
}

#[test]
fn a_proxy_variable_that_would_be_passed_by_leaves_the_door_off_and_sends_nothing() {
    // reqwest cannot read this proxy, so it would connect to the door
    // straight, bearer and all: the door stays off instead, and says why.
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let home = tempfile::tempdir().expect("home");
    let root_arg = root.path().to_str().expect("utf-8");
    let mut server = Proc::spawn_with_env(
        &["serve", "--root", root_arg, "--log-level", "info"],
        &[
            ("HANZO_MCP_DOOR", door.url().as_str()),
            ("HANZO_API_KEY", CANARY),
            ("HOME", home.path().to_str().expect("utf-8")),
            ("HTTP_PROXY", "::bad::"),
        ],
    );
    let (line, seen) = start_up_line(&mut server);
    assert!(
        start_up_text(&line).ends_with(&format!(
            "door {} (off: HTTP_PROXY=\"::bad::\" is not a proxy URL (http, https, socks4, \
             socks4a, socks5 or socks5h, and a host); fix or unset it)",
            door.url()
        )),
        "{line}"
    );
    server.initialize("2025-11-25");
    let listed = server.call(2, "tools/list", json!({}));
    assert_eq!(tool_names(&listed["result"]), local_names());
    let refused = server.call_tool(3, "agents", json!({}));
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let lines = finish(&mut server, seen);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("the door is off: local tools only")
                && l.contains("HTTP_PROXY=\"::bad::\" is not a proxy URL")),
        "{lines:#?}"
    );
    assert!(door.requests().is_empty(), "{:?}", door.requests());
}

#[test]
fn nothing_connects_to_the_door_before_the_first_answer() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let url = format!("http://{}/v1/mcp", listener.local_addr().expect("address"));
    let mut setup = serve_with_door(&url, &["--log-level", "info"]);
    let server = &mut setup.server;
    // Without input the connect waits 50 ms of the server's own time: less
    // has passed since it was spawned.
    std::thread::sleep(std::time::Duration::from_millis(30));
    assert!(
        listener.accept().is_err(),
        "a connect to the door before any answer"
    );
    let answer = server.initialize_only("2025-11-25", json!({}));
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    // Then the connect comes, and the start-up line says what it found.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while listener.accept().is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no connect to the door after the first answer"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (line, seen) = start_up_line(server);
    assert!(
        start_up_text(&line).ends_with(&format!("door {url} reachable")),
        "{line}"
    );
    finish(server, seen);
}
