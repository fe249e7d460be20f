//! Regression tests for the second QA pass on the streamable HTTP transport
//! (MCP 2025-11-25 basic/transports): a malformed client response, slow
//! request headers, the POST `Content-Type`, and `initialize` inside a live
//! session. reqwest (or a raw TCP stream) against [`serve_http`] on an
//! ephemeral loopback port, asserting status, headers and body.

mod http_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_local_server::http::HttpConfig;
use mcp_local_server::source::{BoxFuture, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::sse::SseParser;
use mcp_proto::{ErrorObject, FromValue, Implementation, Tool};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);
const BOTH: &str = "application/json, text/event-stream";

/// `ask` asks the client for its roots (a server-to-client request).
struct Tools;

impl ToolSource for Tools {
    fn name(&self) -> &str {
        "qa2"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let tool =
                Tool::from_value(json!({ "name": "ask", "inputSchema": { "type": "object" } }))
                    .expect("tool literal");
            SourceList {
                tools: vec![tool],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        tool == "ask"
    }

    fn call_tool(
        &self,
        _call: mcp_local_server::source::CallRequest,
        cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        Box::pin(async move {
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                let client = cx
                    .client()
                    .ok_or_else(|| ErrorObject::internal_error("no client handle"))?;
                let roots = client.list_roots().await?;
                let said = format!("{} roots", roots.roots.len());
                Ok(json!({ "content": [ { "type": "text", "text": said } ] }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

struct Running {
    addr: SocketAddr,
    url: String,
    client: reqwest::Client,
    _server: http_support::Listening,
}

async fn start(config: HttpConfig) -> Running {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "http-qa2", "version": "0.0.1" }))
            .expect("valid Implementation");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Tools)];
    let server = Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ));
    let listening = http_support::listen(server, config).await;
    let addr = listening.addr;
    Running {
        addr,
        url: format!("http://{addr}/mcp"),
        client: reqwest::Client::new(),
        _server: listening,
    }
}

impl Running {
    async fn post(
        &self,
        session: Option<&str>,
        content_type: Option<&str>,
        body: &Value,
    ) -> reqwest::Response {
        let mut post = self
            .client
            .post(&self.url)
            .header("accept", BOTH)
            .body(body.to_string());
        if let Some(content_type) = content_type {
            post = post.header("content-type", content_type);
        }
        if let Some(session) = session {
            post = post
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        tokio::time::timeout(PATIENCE, post.send())
            .await
            .expect("answered within the patience bound")
            .expect("POST answered")
    }

    /// `initialize` then `notifications/initialized`; the session id.
    async fn open_session(&self) -> String {
        let response = self
            .post(None, Some("application/json"), &initialize(0))
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_owned();
        let initialized = self
            .post(
                Some(&session),
                Some("application/json"),
                &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            )
            .await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        session
    }
}

fn initialize(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": { "roots": {} },
        "clientInfo": { "name": "t", "version": "1" } } })
}

/// The JSON messages of an SSE body, read to its end.
async fn sse_messages(response: reqwest::Response) -> Vec<Value> {
    let mut body = response.bytes_stream().boxed();
    let mut parser = SseParser::new();
    let mut messages = Vec::new();
    while let Some(chunk) = tokio::time::timeout(PATIENCE, body.next())
        .await
        .expect("the stream moves within the patience bound")
    {
        for event in parser.feed(&chunk.expect("a chunk")) {
            let data = event.expect("a well-formed event").data;
            if !data.is_empty() {
                messages.push(serde_json::from_str(&data).expect("JSON data"));
            }
        }
    }
    messages
}

/// QA 1: a malformed client response is a response, never answered with an
/// id-carrying error (JSON-RPC 2.0 §5); it gets 202 and fails the server
/// request it answers at once, as over stdio.
#[tokio::test]
async fn a_malformed_client_response_is_202_and_fails_the_waiting_call_at_once() {
    let running = start(HttpConfig::default()).await;
    let session = running.open_session().await;
    let call = running
        .post(
            Some(&session),
            Some("application/json"),
            &json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": { "name": "ask", "arguments": {} } }),
        )
        .await;
    assert_eq!(call.status(), StatusCode::OK);
    assert_eq!(
        call.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    let reading = tokio::spawn(sse_messages(call));
    // The server request is s-1 (the first of this connection); answer it
    // with both result and error.
    let bad = running
        .post(
            Some(&session),
            Some("application/json"),
            &json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
                "error": { "code": 1, "message": "x" } }),
        )
        .await;
    assert_eq!(bad.status(), StatusCode::ACCEPTED);
    assert_eq!(bad.text().await.expect("body"), "");
    let messages = reading.await.expect("reader");
    assert_eq!(
        messages,
        vec![
            json!({ "jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {} }),
            json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32603,
                "message": "the client's response to roots/list was malformed: a response must have result or error, not both" } }),
        ]
    );
}

