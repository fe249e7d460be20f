//! Regression tests for the QA pass on the streamable HTTP transport (MCP
//! 2025-11-25 and 2026-07-28 basic/transports): reqwest against the router
//! on an ephemeral loopback port, asserting status, headers and body.
//! Parts of the `wait` tool and the cancel / duplicate-id scenarios follow
//! the ignored tests "breaker" left in `qa_breaker.rs`.

mod http_support;

use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::source::{BoxFuture, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig, ServerError};
use mcp_proto::{ErrorObject, FromValue, Implementation, Tool};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);
const LEGACY: &str = "2025-11-25";
const STATELESS: &str = "2026-07-28";
const JSON_ONLY: &str = "application/json";
const BOTH: &str = "application/json, text/event-stream";

/// `wait` signals `started`, then runs until cancelled or until `release`
/// is notified; `ask` asks the client for its roots.
struct Tools {
    started: Arc<Notify>,
    release: Arc<Notify>,
}

impl ToolSource for Tools {
    fn name(&self) -> &str {
        "qa"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let tool = |name: &str| -> Tool {
                Tool::from_value(json!({ "name": name, "inputSchema": { "type": "object" } }))
                    .expect("tool literal")
            };
            SourceList {
                tools: vec![tool("wait"), tool("ask")],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        matches!(tool, "wait" | "ask")
    }

    fn call_tool(
        &self,
        call: mcp_local_server::source::CallRequest,
        cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        let started = self.started.clone();
        let release = self.release.clone();
        Box::pin(async move {
            let params = call.params()?;
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                if params.name == "ask" {
                    let client = cx
                        .client()
                        .ok_or_else(|| ErrorObject::internal_error("no client handle"))?;
                    let roots = client.list_roots().await?;
                    let said = format!("{} roots", roots.roots.len());
                    return Ok(json!({ "content": [ { "type": "text", "text": said } ] }));
                }
                started.notify_one();
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

struct Running {
    url: String,
    client: reqwest::Client,
    started: Arc<Notify>,
    release: Arc<Notify>,
    _server: http_support::Listening,
}

fn server(started: Arc<Notify>, release: Arc<Notify>) -> Arc<Server> {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "qa", "version": "0.0.1" })).expect("info");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Tools { started, release })];
    Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ))
}

async fn start(config: HttpConfig) -> Running {
    let started = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let listening = http_support::listen(server(started.clone(), release.clone()), config).await;
    Running {
        url: listening.url.clone(),
        client: reqwest::Client::new(),
        started,
        release,
        _server: listening,
    }
}

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": { "roots": {} },
        "clientInfo": { "name": "qa", "version": "1" } } })
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

impl Running {
    async fn post(
        &self,
        headers: &[(&str, &str)],
        accept: &str,
        body: &Value,
    ) -> reqwest::Response {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("POST answered")
    }

    /// `initialize` alone: the raw answer.
    async fn initialize(&self) -> reqwest::Response {
        self.post(&[], BOTH, &initialize()).await
    }

    /// A session past `notifications/initialized`.
    async fn session(&self) -> String {
        let response = self.initialize().await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_owned();
        let initialized = self
            .in_session(
                &session,
                BOTH,
                &json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
            )
            .await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        session
    }

    async fn in_session(&self, session: &str, accept: &str, body: &Value) -> reqwest::Response {
        self.post(
            &[
                ("mcp-session-id", session),
                ("mcp-protocol-version", LEGACY),
            ],
            accept,
            body,
        )
        .await
    }
}

/// Status, content type and JSON body of an answer.
async fn parts(response: reqwest::Response) -> (StatusCode, String, Value) {
    let status = response.status();
    let kind = content_type(&response);
    let body = response.json::<Value>().await.expect("a JSON body");
    (status, kind, body)
}

// 1. Sessions are bounded in number and in idle time.

#[tokio::test]
async fn an_initialize_beyond_the_session_cap_is_503_until_one_ends() {
    let running = start(HttpConfig {
        max_sessions: 2,
        ..HttpConfig::default()
    })
    .await;
    let first = running.session().await;
    let _second = running.session().await;
    let (status, kind, body) = parts(running.initialize().await).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 0, "error": { "code": -32603,
            "message": "too many sessions: 2 are live; end one (DELETE) or retry later" } })
    );
    let deleted = running
        .client
        .delete(&running.url)
        .header("mcp-session-id", &first)
        .send()
        .await
        .expect("DELETE answered");
    assert_eq!(deleted.status(), StatusCode::OK);
    let again = running.initialize().await;
    assert_eq!(again.status(), StatusCode::OK);
    assert!(again.headers().get("mcp-session-id").is_some());
}

