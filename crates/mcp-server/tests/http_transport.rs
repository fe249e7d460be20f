//! The streamable HTTP transport, rule by rule (MCP 2025-11-25 and
//! 2026-07-28 basic/transports): reqwest against the router served on an
//! ephemeral loopback port, asserting status, headers and body.

mod http_support;

use std::net::SocketAddr;
use std::sync::Arc;

use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::test_tools::TestTools;
use mcp_local_server::{Composition, Server, ServerConfig, ToolSource};
use mcp_proto::Implementation;
use mcp_proto::sse::SseParser;
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

const STATELESS: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

struct Running {
    url: String,
    client: reqwest::Client,
    _server: http_support::Listening,
}

async fn start(config: HttpConfig) -> Running {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "http-test", "version": "0.0.1" }))
            .expect("valid Implementation");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(TestTools)];
    let server = Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ));
    let listening = http_support::listen(server, config).await;
    let bound = listening.addr;
    Running {
        url: format!("http://{bound}/mcp"),
        client: reqwest::Client::new(),
        _server: listening,
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

impl Running {
    async fn post(&self, headers: &[(&str, &str)], body: &Value) -> reqwest::Response {
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body.to_string());
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.send().await.expect("POST answered")
    }

    /// 2026-07-28 POST with the headers mirrored from `body`.
    async fn post_stateless(&self, body: &Value) -> reqwest::Response {
        let method = body["method"].as_str().unwrap_or("");
        let mut headers = vec![("mcp-protocol-version", STATELESS), ("mcp-method", method)];
        if let Some(name) = body["params"]["name"].as_str() {
            headers.push(("mcp-name", name));
        }
        self.post(&headers, body).await
    }

    /// Opens a 2025-11-25 session: initialize, then notifications/initialized.
    async fn session(&self) -> String {
        let response = self
            .post(
                &[],
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                    "protocolVersion": LEGACY, "capabilities": {},
                    "clientInfo": { "name": "t", "version": "1" } }}),
            )
            .await;
        assert_eq!(response.status(), StatusCode::OK);
        let session = header(response.headers(), "mcp-session-id");
        let initialized = self
            .post(
                &[
                    ("mcp-session-id", &session),
                    ("mcp-protocol-version", LEGACY),
                ],
                &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            )
            .await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        session
    }
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

async fn json_body(response: reqwest::Response) -> Value {
    assert_eq!(
        header(response.headers(), "content-type"),
        "application/json"
    );
    response.json().await.expect("JSON body")
}

#[tokio::test]
async fn legacy_initialize_mints_a_session_and_requests_answer_json() {
    let server = start(HttpConfig::default()).await;
    let response = server
        .post(
            &[],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": LEGACY, "capabilities": {},
                "clientInfo": { "name": "t", "version": "1" } }}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let session = header(response.headers(), "mcp-session-id");
    assert_eq!(session.len(), 32);
    assert!(session.bytes().all(|b| b.is_ascii_hexdigit()));
    let body = json_body(response).await;
    assert_eq!(body["id"], 1);
    assert_eq!(body["result"]["protocolVersion"], LEGACY);
    assert_eq!(body["result"]["serverInfo"]["name"], "http-test");

    let notified = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
    assert_eq!(notified.status(), StatusCode::ACCEPTED);
    assert_eq!(notified.text().await.expect("body"), "");

    let listed = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list"}),
        )
        .await;
    assert_eq!(listed.status(), StatusCode::OK);
    let body = json_body(listed).await;
    assert_eq!(body["id"], "list");
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .expect("tools array")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["test_sleep"]);
}

