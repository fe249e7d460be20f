//! `hanzo-mcp serve` over every kind of stdin/stdout a client may hand it:
//! a Unix socket pair (Node's `child_process`), stdout shared with stderr
//! (`2>&1`, where stdout must stay blocking), and stdin from a regular file
//! (Tokio's blocking stdin). Each answers `initialize` and an `fs` `read`
//! with the file's exact text, and exits 0 at end of input.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use serde_json::{Value, json};

/// A safety net against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

fn root_with_file() -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().expect("tempdir");
    let file = root.path().join("one.txt");
    std::fs::write(&file, "hello\n").expect("write");
    (root, file.display().to_string())
}

fn requests(file: &str) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "stdio-streams", "version": "0"}}});
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "fs", "arguments": {"action": "read", "path": file}}});
    format!("{init}\n{initialized}\n{call}\n")
}

/// Reads lines from `reader` on a thread until end of input.
fn lines(reader: impl Read + Send + 'static) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(reader).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

/// The JSON-RPC responses among `lines` by id, until ids 0 and 1 are both
/// seen, and the other lines (logs) read meanwhile.
fn responses(lines: &mpsc::Receiver<String>) -> (Value, Value, Vec<String>) {
    let (mut init, mut call, mut others) = (None, None, Vec::new());
    while init.is_none() || call.is_none() {
        let line = lines.recv_timeout(PATIENCE).expect("a response line");
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            others.push(line);
            continue;
        };
        match message.get("id").and_then(Value::as_i64) {
            Some(0) => init = Some(message),
            Some(1) => call = Some(message),
            _ => {}
        }
    }
    (init.unwrap_or_default(), call.unwrap_or_default(), others)
}

fn check(init: &Value, call: &Value) {
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "hanzo-mcp", "{init}");
    assert_eq!(
        call,
        &json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "hello\n"}]}}),
    );
}

fn serve(root: &tempfile::TempDir) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"));
    command
        .args(["serve", "--no-door", "--root"])
        .arg(root.path());
    command
}

#[test]
fn unix_socket_pair_as_stdin_and_stdout() {
    let (root, file) = root_with_file();
    let (mut ours, theirs) = UnixStream::pair().expect("socketpair");
    let theirs_out = theirs.try_clone().expect("clone");
    let mut child = serve(&root)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::from(OwnedFd::from(theirs_out)))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let received = lines(ours.try_clone().expect("clone"));
    ours.write_all(requests(&file).as_bytes()).expect("write");
    let (init, call, _) = responses(&received);
    check(&init, &call);
    ours.shutdown(std::net::Shutdown::Write).expect("shutdown");
    assert!(child.wait().expect("wait").success());
}

#[test]
fn stdout_shared_with_stderr() {
    let (root, file) = root_with_file();
    let (reader, writer) = std::io::pipe().expect("pipe");
    let mut child = serve(&root)
        .args(["--log-level", "info"])
        .stdin(Stdio::piped())
        .stdout(writer.try_clone().expect("clone"))
        .stderr(writer)
        .spawn()
        .expect("spawn");
    let received = lines(reader);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(requests(&file).as_bytes()).expect("write");
    let (init, call, logs) = responses(&received);
    check(&init, &call);
    drop(stdin);
    assert!(child.wait().expect("wait").success());
    // The handshake's log line came through whole on the shared pipe.
    let handshake: Vec<&String> = logs
        .iter()
        .filter(|line| line.contains("initialize answered"))
        .collect();
    assert_eq!(handshake.len(), 1, "{logs:?}");
    assert!(
        handshake[0].ends_with(r#"requested="2025-11-25" negotiated="2025-11-25""#),
        "{logs:?}"
    );
}

#[test]
fn stdin_from_a_regular_file() {
    let (root, file) = root_with_file();
    let input = root.path().join("requests.jsonl");
    std::fs::write(&input, requests(&file)).expect("write");
    let mut child = serve(&root)
        .stdin(std::fs::File::open(&input).expect("open"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let received = lines(child.stdout.take().expect("stdout"));
    let (init, call, _) = responses(&received);
    check(&init, &call);
    assert!(child.wait().expect("wait").success());
}
