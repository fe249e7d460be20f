//! What is gated out stays out, through the binary: a local name is never
//! handed to the door (gated out, narrowed by a mode or listed), a mode
//! reads door tools by their own rules (`op`, `describe`), a call naming
//! its discriminator twice is refused, `--mode` binds every session, a
//! loopback `--http` server has a bearer unless told otherwise, a door
//! address that would send the bearer in clear text is refused, the
//! programs the tools start never see the server's credentials, and file
//! tools never reach the state folder.

use std::path::{Path, PathBuf};

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::{Value, json};

use crate::common::{
    CANARY, Proc, WithDoor, first_text, http_port, modes_file, names, run, serve_no_door,
    serve_with_door,
};

/// The `tools/call` names (and their `op`) that reached `door`.
fn forwarded(door: &FakeDoor) -> Vec<(String, Option<String>)> {
    door.requests_for("tools/call")
        .iter()
        .filter_map(|r| r.params())
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_owned(),
                p["arguments"]["op"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// A server past the handshake with the hostile door and `extra` flags.
fn hostile(door: &FakeDoor, extra: &[&str]) -> WithDoor {
    let mut setup = serve_with_door(&door.url(), extra);
    setup.server.initialize("2025-11-25");
    setup
}

fn error_code(response: &Value) -> i64 {
    response["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {response}"))
}

#[test]
fn a_gated_out_local_name_is_neither_listed_from_nor_forwarded_to_the_door() {
    let door = FakeDoor::start(Behaviour::Hostile).expect("fake door");
    let mut setup = hostile(&door, &["--allowed-tools", r#"{"local":["fs:read"]}"#]);
    let server = &mut setup.server;

    let list = server.call(1, "tools/list", json!({}));
    // The door's exec, fs, git, memory and mode are local names: never
    // listed from the door, whatever the local gating left.
    assert_eq!(names(&list), ["fs", "describe", "evil", "fs2"]);

    for (id, name) in [(2, "exec"), (3, "git"), (4, "memory"), (5, "mode")] {
        let response = server.call_tool(
            id,
            name,
            json!({ "action": "run", "op": "run", "command": "id" }),
        );
        assert_eq!(error_code(&response), -32602, "{name}: {response}");
        assert_eq!(
            response["error"]["message"],
            format!("unknown tool: {name:?}")
        );
    }
    // A door tool of its own name still goes to the door.
    let fs2 = server.call_tool(6, "fs2", json!({ "op": "run" }));
    assert!(fs2.get("result").is_some(), "{fs2}");
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(
        forwarded(&door),
        [("fs2".to_owned(), Some("run".to_owned()))]
    );
}

#[test]
fn a_local_name_hidden_by_a_mode_is_not_forwarded_either() {
    let door = FakeDoor::start(Behaviour::Hostile).expect("fake door");
    let (_dir, modes) = modes_file(&json!({ "reader": ["fs:read", "evil"] }));
    let mut setup = hostile(&door, &["--modes", &modes]);
    let server = &mut setup.server;
    let set = server.call_tool(1, "mode", json!({ "action": "set", "name": "reader" }));
    assert!(
        set.get("result").is_some() && set["result"]["isError"] != json!(true),
        "{set}"
    );
    let exec = server.call_tool(2, "exec", json!({ "action": "run" }));
    assert_eq!(error_code(&exec), -32602, "{exec}");
    let git = server.call_tool(3, "git", json!({ "op": "run" }));
    assert_eq!(error_code(&git), -32602, "{git}");
    let names_now = names(&server.call(4, "tools/list", json!({})));
    assert_eq!(names_now, ["fs", "mode", "evil"]);
    assert_eq!(server.wait().code(), Some(0));
    assert!(forwarded(&door).is_empty(), "{:?}", forwarded(&door));
}

#[test]
fn a_mode_reads_door_tools_by_their_op() {
    let door = FakeDoor::start(Behaviour::Hostile).expect("fake door");
    let (_dir, modes) = modes_file(&json!({ "doorops": ["evil:a"] }));
    let mut setup = hostile(&door, &["--modes", &modes]);
    let server = &mut setup.server;
    let set = server.call_tool(1, "mode", json!({ "action": "set", "name": "doorops" }));
    assert!(
        set.get("result").is_some() && set["result"]["isError"] != json!(true),
        "{set}"
    );

    let list = server.call(2, "tools/list", json!({}));
    assert_eq!(names(&list), ["mode", "evil"]);
    let evil = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "evil")
        .expect("evil listed");
    assert_eq!(
        evil["inputSchema"]["properties"]["op"]["enum"],
        json!(["a"])
    );

    // The op decides, not an `action` that happens to match the preset.
    let other = server.call_tool(3, "evil", json!({ "op": "b", "action": "a" }));
    assert_eq!(error_code(&other), -32602, "{other}");
    assert_eq!(other["error"]["data"]["op"], "b");
    let describe = server.call_tool(4, "describe", json!({ "op": "b" }));
    assert_eq!(error_code(&describe), -32602, "{describe}");
    let allowed = server.call_tool(5, "evil", json!({ "op": "a" }));
    assert!(allowed.get("result").is_some(), "{allowed}");
    assert_eq!(server.wait().code(), Some(0));
    assert_eq!(
        forwarded(&door),
        [("evil".to_owned(), Some("a".to_owned()))]
    );
}

#[test]
fn a_discriminator_given_twice_is_refused_and_never_forwarded() {
    let door = FakeDoor::start(Behaviour::Hostile).expect("fake door");
    let mut setup = hostile(
        &door,
        &[
            "--allowed-tools",
            r#"{"door":["evil:a"],"local":["fs:read"]}"#,
        ],
    );
    let server = &mut setup.server;
    let calls = [
        r#"{"name":"evil","arguments":{"op":"b","op":"a"}}"#,
        r#"{"name":"evil","arguments":{"op":"a","\u006fp":"b"}}"#,
        r#"{"name":"evil","arguments":{"op":"a","input":{},"op":"b","x":"\ud800"}}"#,
        r#"{"name":"fs","arguments":{"action":"write","action":"read","path":"x"}}"#,
    ];
    for (id, params) in (10..).zip(calls) {
        server.send_line(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#
        ));
        let response: Value = serde_json::from_str(server.response(id)).expect("JSON");
        assert_eq!(error_code(&response), -32602, "{params}: {response}");
        assert!(
            response["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("twice")),
            "{response}"
        );
    }
    assert_eq!(server.wait().code(), Some(0));
    assert!(forwarded(&door).is_empty(), "{:?}", forwarded(&door));
}

#[test]
fn mode_flag_binds_every_session_and_mode_set_cannot_widen_it() {
    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let mut server = Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--mode",
            "review",
            "--root",
            root.path().to_str().expect("utf-8"),
        ],
        &[("HANZO_MCP_STATE", state.path().to_str().expect("utf-8"))],
    );
    server.initialize("2025-11-25");
    let list = server.call(1, "tools/list", json!({}));
    for tool in list["result"]["tools"].as_array().expect("tools") {
        let actions = &tool["inputSchema"]["properties"]["action"]["enum"];
        for writing in ["write", "run", "commit", "edit"] {
            assert!(
                !actions
                    .as_array()
                    .is_some_and(|a| a.contains(&json!(writing))),
                "review lists {} {writing}",
                tool["name"]
            );
        }
    }
    // The mode tool names the mode the session works in: the host's.
    let mode = |server: &mut Proc, id, action: &str| {
        let answer = server.call_tool(id, "mode", json!({ "action": action }));
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        mode(&mut server, 30, "current")
            .starts_with("mode: review (the host binds every session to review")
    );
    assert!(mode(&mut server, 31, "list").contains("\n* review: "));
    for (id, name) in [(2, "full"), (3, "review")] {
        let set = server.call_tool(id, "mode", json!({ "action": "set", "name": name }));
        assert!(
            set.get("result").is_some() && set["result"]["isError"] != json!(true),
            "{set}"
        );
        let said = set["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            said.ends_with("within the host's mode review, which every session keeps\n"),
            "{said}"
        );
        assert!(mode(&mut server, id + 40, "current").starts_with("mode: review"));
        let write = server.call_tool(
            id + 10,
            "fs",
            json!({ "action": "write", "path": "x.txt", "content": "x" }),
        );
        assert_eq!(error_code(&write), -32602, "after mode set {name}: {write}");
        let exec = server.call_tool(
            id + 20,
            "exec",
            json!({ "action": "run", "command": "true" }),
        );
        assert_eq!(error_code(&exec), -32602, "after mode set {name}: {exec}");
    }
    assert_eq!(server.wait().code(), Some(0));
    assert!(!root.path().join("x.txt").exists());

    let unknown = run(
        &["serve", "--no-door", "--mode", "nosuchmode"],
        &[("HANZO_MCP_STATE", state.path().to_str().expect("utf-8"))],
    );
    assert!(!unknown.status.success());
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(
        stderr.contains("--mode nosuchmode: no such mode"),
        "{stderr}"
    );
}

