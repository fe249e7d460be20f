//! The server the official MCP conformance suite (`@modelcontextprotocol/
//! conformance`, `scripts/conformance.sh`) tests: `hanzo-mcp`'s [`Server`]
//! over the streamable HTTP transport, with the tools, resources, prompts,
//! completions and logging the suite's server scenarios call. The tools that
//! need the client (sampling, elicitation) ask it through the call's
//! [`CallContext::client`].
//!
//! Run: `cargo run -p mcp-examples --example conformance_server -- 127.0.0.1:3917`
//! (prints `listening on http://ADDR/mcp` once bound).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::features::{resource_not_found, unknown_prompt};
use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::source::{BoxFuture, CallContext, SourceList, ToolSource};
use mcp_local_server::{
    CompletionSource, Composition, PromptSource, ResourceSource, ResourceUpdates, Server,
    ServerConfig,
};
use mcp_proto::{
    CallToolRequestParams, CompleteRequestParams, CompleteResult, ContentBlock,
    CreateMessageRequestParams, ElicitRequestParams, ErrorObject, FromValue,
    GetPromptRequestParams, GetPromptResult, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, LoggingLevel, ReadResourceRequestParams,
    ReadResourceResult, SamplingContent, Tool, error_code, meta,
};
use serde_json::{Value, json};

/// A 1x1 red PNG.
const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples (44 bytes).
const WAV_EMPTY: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// The tools of the suite's server scenarios (tools-call-*, tools-list,
/// json-schema-2020-12, server-stateless, http-custom-header-server-validation),
/// the diagnostic ones included.
struct ConformanceTools;

fn tool(name: &str, description: &str, input_schema: Value) -> Tool {
    let value = json!({ "name": name, "description": description, "inputSchema": input_schema });
    serde_json::from_value(value).unwrap_or_else(|e| panic!("tool literal {name}: {e}"))
}

fn no_args() -> Value {
    json!({ "type": "object", "properties": {} })
}

fn tools() -> Vec<Tool> {
    vec![
        tool(
            "test_simple_text",
            "Returns one text content block.",
            no_args(),
        ),
        tool("test_image_content", "Returns a 1x1 PNG image.", no_args()),
        tool("test_audio_content", "Returns a WAV audio clip.", no_args()),
        tool(
            "test_embedded_resource",
            "Returns an embedded text resource.",
            no_args(),
        ),
        tool(
            "test_multiple_content_types",
            "Returns text, image and resource content blocks.",
            no_args(),
        ),
        tool(
            "test_error_handling",
            "Always fails with isError: true.",
            no_args(),
        ),
        tool(
            "test_tool_with_progress",
            "Reports progress 0, 50, 100 of 100 when asked, 50 ms apart.",
            no_args(),
        ),
        tool(
            "test_missing_capability",
            "Needs the client's sampling capability; refuses with -32021 without it.",
            no_args(),
        ),
        tool(
            "test_tool_with_logging",
            "Sends three info log messages, 50 ms apart.",
            no_args(),
        ),
        tool(
            "test_logging_tool",
            "Sends one info log message; none reaches a 2026-07-28 client that set no \
             _meta log level.",
            no_args(),
        ),
        tool(
            "test_streaming_elicitation",
            "Asks the user's name: in 2026-07-28 through an input_required result, \
             never a request of its own on the response stream.",
            no_args(),
        ),
        tool(
            "test_header_param",
            "Echoes `region`, which 2026-07-28 clients also send as Mcp-Param-Region \
             (x-mcp-header).",
            json!({ "type": "object",
                "properties": { "region": { "type": "string", "x-mcp-header": "Region" } },
                "required": ["region"] }),
        ),
        tool(
            "test_sampling",
            "Asks the client's LLM (sampling/createMessage) and returns its answer.",
            json!({ "type": "object", "properties": { "prompt": { "type": "string" } },
                "required": ["prompt"] }),
        ),
        tool(
            "test_elicitation",
            "Asks the user (elicitation/create) for a username and email.",
            json!({ "type": "object", "properties": { "message": { "type": "string" } },
                "required": ["message"] }),
        ),
        tool(
            "test_elicitation_sep1034_defaults",
            "Elicits fields of every primitive type, each with a default (SEP-1034).",
            no_args(),
        ),
        tool(
            "test_elicitation_sep1330_enums",
            "Elicits the five enum field shapes (SEP-1330).",
            no_args(),
        ),
        tool(
            "test_input_required_result_elicitation",
            "2026-07-28: asks the user's name through an input_required result.",
            no_args(),
        ),
        tool(
            "test_input_required_result_sampling",
            "2026-07-28: asks the client's LLM through an input_required result.",
            no_args(),
        ),
        tool(
            "test_input_required_result_list_roots",
            "2026-07-28: asks the client's roots through an input_required result.",
            no_args(),
        ),
        tool(
            "test_input_required_result_multiple_inputs",
            "2026-07-28: asks for a name, a sampled greeting and the roots at once.",
            no_args(),
        ),
        tool(
            "test_input_required_result_multi_round",
            "2026-07-28: asks in two rounds, carrying requestState.",
            no_args(),
        ),
        tool(
            "test_input_required_result_request_state",
            "2026-07-28: checks the requestState it handed out.",
            no_args(),
        ),
        tool(
            "test_input_required_result_tampered_state",
            "2026-07-28: refuses a requestState that was not the one it signed.",
            no_args(),
        ),
        tool(
            "test_input_required_result_capabilities",
            "2026-07-28: asks only through the capabilities the client declared.",
            no_args(),
        ),
        tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "$defs": { "address": { "$anchor": "addressDef", "type": "object",
                    "properties": { "street": { "type": "string" }, "city": { "type": "string" } } } },
                "properties": {
                    "name": { "type": "string" },
                    "address": { "$ref": "#/$defs/address" },
                    "contactMethod": { "type": "string", "enum": ["phone", "email"] },
                    "phone": { "type": "string" },
                    "email": { "type": "string" }
                },
                "allOf": [ { "anyOf": [ { "required": ["phone"] }, { "required": ["email"] } ] } ],
                "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
                "then": { "required": ["phone"] },
                "else": { "required": ["email"] },
                "additionalProperties": false
            }),
        ),
    ]
}

