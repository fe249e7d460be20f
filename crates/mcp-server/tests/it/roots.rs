//! `hanzo-mcp serve` without `--root` confines the local tools to the
//! client's MCP roots when the client offers them, over stdio only
//! (docs/ARCHITECTURE.md, "Local tools"; MCP 2025-11-25 client/roots):
//! over `serve --http` one session's roots must never widen or narrow what
//! another session's tools may touch, so the local tools keep the working
//! directory.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use mcp_local_server::cli::{self, Cli, Command, ServeArgs};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::http::{Events, Http, Session, header, listen};
use crate::common::servers::{fixture, plant};
use crate::common::{Proc, hanzo_mcp, roots_list_answer, roots_list_request, within};

/// `hanzo-mcp serve --no-door <args>` started in `cwd`.
fn spawn(cwd: &Path, args: &[&str]) -> Proc {
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door"])
        .args(args)
        .current_dir(cwd);
    Proc::start(command)
}

/// The 2025-11-25 handshake with `capabilities`.
fn handshake(server: &mut Proc, capabilities: Value) {
    let answer = server.handshake("2025-11-25", capabilities);
    assert_eq!(answer["result"]["protocolVersion"], json!("2025-11-25"));
}

/// `fs read` of `path`: (isError, the text of the first block).
fn read(server: &mut Proc, id: i64, path: &Path) -> (bool, String) {
    server.request(
        id,
        "tools/call",
        json!({ "name": "fs", "arguments": { "action": "read",
            "path": path.to_str().expect("utf-8 path") } }),
    );
    let answer = server.recv();
    assert_eq!(answer["id"], json!(id), "{answer}");
    let result = &answer["result"];
    (
        result["isError"].as_bool().unwrap_or(false),
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// Reads `path` (ids from `first_id` on) until the read fails or not as
/// `refused` says, at most 200 times: a roots answer is applied by the
/// server's own task, so it shows after some round trips.
fn read_once_settled(
    server: &mut Proc,
    first_id: i64,
    path: &Path,
    refused: bool,
) -> (bool, String) {
    let mut id = first_id;
    let mut read_now = read(server, id, path);
    while read_now.0 != refused && id < first_id + 200 {
        std::thread::sleep(Duration::from_millis(20));
        id += 1;
        read_now = read(server, id, path);
    }
    read_now
}

/// [`read_once_settled`], which must end refused or not as `refused` says
/// (a root that never took effect, or one still served, otherwise); the
/// last read's text.
fn settled_read(server: &mut Proc, first_id: i64, path: &Path, refused: bool) -> String {
    let (read_refused, text) = read_once_settled(server, first_id, path, refused);
    assert_eq!(
        read_refused,
        refused,
        "the roots never took effect for {}: {text}",
        path.display()
    );
    text
}

/// Expects the server's `roots/list` request `s-<n>` and answers it with
/// `roots`.
fn answer_roots_list(server: &mut Proc, n: u32, roots: Value) {
    assert_eq!(server.recv(), roots_list_request(n));
    server.send(&roots_list_answer(n, roots));
}

fn list_changed(server: &mut Proc) {
    server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.to_str().expect("utf-8 path"))
}

/// A temporary directory with a folder per `(name, text)`, each holding
/// `note.txt` with that text.
fn folders(notes: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, text) in notes {
        let dir = tmp.path().join(name);
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("note.txt"), text).expect("write");
    }
    tmp
}