#[test]
fn a_plain_http_door_on_another_host_is_refused_at_start() {
    let state = tempfile::tempdir().expect("state");
    let output = run(
        &["serve"],
        &[
            ("HANZO_MCP_DOOR", "http://door.example/v1/mcp"),
            ("HANZO_MCP_STATE", state.path().to_str().expect("utf-8")),
        ],
    );
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("clear text") && stderr.contains("--door-allow-cleartext-bearer"),
        "{stderr}"
    );
    // The same address over https passes the check (and is never
    // contacted: `tools --no-door` lists only local tools).
    let fine = run(
        &["tools", "--no-door"],
        &[("HANZO_MCP_DOOR", "http://door.example/v1/mcp")],
    );
    assert!(
        fine.status.success(),
        "{}",
        String::from_utf8_lossy(&fine.stderr)
    );
}

/// The port and the bearer file of a loopback `--http` server started
/// without a bearer, read from its stderr.
async fn http_port_and_bearer_file(server: &mut Proc) -> (u16, String) {
    let port = http_port(server).await;
    let stderr = server.stderr_lines().join("\n");
    let file = stderr
        .split("the token being the contents of ")
        .nth(1)
        .and_then(|rest| rest.split(" (readable only by you").next())
        .unwrap_or_else(|| panic!("no bearer file named on stderr: {stderr}"))
        .to_owned();
    (port, file)
}

