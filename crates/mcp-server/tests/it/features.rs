//! Resources, prompts, completions, logging and server-to-client requests,
//! over raw pipes to a `Server` served in-process (each test writes
//! JSON-RPC lines as a client would and asserts the exact lines the server
//! writes back), and over streamable HTTP.

use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::features::{resource_not_found, unknown_prompt};
use mcp_local_server::http::HttpConfig;
use mcp_local_server::peer::REQUEST_TIMEOUT;
use mcp_local_server::source::{BoxFuture, CallContext};
use mcp_local_server::{CompletionSource, PromptSource, ResourceSource, ResourceUpdates, Server};
use mcp_proto::{
    CompleteRequestParams, CompleteResult, ContentBlock, CreateMessageRequestParams, ErrorObject,
    FromValue, GetPromptRequestParams, GetPromptResult, ListPromptsResult, ListResourcesResult,
    LoggingLevel, ReadResourceRequestParams, ReadResourceResult, SamplingContent,
};
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::common::driver::Connection;
use crate::common::http::{Events, Listening, STATELESS, Session, assert_sse, listen};
use crate::common::tools::{self, Tools, text};
use crate::common::{names, roots_list_answer, roots_list_request, stateless_meta_with};

fn wire<T: FromValue>(value: Value) -> Result<T, ErrorObject> {
    T::from_value(value).map_err(|e| ErrorObject::internal_error(e.to_string()))
}

struct Notes {
    updates: ResourceUpdates,
}

impl ResourceSource for Notes {
    fn list_resources(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourcesResult, ErrorObject>> {
        Box::pin(async {
            wire(json!({ "resources": [
                { "uri": "mem://a", "name": "a", "mimeType": "text/plain" } ] }))
        })
    }

    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(async move {
            if params.uri != "mem://a" {
                return Err(resource_not_found(&params.uri));
            }
            wire(json!({ "contents": [
                { "uri": "mem://a", "mimeType": "text/plain", "text": "alpha" } ] }))
        })
    }

    fn updates(&self) -> Option<&ResourceUpdates> {
        Some(&self.updates)
    }
}

struct Prompts;