#[test]
fn without_root_the_tools_follow_the_clients_roots() {
    let tmp = folders(&[
        ("start", "from the working directory"),
        ("offered", "from the client root"),
        ("later", "from the changed root"),
    ]);
    let (start, offered, later) = (
        tmp.path().join("start"),
        tmp.path().join("offered"),
        tmp.path().join("later"),
    );
    let mut server = spawn(&start, &[]);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    answer_roots_list(
        &mut server,
        1,
        json!([{ "uri": file_uri(&offered), "name": "offered" },
            { "uri": "https://example.com/not-a-file-root" }]),
    );
    let text = settled_read(&mut server, 1, &offered.join("note.txt"), false);
    assert!(text.contains("from the client root"), "{text}");
    // The working directory is no longer a root.
    let (refused, text) = read(&mut server, 1000, &start.join("note.txt"));
    assert!(refused, "read outside the client's roots succeeded: {text}");

    // notifications/roots/list_changed: listed again, and followed.
    list_changed(&mut server);
    answer_roots_list(&mut server, 2, json!([{ "uri": file_uri(&later) }]));
    let text = settled_read(&mut server, 2000, &later.join("note.txt"), false);
    assert!(text.contains("from the changed root"), "{text}");
    let (refused, _) = read(&mut server, 3000, &offered.join("note.txt"));
    assert!(refused, "the old root is still served");
}

#[test]
fn with_root_the_client_is_not_asked_for_roots() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("note.txt"), "fixed").expect("write");
    let root = tmp.path().to_str().expect("utf-8 path").to_owned();
    let mut server = spawn(tmp.path(), &["--root", &root]);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    list_changed(&mut server);
    // No roots/list: the next line answers the ping.
    server.send(&json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
}

#[test]
fn without_root_a_client_without_roots_keeps_the_working_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("note.txt"), "cwd file").expect("write");
    let mut server = spawn(tmp.path(), &[]);
    handshake(&mut server, json!({}));
    let (failed, text) = read(&mut server, 1, &tmp.path().join("note.txt"));
    assert!(!failed, "{text}");
    assert!(text.contains("cwd file"), "{text}");
}

/// QA: a `roots/list` answer with no usable root revokes the client's
/// earlier roots at once; the tools go back to the working directory
/// (docs/ARCHITECTURE.md, "Local tools").
#[test]
fn revoked_client_roots_fall_back_to_the_working_directory() {
    let tmp = folders(&[("start", "cwd note"), ("offered", "offered note")]);
    let (start, offered) = (tmp.path().join("start"), tmp.path().join("offered"));
    let note = offered.join("note.txt");
    let mut server = spawn(&start, &[]);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    answer_roots_list(&mut server, 1, json!([{ "uri": file_uri(&offered) }]));
    assert_eq!(
        read_once_settled(&mut server, 1, &note, false),
        (false, "offered note\n".to_owned())
    );

    list_changed(&mut server);
    answer_roots_list(&mut server, 2, json!([]));
    // The revoked root is no longer served.
    settled_read(&mut server, 1000, &note, true);
    assert_eq!(
        read(&mut server, 2000, &start.join("note.txt")),
        (false, "cwd note\n".to_owned())
    );

    // Offered again, then replaced by roots that do not exist: revoked too.
    list_changed(&mut server);
    answer_roots_list(&mut server, 3, json!([{ "uri": file_uri(&offered) }]));
    assert_eq!(
        read_once_settled(&mut server, 3000, &note, false),
        (false, "offered note\n".to_owned())
    );
    list_changed(&mut server);
    answer_roots_list(
        &mut server,
        4,
        json!([{ "uri": file_uri(&tmp.path().join("missing")) }]),
    );
    // A root list of missing paths does not keep the old root.
    settled_read(&mut server, 4000, &note, true);
    assert_eq!(
        read(&mut server, 5000, &start.join("note.txt")),
        (false, "cwd note\n".to_owned())
    );
}

// Over HTTP. The server is built the way `hanzo-mcp serve` builds it
// (`assembly::assemble`, `cli::serve_server`, `ServeArgs::http_config`) and
// served with `serve_http` on an ephemeral loopback port.

/// The one file of the directory the client offers as its root.
const MARKER: &str = "client-root-marker.txt";

fn serve_args(argv: &[&str]) -> ServeArgs {
    let cli = Cli::try_parse_from(argv).expect("a valid command line");
    match cli.command {
        Command::Serve(args) => args,
        other => panic!("not serve: {other:?}"),
    }
}

