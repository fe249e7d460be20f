//! `hanzo-mcp serve` without `--root` confines the local tools to the
//! client's MCP roots when the client offers them (docs/ARCHITECTURE.md,
//! "Local tools"; MCP 2025-11-25 client/roots): raw pipes to the binary.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

struct Binary {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Binary {
    fn spawn(cwd: &Path, args: &[&str]) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
            .arg("serve")
            .arg("--no-door")
            .args(args)
            .current_dir(cwd)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hanzo-mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").expect("write");
        self.stdin.flush().expect("flush");
    }

    fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(PATIENCE)
            .expect("a line from hanzo-mcp");
        serde_json::from_str(&line).expect("a JSON line")
    }

    fn handshake(&mut self, capabilities: Value) {
        self.send(
            json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": capabilities,
            "clientInfo": { "name": "roots-test", "version": "1" } } }),
        );
        let answer = self.recv();
        assert_eq!(answer["result"]["protocolVersion"], json!("2025-11-25"));
        self.send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    }

    /// `fs read` of `path`: (isError, the text of the first block).
    fn read(&mut self, id: i64, path: &Path) -> (bool, String) {
        self.send(
            json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "fs", "arguments": { "action": "read",
                "path": path.to_str().expect("utf-8 path") } } }),
        );
        let answer = self.recv();
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
}

impl Drop for Binary {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn file_uri(path: &Path) -> String {
    format!("file://{}", path.to_str().expect("utf-8 path"))
}

#[test]
fn without_root_the_tools_follow_the_clients_roots() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let start = tmp.path().join("start");
    let offered = tmp.path().join("offered");
    let later = tmp.path().join("later");
    for (dir, text) in [
        (&start, "from the working directory"),
        (&offered, "from the client root"),
        (&later, "from the changed root"),
    ] {
        std::fs::create_dir(dir).expect("mkdir");
        std::fs::write(dir.join("note.txt"), text).expect("write");
    }
    let mut server = Binary::spawn(&start, &[]);
    server.handshake(json!({ "roots": { "listChanged": true } }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {} })
    );
    server.send(
        json!({ "jsonrpc": "2.0", "id": "s-1", "result": { "roots": [
        { "uri": file_uri(&offered), "name": "offered" },
        { "uri": "https://example.com/not-a-file-root" } ] } }),
    );
    // The answer is applied by the server's own task: ask until it shows
    // (bounded; each attempt is a full round trip).
    let mut attempt = 1;
    let mut read = server.read(attempt, &offered.join("note.txt"));
    while read.0 && attempt < 200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &offered.join("note.txt"));
    }
    assert!(!read.0, "the offered root never took effect: {}", read.1);
    assert!(read.1.contains("from the client root"), "{}", read.1);
    // The working directory is no longer a root.
    let (refused, text) = server.read(1000, &start.join("note.txt"));
    assert!(refused, "read outside the client's roots succeeded: {text}");

    // notifications/roots/list_changed: listed again, and followed.
    server.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-2", "method": "roots/list", "params": {} })
    );
    server.send(
        json!({ "jsonrpc": "2.0", "id": "s-2", "result": { "roots": [
        { "uri": file_uri(&later) } ] } }),
    );
    let mut attempt = 2000;
    let mut read = server.read(attempt, &later.join("note.txt"));
    while read.0 && attempt < 2200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &later.join("note.txt"));
    }
    assert!(!read.0, "the changed root never took effect: {}", read.1);
    assert!(read.1.contains("from the changed root"), "{}", read.1);
    let (refused, _) = server.read(3000, &offered.join("note.txt"));
    assert!(refused, "the old root is still served");
}

#[test]
fn with_root_the_client_is_not_asked_for_roots() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("note.txt"), "fixed").expect("write");
    let root = tmp.path().to_str().expect("utf-8 path").to_owned();
    let mut server = Binary::spawn(tmp.path(), &["--root", &root]);
    server.handshake(json!({ "roots": { "listChanged": true } }));
    server.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    // No roots/list: the next line answers the ping.
    server.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
}

#[test]
fn without_root_a_client_without_roots_keeps_the_working_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("note.txt"), "cwd file").expect("write");
    let mut server = Binary::spawn(tmp.path(), &[]);
    server.handshake(json!({}));
    let (failed, text) = server.read(1, &tmp.path().join("note.txt"));
    assert!(!failed, "{text}");
    assert!(text.contains("cwd file"), "{text}");
}

/// QA: a `roots/list` answer with no usable root revokes the client's
/// earlier roots at once; the tools go back to the working directory
/// (docs/ARCHITECTURE.md, "Local tools").
#[test]
fn revoked_client_roots_fall_back_to_the_working_directory() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let start = tmp.path().join("start");
    let offered = tmp.path().join("offered");
    for (dir, text) in [(&start, "cwd note"), (&offered, "offered note")] {
        std::fs::create_dir(dir).expect("mkdir");
        std::fs::write(dir.join("note.txt"), text).expect("write");
    }
    let mut server = Binary::spawn(&start, &[]);
    server.handshake(json!({ "roots": { "listChanged": true } }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {} })
    );
    server.send(
        json!({ "jsonrpc": "2.0", "id": "s-1", "result": { "roots": [
        { "uri": file_uri(&offered) } ] } }),
    );
    let mut attempt = 1;
    let mut read = server.read(attempt, &offered.join("note.txt"));
    while read.0 && attempt < 200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &offered.join("note.txt"));
    }
    assert_eq!(read, (false, "offered note\n".to_owned()));

    server.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-2", "method": "roots/list", "params": {} })
    );
    server.send(json!({ "jsonrpc": "2.0", "id": "s-2", "result": { "roots": [] } }));
    let mut attempt = 1000;
    let mut read = server.read(attempt, &offered.join("note.txt"));
    while !read.0 && attempt < 1200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &offered.join("note.txt"));
    }
    assert!(read.0, "the revoked root is still served: {}", read.1);
    assert_eq!(
        server.read(2000, &start.join("note.txt")),
        (false, "cwd note\n".to_owned())
    );

    // Offered again, then replaced by roots that do not exist: revoked too.
    server.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-3", "method": "roots/list", "params": {} })
    );
    server.send(
        json!({ "jsonrpc": "2.0", "id": "s-3", "result": { "roots": [
        { "uri": file_uri(&offered) } ] } }),
    );
    let mut attempt = 3000;
    let mut read = server.read(attempt, &offered.join("note.txt"));
    while read.0 && attempt < 3200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &offered.join("note.txt"));
    }
    assert_eq!(read, (false, "offered note\n".to_owned()));
    server.send(json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }));
    assert_eq!(
        server.recv(),
        json!({ "jsonrpc": "2.0", "id": "s-4", "method": "roots/list", "params": {} })
    );
    server.send(
        json!({ "jsonrpc": "2.0", "id": "s-4", "result": { "roots": [
        { "uri": file_uri(&tmp.path().join("missing")) } ] } }),
    );
    let mut attempt = 4000;
    let mut read = server.read(attempt, &offered.join("note.txt"));
    while !read.0 && attempt < 4200 {
        std::thread::sleep(Duration::from_millis(20));
        attempt += 1;
        read = server.read(attempt, &offered.join("note.txt"));
    }
    assert!(
        read.0,
        "a root list of missing paths kept the old root: {}",
        read.1
    );
    assert_eq!(
        server.read(5000, &start.join("note.txt")),
        (false, "cwd note\n".to_owned())
    );
}