impl PromptSource for Prompts {
    fn list_prompts(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListPromptsResult, ErrorObject>> {
        Box::pin(async {
            wire(json!({ "prompts": [ { "name": "greet", "arguments": [
                { "name": "who", "required": true } ] } ] }))
        })
    }

    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<GetPromptResult, ErrorObject>> {
        Box::pin(async move {
            if params.name != "greet" {
                return Err(unknown_prompt(&params.name));
            }
            let who = params
                .arguments
                .as_ref()
                .and_then(|a| a.get("who"))
                .cloned()
                .unwrap_or_default();
            wire(json!({ "messages": [ { "role": "user",
                "content": { "type": "text", "text": format!("Hello, {who}!") } } ] }))
        })
    }
}

impl CompletionSource for Prompts {
    fn complete(
        &self,
        params: CompleteRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<CompleteResult, ErrorObject>> {
        Box::pin(async move {
            let values: Vec<&str> = ["ada", "alan", "grace"]
                .into_iter()
                .filter(|v| v.starts_with(&params.argument.value))
                .collect();
            wire(json!({ "completion": { "values": values } }))
        })
    }
}

/// `log` logs at debug, info and error and says which were sent; `ask`
/// asks the client's model what 2+2 is; `ask_briefly` asks with a 200 ms
/// bound.
fn asking() -> Tools {
    Tools::new(
        "asking",
        &["log", "ask", "ask_briefly"],
        |params, cx| async move {
            match params.name.as_str() {
                "log" => {
                    let sent: Vec<bool> =
                        [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error]
                            .into_iter()
                            .map(|level| cx.log(level, Some("t"), json!(level.as_str())))
                            .collect();
                    text(format!("{sent:?}"))
                }
                "ask" => {
                    let client = cx.client().ok_or_else(|| {
                        ErrorObject::internal_error("no client handle on this connection")
                    })?;
                    let request = CreateMessageRequestParams::from_value(json!({
                        "messages": [ { "role": "user",
                            "content": { "type": "text", "text": "2+2?" } } ],
                        "maxTokens": 10 }))
                    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                    let answer = client.create_message(&request).await?;
                    let said = match &answer.content {
                        SamplingContent::One(block) => match block.as_ref() {
                            ContentBlock::Text(t) => t.text.clone(),
                            _ => "something else".to_owned(),
                        },
                        SamplingContent::Many(_) => "several blocks".to_owned(),
                    };
                    text(format!("model {} said {said}", answer.model))
                }
                "ask_briefly" => {
                    let client = cx.client().ok_or_else(|| {
                        ErrorObject::internal_error("no client handle on this connection")
                    })?;
                    let result = client
                        .request_with_timeout(
                            "sampling/createMessage",
                            json!({ "messages": [], "maxTokens": 1 }),
                            Duration::from_millis(200),
                        )
                        .await?;
                    text(result.to_string())
                }
                other => Err(ErrorObject::invalid_params(format!("unknown tool {other}"))),
            }
        },
    )
}

fn server(features: bool) -> Arc<Server> {
    let server = asking().serve("features-test");
    if !features {
        return Arc::new(server);
    }
    Arc::new(
        server
            .with_resources(Arc::new(Notes {
                updates: ResourceUpdates::new(),
            }))
            .with_prompts(Arc::new(Prompts))
            .with_completions(Arc::new(Prompts))
            .with_logging(),
    )
}

/// A server with no tools, made by `with`.
fn bare(with: impl FnOnce(Server) -> Server) -> Arc<Server> {
    Arc::new(with(tools::server("t", Vec::new())))
}

/// A client of `server(true)` past the handshake with `capabilities`.
async fn connected(capabilities: Value) -> Connection {
    let mut client = Connection::open(server(true));
    client.handshake(capabilities).await;
    client
}

/// A client of `server(true)` that declared `sampling`, whose `ask` call
/// `id` is waiting for the `sampling/createMessage` request returned.
async fn asked(id: u64) -> (Connection, Value) {
    let mut client = connected(json!({ "sampling": {} })).await;
    client
        .request(id, "tools/call", json!({ "name": "ask", "arguments": {} }))
        .await;
    let request = client.next().await;
    assert_eq!(request["method"], json!("sampling/createMessage"));
    (client, request)
}

#[tokio::test]
async fn capabilities_are_exactly_the_handlers_present() {
    let mut full = Connection::open(server(true));
    let answer = full.handshake(json!({})).await;
    assert_eq!(
        answer["result"]["capabilities"],
        json!({ "tools": {}, "resources": { "subscribe": true }, "prompts": {},
            "completions": {}, "logging": {} })
    );
    let mut bare = Connection::open(server(false));
    let answer = bare.handshake(json!({})).await;
    assert_eq!(answer["result"]["capabilities"], json!({ "tools": {} }));
    for (id, method) in [
        (1, "resources/list"),
        (2, "prompts/get"),
        (3, "completion/complete"),
        (4, "logging/setLevel"),
        (5, "resources/subscribe"),
    ] {
        let answer = bare.call(id, method, json!({})).await;
        assert_eq!(answer["error"]["code"], json!(-32601), "{method}");
    }
}

#[tokio::test]
async fn resources_list_and_read_answer_exactly() {
    let mut client = connected(json!({})).await;
    assert_eq!(
        client.call(1, "resources/list", json!({})).await,
        json!({ "jsonrpc": "2.0", "id": 1, "result": { "resources": [
            { "uri": "mem://a", "name": "a", "mimeType": "text/plain" } ] } })
    );
    assert_eq!(
        client
            .call(2, "resources/read", json!({ "uri": "mem://a" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "contents": [
            { "uri": "mem://a", "mimeType": "text/plain", "text": "alpha" } ] } })
    );
    assert_eq!(
        client
            .call(3, "resources/read", json!({ "uri": "mem://zz" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32002,
            "message": "resource not found: mem://zz", "data": { "uri": "mem://zz" } } })
    );
    assert_eq!(
        client
            .call(4, "resources/templates/list", json!(null))
            .await,
        json!({ "jsonrpc": "2.0", "id": 4, "result": { "resourceTemplates": [] } })
    );
    let answer = client.call(5, "resources/read", json!({})).await;
    assert_eq!(answer["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn stateless_reads_carry_result_type_and_cache_fields() {
    let mut client = Connection::open(server(true));
    let meta = stateless_meta_with(json!({}));
    assert_eq!(
        client
            .call(1, "resources/list", json!({ "_meta": meta }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 1, "result": { "resources": [
            { "uri": "mem://a", "name": "a", "mimeType": "text/plain" } ],
            "ttlMs": 60000, "cacheScope": "private", "resultType": "complete" } })
    );
    // An unknown resource is -32602 from 2026-07-28 on (SEP-2164), message
    // and data as in the handshake revisions.
    assert_eq!(
        client
            .call(
                6,
                "resources/read",
                json!({ "_meta": meta, "uri": "mem://zz" })
            )
            .await,
        json!({ "jsonrpc": "2.0", "id": 6, "error": { "code": -32602,
            "message": "resource not found: mem://zz", "data": { "uri": "mem://zz" } } })
    );
    assert_eq!(
        client
            .call(
                2,
                "prompts/get",
                json!({ "_meta": meta, "name": "greet",
                "arguments": { "who": "Ada" } })
            )
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "messages": [ { "role": "user",
            "content": { "type": "text", "text": "Hello, Ada!" } } ],
            "resultType": "complete" } })
    );
    // 2026-07-28 has no resources/subscribe and no logging/setLevel.
    let answer = client
        .call(
            3,
            "resources/subscribe",
            json!({ "_meta": meta, "uri": "mem://a" }),
        )
        .await;
    assert_eq!(answer["error"]["code"], json!(-32601));
    // Whatever their params: without them too (a method that does not
    // exist is not one whose params are wrong).
    for (id, method, params) in [
        (
            4,
            "logging/setLevel",
            json!({ "_meta": meta, "level": "info" }),
        ),
        (5, "logging/setLevel", json!({ "_meta": meta })),
        (6, "resources/subscribe", json!({ "_meta": meta })),
        (
            7,
            "resources/unsubscribe",
            json!({ "_meta": meta, "uri": 7 }),
        ),
    ] {
        let answer = client.call(id, method, params).await;
        assert_eq!(answer["error"]["code"], json!(-32601), "{method}: {answer}");
    }
}

#[tokio::test]
async fn prompts_and_completion_answer_exactly() {
    let mut client = connected(json!({})).await;
    assert_eq!(
        client.call(1, "prompts/list", json!({})).await,
        json!({ "jsonrpc": "2.0", "id": 1, "result": { "prompts": [ { "name": "greet",
            "arguments": [ { "name": "who", "required": true } ] } ] } })
    );
    assert_eq!(
        client
            .call(
                2,
                "prompts/get",
                json!({ "name": "greet", "arguments": { "who": "Ada" } })
            )
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "messages": [ { "role": "user",
            "content": { "type": "text", "text": "Hello, Ada!" } } ] } })
    );
    assert_eq!(
        client
            .call(3, "prompts/get", json!({ "name": "nope" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
            "message": "unknown prompt: \"nope\"", "data": { "prompt": "nope" } } })
    );
    assert_eq!(
        client
            .call(
                4,
                "completion/complete",
                json!({
                "ref": { "type": "ref/prompt", "name": "greet" },
                "argument": { "name": "who", "value": "a" } })
            )
            .await,
        json!({ "jsonrpc": "2.0", "id": 4, "result": { "completion": {
            "values": ["ada", "alan"] } } })
    );
    let answer = client.call(5, "prompts/list", json!({ "cursor": 7 })).await;
    assert_eq!(answer["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn subscribed_resources_get_updated_notifications() {
    let updates = ResourceUpdates::new();
    let server = bare(|s| {
        s.with_resources(Arc::new(Notes {
            updates: updates.clone(),
        }))
    });
    let mut client = Connection::open(server);
    client.handshake(json!({})).await;
    assert_eq!(
        client
            .call(1, "resources/subscribe", json!({ "uri": "mem://a" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
    updates.notify("mem://other");
    updates.notify("mem://a");
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated",
            "params": { "uri": "mem://a" } })
    );
    assert_eq!(
        client
            .call(2, "resources/unsubscribe", json!({ "uri": "mem://a" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
    );
    updates.notify("mem://a");
    // Nothing for mem://a any more: the next line is the ping's answer.
    client.assert_next_is_pong(3).await;
}

#[tokio::test]
async fn log_messages_follow_set_level() {
    let mut client = connected(json!({})).await;
    // Before logging/setLevel nothing is sent.
    assert_eq!(
        client
            .call(1, "tools/call", json!({ "name": "log", "arguments": {} }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 1, "result": { "content": [
            { "type": "text", "text": "[false, false, false]" } ] } })
    );
    assert_eq!(
        client
            .call(2, "logging/setLevel", json!({ "level": "info" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
    );
    client
        .request(3, "tools/call", json!({ "name": "log", "arguments": {} }))
        .await;
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "info", "logger": "t", "data": "info" } })
    );
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "error", "logger": "t", "data": "error" } })
    );
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "id": 3, "result": { "content": [
            { "type": "text", "text": "[false, true, true]" } ] } })
    );
    let answer = client
        .call(4, "logging/setLevel", json!({ "level": "loud" }))
        .await;
    assert_eq!(answer["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn stateless_log_level_comes_from_the_request_meta() {
    let mut client = Connection::open(server(true));
    let call = |id: u64, level: Option<&str>| {
        let mut meta = stateless_meta_with(json!({}));
        if let Some(level) = level {
            meta["io.modelcontextprotocol/logLevel"] = json!(level);
        }
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "_meta": meta, "name": "log", "arguments": {} } })
    };
    client.send(call(1, None)).await;
    assert_eq!(
        client.next().await["result"]["content"][0]["text"],
        json!("[false, false, false]")
    );
    client.send(call(2, Some("error"))).await;
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "error", "logger": "t", "data": "error" } })
    );
    assert_eq!(
        client.next().await["result"]["content"][0]["text"],
        json!("[false, false, true]")
    );
}

