//! The door's answers: tool list pages, echoed calls, JSON-RPC results and
//! errors, event streams, the 401 challenge, redirects.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Map, Value, json};

use crate::behaviour::{
    Behaviour, grouped_tools, hostile_tools, huge_tools, invalid_name_tools, missing_schema_tools,
    normal_meta, normal_tools, three_page_tools, tool,
};
use crate::{DOOR_PATH, METADATA_PATH, PROTOCOL_REVISION, Shared};

/// The `tools/list` result of `behaviour` for `params` (its `cursor`),
/// `n` being how many lists have been answered, this one included; `ttl_ms`
/// goes on the last page.
pub(crate) fn list_result(
    behaviour: &Behaviour,
    params: &Value,
    n: u64,
    ttl_ms: Option<u64>,
) -> Value {
    let cursor = params.get("cursor").and_then(Value::as_str);
    let (tools, next): (Vec<Value>, Option<&str>) = match behaviour {
        Behaviour::ThreePages => {
            let all = three_page_tools();
            match cursor {
                None => (all[0..2].to_vec(), Some("page-2")),
                Some("page-2") => (all[2..4].to_vec(), Some("page-3")),
                _ => (all[4..6].to_vec(), None),
            }
        }
        Behaviour::CursorLoop => (normal_tools()[0..2].to_vec(), Some("again")),
        Behaviour::InvalidNames => (invalid_name_tools(), None),
        Behaviour::MissingSchema => (missing_schema_tools(), None),
        Behaviour::Huge => (huge_tools(), None),
        Behaviour::Grouped(count) => (grouped_tools(*count), None),
        Behaviour::Hostile => (hostile_tools(), None),
        Behaviour::Changing => (
            vec![
                tool("describe", "Describe one operation's input.", &[], true),
                tool(
                    &format!("changing_{n}"),
                    "A list that changes.",
                    &["op"],
                    false,
                ),
            ],
            None,
        ),
        _ => (normal_tools(), None),
    };
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert("tools".into(), Value::Array(tools));
    match next {
        Some(next) => {
            result.insert("nextCursor".into(), json!(next));
        }
        None => {
            if let Some(ttl) = ttl_ms {
                result.insert("ttlMs".into(), json!(ttl));
            }
        }
    }
    if matches!(
        behaviour,
        Behaviour::Normal | Behaviour::Sse | Behaviour::Slow(_) | Behaviour::Held
    ) {
        result.insert("_meta".into(), normal_meta());
    }
    Value::Object(result)
}

/// The `server/discover` result: the door's revision, tools, its name.
pub(crate) fn discover_result() -> Value {
    json!({
        "supportedVersions": [PROTOCOL_REVISION],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "mcp-fake-door", "version": "0.0.0"},
        "resultType": "complete"
    })
}

/// The normal answer to a `tools/call` (see the crate docs): the call
/// echoed, `fail` as an `isError` result, `explode` as a JSON-RPC error.
pub(crate) fn call_answer(id: Value, params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    match name {
        "explode" => rpc_error(
            id,
            -32603,
            "subsystem exploded",
            Some(json!({"subsystem": "explode"})),
        ),
        "fail" => rpc_result(
            id,
            json!({
                "content": [{"type": "text", "text": "operation failed"}],
                "structuredContent": {"name": name, "arguments": arguments},
                "isError": true,
                "resultType": "complete"
            }),
        ),
        _ => rpc_result(
            id,
            json!({
                "content": [{"type": "text", "text": format!("called {name}")}],
                "structuredContent": {"name": name, "arguments": arguments},
                "isError": false,
                "resultType": "complete"
            }),
        ),
    }
}

/// The text of a response to `id` whose `result` is `result`, byte for byte.
pub(crate) fn raw_response(id: &Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// An event stream ending in the response `answer` (JSON text), one
/// `data:` line per line of it.
pub(crate) fn sse_answer(rpc_method: &str, params: &Value, answer: &str) -> Response {
    let mut body = String::new();
    let mut event = |data: &str| {
        body.push_str("event: message\n");
        for line in data.split('\n') {
            body.push_str("data: ");
            body.push_str(line);
            body.push('\n');
        }
        body.push('\n');
    };
    event(
        &json!({"jsonrpc": "2.0", "method": mcp_proto::methods::LoggingMessage::NAME,
                "params": {"level": "info", "data": "working"}})
        .to_string(),
    );
    if rpc_method == mcp_proto::methods::CallTool::NAME
        && let Some(token) = params.pointer("/_meta/progressToken")
    {
        event(
            &json!({"jsonrpc": "2.0", "method": mcp_proto::methods::Progress::NAME,
                    "params": {"progressToken": token, "progress": 1, "total": 2}})
            .to_string(),
        );
    }
    event(&json!({"jsonrpc": "2.0", "id": "not-yours", "result": {}}).to_string());
    event(answer);
    plain(StatusCode::OK, "text/event-stream", &body)
}

/// A `401` with a `Bearer` challenge, naming the metadata URL when
/// `with_metadata`.
pub(crate) fn challenge(shared: &Shared, with_metadata: bool) -> Response {
    let value = if with_metadata {
        format!(
            "Bearer resource_metadata=\"{}{METADATA_PATH}{DOOR_PATH}\"",
            shared.origin
        )
    } else {
        "Bearer".to_owned()
    };
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "application/json",
        r#"{"error":"unauthorized"}"#,
    );
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// A JSON-RPC response to `id` carrying `result`.
pub(crate) fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A JSON-RPC error response to `id`.
pub(crate) fn rpc_error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = BTreeMap::new();
    error.insert("code", json!(code));
    error.insert("message", json!(message));
    if let Some(data) = data {
        error.insert("data", data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// `value` as an `application/json` response.
pub(crate) fn json_response(status: StatusCode, value: &Value) -> Response {
    plain(status, "application/json", &value.to_string())
}

/// A redirect to `location`.
pub(crate) fn redirect(status: StatusCode, location: &str) -> Response {
    let mut response = plain(status, "text/plain", "");
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

/// A response of `body` with this status and `Content-Type`.
pub(crate) fn plain(status: StatusCode, content_type: &'static str, body: &str) -> Response {
    let mut response = Response::new(Body::from(body.to_owned()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_responses_insert_the_text_unchanged() {
        assert_eq!(
            raw_response(&json!(7), r#"{"n":1E2, "b":-0}"#),
            r#"{"jsonrpc":"2.0","id":7,"result":{"n":1E2, "b":-0}}"#
        );
    }
}