#[tokio::test]
async fn an_idle_session_expires_and_then_gets_404() {
    let running = start(HttpConfig {
        max_sessions: 1,
        session_idle: Duration::from_millis(100),
        ..HttpConfig::default()
    })
    .await;
    let idle = running.session().await;
    // The cap of one refuses a second session until the first expires; a
    // refused initialize does not touch the idle session.
    let admitted = tokio::time::timeout(PATIENCE, async {
        loop {
            let response = running.initialize().await;
            if response.status() == StatusCode::OK {
                return response;
            }
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the idle session expired");
    assert!(admitted.headers().get("mcp-session-id").is_some());
    let (status, kind, body) = parts(
        running
            .in_session(
                &idle,
                JSON_ONLY,
                &json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" }),
            )
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(kind, "application/json");
    assert_eq!(body["error"]["code"], json!(-32600));
    assert_eq!(
        body["error"]["message"],
        json!(format!("session {idle:?} not found or ended"))
    );
}

#[tokio::test]
async fn a_session_with_an_open_stream_does_not_expire() {
    let running = start(HttpConfig {
        max_sessions: 2,
        session_idle: Duration::from_millis(100),
        ..HttpConfig::default()
    })
    .await;
    let streaming = running.session().await;
    let idle = running.session().await;
    let stream = running
        .client
        .get(&running.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &streaming)
        .header("mcp-protocol-version", LEGACY)
        .send()
        .await
        .expect("GET answered");
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(content_type(&stream), "text/event-stream");
    let admitted = tokio::time::timeout(PATIENCE, async {
        loop {
            let response = running.initialize().await;
            if response.status() == StatusCode::OK {
                return response;
            }
            assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the idle session expired");
    assert!(admitted.headers().get("mcp-session-id").is_some());
    let ping = json!({ "jsonrpc": "2.0", "id": 3, "method": "ping" });
    let (status, _, body) = parts(running.in_session(&streaming, JSON_ONLY, &ping).await).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body, json!({ "jsonrpc": "2.0", "id": 3, "result": {} }));
    let gone = running.in_session(&idle, JSON_ONLY, &ping).await;
    assert_eq!(gone.status(), StatusCode::NOT_FOUND);
    drop(stream);
}

// 2. A cancelled request's POST ends without a response.

async fn cancel_while_waiting(accept: &'static str) -> reqwest::Response {
    let running = Arc::new(start(HttpConfig::default()).await);
    let session = running.session().await;
    let started = running.started.notified();
    let call = {
        let running = running.clone();
        let session = session.clone();
        tokio::spawn(async move {
            running
                .in_session(
                    &session,
                    accept,
                    &json!({ "jsonrpc": "2.0", "id": "c1", "method": "tools/call",
                        "params": { "name": "wait", "arguments": {} } }),
                )
                .await
        })
    };
    tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the call started");
    let cancelled = running
        .in_session(
            &session,
            BOTH,
            &json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": { "requestId": "c1" } }),
        )
        .await;
    assert_eq!(cancelled.status(), StatusCode::ACCEPTED);
    tokio::time::timeout(PATIENCE, call)
        .await
        .expect("the cancelled POST ended")
        .expect("task")
}

#[tokio::test]
async fn a_cancelled_json_post_is_answered_204_without_a_body() {
    let response = cancel_while_waiting(JSON_ONLY).await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    assert_eq!(content_type(&response), "");
    assert_eq!(response.text().await.expect("body"), "");
}

#[tokio::test]
async fn a_cancelled_sse_post_gets_a_stream_that_ends_without_events() {
    let response = cancel_while_waiting(BOTH).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(content_type(&response), "text/event-stream");
    let body = tokio::time::timeout(PATIENCE, response.text())
        .await
        .expect("the stream ended")
        .expect("body");
    assert!(
        !body.contains("data:"),
        "events on a cancelled stream: {body:?}"
    );
}

// 3. A duplicate id in flight is refused without harming the first request.

#[tokio::test]
async fn a_duplicate_id_in_flight_is_refused_and_the_first_keeps_its_answer() {
    let running = Arc::new(start(HttpConfig::default()).await);
    let session = running.session().await;
    let started = running.started.notified();
    let first = {
        let running = running.clone();
        let session = session.clone();
        tokio::spawn(async move {
            parts(
                running
                    .in_session(
                        &session,
                        JSON_ONLY,
                        &json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/call",
                            "params": { "name": "wait", "arguments": {} } }),
                    )
                    .await,
            )
            .await
        })
    };
    tokio::time::timeout(PATIENCE, started)
        .await
        .expect("the call started");
    let (status, kind, body) = parts(
        running
            .in_session(
                &session,
                JSON_ONLY,
                &json!({ "jsonrpc": "2.0", "id": 42, "method": "tools/list" }),
            )
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 42, "error": { "code": -32600,
            "message": "request id 42 is already in flight" } })
    );
    running.release.notify_one();
    let (status, kind, body) = tokio::time::timeout(PATIENCE, first)
        .await
        .expect("first answered")
        .expect("task");
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 42, "result": { "content": [
            { "type": "text", "text": "released" } ] } })
    );
}

// 4. A server request that cannot reach the client fails at once.