#[tokio::test]
async fn a_sampling_request_answered_by_the_client_reaches_the_tool() {
    let (mut client, request) = asked(7).await;
    assert_eq!(
        request,
        json!({ "jsonrpc": "2.0", "id": "s-1", "method": "sampling/createMessage",
            "params": { "messages": [ { "role": "user",
                "content": { "type": "text", "text": "2+2?" } } ], "maxTokens": 10 } })
    );
    client
        .send(
            json!({ "jsonrpc": "2.0", "id": "s-1", "result": { "role": "assistant",
            "content": { "type": "text", "text": "4" }, "model": "m1" } }),
        )
        .await;
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "id": 7, "result": { "content": [ { "type": "text",
            "text": "model m1 said 4" } ] } })
    );
}

#[tokio::test]
async fn a_client_error_response_reaches_the_tool_as_client_error_data() {
    let (mut client, request) = asked(8).await;
    assert_eq!(request["method"], json!("sampling/createMessage"));
    client
        .send(json!({ "jsonrpc": "2.0", "id": request["id"], "error": {
            "code": -1, "message": "User rejected sampling request" } }))
        .await;
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "id": 8, "error": { "code": -32603,
            "message": "the client answered sampling/createMessage with error -1: User rejected sampling request",
            "data": { "clientError": { "code": -1,
                "message": "User rejected sampling request" } } } })
    );
}

