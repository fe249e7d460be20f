//! The server the official MCP conformance suite (`@modelcontextprotocol/
//! conformance`, `scripts/conformance.sh`) tests: `hanzo-mcp`'s [`Server`]
//! over the streamable HTTP transport, with one tool source serving the
//! tools the suite's server scenarios call.
//!
//! Run: `cargo run -p mcp-examples --example conformance_server -- 127.0.0.1:3917`
//! (prints `listening on http://ADDR/mcp` once bound).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::source::{BoxFuture, CallContext, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::{CallToolRequestParams, ErrorObject, Implementation, Tool, error_code, meta};
use serde_json::{Value, json};

/// A 1x1 red PNG.
const PNG_1X1: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV header with no samples (44 bytes).
const WAV_EMPTY: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/// The tools of the suite's server scenarios (tools-call-*, tools-list,
/// json-schema-2020-12, server-stateless).
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
        params: CallToolRequestParams,
        cx: CallContext,
    ) -> BoxFuture<'_, Result<Value, ErrorObject>> {
        Box::pin(async move {
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
                "json_schema_2020_12_tool" => vec![text("ok")],
                other => {
                    return Err(ErrorObject::invalid_params(format!(
                        "unknown tool {other:?}"
                    )));
                }
            };
            Ok(json!({ "content": content }))
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
    let server = Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ));
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