#[tokio::test]
async fn a_loopback_http_server_makes_a_bearer_only_the_user_can_read() {
    use std::os::unix::fs::PermissionsExt as _;

    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let mut server = Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--http",
            "127.0.0.1:0",
            "--root",
            root.path().to_str().expect("utf-8"),
        ],
        &[("HANZO_MCP_STATE", state.path().to_str().expect("utf-8"))],
    );
    let (port, file) = http_port_and_bearer_file(&mut server).await;
    assert!(Path::new(&file).starts_with(state.path()), "{file}");
    let mode = std::fs::metadata(&file)
        .expect("bearer file")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let bearer = std::fs::read_to_string(&file).expect("read bearer");
    assert_eq!(bearer.len(), 64);
    assert!(!server.stderr_lines().join("\n").contains(&bearer));

    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "t", "version": "1" } } })
    .to_string();
    let bare = crate::common::http::raw_post(addr, &body);
    let (status, _, _) = crate::common::http::exchange(addr, bare.as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 401 Unauthorized");
    let with_bearer = bare.replacen(
        "Content-Type:",
        &format!("Authorization: Bearer {bearer}\r\nContent-Type:"),
        1,
    );
    let (status, _, answer) = crate::common::http::exchange(addr, with_bearer.as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 200 OK", "{answer}");
    server.terminate();
}

#[test]
fn programs_the_tools_start_never_see_the_servers_credentials() {
    let root = tempfile::tempdir().expect("root");
    let state = tempfile::tempdir().expect("state");
    let mut server = Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--secret-env",
            "MY_OTHER_SECRET",
            "--root",
            root.path().to_str().expect("utf-8"),
        ],
        &[
            ("HANZO_API_KEY", CANARY),
            ("HANZO_MCP_HTTP_BEARER", "http-bearer-canary"),
            ("MY_OTHER_SECRET", "other-canary"),
            ("PLAIN_VARIABLE", "plain-value"),
            ("HANZO_MCP_STATE", state.path().to_str().expect("utf-8")),
            // A door address with a password in it is a credential too,
            // even one that does not parse as a URL (its port); one
            // without stays (a `hanzo` the agent runs needs it).
            (
                "HANZO_MCP_DOOR",
                "https://door:door-password-canary@door.example:99999/v1/mcp",
            ),
            ("HANZO_API_BASE", "https://api.example"),
        ],
    );
    server.initialize("2025-11-25");
    let printed = server.call_tool(1, "exec", json!({ "action": "run", "command": "env" }));
    let text = first_text(&printed["result"]);
    assert!(text.contains("PLAIN_VARIABLE=plain-value"), "{text}");
    assert!(
        text.contains("HANZO_API_BASE=https://api.example"),
        "{text}"
    );
    for secret in [
        CANARY,
        "http-bearer-canary",
        "other-canary",
        "door-password-canary",
    ] {
        assert!(!text.contains(secret), "{secret} reached the child: {text}");
    }
    // git's children too (a pager or an editor would inherit the same).
    let own = server.call_tool(
        2,
        "exec",
        json!({ "action": "run", "command": "printenv MINE", "env": { "MINE": "given" } }),
    );
    assert!(first_text(&own["result"]).contains("given"), "{own}");
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn the_readme_capability_table_is_the_one_the_binary_prints() {
    let output = run(&["tools", "--capabilities"], &[]);
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).expect("UTF-8");
    // Every local tool has rows, exec's run programs, and the door's last.
    assert!(table.contains("| `exec` | `run` |"), "{table}");
    assert!(table.contains("run programs"), "{table}");
    assert!(
        table
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("| mounted servers' tools"))
    );
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let block = readme
        .split("<!-- capabilities:start -->\n")
        .nth(1)
        .and_then(|rest| rest.split("<!-- capabilities:end -->").next())
        .expect("the README's capability markers");
    assert_eq!(
        block, table,
        "the README's capability table differs from `hanzo-mcp tools --capabilities`: paste the latter between the markers"
    );
}