/// QA: the client's -32601 to `sampling/createMessage` must not come out as
/// the `tools/call`'s own "Method not found".
#[tokio::test]
async fn a_client_method_not_found_is_not_the_calls_own_error() {
    let (mut client, request) = asked(8).await;
    assert_eq!(request["id"], json!("s-1"));
    client
        .send(json!({ "jsonrpc": "2.0", "id": "s-1", "error": {
            "code": -32601, "message": "Method not found" } }))
        .await;
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "id": 8, "error": { "code": -32603,
            "message": "the client answered sampling/createMessage with error -32601: Method not found",
            "data": { "clientError": { "code": -32601, "message": "Method not found" } } } })
    );
}

/// QA: a malformed client response is never answered, and fails the
/// request it names at once (JSON-RPC 2.0 §5).
#[tokio::test]
async fn a_malformed_client_response_fails_its_request_at_once() {
    let mut details = Vec::new();
    for (n, bad) in [
        json!({ "result": {}, "error": { "code": -1, "message": "x" } }),
        json!({ "error": "bad" }),
        json!({ "error": { "code": 1.5, "message": "x" } }),
    ]
    .into_iter()
    .enumerate()
    {
        let (mut client, request) = asked(8).await;
        assert_eq!(request["id"], json!("s-1"));
        let mut line = bad.clone();
        line["jsonrpc"] = json!("2.0");
        line["id"] = json!("s-1");
        client.send(line).await;
        let answer = client.next().await;
        assert_eq!(answer["id"], json!(8), "case {n}: {answer}");
        assert_eq!(answer["error"]["code"], json!(-32603), "case {n}: {answer}");
        details.push(
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
        // Nothing else was sent for the bad line: the next line is the ping's.
        client.assert_next_is_pong(9).await;
    }
    let prefix = "the client's response to sampling/createMessage was malformed: ";
    assert_eq!(
        details,
        vec![
            format!("{prefix}a response must have result or error, not both"),
            format!("{prefix}error must be an object, found a string"),
            format!("{prefix}error.code must be an integer, found a number"),
        ]
    );
}

/// QA: a malformed response to no request of ours is dropped unanswered.
#[tokio::test]
async fn a_malformed_response_to_nothing_is_dropped() {
    let mut client = connected(json!({})).await;
    client
        .send(json!({ "jsonrpc": "2.0", "id": "s-77", "error": "bad" }))
        .await;
    client
        .send(json!({ "jsonrpc": "2.0", "id": 7, "result": {}, "error": { "code": 1, "message": "x" } }))
        .await;
    client.assert_next_is_pong(9).await;
}

#[tokio::test]
async fn an_unanswered_request_times_out_and_is_cancelled() {
    let mut client = connected(json!({ "sampling": {} })).await;
    client
        .request(
            9,
            "tools/call",
            json!({ "name": "ask_briefly", "arguments": {} }),
        )
        .await;
    let request = client.next().await;
    assert_eq!(request["method"], json!("sampling/createMessage"));
    // Never answered: after its 200 ms bound the client is told, and the
    // tool gets the timeout error.
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": request["id"], "reason": "timed out" } })
    );
    assert_eq!(
        client.next().await,
        json!({ "jsonrpc": "2.0", "id": 9, "error": { "code": REQUEST_TIMEOUT,
            "message": "the client did not answer sampling/createMessage within 200 ms" } })
    );
    // A late answer is ignored, and the connection keeps serving.
    client
        .send(json!({ "jsonrpc": "2.0", "id": request["id"], "result": {} }))
        .await;
    client.assert_next_is_pong(10).await;
}

