//! The stdio transport under everything a client may hand it or do to it:
//! fields of the wrong shape (a 2026-07-28 `_meta` log level that is no
//! `LoggingLevel`, an `initialize` whose `capabilities` or `clientInfo` has
//! the wrong shape, a line starting with a UTF-8 byte order mark, a
//! malformed client response); an output the client closes (the server
//! stops reading and returns the write error at once) or stops reading
//! (the server stops reading input until the client reads, then answers
//! every request exactly once); every kind of stdin and stdout (a Unix
//! socket pair, stdout shared with stderr, stdin from a regular file); and
//! a stderr that cannot be written, which never takes the server down.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

use mcp_local_server::ServerError;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

use crate::common::driver::{Connection, StdioPipes};
use crate::common::http::{exchange, raw_post};
use crate::common::stdio::PATIENCE;
use crate::common::tools::server;
use crate::common::{
    Proc, assert_each_answered_once, assert_stalls_below, backlog_server, hanzo_mcp, http_port,
    open_http_args, stateless_meta_with, within,
};

// Fields of the wrong shape, over an in-process connection.

fn initialize(id: u64, capabilities: Value, client_info: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": client_info}})
}

#[tokio::test]
async fn an_unknown_meta_log_level_is_refused_naming_the_allowed_levels() {
    let mut client = Connection::open(Arc::new(server("stdio-fields-test", Vec::new())));
    let meta = stateless_meta_with(json!({"io.modelcontextprotocol/logLevel": "LOUD"}));
    let answer = client
        .ask(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}))
        .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message":
            "params._meta[\"io.modelcontextprotocol/logLevel\"] must be one of debug, info, \
             notice, warning, error, critical, alert or emergency; found \"LOUD\""}})
    );
    // A valid level is accepted.
    let meta = stateless_meta_with(json!({"io.modelcontextprotocol/logLevel": "warning"}));
    let answer = client
        .ask(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}}))
        .await;
    assert_eq!(answer["id"], json!(2));
    assert_eq!(answer["result"]["tools"], json!([]), "{answer}");
}

#[tokio::test]
async fn initialize_refuses_capabilities_and_client_info_of_the_wrong_shape() {
    let mut client = Connection::open(Arc::new(server("stdio-fields-test", Vec::new())));
    let good_info = json!({"name": "c", "version": "1"});
    let answer = client
        .ask(initialize(1, json!("notanobject"), good_info.clone()))
        .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message":
            "initialize: capabilities must be an object, found \"notanobject\""}})
    );
    for (id, info) in [
        (2, json!(5)),
        (3, json!({"name": "c"})),
        (4, json!({"name": 1, "version": "1"})),
    ] {
        let answer = client.ask(initialize(id, json!({}), info.clone())).await;
        assert_eq!(
            answer,
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": format!(
                "initialize: clientInfo must be an object with string name and version \
                 (Implementation), found {info}")}})
        );
    }
    // The refusals left the connection uninitialized: a good one succeeds.
    let answer = client.ask(initialize(5, json!({}), good_info)).await;
    assert_eq!(answer["id"], json!(5));
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-11-25"),
        "{answer}"
    );
}

#[tokio::test]
async fn a_line_starting_with_a_byte_order_mark_is_answered() {
    let mut client = Connection::open(Arc::new(server("stdio-fields-test", Vec::new())));
    let mut line = b"\xEF\xBB\xBF".to_vec();
    line.extend_from_slice(
        initialize(1, json!({}), json!({"name": "c", "version": "1"}))
            .to_string()
            .as_bytes(),
    );
    let answer = client.exchange(&line).await;
    assert_eq!(answer["id"], json!(1));
    assert_eq!(
        answer["result"]["protocolVersion"],
        json!("2025-11-25"),
        "{answer}"
    );
    let answer = client
        .exchange(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}")
        .await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

// The output path.

fn line(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

fn initialize_line() -> Vec<u8> {
    line(
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "stdio-output", "version": "0"}}}),
    )
}

fn ping(id: u64) -> Vec<u8> {
    line(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
}

#[tokio::test]
async fn closed_output_stops_reading_and_returns_the_write_error() {
    let StdioPipes {
        input: mut to_server,
        output: from_server,
        serving,
    } = StdioPipes::open(backlog_server(16 << 20), 1 << 16);
    // The client closes the server's output, keeps its input open.
    drop(from_server);
    to_server
        .write_all(&initialize_line())
        .await
        .expect("write");

    let result = within("serve returns while the input is still open", serving)
        .await
        .expect("serve does not panic");
    let Err(ServerError::Write(error)) = result else {
        panic!("expected a write error, got {result:?}");
    };
    assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe);

    // The server no longer reads: its input is closed.
    let more = to_server.write_all(&ping(1)).await;
    assert_eq!(
        more.expect_err("input closed").kind(),
        std::io::ErrorKind::BrokenPipe
    );
}