#[test]
fn only_stdio_without_root_follows_the_client_roots() {
    let cases: [(&[&str], bool); 5] = [
        (&[], true),
        (&["--http", "127.0.0.1:0"], false),
        (&["--http", "8080"], false),
        (&["--root", "/tmp"], false),
        (&["--http", "127.0.0.1:0", "--root", "/tmp"], false),
    ];
    for (extra, follows) in cases {
        let mut argv = vec!["hanzo-mcp", "serve"];
        argv.extend_from_slice(extra);
        assert_eq!(
            cli::follows_client_roots(&serve_args(&argv)),
            follows,
            "{extra:?}"
        );
    }
}

/// `fs list` of `path` (the first root when `None`): (isError, text).
async fn fs_list(session: &Session, id: i64, path: Option<&str>) -> (bool, String) {
    let mut arguments = json!({ "action": "list" });
    if let Some(path) = path {
        arguments["path"] = json!(path);
    }
    let answer = session
        .call(
            id,
            &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": { "name": "fs", "arguments": arguments } }),
        )
        .await;
    let result = &answer["result"];
    (
        result["isError"] == json!(true),
        result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("a text block in {answer}"))
            .to_owned(),
    )
}

/// What `fs list` shows for `dir`: its entries in byte order, `/` after a
/// directory, ` -> target` after a symlink, one a line.
fn listing(dir: &Path) -> String {
    let mut entries: Vec<(Vec<u8>, String)> = std::fs::read_dir(dir)
        .expect("read the working directory")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let name = entry.file_name();
            let mut shown = name.to_string_lossy().into_owned();
            let kind = entry.file_type().expect("a file type");
            if kind.is_dir() {
                shown.push('/');
            } else if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).expect("a link target");
                shown.push_str(&format!(" -> {}", target.to_string_lossy()));
            }
            (name.as_encoded_bytes().to_vec(), shown)
        })
        .collect();
    entries.sort();
    entries.into_iter().map(|(_, shown)| shown + "\n").collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_session_roots_list_does_not_move_the_local_tools() {
    let args = serve_args(&["hanzo-mcp", "serve", "--http", "127.0.0.1:0", "--no-door"]);
    let options = args.sources.options().expect("options");
    let assembly = mcp_local_server::assembly::assemble(&options)
        .await
        .expect("assembled");
    assert!(
        assembly.client_roots.is_some(),
        "without --root the local tools could follow a client"
    );
    let server = Arc::new(cli::serve_server(&args, assembly).expect("no --mode"));
    let listening = listen(server, args.http_config()).await;

    let offered = tempfile::tempdir().expect("the client's directory");
    std::fs::write(offered.path().join(MARKER), "client root\n").expect("marker");
    let offered_path = offered.path().to_str().expect("utf-8").to_owned();

    // `initialize` alone: `notifications/initialized` follows once the GET
    // stream is open.
    let http = Http::new(&listening.url);
    let init = http
        .initialize(0, json!({ "roots": { "listChanged": true } }))
        .await;
    assert_eq!(init.status(), StatusCode::OK);
    let session = Session {
        id: header(init.headers(), "mcp-session-id"),
        http,
    };
    // Answer every roots/list the server might send with the other
    // directory, and remember that it asked.
    let stream = session.get().await;
    assert_eq!(stream.status(), StatusCode::OK);
    let mut stream = Events::of(stream);
    let asked = Arc::new(Mutex::new(Vec::<Value>::new()));
    let answerer = {
        let session = session.clone();
        let asked = Arc::clone(&asked);
        let uri = format!("file://{offered_path}");
        tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                if message["method"] != "roots/list" {
                    continue;
                }
                asked.lock().expect("lock").push(message.clone());
                let answer = json!({ "jsonrpc": "2.0", "id": message["id"],
                    "result": { "roots": [ { "uri": uri, "name": "client" } ] } });
                session.post(&answer).await;
            }
        })
    };
    for notification in [
        "notifications/initialized",
        "notifications/roots/list_changed",
    ] {
        let sent = session
            .post(&json!({ "jsonrpc": "2.0", "method": notification }))
            .await;
        assert_eq!(sent.status(), StatusCode::ACCEPTED, "{notification}");
    }

    let working = std::env::current_dir().expect("the working directory");
    assert_eq!(
        fs_list(&session, 1, None).await,
        (false, listing(&working)),
        "fs list must show the working directory"
    );
    let canonical = working.canonicalize().expect("canonical working directory");
    assert_eq!(
        fs_list(&session, 2, Some(&offered_path)).await,
        (
            true,
            format!(
                "path '{offered_path}': outside the roots ({})",
                canonical.display()
            )
        )
    );
    // Ending the session ends its GET stream after everything the server
    // sent on it, so a roots/list sent after `notifications/initialized`
    // has been seen by now.
    let ended = session.delete().await;
    assert!(ended.status().is_success(), "{}", ended.status());
    within("the GET stream ends with its session", answerer)
        .await
        .expect("the answerer ran");
    assert_eq!(
        asked.lock().expect("lock").as_slice(),
        &[] as &[Value],
        "the server asked an HTTP session for its roots"
    );
}