#[tokio::test]
async fn a_client_without_the_capability_gets_no_request() {
    let mut client = connected(json!({ "roots": {} })).await;
    assert_eq!(
        client
            .call(11, "tools/call", json!({ "name": "ask", "arguments": {} }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 11, "error": { "code": -32021,
            "message": "the client did not declare the `sampling` capability that sampling/createMessage needs",
            "data": { "requiredCapabilities": { "sampling": {} } } } })
    );
}

#[tokio::test]
async fn cancelling_the_call_cancels_its_client_request() {
    let (mut client, request) = asked(12).await;
    assert_eq!(request["method"], json!("sampling/createMessage"));
    client
        .send(
            json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": 12 } }),
        )
        .await;
    let told = client.next().await;
    assert_eq!(told["method"], json!("notifications/cancelled"));
    assert_eq!(told["params"]["requestId"], request["id"]);
    // No response for the cancelled call: the next line answers the ping.
    client.assert_next_is_pong(13).await;
}

#[tokio::test]
async fn stateless_revision_has_no_initialize_or_ping_and_discover_needs_meta() {
    let mut client = Connection::open(server(false));
    let meta = stateless_meta_with(json!({}));
    assert_eq!(
        client
            .call(
                1,
                "initialize",
                json!({ "_meta": meta, "protocolVersion": "2025-11-25",
                "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } })
            )
            .await,
        json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32601,
            "message": "method not found: initialize" } })
    );
    let answer = client.call(2, "ping", json!({ "_meta": meta })).await;
    assert_eq!(answer["error"]["code"], json!(-32601));
    assert_eq!(
        client.call(3, "server/discover", json!({})).await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
            "message": "server/discover: params._meta[\"io.modelcontextprotocol/protocolVersion\"] is required (the revision this request is answered in)" } })
    );
    // The connection was not initialized by the refused initialize.
    let answer = client.handshake(json!({})).await;
    assert_eq!(answer["result"]["protocolVersion"], json!("2025-11-25"));
}