impl ToolSource for ConformanceTools {
    fn name(&self) -> &str {
        "conformance"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            SourceList {
                tools: tools(),
                meta: None,
            }
        })
    }

    fn owns(&self, name: &str) -> bool {
        tools().iter().any(|t| t.name == name)
    }

    fn call_tool(
        &self,
        call: mcp_local_server::source::CallRequest,
        cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                let text = |t: &str| json!({ "type": "text", "text": t });
                let content = match params.name.as_str() {
                    "test_simple_text" => vec![text("This is a simple text response for testing.")],
                    "test_image_content" => {
                        vec![json!({ "type": "image", "data": PNG_1X1, "mimeType": "image/png" })]
                    }
                    "test_audio_content" => {
                        vec![json!({ "type": "audio", "data": WAV_EMPTY, "mimeType": "audio/wav" })]
                    }
                    "test_embedded_resource" => vec![json!({ "type": "resource", "resource": {
                    "uri": "test://embedded-resource", "mimeType": "text/plain",
                    "text": "This is an embedded resource content." } })],
                    "test_multiple_content_types" => vec![
                        text("Multiple content types test:"),
                        json!({ "type": "image", "data": PNG_1X1, "mimeType": "image/png" }),
                        json!({ "type": "resource", "resource": {
                        "uri": "test://mixed-content-resource", "mimeType": "application/json",
                        "text": "{\"test\":\"data\",\"value\":123}" } }),
                    ],
                    "test_error_handling" => {
                        return Ok(json!({ "isError": true, "content": [
                        text("This tool intentionally returns an error for testing") ] }));
                    }
                    "test_tool_with_progress" => {
                        for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                            if i > 0 {
                                tokio::time::sleep(Duration::from_millis(50)).await;
                            }
                            if let Some(reporter) = &cx.progress {
                                reporter.report(progress, Some(100.0), None);
                            }
                        }
                        vec![text("Progress test completed")]
                    }
                    "test_missing_capability" => {
                        let declared = params
                            .meta
                            .as_ref()
                            .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
                            .and_then(|c| c.get("sampling"))
                            .is_some();
                        if !declared {
                            return Err(ErrorObject::new(
                                error_code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                                "test_missing_capability needs the client's sampling capability",
                            )
                            .with_data(json!({ "requiredCapabilities": { "sampling": {} } })));
                        }
                        vec![text("sampling capability declared")]
                    }
                    "test_tool_with_logging" => {
                        let steps = [
                            "Tool execution started",
                            "Tool processing data",
                            "Tool execution completed",
                        ];
                        for (i, step) in steps.into_iter().enumerate() {
                            if i > 0 {
                                tokio::time::sleep(Duration::from_millis(50)).await;
                            }
                            cx.log(LoggingLevel::Info, Some("conformance"), json!(step));
                        }
                        vec![text("Logging test completed")]
                    }
                    "test_logging_tool" => {
                        cx.log(
                            LoggingLevel::Info,
                            Some("conformance"),
                            json!("test_logging_tool ran"),
                        );
                        vec![text("Logging tool completed")]
                    }
                    "test_streaming_elicitation" => {
                        if cx.client().is_none() {
                            // 2026-07-28: the question travels in the result.
                            return Ok(input_required(
                                json!({ "user_name": ask_text("What is your name?", "name") }),
                                None,
                            ));
                        }
                        let schema = json!({ "type": "object",
                        "properties": { "name": { "type": "string" } }, "required": ["name"] });
                        vec![text(
                            &elicit(&cx, "What is your name?", schema, "Elicited").await?,
                        )]
                    }
                    "test_header_param" => {
                        vec![text(&format!("region: {}", argument(&params, "region")?))]
                    }
                    "test_sampling" => {
                        let prompt = argument(&params, "prompt")?;
                        let request = CreateMessageRequestParams::from_value(json!({
                            "messages": [ { "role": "user",
                                "content": { "type": "text", "text": prompt } } ],
                            "maxTokens": 100,
                        }))
                        .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
                        let answer = client(&cx)?.create_message(&request).await?;
                        let said = match &answer.content {
                            SamplingContent::One(block) => match block.as_ref() {
                                ContentBlock::Text(text) => text.text.clone(),
                                other => serde_json::to_string(other).unwrap_or_default(),
                            },
                            many => serde_json::to_string(many).unwrap_or_default(),
                        };
                        vec![text(&format!("LLM response: {said}"))]
                    }
                    "test_elicitation" => {
                        let message = argument(&params, "message")?;
                        let schema = json!({ "type": "object", "properties": {
                        "username": { "type": "string", "description": "User's response" },
                        "email": { "type": "string", "description": "User's email address" } },
                        "required": ["username", "email"] });
                        vec![text(&elicit(&cx, &message, schema, "User response").await?)]
                    }
                    "test_elicitation_sep1034_defaults" => {
                        let schema = json!({ "type": "object", "properties": {
                        "name": { "type": "string", "default": "John Doe" },
                        "age": { "type": "integer", "default": 30 },
                        "score": { "type": "number", "default": 95.5 },
                        "status": { "type": "string", "enum": ["active", "inactive", "pending"],
                            "default": "active" },
                        "verified": { "type": "boolean", "default": true } } });
                        let said = elicit(
                            &cx,
                            "Please review your details",
                            schema,
                            "Elicitation completed",
                        )
                        .await?;
                        vec![text(&said)]
                    }
                    "test_elicitation_sep1330_enums" => {
                        let schema = json!({ "type": "object", "properties": {
                        "untitledSingle": { "type": "string",
                            "enum": ["option1", "option2", "option3"] },
                        "titledSingle": { "type": "string", "oneOf": [
                            { "const": "value1", "title": "First Option" },
                            { "const": "value2", "title": "Second Option" },
                            { "const": "value3", "title": "Third Option" } ] },
                        "legacyEnum": { "type": "string", "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"] },
                        "untitledMulti": { "type": "array", "items": { "type": "string",
                            "enum": ["option1", "option2", "option3"] } },
                        "titledMulti": { "type": "array", "items": { "anyOf": [
                            { "const": "value1", "title": "First Choice" },
                            { "const": "value2", "title": "Second Choice" },
                            { "const": "value3", "title": "Third Choice" } ] } } } });
                        let said = elicit(
                            &cx,
                            "Please pick your options",
                            schema,
                            "Elicitation completed",
                        )
                        .await?;
                        vec![text(&said)]
                    }
                    name if name.starts_with("test_input_required_result_") => {
                        return input_required_tool(&params);
                    }
                    "json_schema_2020_12_tool" => vec![text("ok")],
                    other => {
                        return Err(ErrorObject::invalid_params(format!(
                            "unknown tool {other:?}"
                        )));
                    }
                };
                Ok(json!({ "content": content }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

/// An elicitation input request for one string field.
fn ask_text(message: &str, field: &str) -> Value {
    json!({ "method": mcp_proto::methods::Elicit::NAME, "params": { "message": message,
        "requestedSchema": { "type": "object",
            "properties": { field: { "type": "string" } }, "required": [field] } } })
}

fn ask_llm(prompt: &str, max_tokens: u64) -> Value {
    json!({ "method": mcp_proto::methods::CreateMessage::NAME, "params": {
        "messages": [ { "role": "user", "content": { "type": "text", "text": prompt } } ],
        "maxTokens": max_tokens } })
}

fn ask_roots() -> Value {
    json!({ "method": mcp_proto::methods::ListRoots::NAME, "params": {} })
}

/// An `InputRequiredResult` (MCP 2026-07-28 basic/utilities/mrtr).
fn input_required(requests: Value, state: Option<String>) -> Value {
    let mut result = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(state) = state {
        result["requestState"] = json!(state);
    }
    result
}

fn done(text: &str) -> Value {
    json!({ "content": [ { "type": "text", "text": text } ] })
}

/// The key a process draws once to sign the `requestState` it hands out.
fn state_key() -> &'static std::collections::hash_map::RandomState {
    static KEY: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    KEY.get_or_init(Default::default)
}

/// `payload` with a keyed SipHash tag: `<payload>.<tag>`. Good enough to
/// tell a state we issued from an edited one in a test server; a real
/// server would use an HMAC with a managed key.
fn sign(payload: &str) -> String {
    use std::hash::BuildHasher;
    format!("{payload}.{:016x}", state_key().hash_one(payload))
}

/// The payload of a state [`sign`] issued, or `None` when it was altered.
fn verify(state: &str) -> Option<&str> {
    let (payload, _) = state.rsplit_once('.')?;
    (sign(payload) == state).then_some(payload)
}

/// The answer to input request `key` of a retried call, when present.
fn response<'a>(params: &'a CallToolRequestParams, key: &str) -> Option<&'a Value> {
    params.extra.get("inputResponses")?.get(key)
}