#[tokio::test]
async fn legacy_response_from_the_client_gets_202() {
    let server = start(HttpConfig::default()).await;
    let session = server.session().await;
    let response = server
        .post(
            &[("mcp-session-id", &session)],
            &json!({"jsonrpc": "2.0", "id": 7, "result": {}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.text().await.expect("body"), "");
}

#[tokio::test]
async fn legacy_request_without_session_is_400_and_unknown_session_is_404() {
    let server = start(HttpConfig::default()).await;
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let missing = server.post(&[], &ping).await;
    assert_eq!(missing.status(), StatusCode::BAD_REQUEST);
    let body = json_body(missing).await;
    assert_eq!(body["error"]["code"], -32600);
    assert_eq!(body["id"], Value::Null);

    let unknown = server
        .post(&[("mcp-session-id", "0123456789abcdef")], &ping)
        .await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn delete_ends_a_session_and_later_requests_get_404() {
    let server = start(HttpConfig::default()).await;
    let session = server.session().await;
    let ping = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
    let alive = server.post(&[("mcp-session-id", &session)], &ping).await;
    assert_eq!(alive.status(), StatusCode::OK);
    assert_eq!(json_body(alive).await["result"], json!({}));

    let deleted = server
        .client
        .delete(&server.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("DELETE answered");
    assert_eq!(deleted.status(), StatusCode::OK);

    let after = server.post(&[("mcp-session-id", &session)], &ping).await;
    assert_eq!(after.status(), StatusCode::NOT_FOUND);
    let again = server
        .client
        .delete(&server.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("DELETE answered");
    assert_eq!(again.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn invalid_protocol_version_header_is_400_with_32022() {
    let server = start(HttpConfig::default()).await;
    let session = server.session().await;
    let response = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2099-01-01"),
            ],
            &json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["id"], 4);
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(body["error"]["data"]["supported"], json!([STATELESS]));

    let other = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", "2025-06-18"),
            ],
            &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}),
        )
        .await;
    assert_eq!(other.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(other).await["error"]["code"], -32600);
}

#[tokio::test]
async fn disallowed_origin_is_403_and_loopback_origin_is_served() {
    let server = start(HttpConfig {
        allowed_origins: vec!["https://app.example.com".into()],
        ..HttpConfig::default()
    })
    .await;
    // 2026-07-28 has no ping; server/discover is its cheapest request.
    let ping = json!({"jsonrpc": "2.0", "id": 6, "method": "server/discover", "params": {"_meta": meta()}});
    for (origin, status) in [
        ("https://evil.example", StatusCode::FORBIDDEN),
        ("http://localhost.evil.example", StatusCode::FORBIDDEN),
        ("http://localhost:5173", StatusCode::OK),
        ("http://127.0.0.1:8080", StatusCode::OK),
        ("http://[::1]:3000", StatusCode::OK),
        ("https://app.example.com", StatusCode::OK),
    ] {
        let response = server
            .post(
                &[
                    ("origin", origin),
                    ("mcp-protocol-version", STATELESS),
                    ("mcp-method", "server/discover"),
                ],
                &ping,
            )
            .await;
        assert_eq!(response.status(), status, "origin {origin}");
    }
}

#[tokio::test]
async fn get_opens_the_session_stream_or_gets_405() {
    let server = start(HttpConfig::default()).await;
    let no_session = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("GET answered");
    assert_eq!(no_session.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(header(no_session.headers(), "allow"), "POST");

    let session = server.session().await;
    let stateless = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", STATELESS)
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("GET answered");
    assert_eq!(stateless.status(), StatusCode::METHOD_NOT_ALLOWED);

    let stream = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("GET answered");
    assert_eq!(stream.status(), StatusCode::OK);
    assert_eq!(
        header(stream.headers(), "content-type"),
        "text/event-stream"
    );
    assert_eq!(header(stream.headers(), "x-accel-buffering"), "no");

    let second = server
        .client
        .get(&server.url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", &session)
        .send()
        .await
        .expect("GET answered");
    assert_eq!(second.status(), StatusCode::CONFLICT);
}

/// Reads an SSE body to its end and returns each event's data as JSON.
async fn sse_messages(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(
        header(response.headers(), "content-type"),
        "text/event-stream"
    );
    let bytes = response.bytes().await.expect("SSE body");
    let mut parser = SseParser::new();
    parser
        .feed(&bytes)
        .into_iter()
        .map(|event| serde_json::from_str(&event.expect("event").data).expect("JSON data"))
        .collect()
}

#[tokio::test]
async fn call_with_progress_token_streams_progress_then_the_response() {
    let server = start(HttpConfig::default()).await;
    let session = server.session().await;
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 20, "steps": 2 },
        "_meta": { "progressToken": "p1" } }});
    let response = server
        .post(
            &[
                ("mcp-session-id", &session),
                ("mcp-protocol-version", LEGACY),
            ],
            &call,
        )
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    let messages = sse_messages(response).await;
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/progress");
    assert_eq!(messages[0]["params"]["progressToken"], "p1");
    assert_eq!(messages[0]["params"]["progress"], 1.0);
    assert_eq!(messages[1]["params"]["progress"], 2.0);
    assert_eq!(messages[1]["params"]["total"], 2.0);
    assert_eq!(messages[2]["id"], 8);
    assert_eq!(messages[2]["result"]["content"][0]["text"], "slept 20 ms");
}