/// Records every roots list the server hands over.
struct RootsSeen(tokio::sync::mpsc::UnboundedSender<Vec<String>>);

impl mcp_local_server::RootsListener for RootsSeen {
    fn roots_changed(&self, roots: Vec<mcp_proto::Root>) {
        let _ = self.0.send(roots.into_iter().map(|r| r.uri).collect());
    }
}

fn roots_server() -> (
    Arc<Server>,
    tokio::sync::mpsc::UnboundedReceiver<Vec<String>>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (bare(|s| s.with_roots_listener(Arc::new(RootsSeen(tx)))), rx)
}

#[tokio::test]
async fn roots_are_listed_after_initialized_and_on_list_changed() {
    let (server, mut seen) = roots_server();
    let mut client = Connection::open(server);
    client
        .handshake(json!({ "roots": { "listChanged": true } }))
        .await;
    assert_eq!(client.next().await, roots_list_request(1));
    client
        .send(roots_list_answer(
            1,
            json!([ { "uri": "file:///a", "name": "a" }, { "uri": "file:///b" } ]),
        ))
        .await;
    assert_eq!(
        seen.recv().await,
        Some(vec!["file:///a".to_owned(), "file:///b".to_owned()])
    );
    client.notify("notifications/roots/list_changed").await;
    assert_eq!(client.next().await, roots_list_request(2));
    client
        .send(roots_list_answer(2, json!([ { "uri": "file:///c" } ])))
        .await;
    assert_eq!(seen.recv().await, Some(vec!["file:///c".to_owned()]));
}

#[tokio::test]
async fn roots_are_not_requested_from_a_client_without_the_capability() {
    let (server, mut seen) = roots_server();
    let mut client = Connection::open(server);
    client.handshake(json!({ "sampling": {} })).await;
    client.notify("notifications/roots/list_changed").await;
    // No roots/list went out: the next line is the ping's answer.
    client.assert_next_is_pong(1).await;
    assert!(seen.try_recv().is_err());
}