/// The accepted elicitation field `field` of input response `key`.
fn elicited<'a>(params: &'a CallToolRequestParams, key: &str, field: &str) -> Option<&'a str> {
    let answer = response(params, key)?;
    (answer.get("action")?.as_str()? == "accept")
        .then(|| answer.get("content")?.get(field)?.as_str())
        .flatten()
}

fn sampled_text(params: &CallToolRequestParams, key: &str) -> Option<String> {
    let content = response(params, key)?.get("content")?;
    content
        .get("text")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The state the retried call echoed, checked: -32602 when it is not one
/// we issued.
fn echoed_state(params: &CallToolRequestParams) -> Result<Option<&str>, ErrorObject> {
    match params.extra.get("requestState").and_then(Value::as_str) {
        None => Ok(None),
        Some(state) => verify(state)
            .map(Some)
            .ok_or_else(|| ErrorObject::invalid_params("requestState failed its integrity check")),
    }
}

/// The `test_input_required_result_*` tools of the SEP-2322 scenarios: the
/// 2026-07-28 way to ask the client for input, by answering
/// `input_required` and reading `inputResponses` from the retried call.
fn input_required_tool(params: &CallToolRequestParams) -> Result<Value, ErrorObject> {
    let state = echoed_state(params)?;
    Ok(match params.name.as_str() {
        "test_input_required_result_elicitation" => {
            match elicited(params, "user_name", "name") {
                Some(name) => done(&format!("Hello, {name}!")),
                // Missing, wrong or malformed answers: ask again.
                None => input_required(
                    json!({ "user_name": ask_text("What is your name?", "name") }),
                    None,
                ),
            }
        }
        "test_input_required_result_sampling" => match sampled_text(params, "capital_question") {
            Some(said) => done(&format!("The model said: {said}")),
            None => input_required(
                json!({ "capital_question": ask_llm("What is the capital of France?", 50) }),
                None,
            ),
        },
        "test_input_required_result_list_roots" => {
            let roots = response(params, "client_roots")
                .and_then(|r| r.get("roots"))
                .and_then(Value::as_array);
            match roots {
                Some(roots) => {
                    let uris: Vec<&str> = roots
                        .iter()
                        .filter_map(|r| r.get("uri").and_then(Value::as_str))
                        .collect();
                    done(&format!("Client roots: {}", uris.join(", ")))
                }
                None => input_required(json!({ "client_roots": ask_roots() }), None),
            }
        }
        "test_input_required_result_multiple_inputs" => {
            let name = elicited(params, "user_name", "name");
            let greeting = sampled_text(params, "greeting");
            let roots = response(params, "client_roots");
            match (name, greeting, roots, state) {
                (Some(name), Some(greeting), Some(_), Some("multiple")) => {
                    done(&format!("{greeting} {name}"))
                }
                _ => input_required(
                    json!({
                        "user_name": ask_text("What is your name?", "name"),
                        "greeting": ask_llm("Generate a greeting", 50),
                        "client_roots": ask_roots(),
                    }),
                    Some(sign("multiple")),
                ),
            }
        }
        "test_input_required_result_multi_round" => {
            let step1 = || {
                input_required(
                    json!({ "step1": ask_text("Step 1: What is your name?", "name") }),
                    Some(sign("round-1")),
                )
            };
            match state {
                Some("round-1") => match elicited(params, "step1", "name") {
                    Some(name) => input_required(
                        json!({ "step2": ask_text("Step 2: What is your favorite color?", "color") }),
                        Some(sign(&format!("round-2:{name}"))),
                    ),
                    None => step1(),
                },
                Some(round2) if round2.starts_with("round-2:") => {
                    let name = &round2["round-2:".len()..];
                    match elicited(params, "step2", "color") {
                        Some(color) => done(&format!("{name} likes {color}")),
                        None => step1(),
                    }
                }
                _ => step1(),
            }
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            let answered = response(params, "confirm").is_some();
            match state {
                Some("confirm") if answered => done("state-ok: the requestState was ours"),
                _ => input_required(
                    json!({ "confirm": { "method": mcp_proto::methods::Elicit::NAME, "params": {
                        "message": "Please confirm", "requestedSchema": { "type": "object",
                            "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] } } } }),
                    Some(sign("confirm")),
                ),
            }
        }
        "test_input_required_result_capabilities" => {
            let declared = |name: &str| {
                params
                    .meta
                    .as_ref()
                    .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
                    .and_then(|c| c.get(name))
                    .is_some()
            };
            if response(params, "elicited").is_some() || response(params, "sampled").is_some() {
                done("capabilities respected")
            } else {
                let mut requests = serde_json::Map::new();
                if declared("elicitation") {
                    requests.insert("elicited".into(), ask_text("What is your name?", "name"));
                }
                if declared("sampling") {
                    requests.insert("sampled".into(), ask_llm("Say hello", 20));
                }
                if requests.is_empty() {
                    done("the client declared neither elicitation nor sampling")
                } else {
                    input_required(Value::Object(requests), None)
                }
            }
        }
        other => {
            return Err(ErrorObject::invalid_params(format!(
                "unknown tool {other:?}"
            )));
        }
    })
}

/// The string argument `name` of a call, or -32602.
fn argument(params: &CallToolRequestParams, name: &str) -> Result<String, ErrorObject> {
    params
        .arguments
        .as_ref()
        .and_then(|a| a.get(name))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| {
            ErrorObject::invalid_params(format!("argument {name:?} (a string) is required"))
        })
}

/// The call's handle for requests to the client, or -32603 when the
/// connection has none (2026-07-28).
fn client(cx: &CallContext) -> Result<&dyn mcp_local_server::source::ClientRequests, ErrorObject> {
    cx.client().ok_or_else(|| {
        ErrorObject::internal_error("this revision carries no requests to the client")
    })
}

/// Sends `elicitation/create` with `message` and `schema`; returns
/// `"<label>: action=…, content=…"`.
async fn elicit(
    cx: &CallContext,
    message: &str,
    schema: Value,
    label: &str,
) -> Result<String, ErrorObject> {
    let request = ElicitRequestParams::from_value(json!({
        "message": message, "requestedSchema": schema }))
    .map_err(|e| ErrorObject::internal_error(e.to_string()))?;
    let answer = client(cx)?.elicit(&request).await?;
    let content = answer.content.map(Value::Object).unwrap_or(Value::Null);
    Ok(format!(
        "{label}: action={}, content={content}",
        answer.action
    ))
}

/// The resources of the resources-* scenarios: two static ones, a watched
/// one (for subscriptions), and the template `test://template/{id}/data`.
struct ConformanceResources {
    updates: ResourceUpdates,
}

fn wire<T: FromValue>(value: Value) -> Result<T, ErrorObject> {
    T::from_value(value).map_err(|e| ErrorObject::internal_error(e.to_string()))
}

impl ResourceSource for ConformanceResources {
    fn list_resources(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourcesResult, ErrorObject>> {
        Box::pin(async {
            wire(json!({ "resources": [
                { "uri": "test://static-text", "name": "static-text",
                  "description": "A static text resource", "mimeType": "text/plain" },
                { "uri": "test://static-binary", "name": "static-binary",
                  "description": "A static binary resource (a 1x1 PNG)", "mimeType": "image/png" },
                { "uri": "test://watched-resource", "name": "watched-resource",
                  "description": "A resource to subscribe to", "mimeType": "text/plain" }
            ] }))
        })
    }

    fn list_resource_templates(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListResourceTemplatesResult, ErrorObject>> {
        Box::pin(async {
            wire(json!({ "resourceTemplates": [
                { "uriTemplate": "test://template/{id}/data", "name": "template-data",
                  "description": "Data for one id", "mimeType": "application/json" }
            ] }))
        })
    }

    fn read_resource(
        &self,
        params: ReadResourceRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ReadResourceResult, ErrorObject>> {
        Box::pin(async move {
            let uri = params.uri.as_str();
            let contents = match uri {
                "test://static-text" => json!({ "uri": uri, "mimeType": "text/plain",
                    "text": "This is the content of the static text resource." }),
                "test://static-binary" => json!({ "uri": uri, "mimeType": "image/png",
                    "blob": PNG_1X1 }),
                "test://watched-resource" => json!({ "uri": uri, "mimeType": "text/plain",
                    "text": "Watched resource content." }),
                _ => match template_id(uri) {
                    Some(id) => json!({ "uri": uri, "mimeType": "application/json",
                        "text": json!({ "id": id, "templateTest": true,
                            "data": format!("Data for ID: {id}") }).to_string() }),
                    None => return Err(resource_not_found(uri)),
                },
            };
            wire(json!({ "contents": [contents] }))
        })
    }

    fn updates(&self) -> Option<&ResourceUpdates> {
        Some(&self.updates)
    }
}

/// `{id}` of `test://template/{id}/data`, when `uri` has that shape.
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The prompts of the prompts-* scenarios, and completion of their
/// arguments.
struct ConformancePrompts;

impl PromptSource for ConformancePrompts {
    fn list_prompts(
        &self,
        _cursor: Option<String>,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<ListPromptsResult, ErrorObject>> {
        Box::pin(async {
            wire(json!({ "prompts": [
                { "name": "test_simple_prompt", "description": "A prompt without arguments" },
                { "name": "test_prompt_with_arguments", "description": "A prompt with two arguments",
                  "arguments": [
                    { "name": "arg1", "description": "First test argument", "required": true },
                    { "name": "arg2", "description": "Second test argument", "required": true } ] },
                { "name": "test_prompt_with_embedded_resource",
                  "description": "A prompt embedding a resource",
                  "arguments": [ { "name": "resourceUri",
                    "description": "URI of the resource to embed", "required": true } ] },
                { "name": "test_prompt_with_image", "description": "A prompt with an image" },
                { "name": "test_input_required_result_prompt",
                  "description": "2026-07-28: asks for its context through an input_required result" }
            ] }))
        })
    }

    fn get_prompt(
        &self,
        params: GetPromptRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<GetPromptResult, ErrorObject>> {
        Box::pin(async move {
            let arg = |name: &str| -> Result<String, ErrorObject> {
                params
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get(name))
                    .cloned()
                    .ok_or_else(|| {
                        ErrorObject::invalid_params(format!(
                            "prompt {:?}: argument {name:?} is required",
                            params.name
                        ))
                    })
            };
            let user = |content: Value| json!({ "role": "user", "content": content });
            let text = |t: &str| json!({ "type": "text", "text": t });
            let messages = match params.name.as_str() {
                "test_simple_prompt" => vec![user(text("This is a simple prompt for testing."))],
                "test_prompt_with_arguments" => {
                    let (arg1, arg2) = (arg("arg1")?, arg("arg2")?);
                    vec![user(text(&format!(
                        "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                    )))]
                }
                "test_prompt_with_embedded_resource" => {
                    let uri = arg("resourceUri")?;
                    vec![
                        user(json!({ "type": "resource", "resource": { "uri": uri,
                            "mimeType": "text/plain",
                            "text": "Embedded resource content for testing." } })),
                        user(text("Please process the embedded resource above.")),
                    ]
                }
                "test_prompt_with_image" => vec![
                    user(json!({ "type": "image", "data": PNG_1X1, "mimeType": "image/png" })),
                    user(text("Please analyze the image above.")),
                ],
                // 2026-07-28: a prompt that asks for input first (SEP-2322).
                "test_input_required_result_prompt" => {
                    let context = params
                        .extra
                        .get("inputResponses")
                        .and_then(|r| r.get("user_context"))
                        .and_then(|a| a.get("content"))
                        .and_then(|c| c.get("context"))
                        .and_then(Value::as_str);
                    match context {
                        Some(context) => vec![user(text(&format!("Use this context: {context}")))],
                        None => {
                            return wire(json!({ "messages": [],
                                "resultType": "input_required",
                                "inputRequests": { "user_context": ask_text(
                                    "What context should the prompt use?", "context") } }));
                        }
                    }
                }
                other => return Err(unknown_prompt(other)),
            };
            wire(json!({ "messages": messages }))
        })
    }
}

/// Words offered for any argument: those starting with what was typed.
const SUGGESTIONS: [&str; 6] = ["paris", "park", "party", "test", "testing", "tested"];

impl CompletionSource for ConformancePrompts {
    fn complete(
        &self,
        params: CompleteRequestParams,
        _cx: CallContext,
    ) -> BoxFuture<'_, Result<CompleteResult, ErrorObject>> {
        Box::pin(async move {
            let typed = params.argument.value.as_str();
            let values: Vec<&str> = SUGGESTIONS
                .into_iter()
                .filter(|s| s.starts_with(typed))
                .collect();
            wire(json!({ "completion": {
                "values": values, "total": values.len(), "hasMore": false } }))
        })
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3917".into())
        .parse()?;
    let info: Implementation = serde_json::from_value(json!({
        "name": "hanzo-mcp-conformance",
        "version": env!("CARGO_PKG_VERSION"),
    }))?;
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(ConformanceTools)];
    let server = Arc::new(
        Server::new(Composition::new(sources), ServerConfig::new(info))
            .with_resources(Arc::new(ConformanceResources {
                updates: ResourceUpdates::new(),
            }))
            .with_prompts(Arc::new(ConformancePrompts))
            .with_completions(Arc::new(ConformancePrompts))
            .with_logging(),
    );
    serve_http(
        server,
        addr,
        HttpConfig::default(),
        |bound| println!("listening on http://{bound}/mcp"),
        // Runs until killed (the script stops it with SIGTERM).
        std::future::pending(),
    )
    .await?;
    Ok(())
}