/// A `hanzo` an agent planted in a PATH folder inside the folder the
/// client names as its root (`proj/bin`, first on PATH; it writes
/// `marker` and prints `planted-token`), and the machine's own further on
/// PATH (`sys/hanzo`: it writes its environment to `seen` and prints
/// `machine-token`), with a fake door and an empty home.
struct PlantedHanzo {
    /// Holds the folders below.
    _tmp: tempfile::TempDir,
    start: PathBuf,
    proj: PathBuf,
    bin: PathBuf,
    sys: PathBuf,
    marker: PathBuf,
    seen: PathBuf,
    door: mcp_fake_door::FakeDoor,
    home: tempfile::TempDir,
}

impl PlantedHanzo {
    fn new() -> Self {
        let tmp = folders(&[("start", "cwd"), ("proj", "project")]);
        let (start, proj) = (tmp.path().join("start"), tmp.path().join("proj"));
        let (bin, sys) = (proj.join("bin"), tmp.path().join("sys"));
        let (marker, seen) = (tmp.path().join("planted-ran"), tmp.path().join("hanzo-saw"));
        std::fs::create_dir(&bin).expect("mkdir");
        std::fs::create_dir(&sys).expect("mkdir");
        plant(
            &bin.join("hanzo"),
            &format!("echo ran > {}\necho planted-token", marker.display()),
        );
        plant(
            &sys.join("hanzo"),
            &format!("env > {}\necho machine-token", seen.display()),
        );
        let door = mcp_fake_door::FakeDoor::start(mcp_fake_door::Behaviour::Normal).expect("door");
        Self {
            _tmp: tmp,
            start,
            proj,
            bin,
            sys,
            marker,
            seen,
            door,
            home: tempfile::tempdir().expect("home"),
        }
    }