/// QA: a flood of `notifications/roots/list_changed` while a `roots/list`
/// is in flight makes exactly one more `roots/list`, and no cancellation.
#[tokio::test]
async fn roots_list_changed_floods_are_coalesced() {
    let (server, mut seen) = roots_server();
    let mut client = Connection::open(server);
    client
        .handshake(json!({ "roots": { "listChanged": true } }))
        .await;
    assert_eq!(client.next().await, roots_list_request(1));
    for _ in 0..5000 {
        client.notify("notifications/roots/list_changed").await;
    }
    client
        .send(roots_list_answer(1, json!([ { "uri": "file:///a" } ])))
        .await;
    assert_eq!(seen.recv().await, Some(vec!["file:///a".to_owned()]));
    assert_eq!(client.next().await, roots_list_request(2));
    client
        .send(roots_list_answer(2, json!([ { "uri": "file:///b" } ])))
        .await;
    assert_eq!(seen.recv().await, Some(vec!["file:///b".to_owned()]));
    // Nothing else went out: the next line is the ping's answer.
    client.assert_next_is_pong(1).await;
}

/// QA: `tools/list` treats an explicit null cursor as the first page, as
/// the other lists do; a string cursor is still unknown.
#[tokio::test]
async fn tools_list_null_cursor_is_the_first_page() {
    let mut client = Connection::open(server(false));
    client.handshake(json!({})).await;
    let first = client.call(1, "tools/list", json!({})).await;
    assert_eq!(names(&first), ["log", "ask", "ask_briefly"]);
    let with_null = client
        .call(2, "tools/list", json!({ "cursor": null }))
        .await;
    assert_eq!(with_null["result"], first["result"]);
    assert_eq!(with_null["id"], json!(2));
    assert_eq!(
        client.call(3, "tools/list", json!({ "cursor": "x" })).await,
        json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
            "message": "tools/list: unknown cursor \"x\"" } })
    );
}

/// Resources `mem://n/<anything>`, with a change feed.
struct ManyNotes {
    updates: ResourceUpdates,
}

impl ResourceSource for ManyNotes {
    fn list_resources(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourcesResult, ErrorObject>> {
        Box::pin(async { wire(json!({ "resources": [] })) })
    }

    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(async move {
            if !params.uri.starts_with("mem://n/") {
                return Err(resource_not_found(&params.uri));
            }
            wire(json!({ "contents": [ { "uri": params.uri, "text": "n" } ] }))
        })
    }

    fn updates(&self) -> Option<&ResourceUpdates> {
        Some(&self.updates)
    }
}

