//! What the tests share: one stdio client of a process ([`stdio`]), one
//! HTTP client ([`http`]), one in-process driver ([`driver`]), one tool
//! source built from closures ([`tools`]), and the small helpers below.
//! The first four are also the benches' (`#[path]`-included there), so
//! each stands alone.
#![allow(dead_code)]

pub mod driver;
pub mod http;
pub mod rest;
pub mod servers;
pub mod stdio;
pub mod tools;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_local_server::mcp_proto::Implementation;
use mcp_local_server::{Composition, Server, ServerConfig};
use serde_json::{Value, json};

pub use stdio::{Proc, hanzo_mcp};

/// `hanzo-mcp serve --no-door --root <root> <extra>` with these variables
/// set, not yet initialized.
pub fn serve_no_door(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Proc {
    let mut args = vec![
        "serve",
        "--no-door",
        "--root",
        root.to_str().expect("utf-8"),
    ];
    args.extend_from_slice(extra);
    Proc::spawn_with_env(&args, env)
}

/// `hanzo-mcp serve --no-door --root <a new temporary directory> <extra>`,
/// and that directory (removed when dropped).
pub fn serve_in_temp_root(extra: &[&str]) -> (Proc, tempfile::TempDir) {
    let root = tempfile::tempdir().expect("tempdir");
    (serve_no_door(root.path(), extra, &[]), root)
}

/// A `tools/call` params object.
pub fn call_params(name: &str, arguments: Value) -> Value {
    json!({ "name": name, "arguments": arguments })
}

/// The text of the first content block of a `tools/call` result.
pub fn first_text(result: &Value) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
}

/// The tool names of a `tools/list` response, in order.
pub fn names(list: &Value) -> Vec<String> {
    tool_names(&list["result"])
}

/// The names of the tools in `listed["tools"]` (a `tools/list` result, or
/// what `hanzo-mcp tools` prints), in order.
pub fn tool_names(listed: &Value) -> Vec<String> {
    listed["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {listed}"))
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect()
}

/// The names of the default local tools, in their order.
pub fn local_names() -> Vec<String> {
    let mut toolbox = mcp_local_tools::Toolbox::with_default_tools();
    toolbox.with_mode();
    toolbox.names().into_iter().map(String::from).collect()
}

/// The default local tools, then the fake door's tools whose names are not
/// local (see [`merged_with_door`]).
pub fn merged_names() -> Vec<String> {
    merged_with_door(local_names())
}

/// `local`, then the fake door's `describe`, `agents`, `billing` and `git`
/// whose names are not in `local` (a local name wins).
pub fn merged_with_door(local: Vec<String>) -> Vec<String> {
    let mut expected = local;
    let door_only: Vec<String> = ["describe", "agents", "billing", "git"]
        .map(String::from)
        .into_iter()
        .filter(|name| !expected.contains(name))
        .collect();
    expected.extend(door_only);
    expected
}

/// Pids of live (not zombie) processes whose command line holds `marker`,
/// after waiting up to 5 s for them to be gone.
pub fn processes_left(marker: &str) -> Vec<u32> {
    let live = || -> Vec<u32> {
        let entries = std::fs::read_dir("/proc").expect("/proc");
        entries
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                !stat.contains(") Z ") && String::from_utf8_lossy(&cmdline).contains(marker)
            })
            .collect()
    };
    for _ in 0..50 {
        if live().is_empty() {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    live()
}

/// A sleep of about 30 s whose duration (`30.<digits>`) is unique to this
/// test process and `n`, so `processes_left` can find it.
pub fn sleep_marker(n: u32) -> String {
    format!("30.{}{n:03}", std::process::id())
}

/// The TCP port process `pid` listens on over IPv4, read from `/proc`
/// (its socket inodes, matched in its `net/tcp` table); `None` before it
/// listens. For a server whose log cannot be read.
pub fn listening_port(pid: u32) -> Option<u16> {
    let inodes: Vec<String> = std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .flatten()
        .filter_map(|fd| {
            let target = std::fs::read_link(fd.path()).ok()?;
            let target = target.to_str()?;
            Some(
                target
                    .strip_prefix("socket:[")?
                    .strip_suffix(']')?
                    .to_owned(),
            )
        })
        .collect();
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).ok()?;
    table.lines().skip(1).find_map(|row| {
        let fields: Vec<&str> = row.split_whitespace().collect();
        // local_address is fields[1] ("0100007F:1F90"), st is fields[3]
        // (0A: LISTEN), inode is fields[9].
        let listening = fields.get(3) == Some(&"0A");
        let ours = fields
            .get(9)
            .is_some_and(|inode| inodes.iter().any(|i| i == inode));
        if !(listening && ours) {
            return None;
        }
        let port = fields.get(1)?.rsplit_once(':')?.1;
        u16::from_str_radix(port, 16).ok()
    })
}