#[tokio::test]
async fn a_server_request_on_a_json_only_post_fails_at_once() {
    let running = start(HttpConfig::default()).await;
    let session = running.session().await;
    let ask = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": { "name": "ask", "arguments": {} } });
    let call = running.in_session(&session, JSON_ONLY, &ask);
    let (status, kind, body) = parts(
        tokio::time::timeout(PATIENCE, call)
            .await
            .expect("answered without waiting for the client"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(kind, "application/json");
    let why = "cannot reach the client: the client's POST does not accept text/event-stream";
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "id": 5, "error": {
            "code": -32603,
            "message": format!("the client answered roots/list with error -32603: {why}"),
            "data": { "clientError": { "code": -32603, "message": why } } } })
    );
}

// 5. Header and body revisions must agree, in a session or not.

fn mismatched() -> Value {
    json!({ "jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": { "_meta": {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": { "name": "qa", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {} } } })
}

fn mismatch_error() -> Value {
    json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": -32020,
        "message": "header mismatch: MCP-Protocol-Version is \"2025-11-25\" but params._meta names \"2026-07-28\"" } })
}

#[tokio::test]
async fn a_legacy_header_with_a_2026_body_is_400_in_a_session() {
    let running = start(HttpConfig::default()).await;
    let session = running.session().await;
    let (status, kind, body) = parts(running.in_session(&session, BOTH, &mismatched()).await).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(body, mismatch_error());
}

#[tokio::test]
async fn a_legacy_header_with_a_2026_body_is_400_without_a_session() {
    let running = start(HttpConfig::default()).await;
    let (status, kind, body) = parts(
        running
            .post(&[("mcp-protocol-version", LEGACY)], BOTH, &mismatched())
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(kind, "application/json");
    assert_eq!(body, mismatch_error());
}

// 6. The Mcp-Name mismatch message is plain text.

#[tokio::test]
async fn the_mcp_name_mismatch_names_the_body_field_plainly() {
    let running = start(HttpConfig::default()).await;
    let call = |name: Option<&str>| {
        let mut params = json!({ "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": STATELESS,
            "io.modelcontextprotocol/clientInfo": { "name": "qa", "version": "1" },
            "io.modelcontextprotocol/clientCapabilities": {} } });
        if let Some(name) = name {
            params["name"] = json!(name);
        }
        json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": params })
    };
    let headers = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/call"),
        ("mcp-name", "wait"),
    ];
    for (name, said) in [
        (Some("ask"), "params.name is \"ask\""),
        (None, "params.name is missing"),
    ] {
        let (status, kind, body) = parts(running.post(&headers, BOTH, &call(name)).await).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        assert_eq!(kind, "application/json");
        assert_eq!(
            body,
            json!({ "jsonrpc": "2.0", "id": 4, "error": { "code": -32020,
                "message": format!("header mismatch: Mcp-Name is \"wait\" but {said}") } })
        );
    }
}

// 7. The bearer scheme is case-insensitive; a blank bearer is refused.

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let running = start(HttpConfig {
        bearer: Some("tok".into()),
        ..HttpConfig::default()
    })
    .await;
    for scheme in ["BEARER", "bearer", "Bearer", "bEaReR"] {
        let authorization = format!("{scheme} tok");
        let response = running
            .post(&[("authorization", &authorization)], BOTH, &initialize())
            .await;
        assert_eq!(response.status(), StatusCode::OK, "{scheme}");
        let body = response.json::<Value>().await.expect("JSON");
        assert_eq!(body["result"]["protocolVersion"], json!(LEGACY));
    }
    let (status, _, body) = parts(
        running
            .post(&[("authorization", "Basic tok")], BOTH, &initialize())
            .await,
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["error"]["code"], json!(-32600));
}

#[tokio::test]
async fn a_blank_bearer_is_a_configuration_error() {
    let served = serve_http(
        server(Arc::default(), Arc::default()),
        "127.0.0.1:0".parse().expect("address"),
        HttpConfig {
            bearer: Some(" ".into()),
            ..HttpConfig::default()
        },
        |_| {},
        std::future::pending(),
    );
    let result = tokio::time::timeout(PATIENCE, served)
        .await
        .expect("refused at once");
    match result {
        Err(ServerError::Config(message)) => assert_eq!(
            message,
            "--http 127.0.0.1:0: the bearer (HANZO_MCP_HTTP_BEARER) is empty or only whitespace"
        ),
        other => panic!("expected a configuration error, got {other:?}"),
    }
}

// 8. An oversized body gets 413 with a JSON-RPC error.

#[tokio::test]
async fn an_oversized_body_is_413_with_a_json_rpc_error() {
    let running = start(HttpConfig {
        max_body_bytes: 64,
        ..HttpConfig::default()
    })
    .await;
    let (status, kind, body) = parts(running.post(&[], BOTH, &initialize()).await).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(kind, "application/json");
    assert_eq!(
        body,
        json!({ "jsonrpc": "2.0", "error": { "code": -32600,
            "message": "request body larger than 64 bytes" } })
    );
}