#[tokio::test]
async fn stateless_call_with_matching_headers_answers_json() {
    let server = start(HttpConfig::default()).await;
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 0 }, "_meta": meta() }});
    let response = server.post_stateless(&call).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(header(response.headers(), "mcp-session-id"), "");
    let body = json_body(response).await;
    assert_eq!(body["id"], 9);
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(body["result"]["content"][0]["text"], "slept 0 ms");
}

#[tokio::test]
async fn stateless_header_mismatches_are_400_with_32020() {
    let server = start(HttpConfig::default()).await;
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 0 }, "_meta": meta() }});
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/call"),
                ("mcp-name", "other_tool"),
            ],
            "Mcp-Name",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/list"),
                ("mcp-name", "test_sleep"),
            ],
            "Mcp-Method",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-name", "test_sleep"),
            ],
            "Mcp-Method is missing",
        ),
        (
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "tools/call"),
            ],
            "Mcp-Name is missing",
        ),
        (
            &[("mcp-method", "tools/call"), ("mcp-name", "test_sleep")],
            "MCP-Protocol-Version is missing",
        ),
    ];
    for (headers, says) in cases {
        let response = server.post(headers, &call).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{says}");
        let body = json_body(response).await;
        assert_eq!(body["id"], 10);
        assert_eq!(body["error"]["code"], -32020, "{says}");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{message:?} should say {says:?}");
    }

    let mut older = call.clone();
    older["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!(LEGACY);
    let response = server.post_stateless(&older).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    assert_eq!(json_body(response).await["error"]["code"], -32020);
}

#[tokio::test]
async fn stateless_unsupported_revision_is_400_with_32022() {
    let server = start(HttpConfig::default()).await;
    let mut meta = meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let response = server
        .post(
            &[
                ("mcp-protocol-version", "2099-01-01"),
                ("mcp-method", "tools/list"),
            ],
            &json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": {"_meta": meta}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["id"], 11);
    assert_eq!(body["error"]["code"], -32022);
    assert_eq!(body["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(body["error"]["data"]["supported"], json!([STATELESS]));
}

#[tokio::test]
async fn stateless_unknown_method_is_404_with_32601() {
    let server = start(HttpConfig::default()).await;
    let response = server
        .post_stateless(&json!({"jsonrpc": "2.0", "id": 12, "method": "no/such",
            "params": {"_meta": meta()}}))
        .await;
    assert_eq!(response.status(), StatusCode::NOT_FOUND);
    let body = json_body(response).await;
    assert_eq!(body["id"], 12);
    assert_eq!(body["error"]["code"], -32601);
}

#[tokio::test]
async fn stateless_notification_is_202_and_get_delete_are_405() {
    let server = start(HttpConfig::default()).await;
    let response = server
        .post_stateless(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 1, "_meta": meta()}}),
        )
        .await;
    assert_eq!(response.status(), StatusCode::ACCEPTED);
    assert_eq!(response.text().await.expect("body"), "");

    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = server
            .client
            .request(method.clone(), &server.url)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", STATELESS)
            .send()
            .await
            .expect("answered");
        assert_eq!(
            response.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method}"
        );
    }
}

