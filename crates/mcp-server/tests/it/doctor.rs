//! `hanzo-mcp doctor` through the binary: the door answering, refusing and
//! answering 401, git missing from PATH, and a state folder that cannot be
//! written, each with its line and the exit status.

use mcp_fake_door::{Behaviour, FakeDoor};

use crate::common::run;

/// `hanzo-mcp doctor` with HOME, the state folder and the config folder in
/// a new temporary folder, and `env`; its exit code and lines.
fn doctor(env: &[(&str, &str)]) -> (i32, Vec<String>) {
    let home = tempfile::tempdir().expect("home");
    let home_path = home.path().to_str().expect("utf-8").to_owned();
    let state = format!("{home_path}/state");
    let mut all: Vec<(&str, &str)> = vec![
        ("HOME", home_path.as_str()),
        ("HANZO_MCP_STATE", state.as_str()),
        ("XDG_CONFIG_HOME", home_path.as_str()),
    ];
    all.extend_from_slice(env);
    let out = run(&["doctor"], &all);
    let text = String::from_utf8(out.stdout).expect("utf-8");
    (
        out.status.code().unwrap_or(-1),
        text.lines().map(str::to_owned).collect(),
    )
}

/// The line about `what`.
fn line<'a>(lines: &'a [String], what: &str) -> &'a str {
    let prefix = format!(" {what}: ");
    lines
        .iter()
        .find(|l| l.get(4..).is_some_and(|rest| rest.starts_with(&prefix)))
        .unwrap_or_else(|| panic!("no {what} line in {lines:#?}"))
}

#[test]
fn a_door_that_answers_and_everything_else_in_order_exits_0() {
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let (code, lines) = doctor(&[("HANZO_MCP_DOOR", door.url().as_str())]);
    assert_eq!(code, 0, "{lines:#?}");
    assert_eq!(
        line(&lines, "door"),
        format!("ok   door: {} answers tools/list (4 tools)", door.url())
    );
    assert!(
        line(&lines, "git").starts_with("ok   git: git version "),
        "{lines:#?}"
    );
    assert!(
        line(&lines, "state").ends_with("/state/state.db healthy"),
        "{lines:#?}"
    );
    assert!(line(&lines, "version").starts_with("ok   version: hanzo-mcp "));
    // Only tools/list was asked, without a credential.
    assert_eq!(door.requests().len(), 1);
    assert_eq!(door.requests()[0].header("authorization"), None);
}

#[test]
fn a_refused_door_fails_with_the_fix() {
    let address = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        listener.local_addr().expect("address")
    };
    let url = format!("http://{address}/v1/mcp");
    let (code, lines) = doctor(&[("HANZO_MCP_DOOR", url.as_str())]);
    assert_eq!(code, 1);
    assert_eq!(
        line(&lines, "door"),
        format!(
            "FAIL door: {url} does not answer tools/list (could not connect: Connection refused (os error 111)); \
             the server still starts with the local tools. Check the network, or HANZO_MCP_DOOR / HANZO_API_BASE, or pass --no-door"
        )
    );
}

#[test]
fn a_door_answering_401_to_the_list_fails() {
    let door = FakeDoor::start(Behaviour::Unauthorized).expect("fake door");
    let (code, lines) = doctor(&[("HANZO_MCP_DOOR", door.url().as_str())]);
    assert_eq!(code, 1);
    assert_eq!(
        line(&lines, "door"),
        format!(
            "FAIL door: {} answered 401 to tools/list, which needs no sign-in: a proxy or a wrong address? \
             (resource metadata {}); check HANZO_MCP_DOOR or HANZO_API_BASE",
            door.url(),
            door.challenge_metadata_url()
        )
    );
}