#[tokio::test]
async fn output_nobody_reads_after_input_ends_is_dropped_after_the_grace() {
    let mut config = mcp_local_server::ServerConfig::new(
        mcp_local_server::mcp_proto::Implementation::new("stdio-grace-test", "0.0.1"),
    );
    config.shutdown_grace = std::time::Duration::from_millis(300);
    let server = Arc::new(mcp_local_server::Server::new(
        mcp_local_server::Composition::new(Vec::new()),
        config,
    ));
    let StdioPipes {
        input: mut to_server,
        output: _unread,
        serving,
    } = StdioPipes::open(server, 4096);
    to_server
        .write_all(&initialize_line())
        .await
        .expect("write");
    // Far more answers than the 4 KiB pipe holds, then end of input; the
    // client reads nothing.
    for id in 1..=1_000 {
        to_server.write_all(&ping(id)).await.expect("write");
    }
    drop(to_server);
    let result = within("serve returns once the grace is over", serving)
        .await
        .expect("serve does not panic");
    let Err(ServerError::Write(error)) = result else {
        panic!("expected a write error, got {result:?}");
    };
    assert_eq!(error.kind(), std::io::ErrorKind::TimedOut, "{error}");
}

#[tokio::test]
async fn unread_output_stops_input_then_every_ping_is_answered_once() {
    const PINGS: u64 = 100_000;
    const LIMIT: usize = 64 * 1024;
    let StdioPipes {
        input: mut to_server,
        output: from_server,
        serving,
    } = StdioPipes::open(backlog_server(LIMIT), 4096);
    let mut from_server = from_server.lines();

    to_server
        .write_all(&initialize_line())
        .await
        .expect("write");
    let init = from_server
        .next_line()
        .await
        .expect("read")
        .expect("a line");
    let init: Value = serde_json::from_str(&init).expect("JSON");
    assert_eq!(init["id"], json!(0));
    assert_eq!(init["result"]["protocolVersion"], json!("2025-11-25"));

    let sent = Arc::new(AtomicUsize::new(0));
    let counter = sent.clone();
    let writer = tokio::spawn(async move {
        for id in 1..=PINGS {
            to_server.write_all(&ping(id)).await.expect("write");
            counter.fetch_add(1, Ordering::Relaxed);
        }
        to_server
    });

    // Nobody reads the output: the server stops taking input.
    // Within the output bound (64 KiB of ~40-byte answers), the 64 KiB
    // input buffer, 16 queued lines and the two 4 KiB pipes.
    assert_stalls_below(&sent, &writer, 6_000).await;

    // Reading resumes: every ping is answered exactly once.
    assert_each_answered_once(PINGS as usize, async || {
        let answer = within("an answer", from_server.next_line())
            .await
            .expect("read")
            .expect("a line");
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert_eq!(answer["result"], json!({}), "{answer}");
        answer["id"].as_i64().expect("an integer id")
    })
    .await;
    let to_server = writer.await.expect("the writer finishes");
    drop(to_server);
    let result = within("serve ends at end of input", serving)
        .await
        .expect("no panic");
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(from_server.next_line().await.expect("read"), None);
}

// Every kind of stdin and stdout.

fn root_with_file() -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().expect("tempdir");
    let file = root.path().join("one.txt");
    std::fs::write(&file, "hello\n").expect("write");
    (root, file.display().to_string())
}

