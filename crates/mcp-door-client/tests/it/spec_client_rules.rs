//! The client rules of MCP 2026-07-28 streamable HTTP that the official
//! conformance suite's client scenarios check (http-custom-headers,
//! http-invalid-tool-headers, request-metadata): `x-mcp-header` arguments
//! mirrored into `Mcp-Param-*` headers, tools with a broken `x-mcp-header`
//! left out of the list, and one retry after -32022 when the server offers
//! the door's revision.
//!
//! The server here is a few lines of HTTP/1.1 over `std::net` on loopback,
//! so each test can script its answers and read every request it got.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_door_client::{DoorClient, DoorClientConfig, DoorStatus};
use serde_json::{Value, json};

use crate::common::loopback::{self, Reply};
use crate::common::{names, params};

/// One request as the server got it: lower-case header names.
#[derive(Debug, Clone)]
struct Seen {
    headers: HashMap<String, String>,
    body: Value,
}

type Answer = dyn Fn(usize, &Value) -> (u16, Value) + Send + Sync;

/// Serves `answer(n, body)` to the n-th POST (0-based) on 127.0.0.1;
/// returns the URL and the log of requests.
fn serve(answer: Box<Answer>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&log);
    let origin = loopback::serve(move |request| {
        let body: Value = serde_json::from_slice(&request.body).expect("JSON body");
        let index = {
            let mut log = seen.lock().expect("log");
            log.push(Seen {
                headers: request.headers,
                body: body.clone(),
            });
            log.len() - 1
        };
        let (status, reply) = answer(index, &body);
        Reply {
            status,
            headers: Vec::new(),
            body: reply.to_string(),
        }
    });
    (format!("{origin}/mcp"), log)
}

fn ok(body: &Value, result: Value) -> (u16, Value) {
    (
        200,
        json!({"jsonrpc": "2.0", "id": body["id"], "result": result}),
    )
}

fn tool(name: &str, properties: Value) -> Value {
    json!({"name": name, "inputSchema": {"type": "object", "properties": properties}})
}

#[tokio::test]
async fn tools_call_mirrors_x_mcp_header_arguments_into_mcp_param_headers() {
    let (url, log) = serve(Box::new(|_, body| {
        if body["method"] == "tools/list" {
            let annotated = tool(
                "execute_sql",
                json!({
                    "region": {"type": "string", "x-mcp-header": "Region"},
                    "priority": {"type": "integer", "x-mcp-header": "Priority"},
                    "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
                    "greeting": {"type": "string", "x-mcp-header": "Greeting"},
                    "target": {"type": "object", "properties": {
                        "tenant": {"type": "string", "x-mcp-header": "Tenant"}
                    }},
                    "query": {"type": "string"}
                }),
            );
            ok(body, json!({"tools": [annotated]}))
        } else {
            ok(body, json!({"content": [{"type": "text", "text": "done"}]}))
        }
    }));
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    assert_eq!(names(&door.fetch_now().await), ["execute_sql"]);

    let result = door
        .call_tool(
            params(json!({"name": "execute_sql", "arguments": {
                "region": "us-west1",
                "priority": 42,
                "verbose": null,
                "greeting": "Hello, 世界",
                "target": {"tenant": " acme "},
                "query": "SELECT 1"
            }})),
            None,
        )
        .await;
    assert_eq!(
        result,
        Ok(json!({"content": [{"type": "text", "text": "done"}]}))
    );

    let log = log.lock().expect("log");
    assert_eq!(log.len(), 2);
    let call = &log[1];
    assert_eq!(call.body["method"], "tools/call");
    let header = |name: &str| call.headers.get(name).map(String::as_str);
    assert_eq!(header("mcp-name"), Some("execute_sql"));
    assert_eq!(header("mcp-param-region"), Some("us-west1"));
    assert_eq!(header("mcp-param-priority"), Some("42"));
    assert_eq!(
        header("mcp-param-greeting"),
        Some("=?base64?SGVsbG8sIOS4lueVjA==?=")
    );
    assert_eq!(header("mcp-param-tenant"), Some("=?base64?IGFjbWUg?="));
    // null and unannotated arguments send no header.
    assert_eq!(header("mcp-param-verbose"), None);
    assert_eq!(header("mcp-param-query"), None);
    let params_headers: Vec<&String> = call
        .headers
        .keys()
        .filter(|k| k.starts_with("mcp-param-"))
        .collect();
    assert_eq!(params_headers.len(), 4, "{params_headers:?}");
    // The arguments themselves go unchanged.
    assert_eq!(
        call.body["params"]["arguments"]["target"]["tenant"],
        " acme "
    );
}

#[tokio::test]
async fn a_tool_with_a_broken_x_mcp_header_is_left_out_of_the_list() {
    let (url, _log) = serve(Box::new(|_, body| {
        ok(
            body,
            json!({"tools": [
                tool("valid_tool", json!({"region": {"type": "string", "x-mcp-header": "Region"}})),
                tool("invalid_empty", json!({"v": {"type": "string", "x-mcp-header": ""}})),
                tool("invalid_number", json!({"v": {"type": "number", "x-mcp-header": "Score"}})),
                tool("invalid_colon", json!({"v": {"type": "string", "x-mcp-header": "A:B"}})),
                tool("invalid_duplicate", json!({
                    "a": {"type": "string", "x-mcp-header": "MyField"},
                    "b": {"type": "string", "x-mcp-header": "myfield"}
                })),
                tool("plain_tool", json!({"q": {"type": "string"}}))
            ]}),
        )
    }));
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["valid_tool", "plain_tool"]);
}

#[tokio::test]
async fn unsupported_version_offering_ours_is_retried_once_with_a_new_id() {
    let (url, log) = serve(Box::new(|index, body| {
        if index == 0 {
            let error = json!({"code": -32022, "message": "Unsupported protocol version",
                "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}});
            (
                400,
                json!({"jsonrpc": "2.0", "id": body["id"], "error": error}),
            )
        } else {
            ok(body, json!({"tools": [tool("echo", json!({}))]}))
        }
    }));
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    let snapshot = door.fetch_now().await;
    assert_eq!(snapshot.status, DoorStatus::Ready);
    assert_eq!(names(&snapshot), ["echo"]);

    let log = log.lock().expect("log");
    assert_eq!(log.len(), 2);
    assert_ne!(log[0].body["id"], log[1].body["id"]);
    for seen in log.iter() {
        assert_eq!(
            seen.headers.get("mcp-protocol-version").map(String::as_str),
            Some("2026-07-28")
        );
        assert_eq!(
            seen.body["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
    }
}

#[tokio::test]
async fn unsupported_version_without_ours_comes_back_as_the_error() {
    let (url, log) = serve(Box::new(|_, body| {
        let error = json!({"code": -32022, "message": "Unsupported protocol version",
            "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}});
        (
            400,
            json!({"jsonrpc": "2.0", "id": body["id"], "error": error}),
        )
    }));
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    let answer = door
        .call_tool(params(json!({"name": "echo", "arguments": {}})), None)
        .await;
    let error = answer.expect_err("a JSON-RPC error");
    assert_eq!(error.code, -32022);
    assert_eq!(
        error.data,
        Some(json!({"supported": ["2099-01-01"], "requested": "2026-07-28"}))
    );
    assert_eq!(log.lock().expect("log").len(), 1, "no retry");
}