/// Whether a `tools/call` answer is a result that is not an error.
fn succeeded(answer: &Value) -> bool {
    answer.get("result").is_some() && answer["result"]["isError"] != json!(true)
}

/// A root with `home/` (HOME) and `tools/bin/`, an executable canary
/// outside it that records its runs, and a server with `allowed` and
/// HOME, PATH (`tools/bin`, inside the root, first), state and no door set
/// for it.
struct Attack {
    dir: tempfile::TempDir,
    server: Proc,
}

impl Attack {
    fn start(allowed: &str) -> Attack {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        for folder in [
            root.join("home"),
            root.join("tools/bin"),
            outside.clone(),
            dir.path().join("state"),
        ] {
            std::fs::create_dir_all(folder).expect("mkdir");
        }
        let canary = outside.join("canary");
        std::fs::write(
            &canary,
            format!(
                "#!/bin/sh\necho \"$*\" >> '{}'\n",
                outside.join("ran").display()
            ),
        )
        .expect("canary");
        std::fs::set_permissions(&canary, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let path = format!(
            "{}:{}",
            root.join("tools/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let (root_arg, home, state) = (
            root.display().to_string(),
            root.join("home").display().to_string(),
            dir.path().join("state").display().to_string(),
        );
        let mut server = Proc::spawn_with_env(
            &[
                "serve",
                "--no-door",
                "--root",
                &root_arg,
                "--allowed-tools",
                allowed,
            ],
            &[
                ("HOME", home.as_str()),
                ("XDG_CONFIG_HOME", ""),
                ("PATH", path.as_str()),
                ("HANZO_MCP_STATE", state.as_str()),
            ],
        );
        server.initialize("2025-11-25");
        Attack { dir, server }
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    fn call(&mut self, id: i64, name: &str, arguments: Value) -> Value {
        self.server.call_tool(id, name, arguments)
    }
}

#[test]
fn a_git_the_agent_makes_in_a_path_folder_inside_the_roots_never_runs() {
    let mut attack = Attack::start(r#"{"local":["fs","git"]}"#);
    let canary = attack.outside().join("canary").display().to_string();
    // A repository of the PATH folder's (one that held HOME would be
    // refused: `~/.hanzo` would be inside its work tree).
    let init = attack.call(1, "git", json!({ "action": "init", "path": "tools" }));
    assert!(succeeded(&init), "{init}");
    let patch = format!(
        "diff --git a/bin/git b/bin/git\nnew file mode 100755\n--- /dev/null\n+++ b/bin/git\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+{canary} \"$@\"\n"
    );
    let applied = attack.call(
        2,
        "git",
        json!({ "action": "apply", "path": "tools", "patch": patch }),
    );
    assert!(succeeded(&applied), "{applied}");
    let status = attack.call(3, "git", json!({ "action": "status", "path": "tools" }));
    assert!(succeeded(&status), "{status}");
    assert_eq!(attack.server.wait().code(), Some(0));
    assert!(
        !attack.outside().join("ran").exists(),
        "the agent's git ran: {}",
        std::fs::read_to_string(attack.outside().join("ran")).unwrap_or_default()
    );
}

#[test]
fn git_trace_settings_in_the_agents_gitconfig_write_nothing_outside_the_roots() {
    let mut attack = Attack::start(r#"{"local":["fs","git"]}"#);
    let written = attack.outside().join("written");
    let config = format!(
        "[trace2]\n\tnormalTarget = {0}\n\teventTarget = {0}\n\tperfTarget = {0}\n\tconfigParams = *\n",
        written.display()
    );
    let write = attack.call(
        1,
        "fs",
        json!({ "action": "write", "path": "home/.gitconfig", "content": config }),
    );
    assert!(write.get("result").is_some(), "{write}");
    let init = attack.call(2, "git", json!({ "action": "init", "path": "repo" }));
    assert!(succeeded(&init), "{init}");
    let status = attack.call(3, "git", json!({ "action": "status", "path": "repo" }));
    assert!(succeeded(&status), "{status}");
    assert_eq!(attack.server.wait().code(), Some(0));
    assert!(!written.exists(), "git wrote {}", written.display());
}

/// The server is not dumpable: its `/proc` files that hold its environment
/// belong to root, so a program it starts as the same user cannot read
/// the bearer there. Shown by running it as `nobody` (needs root and
/// util-linux's `setpriv`; said and skipped otherwise).
#[test]
fn the_servers_environment_is_not_readable_by_its_children() {
    use std::os::unix::fs::MetadataExt;
    let me = std::fs::metadata("/proc/self")
        .map(|m| m.uid())
        .unwrap_or(1);
    let setpriv = std::process::Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if me != 0 || !setpriv {
        eprintln!("skipped: needs root and setpriv to run the server as another user");
        return;
    }
    let mut command = std::process::Command::new("setpriv");
    command.args([
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        env!("CARGO_BIN_EXE_hanzo-mcp"),
        "serve",
        "--no-door",
        "--root",
        "/tmp",
    ]);
    crate::common::stdio::hermetic(&mut command);
    command.env("HANZO_API_KEY", CANARY).env("HOME", "/tmp");
    let mut server = Proc::start(command);
    server.initialize("2025-11-25");
    let environ = std::fs::metadata(format!("/proc/{}/environ", server.id())).expect("environ");
    let status = std::fs::metadata(format!("/proc/{}/status", server.id())).expect("status");
    assert_eq!(status.uid(), 0, "non-dumpable: /proc/<pid> belongs to root");
    assert_eq!(environ.uid(), 0);
    assert_eq!(environ.mode() & 0o777, 0o400);
    server.wait();
}

#[test]
fn an_own_folder_that_is_not_there_yet_cannot_be_planted() {
    // `--root ~` before the door's key was ever written: `~/.hanzo` is
    // not there, and what an agent put there would be read as the key.
    let home = tempfile::tempdir().expect("home");
    let home = home.path().canonicalize().expect("canonical");
    let state = tempfile::tempdir().expect("state");
    let mut server = serve_no_door(
        &home,
        &[],
        &[
            ("HANZO_MCP_STATE", state.path().to_str().expect("utf-8")),
            ("HOME", home.to_str().expect("utf-8")),
        ],
    );
    server.initialize("2025-11-25");
    std::fs::create_dir(home.join("prepared")).expect("mkdir");
    std::fs::write(home.join("prepared/config.json"), r#"{"apiKey":"forged"}"#).expect("write");
    let moved = server.call_tool(
        1,
        "fs",
        json!({ "action": "mv", "path": "prepared", "to": ".hanzo" }),
    );
    assert_eq!(moved["result"]["isError"], true, "{moved}");
    assert!(
        first_text(&moved["result"]).contains("inside one of the server's own folders"),
        "{moved}"
    );
    // A repository whose work tree would hold it is not created (every
    // later call below it would find it), and where one is already,
    // `apply` or `checkout` would create the folder.
    let init = server.call_tool(2, "git", json!({ "action": "init" }));
    assert_eq!(init["result"]["isError"], true, "{init}");
    assert!(
        first_text(&init["result"]).contains("holds the server's own folder"),
        "{init}"
    );
    assert!(!home.join(".git").exists());
    let made = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&home)
        .status()
        .expect("git");
    assert!(made.success());
    let patch = "diff --git a/.hanzo/config.json b/.hanzo/config.json\nnew file mode 100644\n--- /dev/null\n+++ b/.hanzo/config.json\n@@ -0,0 +1 @@\n+{\"apiKey\":\"forged\"}\n";
    let applied = server.call_tool(3, "git", json!({ "action": "apply", "patch": patch }));
    assert_eq!(applied["result"]["isError"], true, "{applied}");
    assert!(
        first_text(&applied["result"]).contains("holds the server's own folder"),
        "{applied}"
    );
    assert!(!home.join(".hanzo").exists());
}

#[test]
fn git_reads_no_excludes_file_linked_out_of_the_roots() {
    // HOME is a root: its `.config/git/ignore`, git's default excludes
    // file, is the agent's to make a link to a file no tool may read,
    // whose lines `status` would confirm by the files it leaves out.
    let home = tempfile::tempdir().expect("home");
    let home = home.path().canonicalize().expect("canonical");
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret"), "secretname\n").expect("write");
    std::fs::create_dir_all(home.join(".config/git")).expect("mkdir");
    std::os::unix::fs::symlink(
        outside.path().join("secret"),
        home.join(".config/git/ignore"),
    )
    .expect("link");
    std::fs::create_dir(home.join("proj")).expect("mkdir");
    for name in ["secretname", "guess"] {
        std::fs::write(home.join("proj").join(name), "").expect("write");
    }
    let state = tempfile::tempdir().expect("state");
    let mut server = serve_no_door(
        &home,
        &["--allowed-tools", r#"{"local": ["git", "fs"]}"#],
        &[
            ("HOME", home.to_str().expect("utf-8")),
            // The tests' harness sets one; git reads `git/ignore` there.
            (
                "XDG_CONFIG_HOME",
                home.join(".config").to_str().expect("utf-8"),
            ),
            ("HANZO_MCP_STATE", state.path().to_str().expect("utf-8")),
        ],
    );
    server.initialize("2025-11-25");
    let made = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(home.join("proj"))
        .status()
        .expect("git");
    assert!(made.success());
    let status = server.call_tool(2, "git", json!({ "action": "status", "path": "proj" }));
    let text = first_text(&status["result"]);
    assert!(
        text.contains("guess") && text.contains("secretname"),
        "{text}"
    );
    // Nor its default attributes file (git prints the lines it cannot
    // read as attributes), nor a settings file linked out of the roots
    // (its identity would show in the log).
    for (outside_file, text, link) in [
        (
            "yaml",
            "api_key: sk-live/canary+1==\npassword: hunter2!\n",
            "attributes",
        ),
        (
            "gitconfig",
            "[user]\n\tname = OUTSIDE_NAME\n\temail = out@side\n",
            "config",
        ),
    ] {
        std::fs::write(outside.path().join(outside_file), text).expect("write");
        std::os::unix::fs::symlink(
            outside.path().join(outside_file),
            home.join(".config/git").join(link),
        )
        .expect("link");
    }
    let mut answers = Vec::new();
    for (id, arguments) in (3..).zip([
        json!({ "action": "add", "path": "proj", "all": true }),
        json!({ "action": "diff", "path": "proj", "staged": true }),
        json!({ "action": "commit", "path": "proj", "message": "m" }),
        json!({ "action": "log", "path": "proj" }),
    ]) {
        answers.push(server.call_tool(id, "git", arguments).to_string());
    }
    let answers = answers.join("\n");
    for leaked in ["sk-live/canary", "hunter2", "OUTSIDE_NAME"] {
        assert!(!answers.contains(leaked), "{leaked}: {answers}");
    }
}

#[test]
fn file_tools_never_reach_the_state_folder_inside_a_root() {
    // A root that holds the state folder (`--root ~` with the default
    // one): other projects' memories, job output and the bearer files of
    // `serve --http` are there. Its own tools still use it.
    let root = tempfile::tempdir().expect("root");
    let root = root.path().canonicalize().expect("canonical");
    let state = root.join("data/state");
    // The root is the home folder too: `~/.hanzo/config.json` holds the
    // door's key.
    std::fs::create_dir(root.join(".hanzo")).expect("mkdir");
    std::fs::write(
        root.join(".hanzo/config.json"),
        r#"{"apiKey":"door-key-canary"}"#,
    )
    .expect("write");
    let mut server = serve_no_door(
        &root,
        &[],
        &[
            ("HANZO_MCP_STATE", state.to_str().expect("utf-8")),
            ("HOME", root.to_str().expect("utf-8")),
        ],
    );
    server.initialize("2025-11-25");
    let stored = server.call_tool(
        1,
        "memory",
        json!({ "action": "store", "content": "the vault code is 4242" }),
    );
    assert_ne!(stored["result"]["isError"], true, "{stored}");
    assert!(state.join("state.db").exists());
    std::fs::write(state.join("http-bearer-pid1"), "bearer-of-another-server").expect("write");
    let refused = "inside one of the server's own folders";
    for (id, arguments) in (2..).zip([
        json!({ "action": "read", "path": "data/state/state.db" }),
        json!({ "action": "read", "path": "data/state/http-bearer-pid1" }),
        json!({ "action": "list", "path": "data/state" }),
        json!({ "action": "write", "path": "data/state/state.db", "content": "forged" }),
        json!({ "action": "read", "path": format!("{}/http-bearer-pid1", state.display()) }),
        json!({ "action": "read", "path": ".hanzo/config.json" }),
        // The folders themselves, whose parents are ordinary folders: not
        // moved out to be read, removed or looked at.
        json!({ "action": "mv", "path": ".hanzo", "to": "loot" }),
        json!({ "action": "mv", "path": "data/state", "to": "loot" }),
        json!({ "action": "rm", "path": "data/state", "recursive": true }),
        json!({ "action": "info", "path": ".hanzo" }),
    ]) {
        let answer = server.call_tool(id, "fs", arguments.clone());
        assert_eq!(answer["result"]["isError"], true, "{arguments}: {answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(text.contains(refused), "{arguments}: {text}");
    }
    // Nor the folder that holds one, or a folder moved into its place.
    std::fs::create_dir_all(root.join("forged/state")).expect("mkdir");
    for (id, arguments) in (12..).zip([
        json!({ "action": "mv", "path": "data", "to": "loot" }),
        json!({ "action": "rm", "path": "data", "recursive": true }),
        json!({ "action": "mv", "path": "forged", "to": "data", "overwrite": true }),
    ]) {
        let answer = server.call_tool(id, "fs", arguments.clone());
        assert_eq!(answer["result"]["isError"], true, "{arguments}: {answer}");
        let text = first_text(&answer["result"]);
        assert!(
            text.contains("holds one of the server's own folders"),
            "{arguments}: {text}"
        );
    }
    assert!(state.join("state.db").exists());
    assert!(root.join(".hanzo/config.json").exists());
    // Walks leave them out.
    for (id, arguments, kept_out) in [
        (
            19,
            json!({ "action": "search", "pattern": "bearer-of|vault", "hidden": true }),
            "bearer-of-another-server",
        ),
        (
            20,
            json!({ "action": "search", "pattern": "door-key", "hidden": true }),
            "door-key-canary",
        ),
        (
            21,
            json!({ "action": "find", "pattern": "*bearer*", "hidden": true }),
            "http-bearer-pid1",
        ),
    ] {
        let answer = server.call_tool(id, "fs", arguments.clone());
        let text = first_text(&answer["result"]);
        assert!(!text.contains(kept_out), "{arguments}: {text}");
    }
    // Nor does git, through a repository whose work tree holds it: it
    // makes none there, and takes none made otherwise.
    let init = server.call_tool(23, "git", json!({ "action": "init" }));
    assert!(
        first_text(&init["result"]).contains("holds the server's own folder"),
        "{init}"
    );
    let made = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .expect("git");
    assert!(made.success());
    for (id, arguments) in (24..).zip([
        json!({ "action": "status" }),
        json!({ "action": "add", "all": true }),
    ]) {
        let answer = server.call_tool(id, "git", arguments.clone());
        assert_eq!(answer["result"]["isError"], true, "{arguments}: {answer}");
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        assert!(
            text.contains("holds the server's own folder"),
            "{arguments}: {text}"
        );
    }
    // The memory is still the memory tool's.
    let recalled = server.call_tool(
        22,
        "memory",
        json!({ "action": "search", "query": "vault" }),
    );
    let text = recalled["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(text.contains("4242"), "{recalled}");
}