fn requests_reading(file: &str) -> String {
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

fn check_answers(init: &Value, call: &Value) {
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "hanzo-mcp", "{init}");
    assert_eq!(
        call,
        &json!({"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "hello\n"}]}}),
    );
}

fn serve(root: &tempfile::TempDir) -> Command {
    let mut command = hanzo_mcp();
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
    ours.write_all(requests_reading(&file).as_bytes())
        .expect("write");
    let (init, call, _) = responses(&received);
    check_answers(&init, &call);
    ours.shutdown(std::net::Shutdown::Write).expect("shutdown");
    assert!(child.wait().expect("wait").success());
}

#[test]
fn stdout_shared_with_stderr() {
    let (root, file) = root_with_file();
    let (reader, writer) = std::io::pipe().expect("pipe");
    let mut child = serve(&root)
        .args(["--log-level", "debug"])
        .stdin(Stdio::piped())
        .stdout(writer.try_clone().expect("clone"))
        .stderr(writer)
        .spawn()
        .expect("spawn");
    let received = lines(reader);
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(requests_reading(&file).as_bytes())
        .expect("write");
    let (init, call, logs) = responses(&received);
    check_answers(&init, &call);
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
    std::fs::write(&input, requests_reading(&file)).expect("write");
    let mut child = serve(&root)
        .stdin(std::fs::File::open(&input).expect("open"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let received = lines(child.stdout.take().expect("stdout"));
    let (init, call, _) = responses(&received);
    check_answers(&init, &call);
    assert!(child.wait().expect("wait").success());
}

/// QA: a client response that fails validation (result and error both) is
/// never answered: JSON-RPC 2.0 §5 says a response is never answered.
#[tokio::test]
async fn stdio_malformed_client_response_gets_no_reply() {
    let mut client = Connection::open(Arc::new(server("qa", Vec::new())));
    let lines = [
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": { "sampling": {} },
            "clientInfo": { "name": "qa", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
            "error": { "code": 1, "message": "x" } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }),
    ];
    for line in lines {
        client.send(line).await;
    }
    let mut seen = Vec::new();
    loop {
        let message = client.next().await;
        let done = message["id"] == json!(2);
        seen.push(message);
        if done {
            break;
        }
    }
    let ids: Vec<Value> = seen.iter().map(|v| v["id"].clone()).collect();
    assert_eq!(ids, vec![json!(0), json!(2)], "answered: {seen:?}");
}

// A stderr that cannot be written (a full device, a pipe nobody reads):
// the log lines are dropped and the server answers as it does with a
// working stderr, then exits 0 at the end of its input (stdio), or keeps
// serving (`--http`).

/// Runs `serve --no-door --root R` over stdio with `stderr` and logs at
/// info, feeds initialize, initialized and `fs` `help` (id 2) and closes
/// stdin; the exit code and the lines written.
fn serve_stdio(root: &std::path::Path, stderr: Stdio) -> (Option<i32>, Vec<Value>) {
    let mut command = hanzo_mcp();
    command
        .args(["serve", "--no-door", "--root"])
        .arg(root)
        .env("RUST_LOG", "info");
    let mut server = Proc::start_with_stderr(command, stderr);
    for message in [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "stderr-closed", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "fs", "arguments": { "action": "help" } } }),
    ] {
        server.send(&message);
    }
    server.close_stdin();
    let lines = server.drain();
    (server.wait().code(), lines)
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

fn dev_full() -> Stdio {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    Stdio::from(full)
}

fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    Stdio::from(writer)
}

/// Over stdio with an unwritable stderr the answers are the reference's.
macro_rules! unwritable_stderr {
    ($($(#[$attr:meta])* $name:ident: $stderr:expr;)*) => {$(
        $(#[$attr])*
        #[test]
        fn $name() {
            let root = tempfile::tempdir().expect("tempdir");
            let expected = reference(root.path());
            let (status, lines) = serve_stdio(root.path(), $stderr);
            assert_eq!(lines, expected);
            assert_eq!(status, Some(0));
        }
    )*};
}

unwritable_stderr! {
    #[cfg(target_os = "linux")]
    stdio_with_stderr_on_dev_full_answers_and_exits_0: dev_full();
    stdio_with_stderr_a_closed_pipe_answers_and_exits_0: closed_pipe();
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn http_with_stderr_on_dev_full_serves_initialize() {
    let root = tempfile::tempdir().expect("tempdir");
    let mut command = hanzo_mcp();
    command
        .args(open_http_args(root.path()))
        .env("RUST_LOG", "debug");
    let mut server = Proc::start_with_stderr(command, dev_full());
    // The address cannot be read from the log: ask /proc for the port
    // once the server listens.
    let port = http_port(&mut server).await;
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "stderr-closed", "version": "1" } } })
    .to_string();
    let (status, _, body) = exchange(addr, raw_post(addr, &body).as_bytes()).await;
    assert!(!server.has_exited(), "hanzo-mcp exited after answering");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let reply: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_eq!(reply["id"], json!(1));
    assert_eq!(reply["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(reply["result"]["serverInfo"]["name"], json!("hanzo-mcp"));
}
