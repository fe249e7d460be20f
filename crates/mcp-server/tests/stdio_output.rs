//! The stdio output path under a client that misbehaves: one that closes
//! the server's output (the server must stop reading and return the write
//! error at once, not run requests until end of input), and one that stops
//! reading it (the server must stop reading input until the client reads,
//! so memory stays bounded, then answer every request exactly once).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_local_server::{Composition, Server, ServerConfig, ServerError};
use mcp_proto::Implementation;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A safety net against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

fn server(max_output_backlog_bytes: usize) -> Arc<Server> {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "stdio-output-test", "version": "0.0.1" }))
            .expect("valid Implementation");
    let mut config = ServerConfig::new(info);
    config.max_output_backlog_bytes = max_output_backlog_bytes;
    Arc::new(Server::new(Composition::new(Vec::new()), config))
}

fn line(message: &Value) -> Vec<u8> {
    let mut line = message.to_string().into_bytes();
    line.push(b'\n');
    line
}

fn initialize() -> Vec<u8> {
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
    let (mut to_server, server_in) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let serving =
        tokio::spawn(server(16 << 20).serve(server_in, server_out, std::future::pending::<()>()));
    // The client closes the server's output, keeps its input open.
    drop(from_server);
    to_server.write_all(&initialize()).await.expect("write");

    let result = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve returns while the input is still open")
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

/// Lets every other task of this single-threaded runtime run until it
/// blocks.
async fn settle() {
    for _ in 0..20_000 {
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn unread_output_stops_input_then_every_ping_is_answered_once() {
    const PINGS: u64 = 100_000;
    const LIMIT: usize = 64 * 1024;
    let (mut to_server, server_in) = tokio::io::duplex(4096);
    let (server_out, from_server) = tokio::io::duplex(4096);
    let serving =
        tokio::spawn(server(LIMIT).serve(server_in, server_out, std::future::pending::<()>()));
    let mut from_server = BufReader::new(from_server).lines();

    to_server.write_all(&initialize()).await.expect("write");
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
    settle().await;
    let stalled = sent.load(Ordering::Relaxed);
    settle().await;
    assert_eq!(
        sent.load(Ordering::Relaxed),
        stalled,
        "input still consumed"
    );
    assert!(!writer.is_finished());
    // Within the output bound (64 KiB of ~40-byte answers), the 64 KiB
    // input buffer, 16 queued lines and the two 4 KiB pipes.
    assert!(stalled < 6_000, "{stalled} pings taken while output unread");

    // Reading resumes: every ping is answered exactly once.
    let mut seen = vec![false; PINGS as usize + 1];
    for _ in 0..PINGS {
        let answer = tokio::time::timeout(PATIENCE, from_server.next_line())
            .await
            .expect("an answer")
            .expect("read")
            .expect("a line");
        let answer: Value = serde_json::from_str(&answer).expect("JSON");
        assert_eq!(answer["result"], json!({}), "{answer}");
        let id = answer["id"].as_u64().expect("an integer id") as usize;
        assert!(!seen[id], "ping {id} answered twice");
        seen[id] = true;
    }
    assert!(seen[1..].iter().all(|&s| s));
    let to_server = writer.await.expect("the writer finishes");
    drop(to_server);
    let result = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve ends at end of input")
        .expect("no panic");
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(from_server.next_line().await.expect("read"), None);
}
