//! `DoorClient::call_tool_raw` forwards a caller's `tools/call` verbatim
//! (HIP-0300 §2.2): the params text reaches the door byte for byte, with
//! only the missing required `_meta` keys spliced in, and the door's
//! `result` text comes back byte for byte, over JSON and over SSE. The
//! failure rules are those of `DoorClient::call_tool`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::loopback::{self, Reply};
use crate::common::{CANARY, config, config_for};
use mcp_door_client::{DoorClient, DoorClientConfig};
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_proto::ErrorObject;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The `_meta` members the client adds, as it writes them.
fn required_meta() -> String {
    format!(
        r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"mcp-door-client","version":"{}"}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

/// `text` as the caller's params.
fn raw(text: &str) -> Box<RawValue> {
    RawValue::from_string(text.to_owned()).expect("valid JSON")
}

/// The body a `tools/call` with request id `id` and params text `params`
/// must arrive as.
fn body(id: u64, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

/// The bodies of the `tools/call` requests the fake door received, as text.
fn call_bodies(fake: &FakeDoor) -> Vec<String> {
    fake.requests_for("tools/call")
        .iter()
        .map(|r| r.body_text().expect("UTF-8 body").to_owned())
        .collect()
}

/// A result the client writes itself, decoded (its member order is not
/// part of the contract).
fn decoded(result: &RawValue) -> Value {
    serde_json::from_str(result.get()).expect("JSON result")
}

fn is_error(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

#[tokio::test]
async fn arguments_reach_the_door_byte_for_byte() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let arguments =
        r#"{"b":1,"a":2,"n":12345678901234567890123,"z":-0,"e":1E2,"s":"\u00e9\ud83d\ude00"}"#;
    let params = format!(r#"{{"name":"agents","arguments":{arguments}}}"#);
    let result = door
        .call_tool_raw(&raw(&params), None)
        .await
        .expect("a result");

    let sent = format!(
        r#"{{"name":"agents","arguments":{arguments},"_meta":{{{}}}}}"#,
        required_meta()
    );
    assert_eq!(call_bodies(&fake), [body(1, &sent)]);
    let call = &fake.requests_for("tools/call")[0];
    assert_eq!(call.header("mcp-name"), Some("agents"));
    assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
    let expected_auth = format!("Bearer {CANARY}");
    assert_eq!(call.header("authorization"), Some(expected_auth.as_str()));
    // The fake door echoes the arguments as it decoded them.
    let result = decoded(&result);
    assert_eq!(
        result["content"],
        json!([{"type": "text", "text": "called agents"}])
    );
    assert_eq!(
        result["structuredContent"]["arguments"],
        json!({"b": 1, "a": 2, "n": 1.2345678901234568e22, "z": -0.0, "e": 100.0, "s": "é😀"})
    );
}

#[tokio::test]
async fn a_lone_surrogate_in_the_params_is_forwarded_verbatim() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let params = r#"{"name":"billing","arguments":{"v":"\ud800"}}"#;
    let result = door
        .call_tool_raw(&raw(params), None)
        .await
        .expect("a result");
    let sent = format!(
        r#"{{"name":"billing","arguments":{{"v":"\ud800"}},"_meta":{{{}}}}}"#,
        required_meta()
    );
    assert_eq!(call_bodies(&fake), [body(1, &sent)]);
    // The fake door reads the lone surrogate as U+FFFD.
    assert_eq!(
        decoded(&result)["structuredContent"],
        json!({"name": "billing", "arguments": {"v": "\u{fffd}"}})
    );
}

#[tokio::test]
async fn required_meta_is_spliced_into_the_text() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let meta = required_meta();
    let cases = [
        // No `_meta`: a member after the last one, the spacing kept.
        (
            r#"{ "name" : "agents" , "arguments" : { "k" : 1E2 } }"#.to_owned(),
            format!(r#"{{ "name" : "agents" , "arguments" : {{ "k" : 1E2 }},"_meta":{{{meta}}} }}"#),
        ),
        // A `_meta` with other keys and one required key: the two missing
        // ones after its last member, the rest untouched.
        (
            r#"{"_meta":{"progressToken":"p-1","z":-0,"io.modelcontextprotocol/clientInfo":{"version":"9.9","name":"claude-code"}},"name":"agents"}"#.to_owned(),
            r#"{"_meta":{"progressToken":"p-1","z":-0,"io.modelcontextprotocol/clientInfo":{"version":"9.9","name":"claude-code"},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"agents"}"#.to_owned(),
        ),
        // An empty `_meta`: the three inside it.
        (
            r#"{"name":"agents","_meta":{ }}"#.to_owned(),
            format!(r#"{{"name":"agents","_meta":{{{meta} }}}}"#),
        ),
        // A `_meta` that is not an object is replaced, as call_tool does.
        (
            r#"{"name":"agents","_meta":null,"arguments":{}}"#.to_owned(),
            format!(r#"{{"name":"agents","_meta":{{{meta}}},"arguments":{{}}}}"#),
        ),
        // A repeated `_meta`: the last one counts, the first is left alone.
        (
            r#"{"_meta":{"a":1},"name":"agents","_meta":{"b":2}}"#.to_owned(),
            format!(r#"{{"_meta":{{"a":1}},"name":"agents","_meta":{{"b":2,{meta}}}}}"#),
        ),
    ];
    for (params, _) in &cases {
        door.call_tool_raw(&raw(params), None)
            .await
            .expect("a result");
    }
    let expected: Vec<String> = cases
        .iter()
        .zip(1..)
        .map(|((_, sent), id)| body(id, sent))
        .collect();
    assert_eq!(call_bodies(&fake), expected);
}

#[tokio::test]
async fn params_with_every_required_meta_key_are_sent_unchanged() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let params = r#"{"name" :"agents","_meta": {"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"} ,"io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"arguments":{"n":1.0e+2}}"#;
    door.call_tool_raw(&raw(params), None)
        .await
        .expect("a result");
    assert_eq!(call_bodies(&fake), [body(1, params)]);
}

#[tokio::test]
async fn a_door_result_comes_back_byte_for_byte_over_json() {
    let written = r#"{"structuredContent":{"n":12345678901234567890123,"z":-0,"e":1E2,"b":1,"a":2},"content":[{"type":"text","text":"\u00e9"}]}"#;
    let fake = FakeDoor::start(Behaviour::RawCallResult(written.into())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents","arguments":{}}"#), None)
        .await
        .expect("a result");
    assert_eq!(result.get(), written);

    // Whitespace, a lone surrogate and unknown members stay as well.
    let spaced = "{ \"content\" : [ ] ,\n \"x\":\"\\ud800\", \"isError\":true\t}";
    fake.set_behaviour(Behaviour::RawCallResult(spaced.into()));
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
        .await
        .expect("a result");
    assert_eq!(result.get(), spaced);
}

#[tokio::test]
async fn a_door_result_comes_back_byte_for_byte_over_sse() {
    let written = r#"{"structuredContent":{"n":12345678901234567890123,"z":-0,"e":1E2,"b":1,"a":2},"content":[{"type":"text","text":"\u00e9"}]}"#;
    let fake = FakeDoor::start(Behaviour::RawCallResultSse(written.into())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let params = r#"{"name":"agents","arguments":{},"_meta":{"progressToken":"tok-1"}}"#;
    let result = door
        .call_tool_raw(&raw(params), Some(sender))
        .await
        .expect("a result");
    assert_eq!(result.get(), written);
    assert_eq!(
        receiver.recv().await,
        Some(json!({"progressToken": "tok-1", "progress": 1, "total": 2}))
    );
    assert_eq!(receiver.recv().await, None);

    // Over several data lines, joined again by the client.
    let lines = "{\n  \"content\": [],\n  \"n\": 1E2\n}";
    fake.set_behaviour(Behaviour::RawCallResultSse(lines.into()));
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
        .await
        .expect("a result");
    assert_eq!(result.get(), lines);
}

#[tokio::test]
async fn a_door_result_of_the_wrong_shape_becomes_an_is_error_result() {
    let fake = FakeDoor::start(Behaviour::RawCallResult("null".into())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let not_object = format!(
        "hanzo door {}: answered a tools/call result that is not an object",
        fake.url()
    );
    let not_array = format!(
        "hanzo door {}: answered a tools/call result whose content is not an array",
        fake.url()
    );
    let cases = [
        ("null", &not_object),
        (r#""\ud800""#, &not_object),
        ("[1E2]", &not_object),
        (r#"{"content":{"type":"text"}}"#, &not_array),
        (r#"{"content":"[]"}"#, &not_array),
        (r#"{"content":[],"content":7}"#, &not_array),
    ];
    for (written, text) in cases {
        fake.set_behaviour(Behaviour::RawCallResult(written.into()));
        let result = door
            .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
            .await
            .expect("a result");
        assert_eq!(decoded(&result), is_error(text), "{written}");
    }
    // An object without content is a result (MCP 2026-07-28 input_required).
    let no_content = r#"{"resultType":"input_required","requestState":"s"}"#;
    fake.set_behaviour(Behaviour::RawCallResult(no_content.into()));
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
        .await
        .expect("a result");
    assert_eq!(result.get(), no_content);
}

#[tokio::test]
async fn broken_json_from_the_door_is_a_failure_line() {
    let fake =
        FakeDoor::start(Behaviour::RawCallResult("{\"content\":[".into())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    assert_agents_answer(
        &door,
        &fake.url(),
        "failed: answered a body that is not a JSON-RPC response: not JSON",
    )
    .await;
}

#[tokio::test]
async fn the_value_api_reports_a_result_it_cannot_decode() {
    let fake =
        FakeDoor::start(Behaviour::RawCallResult(r#"{"x":"\ud800"}"#.into())).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let mut params = serde_json::Map::new();
    params.insert("name".into(), json!("agents"));
    let result = door.call_tool(params, None).await.expect("a result");
    assert_eq!(
        result,
        is_error(&format!(
            "tool 'agents' is not a local tool, and the door ({}) failed: \
             answered a body that is not a JSON-RPC response: not JSON",
            fake.url()
        ))
    );
}

#[tokio::test]
async fn door_errors_and_failures_are_those_of_call_tool() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    let error = door
        .call_tool_raw(&raw(r#"{"name":"explode"}"#), None)
        .await
        .expect_err("a JSON-RPC error");
    let mut expected = ErrorObject::new(-32603, "subsystem exploded");
    expected.data = Some(json!({"subsystem": "explode"}));
    assert_eq!(error, expected);

    fake.set_behaviour(Behaviour::Unauthorized);
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
        .await
        .expect("a result");
    assert_eq!(
        decoded(&result),
        is_error(&format!(
            "hanzo door {}: sign-in required; run `hanzo auth login` (or set HANZO_API_KEY) \
             and try again (resource metadata: {})",
            fake.url(),
            fake.challenge_metadata_url()
        ))
    );

    fake.set_behaviour(Behaviour::Html502);
    assert_agents_answer(
        &door,
        &fake.url(),
        "failed: answered an HTML page (HTTP 502), not JSON-RPC",
    )
    .await;

    fake.set_behaviour(Behaviour::Garbage);
    assert_agents_answer(
        &door,
        &fake.url(),
        "failed: answered a body that is not a JSON-RPC response: not JSON",
    )
    .await;
}

#[tokio::test]
async fn a_hanging_door_times_out() {
    let fake = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let mut config = config_for(&fake);
    config.timeouts.call = Duration::from_millis(300);
    let door = DoorClient::new(config).expect("door");
    assert_agents_answer(
        &door,
        &fake.url(),
        "could not be reached: no answer within 0.3 s",
    )
    .await;
}

#[tokio::test]
async fn redirects_carry_the_same_bytes() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config(&fake.legacy_url())).expect("door");
    let params = r#"{"name":"agents","arguments":{"n":-0},"_meta":{"x":1E2}}"#;
    door.call_tool_raw(&raw(params), None)
        .await
        .expect("a result");
    let sent = format!(
        r#"{{"name":"agents","arguments":{{"n":-0}},"_meta":{{"x":1E2,{}}}}}"#,
        required_meta()
    );
    let requests = fake.requests();
    let seen: Vec<(&str, &[u8])> = requests
        .iter()
        .map(|r| (r.path.as_str(), r.body.as_slice()))
        .collect();
    let expected = body(1, &sent);
    assert_eq!(
        seen,
        [
            ("/mcp", expected.as_bytes()),
            ("/v1/mcp", expected.as_bytes())
        ]
    );
}

#[tokio::test]
async fn params_that_are_not_an_object_are_refused_without_a_request() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = DoorClient::new(config_for(&fake)).expect("door");
    for params in ["[]", "null", r#""agents""#, "7"] {
        let error = door
            .call_tool_raw(&raw(params), None)
            .await
            .expect_err("invalid params");
        assert_eq!(
            error,
            ErrorObject::new(-32602, "tools/call params must be a JSON object"),
            "{params}"
        );
    }
    assert_eq!(fake.requests().len(), 0);
}

/// Calls `agents` (no local tool has that name) through `door`, and checks
/// the answer is the one-line `isError` result naming the door at
/// `door_url` and `what` went wrong.
async fn assert_agents_answer(door: &DoorClient, door_url: &str, what: &str) {
    let result = door
        .call_tool_raw(&raw(r#"{"name":"agents"}"#), None)
        .await
        .expect("a result");
    assert_eq!(
        decoded(&result),
        is_error(&format!(
            "tool 'agents' is not a local tool, and the door ({door_url}) {what}"
        ))
    );
}

/// One request a [`serve`] server got: lower-case header names, body bytes.
struct Seen {
    headers: HashMap<String, String>,
    body: String,
}

/// The top-level members of a request body, as written (so a lone
/// surrogate escape in the params does not stop the server).
type Members = HashMap<String, Box<RawValue>>;

/// Serves `answer(n, members)` (status, JSON text) to the n-th POST
/// (0-based, in the order they arrive) on 127.0.0.1, through the shared
/// loopback server; returns the URL and the log.
fn serve(
    answer: impl Fn(usize, &Members) -> (u16, String) + Send + Sync + 'static,
) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&log);
    let origin = loopback::serve(move |request| {
        let body = String::from_utf8(request.body).expect("UTF-8 body");
        let message: Members = serde_json::from_str(&body).expect("JSON body");
        let index = {
            let mut log = seen.lock().expect("log");
            log.push(Seen {
                headers: request.headers,
                body,
            });
            log.len() - 1
        };
        let (status, body) = answer(index, &message);
        Reply {
            status,
            headers: Vec::new(),
            body,
        }
    });
    (format!("{origin}/v1/mcp"), log)
}

#[tokio::test]
async fn unsupported_version_is_retried_with_only_the_version_changed() {
    let (url, log) = serve(|index, message| {
        let id = message["id"].get();
        if index == 0 {
            let error = r#"{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-11-25"}}"#;
            (
                400,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{error}}}"#),
            )
        } else {
            (
                200,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[],"n":1E2}}}}"#),
            )
        }
    });
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    let params = r#"{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion" : "2025-11-25","k":-0},"arguments":{"n":12345678901234567890123}}"#;
    let result = door
        .call_tool_raw(&raw(params), None)
        .await
        .expect("a result");
    assert_eq!(result.get(), r#"{"content":[],"n":1E2}"#);

    let rest = r#""io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcp-door-client","version":"VERSION"}}"#
        .replace("VERSION", env!("CARGO_PKG_VERSION"));
    let first = format!(
        r#"{{"name":"echo","_meta":{{"io.modelcontextprotocol/protocolVersion" : "2025-11-25","k":-0,{rest},"arguments":{{"n":12345678901234567890123}}}}"#
    );
    let second = first.replace(r#" : "2025-11-25""#, r#" : "2026-07-28""#);
    let log = log.lock().expect("log");
    let seen: Vec<(&str, &str)> = log
        .iter()
        .map(|s| (s.headers["mcp-protocol-version"].as_str(), s.body.as_str()))
        .collect();
    let (first, second) = (body(1, &first), body(2, &second));
    assert_eq!(
        seen,
        [
            ("2025-11-25", first.as_str()),
            ("2026-07-28", second.as_str())
        ]
    );
}

#[tokio::test]
async fn param_headers_read_the_arguments_as_written() {
    let (url, log) = serve(|_, message| {
        let id = message["id"].get();
        if message["method"].get() == r#""tools/list""# {
            let tool = json!({"name": "execute_sql", "inputSchema": {"type": "object", "properties": {
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "region": {"type": "string", "x-mcp-header": "Region"},
                "target": {"type": "object", "properties": {
                    "tenant": {"type": "string", "x-mcp-header": "Tenant"}
                }}
            }}});
            let result = json!({"tools": [tool]});
            (
                200,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#),
            )
        } else {
            (
                200,
                format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[]}}}}"#),
            )
        }
    });
    let door = DoorClient::new(DoorClientConfig::new(url)).expect("door");
    door.fetch_now().await;
    let params = r#"{"name":"execute_sql","arguments":{"count":12345678901234567890123,"region":"\u0065u","target":{"tenant":"\ud800"},"region":"\u00e9u"}}"#;
    door.call_tool_raw(&raw(params), None)
        .await
        .expect("a result");
    let log = log.lock().expect("log");
    assert_eq!(log.len(), 2);
    let mut mirrored: Vec<(&str, &str)> = log[1]
        .headers
        .iter()
        .filter(|(name, _)| name.starts_with("mcp-param-"))
        .map(|(name, value)| (name.as_str(), value.as_str()))
        .collect();
    mirrored.sort_unstable();
    assert_eq!(
        mirrored,
        [
            ("mcp-param-count", "12345678901234567890123"),
            // "éu" (the last `region` counts) and U+FFFD, Base64-wrapped.
            ("mcp-param-region", "=?base64?w6l1?="),
            ("mcp-param-tenant", "=?base64?77+9?="),
        ]
    );
    assert_eq!(log[1].headers["mcp-name"], "execute_sql");
}
