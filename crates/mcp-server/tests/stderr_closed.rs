//! A stderr that cannot be written (a full device, a pipe nobody reads)
//! never takes `hanzo-mcp serve` down: the log lines are dropped and the
//! server answers as it does with a working stderr, then exits 0 at the end
//! of its input (stdio), or keeps serving (`--http`).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

/// initialize, initialized, then `fs` `help` (id 2), one per line.
fn stdio_input() -> String {
    [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "stderr-closed", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "fs", "arguments": { "action": "help" } } }),
    ]
    .iter()
    .map(|m| format!("{m}\n"))
    .collect()
}

/// Runs `serve --no-door --root R` over stdio with `stderr`, feeds
/// [`stdio_input`] and closes stdin; the exit code and the lines written.
fn serve_stdio(root: &std::path::Path, stderr: Stdio) -> (Option<i32>, Vec<Value>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
        .args(["serve", "--no-door", "--root"])
        .arg(root)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("spawn hanzo-mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(stdio_input().as_bytes())
        .expect("write the requests");
    drop(stdin);
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        let _ = tx.send(out);
    });
    let out = rx.recv_timeout(PATIENCE).expect("stdout ends");
    let status = wait(&mut child);
    let lines = out
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect();
    (status, lines)
}

fn wait(child: &mut Child) -> Option<i32> {
    for _ in 0..(PATIENCE.as_millis() / 20) {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("hanzo-mcp did not exit at the end of its input");
}

/// The exact answers a working stderr gets, checked field by field.
fn reference(root: &std::path::Path) -> Vec<Value> {
    let (status, lines) = serve_stdio(root, Stdio::null());
    assert_eq!(status, Some(0));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["id"], json!(1));
    assert_eq!(lines[0]["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(lines[0]["result"]["serverInfo"]["name"], json!("hanzo-mcp"));
    assert_eq!(lines[1]["id"], json!(2));
    assert_eq!(lines[1]["result"].get("isError"), None, "{}", lines[1]);
    let text = lines[1]["result"]["content"][0]["text"]
        .as_str()
        .expect("help text");
    assert!(text.contains("read"), "{text}");
    lines
}

#[cfg(target_os = "linux")]
#[test]
fn stdio_with_stderr_on_dev_full_answers_and_exits_0() {
    let root = tempfile::tempdir().expect("tempdir");
    let expected = reference(root.path());
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let (status, lines) = serve_stdio(root.path(), Stdio::from(full));
    assert_eq!(lines, expected);
    assert_eq!(status, Some(0));
}

#[test]
fn stdio_with_stderr_a_closed_pipe_answers_and_exits_0() {
    let root = tempfile::tempdir().expect("tempdir");
    let expected = reference(root.path());
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let (status, lines) = serve_stdio(root.path(), Stdio::from(writer));
    assert_eq!(lines, expected);
    assert_eq!(status, Some(0));
}

/// A free loopback port (bound then released) for `--http`, whose address
/// the test cannot read from the unwritable stderr.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

#[cfg(target_os = "linux")]
#[test]
fn http_with_stderr_on_dev_full_serves_initialize() {
    let root = tempfile::tempdir().expect("tempdir");
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let port = free_port();
    let addr = format!("127.0.0.1:{port}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hanzo-mcp"))
        .args(["serve", "--no-door", "--http", &addr, "--root"])
        .arg(root.path())
        .env("RUST_LOG", "debug")
        .env_remove("HANZO_MCP_HTTP_BEARER")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(full))
        .spawn()
        .expect("spawn hanzo-mcp");
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "stderr-closed", "version": "1" } } })
    .to_string();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    // The server binds after start-up: retry the connection until it does.
    let mut answer = None;
    for _ in 0..(PATIENCE.as_millis() / 50) {
        if let Some(status) = child.try_wait().expect("try_wait") {
            panic!("hanzo-mcp exited: {status:?}");
        }
        let Ok(mut stream) = TcpStream::connect(&addr) else {
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        stream.set_read_timeout(Some(PATIENCE)).expect("timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let mut got = String::new();
        stream.read_to_string(&mut got).expect("the answer");
        answer = Some(got);
        break;
    }
    let still_running = child.try_wait().expect("try_wait").is_none();
    let _ = child.kill();
    let _ = child.wait();
    let answer = answer.expect("hanzo-mcp --http never accepted a connection");
    assert!(still_running, "hanzo-mcp exited after answering");
    let (head, body) = answer.split_once("\r\n\r\n").expect("header and body");
    assert_eq!(head.lines().next(), Some("HTTP/1.1 200 OK"), "{answer}");
    let reply: Value = serde_json::from_str(body).expect("a JSON body");
    assert_eq!(reply["id"], json!(1));
    assert_eq!(reply["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(reply["result"]["serverInfo"]["name"], json!("hanzo-mcp"));
}