/// The arguments of `hanzo-mcp serve --no-door --http 127.0.0.1:0
/// --http-no-auth --root <root>`: a loopback HTTP server on a port of its
/// own, open without a bearer.
pub fn open_http_args(root: &Path) -> Vec<&str> {
    let root = root.to_str().expect("a UTF-8 root");
    vec![
        "serve",
        "--no-door",
        "--http",
        "127.0.0.1:0",
        "--http-no-auth",
        "--root",
        root,
    ]
}

/// The port `server` (started with `--http 127.0.0.1:0`) listens on, once
/// it does (read from `/proc` every 50 ms, for up to a minute); fails the
/// test when the server exits first or never listens.
pub async fn http_port(server: &mut Proc) -> u16 {
    for _ in 0..1200 {
        assert!(!server.has_exited(), "hanzo-mcp exited before it listened");
        if let Some(port) = listening_port(server.id()) {
            return port;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("hanzo-mcp --http never listened");
}

/// Runs `hanzo-mcp <args>` to its end with stdin empty and these
/// variables set; its output.
pub fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut command = hanzo_mcp();
    command.args(args).stdin(std::process::Stdio::null());
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().expect("run hanzo-mcp")
}

/// A bearer that appears nowhere else, given to servers with a door.
pub const CANARY: &str = "sk-door-canary-5e8b21f0c7a94d36";

/// `hanzo-mcp serve` with a door, its root and its HOME.
pub struct WithDoor {
    pub server: Proc,
    pub root: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

/// `hanzo-mcp serve --root <temporary> <extra>` with `HANZO_MCP_DOOR` at
/// `door_url`, [`CANARY`] as the bearer and HOME a temporary directory.
pub fn serve_with_door(door_url: &str, extra: &[&str]) -> WithDoor {
    let root = tempfile::tempdir().expect("root");
    let home = tempfile::tempdir().expect("home");
    let root_arg = root.path().to_str().expect("utf-8").to_owned();
    let mut args = vec!["serve", "--root", root_arg.as_str()];
    args.extend_from_slice(extra);
    let server = Proc::spawn_with_env(
        &args,
        &[
            ("HANZO_MCP_DOOR", door_url),
            ("HANZO_API_KEY", CANARY),
            ("HOME", home.path().to_str().expect("utf-8")),
        ],
    );
    WithDoor { server, root, home }
}

/// A modes file holding `presets` in a fresh directory (removed when
/// dropped), and its path.
pub fn modes_file(presets: &Value) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("modes.json");
    std::fs::write(&path, presets.to_string()).expect("write modes");
    let path = path.to_str().expect("utf-8").to_owned();
    (dir, path)
}

/// A fake door behaving as `behaviour`, and [`serve_with_door`] at it with
/// `extra`, past the 2025-11-25 handshake: the door (keep it for as long
/// as the server runs), the server and the `initialize` result.
pub fn behind_fake_door(behaviour: Behaviour, extra: &[&str]) -> (FakeDoor, WithDoor, Value) {
    let door = FakeDoor::start(behaviour).expect("fake door");
    let mut setup = serve_with_door(&door.url(), extra);
    let init = setup.server.initialize("2025-11-25");
    (door, setup, init)
}

/// The result the fake door answers a forwarded call of `name` with.
pub fn fake_door_called(name: &str, arguments: &Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": format!("called {name}") }],
        "structuredContent": { "name": name, "arguments": arguments },
        "isError": false,
        "resultType": "complete"
    })
}

/// The -32602 refusal of a call of `tool` whose `kind` (`"action"` of a
/// local tool, `"op"` of a door tool) `name` its allowlist entry does not
/// allow, naming the `allowed` ones.
pub fn refusal(tool: &str, kind: &str, name: &str, allowed: &[&str]) -> Value {
    json!({
        "code": -32602,
        "message": format!(
            "tool {tool:?} does not allow {kind} {name:?} here (allowed: {})",
            allowed.join(", ")
        ),
        "data": { "tool": tool, kind: name, "allowed": allowed }
    })
}