    /// `hanzo-mcp serve --door-wait 5 <extra>` in `start`, with both
    /// `hanzo`s on PATH and the door configured.
    fn serve(&self, extra: &[&str], env: &[(&str, &str)]) -> Proc {
        let path = format!(
            "{}:{}:{}",
            self.bin.display(),
            self.sys.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut command = hanzo_mcp();
        command
            .args(["serve", "--door-wait", "5"])
            .args(extra)
            .current_dir(&self.start)
            .env("HANZO_MCP_DOOR", self.door.url())
            .env("HOME", self.home.path())
            .env("PATH", &path)
            .envs(env.iter().copied());
        Proc::start(command)
    }

    /// The `Authorization` header of each `tools/call` the door got.
    fn bearers(&self) -> Vec<Option<String>> {
        self.door
            .requests()
            .iter()
            .filter(|r| r.rpc_method().as_deref() == Some("tools/call"))
            .map(|r| r.header("authorization").map(str::to_owned))
            .collect()
    }
}

#[test]
fn a_door_call_before_the_clients_roots_are_known_waits_for_them_to_find_a_bearer() {
    // The door call comes before the client answers `roots/list`.
    let planted = PlantedHanzo::new();
    let mut server = planted.serve(&[], &[]);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    assert_eq!(server.recv(), roots_list_request(1));
    server.request(
        500,
        "tools/call",
        json!({ "name": "agents", "arguments": {} }),
    );
    std::thread::sleep(Duration::from_millis(800));
    assert!(
        !planted.marker.exists(),
        "the planted hanzo ran before the roots were known"
    );
    server.send(&roots_list_answer(
        1,
        json!([{ "uri": file_uri(&planted.proj) }]),
    ));
    let called = loop {
        let message = server.recv();
        if message["id"] == 500 {
            break message;
        }
    };
    assert_ne!(called["result"]["isError"], true, "{called}");
    assert!(!planted.marker.exists(), "the planted hanzo ran");
    assert_eq!(planted.bearers(), [Some("Bearer machine-token".to_owned())]);
}

#[test]
fn a_hanzo_in_the_clients_roots_is_never_run_for_the_bearer() {
    // The server follows the client's roots, has no other bearer, and
    // reaches a door. The machine's own `hanzo` runs instead: with no
    // folder of the roots on its PATH (a `#!/usr/bin/env` line of its
    // would find nothing planted there) and none of the server's secrets.
    let planted = PlantedHanzo::new();
    let mut server = planted.serve(
        &["--secret-env", "MY_SECRET"],
        &[("MY_SECRET", "secret-canary")],
    );
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    answer_roots_list(&mut server, 1, json!([{ "uri": file_uri(&planted.proj) }]));
    settled_read(&mut server, 1, &planted.proj.join("note.txt"), false);
    let called = server.call_tool(500, "agents", json!({}));
    assert_ne!(called["result"]["isError"], true, "{called}");
    assert!(!planted.marker.exists(), "the planted hanzo ran");
    assert_eq!(planted.bearers(), [Some("Bearer machine-token".to_owned())]);
    let saw = std::fs::read_to_string(&planted.seen).expect("the machine's hanzo ran");
    let child_path = saw
        .lines()
        .find_map(|l| l.strip_prefix("PATH="))
        .unwrap_or("");
    assert!(
        !child_path.contains(planted.bin.to_str().unwrap()),
        "{child_path}"
    );
    assert!(
        child_path.contains(planted.sys.to_str().unwrap()),
        "{child_path}"
    );
    assert!(!saw.contains("secret-canary"), "{saw}");
}

#[test]
fn a_mounted_server_restarted_while_following_the_clients_roots_never_runs_a_program_from_them() {
    let tmp = folders(&[("start", "cwd"), ("proj", "project")]);
    let (start, proj) = (tmp.path().join("start"), tmp.path().join("proj"));
    let bin = proj.join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kb = format!(
        "kb=python3 {} --prefix kb_ --log {}",
        fixture(),
        tmp.path().join("kb.log").display()
    );
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door", "--server", &kb, "--server-wait", "20"])
        .current_dir(&start)
        .env("PATH", &path);
    let mut server = Proc::start(command);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    answer_roots_list(&mut server, 1, json!([{ "uri": file_uri(&proj) }]));
    settled_read(&mut server, 1, &proj.join("note.txt"), false);
    // The agent plants `python3` in the client's root, first on PATH, and
    // makes the mounted server restart (more output than the limit).
    let marker = tmp.path().join("planted-ran");
    plant(
        &bin.join("python3"),
        &format!("echo ran > {}\nexit 1", marker.display()),
    );
    // The client then narrows its roots: a folder it had is still one the
    // agent could write.
    let narrower = proj.join("sub");
    std::fs::create_dir(&narrower).expect("mkdir");
    std::fs::write(narrower.join("note.txt"), "narrower").expect("write");
    list_changed(&mut server);
    answer_roots_list(&mut server, 2, json!([{ "uri": file_uri(&narrower) }]));
    settled_read(&mut server, 100, &narrower.join("note.txt"), false);
    let flooded = server.call_tool(500, "kb_flood", json!({}));
    assert_eq!(flooded["result"]["isError"], true, "{flooded}");
    // It comes back, through the machine's python3.
    let mut id = 500;
    let back = (0..400).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        id += 1;
        let answer = server.call_tool(id, "kb_ops", json!({ "action": "read" }));
        answer["result"]["content"][0]["text"] == "ran read"
    });
    assert!(back, "kb never came back");
    assert!(!marker.exists(), "the planted python3 ran");
}

