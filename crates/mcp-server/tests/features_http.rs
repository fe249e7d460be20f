//! Server-to-client requests and log messages over streamable HTTP
//! (MCP 2025-11-25 basic/transports): a request or notification the server
//! sends while handling a POST travels on that POST's SSE stream, and the
//! client's response, POSTed separately (202), reaches the waiting call.

mod http_support;

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_local_server::http::HttpConfig;
use mcp_local_server::source::{BoxFuture, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::sse::SseParser;
use mcp_proto::{ErrorObject, FromValue, Implementation, LoggingLevel, Tool};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);

/// `ask` asks the client for its roots and returns how many; `log` logs at
/// info and error.
struct Tools;

impl ToolSource for Tools {
    fn name(&self) -> &str {
        "t"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let tool = |name: &str| -> Tool {
                Tool::from_value(json!({ "name": name, "inputSchema": { "type": "object" } }))
                    .expect("tool literal")
            };
            SourceList {
                tools: vec![tool("ask"), tool("log")],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        matches!(tool, "ask" | "log")
    }

    fn call_tool(
        &self,
        call: mcp_local_server::source::CallRequest,
        cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                let said = if params.name == "ask" {
                    let client = cx
                        .client()
                        .ok_or_else(|| ErrorObject::internal_error("no client handle"))?;
                    let roots = client.list_roots().await?;
                    format!("{} roots, first {}", roots.roots.len(), roots.roots[0].uri)
                } else {
                    cx.log(LoggingLevel::Info, None, json!("one"));
                    cx.log(LoggingLevel::Error, None, json!("two"));
                    "logged".to_owned()
                };
                Ok(json!({ "content": [ { "type": "text", "text": said } ] }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

struct Running {
    url: String,
    client: reqwest::Client,
    session: String,
    _server: http_support::Listening,
}

async fn start() -> Running {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "http-features", "version": "0.0.1" }))
            .expect("valid Implementation");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Tools)];
    let server =
        Arc::new(Server::new(Composition::new(sources), ServerConfig::new(info)).with_logging());
    let listening = http_support::listen(server, HttpConfig::default()).await;
    let bound = listening.addr;
    let url = format!("http://{bound}/mcp");
    let client = reqwest::Client::new();
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": { "roots": {} },
        "clientInfo": { "name": "t", "version": "1" } } });
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .expect("initialize answered");
    assert_eq!(response.status(), StatusCode::OK);
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    let running = Running {
        url,
        client,
        session,
        _server: listening,
    };
    let initialized = running
        .post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
        .await;
    assert_eq!(initialized.status(), StatusCode::ACCEPTED);
    running
}

impl Running {
    async fn post(&self, body: &Value) -> reqwest::Response {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &self.session)
            .body(body.to_string())
            .send()
            .await
            .expect("POST answered")
    }
}

/// Reads the events of an SSE response one at a time.
struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    parser: SseParser,
    ready: std::collections::VecDeque<Value>,
}

impl Events {
    fn of(response: reqwest::Response) -> Self {
        Self {
            body: response.bytes_stream().boxed(),
            parser: SseParser::new(),
            ready: Default::default(),
        }
    }

    async fn next(&mut self) -> Value {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return event;
            }
            let chunk = tokio::time::timeout(PATIENCE, self.body.next())
                .await
                .expect("an event within the patience bound")
                .expect("the stream is still open")
                .expect("a chunk");
            for event in self.parser.feed(&chunk) {
                let data = event.expect("a well-formed event").data;
                self.ready
                    .push_back(serde_json::from_str(&data).expect("JSON data"));
            }
        }
    }
}

#[tokio::test]
async fn a_server_request_rides_the_post_stream_and_its_answer_is_a_second_post() {
    let server = start().await;
    let call = server
        .post(&json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": { "name": "ask", "arguments": {} } }))
        .await;
    assert_eq!(call.status(), StatusCode::OK);
    assert_eq!(
        call.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/event-stream")
    );
    let mut events = Events::of(call);
    assert_eq!(
        events.next().await,
        json!({ "jsonrpc": "2.0", "id": "s-1", "method": "roots/list", "params": {} })
    );
    let answer = server
        .post(
            &json!({ "jsonrpc": "2.0", "id": "s-1", "result": { "roots": [
            { "uri": "file:///work", "name": "work" } ] } }),
        )
        .await;
    assert_eq!(answer.status(), StatusCode::ACCEPTED);
    assert_eq!(answer.text().await.expect("body"), "");
    assert_eq!(
        events.next().await,
        json!({ "jsonrpc": "2.0", "id": 5, "result": { "content": [
            { "type": "text", "text": "1 roots, first file:///work" } ] } })
    );
}

#[tokio::test]
async fn log_messages_ride_the_post_stream_of_their_call() {
    let server = start().await;
    let set = server
        .post(
            &json!({ "jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
            "params": { "level": "warning" } }),
        )
        .await;
    assert_eq!(set.status(), StatusCode::OK);
    assert_eq!(
        set.json::<Value>().await.expect("JSON"),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
    let call = server
        .post(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "log", "arguments": {} } }))
        .await;
    let mut events = Events::of(call);
    assert_eq!(
        events.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "error", "data": "two" } })
    );
    assert_eq!(
        events.next().await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "content": [
            { "type": "text", "text": "logged" } ] } })
    );
}

#[tokio::test]
async fn discover_without_its_revision_is_400() {
    let server = start().await;
    let discover = json!({ "jsonrpc": "2.0", "id": 9, "method": "server/discover" });
    // Naming 2026-07-28 in the header only: the body lacks the _meta that
    // revision requires, -32602 with 400 (SEP-2575).
    let response = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "server/discover")
        .body(discover.to_string())
        .send()
        .await
        .expect("POST answered");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["id"], json!(9));
    assert_eq!(body["error"]["code"], json!(-32602));
    // Naming no revision at all: not a stateless request, and no session.
    let response = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(discover.to_string())
        .send()
        .await
        .expect("POST answered");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}
