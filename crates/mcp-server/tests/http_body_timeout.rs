//! A POST whose body stops arriving (`Content-Length: 100`, one byte sent)
//! gets 408 with a -32600 error body once `HttpConfig::body_read_timeout`
//! passes, and its connection is closed, so it no longer holds one of
//! `max_connections`: the next client is served.

mod http_support;

use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::http::HttpConfig;
use mcp_local_server::mcp_proto::Implementation;
use mcp_local_server::{Composition, Server, ServerConfig};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

/// Sends `request` on a fresh connection to `addr` and reads until the
/// server closes it: (status line, lower-case header lines, body).
async fn exchange(addr: std::net::SocketAddr, request: &[u8]) -> (String, Vec<String>, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("send");
    let mut got = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut got))
        .await
        .expect("the server closes the connection")
        .expect("read");
    let text = String::from_utf8(got).expect("UTF-8");
    let (head, body) = text.split_once("\r\n\r\n").expect("header and body");
    let mut lines = head.lines();
    let status = lines.next().expect("status line").to_owned();
    let headers = lines.map(str::to_ascii_lowercase).collect();
    (status, headers, body.to_owned())
}

#[tokio::test]
async fn a_body_that_stops_arriving_gets_408_and_frees_the_connection() {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "body-timeout", "version": "0.0.1" }))
            .expect("valid Implementation");
    let server = Arc::new(Server::new(
        Composition::new(Vec::new()),
        ServerConfig::new(info),
    ));
    let listening = http_support::listen(
        server,
        HttpConfig {
            body_read_timeout: Duration::from_secs(1),
            max_connections: 1,
            ..HttpConfig::default()
        },
    )
    .await;
    let addr = listening.addr;

    let slow = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{{"
    );
    let (status, headers, body) = exchange(addr, slow.as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 408 Request Timeout");
    assert!(
        headers.iter().any(|h| h == "connection: close"),
        "{headers:?}"
    );
    // The request id is unknown: the error response carries none, as every
    // transport-level refusal here (mcp-proto leaves out a null `id`).
    assert_eq!(
        body,
        r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"the request body did not arrive within 1 s"}}"#
    );

    // The only connection slot is free again: a whole request is answered.
    let initialize = json!({ "jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "second", "version": "1" } } })
    .to_string();
    let whole = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{initialize}",
        initialize.len()
    );
    let (status, _, body) = exchange(addr, whole.as_bytes()).await;
    assert_eq!(status, "HTTP/1.1 200 OK");
    let reply: Value = serde_json::from_str(&body).expect("a JSON body");
    assert_eq!(reply["id"], json!(7));
    assert_eq!(reply["result"]["protocolVersion"], json!("2025-11-25"));
    assert_eq!(reply["result"]["serverInfo"]["name"], json!("body-timeout"));
}