#[tokio::test]
async fn stateless_progress_streams_over_sse() {
    let server = start(HttpConfig::default()).await;
    let mut meta = meta();
    meta["progressToken"] = json!(5);
    let call = json!({"jsonrpc": "2.0", "id": 13, "method": "tools/call", "params": {
        "name": "test_sleep", "arguments": { "ms": 10, "steps": 1 }, "_meta": meta }});
    let response = server.post_stateless(&call).await;
    assert_eq!(response.status(), StatusCode::OK);
    let messages = sse_messages(response).await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["params"]["progressToken"], 5);
    assert_eq!(messages[1]["id"], 13);
    assert_eq!(messages[1]["result"]["resultType"], "complete");
}

#[tokio::test]
async fn malformed_body_is_400_with_32700() {
    let server = start(HttpConfig::default()).await;
    let response = server
        .client
        .post(&server.url)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("answered");
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body = json_body(response).await;
    assert_eq!(body["error"]["code"], -32700);
    assert_eq!(body["id"], Value::Null);
}

#[tokio::test]
async fn bearer_is_required_when_configured() {
    let server = start(HttpConfig {
        bearer: Some("s3cret".into()),
        ..HttpConfig::default()
    })
    .await;
    let ping = json!({"jsonrpc": "2.0", "id": 14, "method": "server/discover", "params": {"_meta": meta()}});
    let stateless = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "server/discover"),
    ];
    let missing = server.post(&stateless, &ping).await;
    assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(header(missing.headers(), "www-authenticate"), "Bearer");
    let wrong = server
        .post(
            &[
                stateless[0],
                stateless[1],
                ("authorization", "Bearer s3cre"),
            ],
            &ping,
        )
        .await;
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    let right = server
        .post(
            &[
                stateless[0],
                stateless[1],
                ("authorization", "Bearer s3cret"),
            ],
            &ping,
        )
        .await;
    assert_eq!(right.status(), StatusCode::OK);
    assert_eq!(json_body(right).await["result"]["resultType"], "complete");
}

#[tokio::test]
async fn non_loopback_bind_without_bearer_is_refused() {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "t", "version": "1" })).expect("info");
    let server = Arc::new(Server::new(Composition::default(), ServerConfig::new(info)));
    let addr: SocketAddr = "0.0.0.0:0".parse().expect("address");
    let outcome = serve_http(server, addr, HttpConfig::default(), |_| {}, async {}).await;
    let error = outcome.expect_err("refused").to_string();
    assert_eq!(
        error,
        "configuration: --http 0.0.0.0:0: a non-loopback address needs a bearer (HANZO_MCP_HTTP_BEARER)"
    );
}

#[tokio::test]
async fn stateless_requests_without_their_required_meta_are_400_with_32602() {
    let server = start(HttpConfig::default()).await;
    let headers = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "server/discover"),
    ];
    let mut no_capabilities = meta();
    no_capabilities
        .as_object_mut()
        .expect("meta object")
        .remove("io.modelcontextprotocol/clientCapabilities");
    let mut no_revision = meta();
    no_revision
        .as_object_mut()
        .expect("meta object")
        .remove("io.modelcontextprotocol/protocolVersion");
    let cases = [
        (
            json!({}),
            "io.modelcontextprotocol/protocolVersion\"] is required",
        ),
        (
            json!({ "_meta": no_revision }),
            "io.modelcontextprotocol/protocolVersion\"] is required",
        ),
        (
            json!({ "_meta": no_capabilities }),
            "io.modelcontextprotocol/clientCapabilities\"] is required",
        ),
    ];
    for (id, (params, says)) in cases.into_iter().enumerate() {
        let body =
            json!({"jsonrpc": "2.0", "id": id, "method": "server/discover", "params": params});
        let response = server.post(&headers, &body).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{says}");
        let body = json_body(response).await;
        assert_eq!(body["id"], json!(id));
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains(says), "{message:?} should say {says:?}");
    }
}