/// A loopback address nothing listens on (bound, then let go).
pub fn free_address() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address")
}

/// The tool `name` of a `tools/list` response.
pub fn listed_tool<'v>(list: &'v Value, name: &str) -> &'v Value {
    list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {list}"))
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {list}"))
}

/// A test of `hanzo-mcp serve --no-door` on a temporary root, as ripgrep's
/// `rgtest!`: `servetest!(name, [extra args], |server, root| { ... })`
/// defines `#[test] fn name` whose body gets the running server (before
/// the handshake) as `server` and the root's path as `root`.
macro_rules! servetest {
    ($name:ident, [$($arg:expr),* $(,)?], |$server:ident, $root:ident| $body:block) => {
        #[test]
        fn $name() {
            let (mut $server, dir) = $crate::common::serve_in_temp_root(&[$($arg),*]);
            let $root: &std::path::Path = dir.path();
            $body
        }
    };
}
pub(crate) use servetest;

/// A 2026-07-28 request's `_meta`: the revision and no client
/// capabilities, then `more`'s members.
pub fn stateless_meta_with(more: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    if let (Some(meta), Value::Object(more)) = (meta.as_object_mut(), more) {
        meta.extend(more);
    }
    meta
}

/// What `work` comes to, which must be within [`stdio::PATIENCE`]; `what`
/// names it when it is not.
pub async fn within<F: std::future::Future>(what: &str, work: F) -> F::Output {
    tokio::time::timeout(stdio::PATIENCE, work)
        .await
        .unwrap_or_else(|_| panic!("not within {:?}: {what}", stdio::PATIENCE))
}

/// A server with no tools whose session holds at most
/// `max_output_backlog_bytes` of answers nobody has read yet.
pub fn backlog_server(max_output_backlog_bytes: usize) -> Arc<Server> {
    let info = Implementation::new("stdio-output-test", "0.0.1");
    let mut config = ServerConfig::new(info);
    config.max_output_backlog_bytes = max_output_backlog_bytes;
    Arc::new(Server::new(Composition::new(Vec::new()), config))
}

/// Lets every other task of this single-threaded runtime run until it
/// blocks.
pub async fn settle() {
    for _ in 0..20_000 {
        tokio::task::yield_now().await;
    }
}

/// That `writer` stops sending while nobody reads (its count in `sent`
/// unchanged over a [`settle`], the writer still waiting), having sent
/// fewer than `most`.
pub async fn assert_stalls_below<T>(
    sent: &AtomicUsize,
    writer: &tokio::task::JoinHandle<T>,
    most: usize,
) {
    settle().await;
    let stalled = sent.load(Ordering::Relaxed);
    settle().await;
    assert_eq!(sent.load(Ordering::Relaxed), stalled, "input still taken");
    assert!(!writer.is_finished());
    assert!(stalled < most, "{stalled} taken while output unread");
}

/// Reads `count` answers with `next`, each the id of the request it
/// answers, and checks that requests 1 to `count` are answered once each.
pub async fn assert_each_answered_once(count: usize, mut next: impl AsyncFnMut() -> i64) {
    let mut answered = vec![false; count + 1];
    for _ in 0..count {
        let id = next().await;
        let seen = usize::try_from(id)
            .ok()
            .filter(|&i| i > 0)
            .and_then(|i| answered.get_mut(i))
            .unwrap_or_else(|| panic!("no request {id} was sent"));
        assert!(!*seen, "request {id} answered twice");
        *seen = true;
    }
    let missing: Vec<usize> = (1..=count).filter(|&i| !answered[i]).collect();
    assert!(missing.is_empty(), "never answered: {missing:?}");
}

/// The server's `roots/list` request, the `n`th request it sends (`s-<n>`).
pub fn roots_list_request(n: u32) -> Value {
    json!({ "jsonrpc": "2.0", "id": format!("s-{n}"), "method": "roots/list", "params": {} })
}

/// The client's answer to the server's request `s-<n>`, listing `roots`.
pub fn roots_list_answer(n: u32, roots: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": format!("s-{n}"), "result": { "roots": roots } })
}