#[test]
fn a_running_mounted_server_is_started_again_when_the_client_gives_a_root_it_uses() {
    // The child's PATH holds `tools/bin`, outside the client's first root;
    // the client then adds `tools`, so the agent could plant a program
    // there that the running child would start by name.
    let tmp = folders(&[("start", "cwd"), ("proj", "project"), ("tools", "tools")]);
    let (start, proj, tools) = (
        tmp.path().join("start"),
        tmp.path().join("proj"),
        tmp.path().join("tools"),
    );
    let bin = tools.join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kb = format!(
        "kb=python3 {} --prefix kb_ --log {}",
        fixture(),
        tmp.path().join("kb.log").display()
    );
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door", "--server", &kb, "--server-wait", "20"])
        .current_dir(&start)
        .env("PATH", &path);
    let mut server = Proc::start(command);
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    answer_roots_list(&mut server, 1, json!([{ "uri": file_uri(&proj) }]));
    settled_read(&mut server, 1, &proj.join("note.txt"), false);
    let child_path = |server: &mut Proc, id: i64| {
        let answer = server.call_tool(id, "kb_env", json!({ "name": "PATH" }));
        answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    let bin_text = bin.display().to_string();
    assert!(child_path(&mut server, 100).contains(&bin_text));
    list_changed(&mut server);
    answer_roots_list(
        &mut server,
        2,
        json!([{ "uri": file_uri(&proj) }, { "uri": file_uri(&tools) }]),
    );
    settled_read(&mut server, 200, &tools.join("note.txt"), false);
    // The next call finds the child started under other folders: it is
    // stopped, and that call says so.
    let refused = server.call_tool(300, "kb_env", json!({ "name": "PATH" }));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let text = refused["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    assert!(
        text.contains("is restarting (the tools may now write"),
        "{text}"
    );
    // It comes back without the folder on its PATH.
    let mut id = 300;
    let back = (0..400).any(|_| {
        std::thread::sleep(Duration::from_millis(50));
        id += 1;
        let answer = server.call_tool(id, "kb_env", json!({ "name": "PATH" }));
        let text = answer["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("");
        answer["result"]["isError"] != true && !text.is_empty() && !text.contains(&bin_text)
    });
    assert!(back, "kb never came back with a PATH outside the roots");
}

#[test]
fn a_mounted_server_first_starts_once_the_clients_roots_are_known() {
    // A `python3` planted in the client's root in an earlier session, first
    // on PATH: the first start must already know that root.
    let tmp = folders(&[("start", "cwd"), ("proj", "project")]);
    let (start, proj) = (tmp.path().join("start"), tmp.path().join("proj"));
    let bin = proj.join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    let marker = tmp.path().join("planted-ran");
    plant(
        &bin.join("python3"),
        &format!("echo ran > {}\nexit 1", marker.display()),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let kb = format!(
        "kb=python3 {} --prefix kb_ --log {}",
        fixture(),
        tmp.path().join("kb.log").display()
    );
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door", "--server", &kb, "--server-wait", "20"])
        .current_dir(&start)
        .env("PATH", &path);
    let mut server = Proc::start(command);
    // The client takes its time to answer roots/list.
    handshake(&mut server, json!({ "roots": { "listChanged": true } }));
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !marker.exists(),
        "started before the client's roots were known"
    );
    answer_roots_list(&mut server, 1, json!([{ "uri": file_uri(&proj) }]));
    let mut id = 10;
    let listed = (0..400).any(|_| {
        id += 1;
        let answer = server.call_tool(id, "kb_ops", json!({ "action": "read" }));
        if answer["result"]["content"][0]["text"] == "ran read" {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
        false
    });
    assert!(listed, "kb never started");
    assert!(!marker.exists(), "the planted python3 ran");
}