/// A source with one tool whose `region` argument is mirrored into
/// `Mcp-Param-Region` (`x-mcp-header`).
struct Regional;

impl ToolSource for Regional {
    fn name(&self) -> &str {
        "regional"
    }

    fn list_tools(&self) -> mcp_local_server::source::BoxFuture<'_, mcp_local_server::SourceList> {
        Box::pin(async {
            let tool = serde_json::from_value(json!({ "name": "regional", "inputSchema": {
                "type": "object",
                "properties": { "region": { "type": "string", "x-mcp-header": "Region" } } } }))
            .expect("tool literal");
            mcp_local_server::SourceList {
                tools: vec![tool],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        tool == "regional"
    }

    fn call_tool(
        &self,
        call: mcp_local_server::source::CallRequest,
        _cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                let region = params.arguments.as_ref().and_then(|a| a.get("region"));
                if region.is_some_and(|r| r == "panic") {
                    panic!("a tool that panics");
                }
                Ok(json!({ "content": [ { "type": "text", "text": format!("{region:?}") } ] }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

#[tokio::test]
async fn mcp_param_headers_must_match_the_annotated_arguments() {
    let server = Arc::new(Server::new(
        Composition::new(vec![Arc::new(Regional)]),
        ServerConfig::new(Implementation::new("http-test", "0.0.1")),
    ));
    let listening = http_support::listen(server, HttpConfig::default()).await;
    let running = Running {
        url: listening.url.clone(),
        client: reqwest::Client::new(),
        _server: listening,
    };
    let call = |region: Option<&str>| {
        let mut arguments = json!({});
        if let Some(region) = region {
            arguments["region"] = json!(region);
        }
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": { "name": "regional", "arguments": arguments, "_meta": meta() }})
    };
    let base = [
        ("mcp-protocol-version", STATELESS),
        ("mcp-method", "tools/call"),
        ("mcp-name", "regional"),
    ];
    // (body region, Mcp-Param-Region, accepted)
    let cases = [
        (Some("Hello"), Some("=?base64?SGVsbG8=?="), true),
        (Some("Hello"), Some("Hello"), true),
        (Some("SGVsbG8="), Some("SGVsbG8="), true),
        (Some("=?base64?SGVsbG8="), Some("=?base64?SGVsbG8="), true),
        (None, None, true),
        (Some("Hello"), Some("=?base64?SGVsbG8?="), false),
        (Some("Hello"), Some("=?base64?SGVs!!!bG8=?="), false),
        (Some("Hello"), Some("Bye"), false),
        (Some("Hello"), None, false),
        (None, Some("Hello"), false),
    ];
    for (region, sent, accepted) in cases {
        let mut headers = base.to_vec();
        if let Some(sent) = sent {
            headers.push(("mcp-param-region", sent));
        }
        let response = running.post(&headers, &call(region)).await;
        let status = response.status();
        let body = json_body(response).await;
        if accepted {
            assert_eq!(status, StatusCode::OK, "{region:?} {sent:?}: {body}");
            assert_eq!(body["result"]["resultType"], "complete", "{body}");
        } else {
            assert_eq!(status, StatusCode::BAD_REQUEST, "{region:?} {sent:?}");
            assert_eq!(body["id"], 5);
            assert_eq!(body["error"]["code"], -32020, "{body}");
            let message = body["error"]["message"].as_str().unwrap_or("");
            assert!(message.contains("Mcp-Param-Region"), "{message}");
        }
    }
    // A tool that panics still gets its request answered: -32603.
    let mut headers = base.to_vec();
    headers.push(("mcp-param-region", "panic"));
    let response = running.post(&headers, &call(Some("panic"))).await;
    let body = json_body(response).await;
    assert_eq!(body["id"], 5);
    assert_eq!(body["error"]["code"], -32603, "{body}");
}
