//! QA regression tests left by "breaker" (not committed): each one fails on
//! the code as it stood at 12:40 UTC and passes once its defect is fixed.
//!
//! - `stdio_malformed_client_response_gets_no_reply`: a client response
//!   that fails validation (result and error both) is answered with an
//!   error *response* carrying the server-minted id; JSON-RPC 2.0 §5 says
//!   a response is never answered.
//! - `http_cancelled_request_post_is_closed`: after
//!   `notifications/cancelled`, the POST that carried the request is never
//!   answered nor closed.
//! - `http_duplicate_id_keeps_the_original_answer`: a second POST reusing
//!   the id of a request in flight makes the *first* POST fail with 500
//!   and loses its result.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::source::{BoxFuture, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::{FromValue, Implementation, Tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(20);

/// `wait` runs until cancelled or until `release` is notified.
struct Tools {
    release: Arc<Notify>,
}

impl ToolSource for Tools {
    fn name(&self) -> &str {
        "qa"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let tool =
                Tool::from_value(json!({ "name": "wait", "inputSchema": { "type": "object" } }))
                    .expect("tool literal");
            SourceList {
                tools: vec![tool],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        tool == "wait"
    }

    fn call_tool(
        &self,
        _call: mcp_local_server::source::CallRequest,
        cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        let release = self.release.clone();
        Box::pin(async move {
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                tokio::select! {
                    () = cx.cancel.cancelled() => {}
                    () = release.notified() => {}
                }
                Ok(json!({ "content": [ { "type": "text", "text": "released" } ] }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

fn server(release: Arc<Notify>) -> Arc<Server> {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "qa", "version": "0.0.1" })).expect("info");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Tools { release })];
    Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ))
}

#[tokio::test]
async fn stdio_malformed_client_response_gets_no_reply() {
    let (client, server_io) = tokio::io::duplex(64 * 1024);
    let (server_in, server_out) = tokio::io::split(server_io);
    let served =
        tokio::spawn(server(Arc::default()).serve(server_in, server_out, std::future::pending()));
    let (client_in, mut client_out) = tokio::io::split(client);
    let lines = [
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": { "sampling": {} },
            "clientInfo": { "name": "qa", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "id": "s-1", "result": {},
            "error": { "code": 1, "message": "x" } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "ping" }),
    ];
    for line in lines {
        client_out
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("write");
    }
    let mut reader = BufReader::new(client_in).lines();
    let mut seen = Vec::new();
    tokio::time::timeout(PATIENCE, async {
        while let Some(line) = reader.next_line().await.expect("read") {
            let value: Value = serde_json::from_str(&line).expect("json");
            let done = value["id"] == json!(2);
            seen.push(value);
            if done {
                break;
            }
        }
    })
    .await
    .expect("ping answered");
    let ids: Vec<Value> = seen.iter().map(|v| v["id"].clone()).collect();
    assert_eq!(ids, vec![json!(0), json!(2)], "answered: {seen:?}");
    drop(client_out);
    served.abort();
}

struct Http {
    url: String,
    client: reqwest::Client,
    session: String,
    _stop: tokio::sync::oneshot::Sender<()>,
}

async fn start(release: Arc<Notify>) -> Http {
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http(
        server(release),
        "127.0.0.1:0".parse().expect("address"),
        HttpConfig::default(),
        move |bound| {
            let _ = bound_tx.send(bound);
        },
        async move {
            let _ = stopped.await;
        },
    ));
    let url = format!("http://{}/mcp", bound_rx.await.expect("bound"));
    let client = reqwest::Client::new();
    let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "qa", "version": "1" } } });
    let response = client
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .expect("initialize");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("session id")
        .to_owned();
    Http {
        url,
        client,
        session,
        _stop: stop,
    }
}

impl Http {
    async fn post(&self, body: Value) -> reqwest::Response {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &self.session)
            .body(body.to_string())
            .send()
            .await
            .expect("POST answered")
    }
}

#[tokio::test]
async fn http_cancelled_request_post_is_closed() {
    let http = Arc::new(start(Arc::default()).await);
    let call = {
        let http = http.clone();
        tokio::spawn(async move {
            let response = http
                .post(json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call",
                    "params": { "name": "wait" } }))
                .await;
            response.text().await.unwrap_or_default()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cancelled = http
        .post(
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 7 } }),
        )
        .await;
    assert_eq!(cancelled.status(), reqwest::StatusCode::ACCEPTED);
    // Any ending will do (an empty body, an error); hanging forever will not.
    let ended = tokio::time::timeout(PATIENCE, call).await;
    assert!(ended.is_ok(), "the cancelled request's POST never ended");
}

#[tokio::test]
async fn http_duplicate_id_keeps_the_original_answer() {
    let release = Arc::new(Notify::new());
    let http = Arc::new(start(release.clone()).await);
    let first = {
        let http = http.clone();
        tokio::spawn(async move {
            let response = http
                .post(json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/call",
                    "params": { "name": "wait" } }))
                .await;
            (response.status(), response.text().await.unwrap_or_default())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let second = http
        .post(json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/list" }))
        .await;
    let second: Value = second.json().await.expect("json");
    assert_eq!(second["error"]["code"], json!(-32600));
    release.notify_one();
    let (status, body) = tokio::time::timeout(PATIENCE, first)
        .await
        .expect("first answered")
        .expect("task");
    assert_eq!(status, reqwest::StatusCode::OK, "first POST: {body}");
    let body: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(body["result"]["content"][0]["text"], json!("released"));
}