/// QA 1: without a session to take it, a malformed response gets 400 whose
/// error carries no id.
#[tokio::test]
async fn a_malformed_response_without_a_session_gets_a_null_id_error() {
    let running = start(HttpConfig::default()).await;
    let bad = running
        .post(
            None,
            Some("application/json"),
            &json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
                "error": { "code": 1, "message": "x" } }),
        )
        .await;
    assert_eq!(bad.status(), StatusCode::BAD_REQUEST);
    let body: Value = bad.json().await.expect("JSON body");
    assert_eq!(body.get("id"), None, "{body}");
    assert_eq!(body["error"]["code"], json!(-32600));
    assert_eq!(
        body["error"]["message"],
        json!("Mcp-Session-Id is required: send initialize first to open a session")
    );
}

/// QA 2: a connection that sends half a request line is closed once the
/// header read timeout passes; a full request is still served.
#[tokio::test]
async fn a_half_sent_request_header_is_closed_after_the_header_timeout() {
    let running = start(HttpConfig {
        header_read_timeout: Duration::from_millis(200),
        ..HttpConfig::default()
    })
    .await;
    let mut slow = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    slow.write_all(b"POST /mc")
        .await
        .expect("half a request line");
    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, slow.read_to_end(&mut got))
        .await
        .expect("the server closes the connection within the patience bound");
    // Closed: end of stream (hyper may say 408 first) or a reset.
    if read.is_ok() {
        let text = String::from_utf8_lossy(&got);
        assert!(
            got.is_empty() || text.starts_with("HTTP/1.1 408"),
            "unexpected bytes: {text:?}"
        );
    }
    let fine = running
        .post(None, Some("application/json"), &initialize(1))
        .await;
    assert_eq!(fine.status(), StatusCode::OK);
}

/// QA 2: at the connection cap nothing more is served until a connection
/// closes (the next client waits in the backlog, then is served).
#[tokio::test]
async fn beyond_the_connection_cap_a_client_waits_until_one_closes() {
    let running = start(HttpConfig {
        max_connections: 1,
        ..HttpConfig::default()
    })
    .await;
    let holder = tokio::net::TcpStream::connect(running.addr)
        .await
        .expect("connect");
    // Give the accept loop the holder first (it has no way to say when).
    tokio::time::sleep(Duration::from_millis(100)).await;
    let waiting = tokio::spawn({
        let url = running.url.clone();
        async move {
            reqwest::Client::new()
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", BOTH)
                .body(initialize(2).to_string())
                .send()
                .await
                .expect("POST answered")
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "served past the cap");
    drop(holder);
    let answered = tokio::time::timeout(PATIENCE, waiting)
        .await
        .expect("served within the patience bound once a slot frees")
        .expect("task");
    assert_eq!(answered.status(), StatusCode::OK);
    let body: Value = answered.json().await.expect("JSON body");
    assert_eq!(body["id"], json!(2));
    assert_eq!(body["result"]["protocolVersion"], json!("2025-11-25"));
}

/// QA 3: a POST body is JSON; another or no `Content-Type` is 415 with a
/// -32600 error (no id: the body is not read), parameters such as charset
/// are fine.
#[tokio::test]
async fn a_post_that_is_not_application_json_is_415() {
    let running = start(HttpConfig::default()).await;
    for content_type in [Some("text/plain"), None, Some("application/jsonx")] {
        let refused = running.post(None, content_type, &initialize(3)).await;
        assert_eq!(
            refused.status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "{content_type:?}"
        );
        assert_eq!(
            refused
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok()),
            Some("application/json")
        );
        assert_eq!(
            refused.json::<Value>().await.expect("JSON body"),
            json!({ "jsonrpc": "2.0", "error": { "code": -32600,
                "message": "Content-Type must be application/json" } })
        );
    }
    let fine = running
        .post(
            None,
            Some("Application/JSON; charset=utf-8"),
            &initialize(4),
        )
        .await;
    assert_eq!(fine.status(), StatusCode::OK);
    assert_eq!(
        fine.json::<Value>().await.expect("JSON body")["id"],
        json!(4)
    );
}

/// QA 4: `initialize` naming a live session is answered in that session,
/// which refuses it as stdio does; no second session is opened.
#[tokio::test]
async fn initialize_in_a_live_session_is_refused_there() {
    let running = start(HttpConfig::default()).await;
    let session = running.open_session().await;
    let again = running
        .post(Some(&session), Some("application/json"), &initialize(9))
        .await;
    assert_eq!(again.status(), StatusCode::OK);
    assert!(again.headers().get("mcp-session-id").is_none());
    assert_eq!(
        again.json::<Value>().await.expect("JSON body"),
        json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32600,
            "message": "initialize was already answered on this connection (revision 2025-11-25)" } })
    );
    // The session still works.
    let ping = running
        .post(
            Some(&session),
            Some("application/json"),
            &json!({ "jsonrpc": "2.0", "id": 10, "method": "ping" }),
        )
        .await;
    assert_eq!(
        ping.json::<Value>().await.expect("JSON body"),
        json!({ "jsonrpc": "2.0", "id": 10, "result": {} })
    );
}