/// QA: `resources/subscribe` refuses a URI the source does not know
/// (-32002, as `resources/read`), an over-long URI, and a new subscription
/// beyond the per-connection cap (-32602).
#[tokio::test]
async fn subscribe_refuses_unknown_uris_and_caps_the_count() {
    let server = bare(|s| {
        s.with_resources(Arc::new(ManyNotes {
            updates: ResourceUpdates::new(),
        }))
    });
    let mut client = Connection::open(server);
    client.handshake(json!({})).await;
    assert_eq!(
        client
            .call(1, "resources/subscribe", json!({ "uri": "mem://unknown" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32002,
            "message": "resource not found: mem://unknown",
            "data": { "uri": "mem://unknown" } } })
    );
    let long = format!("mem://n/{}", "x".repeat(9000));
    assert_eq!(
        client
            .call(2, "resources/subscribe", json!({ "uri": long }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32602,
            "message": "resources/subscribe: params.uri is 9008 bytes, over the limit of 8192" } })
    );
    for k in 0..1000u64 {
        assert_eq!(
            client
                .call(
                    100 + k,
                    "resources/subscribe",
                    json!({ "uri": format!("mem://n/{k}") })
                )
                .await,
            json!({ "jsonrpc": "2.0", "id": 100 + k, "result": {} })
        );
    }
    let full = json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32602,
        "message": "resources/subscribe: this connection already has 1000 subscriptions, the most allowed; unsubscribe from one first" } });
    assert_eq!(
        client
            .call(3, "resources/subscribe", json!({ "uri": "mem://n/new" }))
            .await,
        full
    );
    // Subscribing again to a URI already held is not a new subscription.
    assert_eq!(
        client
            .call(4, "resources/subscribe", json!({ "uri": "mem://n/7" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 4, "result": {} })
    );
    assert_eq!(
        client
            .call(5, "resources/unsubscribe", json!({ "uri": "mem://n/7" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 5, "result": {} })
    );
    assert_eq!(
        client
            .call(6, "resources/subscribe", json!({ "uri": "mem://n/new" }))
            .await,
        json!({ "jsonrpc": "2.0", "id": 6, "result": {} })
    );
}

// Over streamable HTTP (MCP 2025-11-25 basic/transports): a request or
// notification the server sends while handling a POST travels on that
// POST's SSE stream, and the client's response, POSTed separately (202),
// reaches the waiting call.

/// A session (which declared `roots`) with a server whose `ask` asks the
/// client for its roots and says how many, and whose `log` logs at info
/// and error, which stops when the `Listening` is dropped.
async fn start() -> (Session, Listening) {
    let tools = Tools::new("t", &["ask", "log"], |params, cx| async move {
        if params.name == "ask" {
            let client = cx
                .client()
                .ok_or_else(|| ErrorObject::internal_error("no client handle"))?;
            let roots = client.list_roots().await?;
            return text(format!(
                "{} roots, first {}",
                roots.roots.len(),
                roots.roots[0].uri
            ));
        }
        cx.log(LoggingLevel::Info, None, json!("one"));
        cx.log(LoggingLevel::Error, None, json!("two"));
        text("logged")
    });
    let server = Arc::new(tools.serve("http-features").with_logging());
    let listening = listen(server, HttpConfig::default()).await;
    let session = listening
        .client()
        .open_session(json!({ "roots": {} }))
        .await;
    (session, listening)
}

#[tokio::test]
async fn a_server_request_rides_the_post_stream_and_its_answer_is_a_second_post() {
    let (session, _server) = start().await;
    let call = session
        .post(&json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/call",
            "params": { "name": "ask", "arguments": {} } }))
        .await;
    assert_sse(&call);
    let mut events = Events::of(call);
    assert_eq!(events.expect_next().await, roots_list_request(1));
    let answer = session
        .post(
            &json!({ "jsonrpc": "2.0", "id": "s-1", "result": { "roots": [
            { "uri": "file:///work", "name": "work" } ] } }),
        )
        .await;
    assert_eq!(answer.status(), StatusCode::ACCEPTED);
    assert_eq!(answer.text().await.expect("body"), "");
    assert_eq!(
        events.expect_next().await,
        json!({ "jsonrpc": "2.0", "id": 5, "result": { "content": [
            { "type": "text", "text": "1 roots, first file:///work" } ] } })
    );
}

#[tokio::test]
async fn log_messages_ride_the_post_stream_of_their_call() {
    let (session, _server) = start().await;
    let set = session
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
    let call = session
        .post(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "log", "arguments": {} } }))
        .await;
    let mut events = Events::of(call);
    assert_eq!(
        events.expect_next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/message",
            "params": { "level": "error", "data": "two" } })
    );
    assert_eq!(
        events.expect_next().await,
        json!({ "jsonrpc": "2.0", "id": 2, "result": { "content": [
            { "type": "text", "text": "logged" } ] } })
    );
}

#[tokio::test]
async fn discover_without_its_revision_is_400() {
    let (session, _server) = start().await;
    let discover = json!({ "jsonrpc": "2.0", "id": 9, "method": "server/discover" });
    // Naming 2026-07-28 in the header only: the body lacks the _meta that
    // revision requires, -32602 with 400 (SEP-2575).
    let response = session
        .http
        .post(
            &[
                ("mcp-protocol-version", STATELESS),
                ("mcp-method", "server/discover"),
            ],
            &discover,
        )
        .await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(body["id"], json!(9));
    assert_eq!(body["error"]["code"], json!(-32602));
    // Naming no revision at all: not a stateless request, and no session.
    let response = session.http.post(&[], &discover).await;
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}