#[test]
fn git_missing_from_path_fails() {
    let empty = tempfile::tempdir().expect("empty PATH folder");
    let path = empty.path().to_str().expect("utf-8");
    let (code, lines) = doctor(&[
        ("PATH", path),
        ("HANZO_MCP_DOOR", "http://127.0.0.1:9/v1/mcp"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        line(&lines, "git"),
        "FAIL git: not found on PATH: install git (the git tool runs it)"
    );
    assert_eq!(
        line(&lines, "hanzo CLI"),
        "note hanzo CLI: not found on PATH: needed only for `hanzo auth token` and `hanzo auth login`; install it from https://hanzo.ai, or set HANZO_API_KEY"
    );
}

#[test]
fn a_state_folder_that_cannot_be_written_fails() {
    let file = tempfile::NamedTempFile::new().expect("a file");
    let state = format!("{}/state", file.path().display());
    let (code, lines) = doctor(&[
        ("HANZO_MCP_STATE", state.as_str()),
        ("HANZO_MCP_DOOR", "http://127.0.0.1:9/v1/mcp"),
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        line(&lines, "state"),
        format!(
            "FAIL state: {state} is not writable (Not a directory (os error 20)): fix its permissions, or set HANZO_MCP_STATE to a writable folder"
        )
    );
}

#[test]
fn a_configuration_file_that_does_not_parse_is_a_failed_check_and_the_rest_are_made() {
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, "[door]\nwiat = 2\n").expect("write");
    let path = file.to_str().expect("utf-8");
    let (code, lines) = doctor(&[
        ("HANZO_MCP_CONFIG", path),
        ("HANZO_MCP_DOOR", "http://127.0.0.1:9/v1/mcp"),
    ]);
    assert_eq!(code, 1);
    assert!(
        line(&lines, "config").starts_with(&format!(
            "FAIL config: configuration: {path}: key door.wiat (line 2): unknown field"
        )),
        "{lines:#?}"
    );
    assert!(line(&lines, "git").starts_with("ok   git: "), "{lines:#?}");
}

#[test]
fn a_mode_that_names_no_preset_fails_and_one_that_does_is_ok() {
    let door = [("HANZO_MCP_DOOR", "http://127.0.0.1:9/v1/mcp")];
    let (code, lines) = doctor(&[door[0], ("HANZO_MCP_MODE", "nonexistent")]);
    assert_eq!(code, 1);
    assert_eq!(
        line(&lines, "mode"),
        "FAIL mode: HANZO_MCP_MODE=nonexistent: no such mode (known: full, review)"
    );
    let (_, lines) = doctor(&[door[0], ("HANZO_MCP_MODE", "review")]);
    assert_eq!(line(&lines, "mode"), "ok   mode: review, for every session");
    let (_, lines) = doctor(&door);
    assert!(
        !lines.iter().any(|l| l.contains(" mode: ")),
        "no mode line without a mode: {lines:#?}"
    );
}

#[test]
fn allowlist_entries_that_match_no_local_tool_are_named_with_what_is_left() {
    let door = ("HANZO_MCP_DOOR", "http://127.0.0.1:9/v1/mcp");
    let (_, lines) = doctor(&[
        door,
        (
            "HANZO_MCP_ALLOWED_TOOLS",
            r#"{"local": ["think", "nosuchtool", "fs:nope"]}"#,
        ),
    ]);
    assert_eq!(
        line(&lines, "allowed_tools"),
        "note allowed_tools: local: \"nosuchtool\" matches no tool; \"fs:nope\": tool \"fs\" has no such op; the local tools left: think"
    );
    let (_, lines) = doctor(&[door, ("HANZO_MCP_ALLOWED_TOOLS", r#"{"local": ["think"]}"#)]);
    assert!(
        !lines.iter().any(|l| l.contains(" allowed_tools: ")),
        "{lines:#?}"
    );
}

#[test]
fn doctor_starts_each_mounted_server_and_fails_one_that_cannot_start() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = crate::common::servers::fixture();
    let log = dir.path().join("kb.log");
    let output = run(
        &[
            "doctor",
            "--no-door",
            "--server",
            "typo=hanzo-mcp-no-such-program",
            "--server",
            &format!("kb=python3 {fixture} --prefix kb_ --log {}", log.display()),
        ],
        &[("HOME", dir.path().to_str().unwrap())],
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("FAIL server: typo") && l.contains("could not start")),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("ok   server: kb") && l.ends_with(": 11 tools")),
        "{stdout}"
    );
}
