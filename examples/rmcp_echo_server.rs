//! A minimal stdio MCP server built on rmcp, the official Rust SDK, serving
//! one `echo` tool that returns its `text` argument.
//!
//! It is the baseline `hanzo-mcp`'s stdio benchmark runs side by side with
//! (crates/mcp-server/benches/stdio.rs): startup, round trip and peak RSS.
//! It is rmcp's fastest stdio set-up: a current-thread runtime, and
//! `rmcp::transport::io::stdio_pipes()`, which drives stdin and stdout
//! through the event loop when they are pipes (as a client launching the
//! server makes them) instead of handing each read and write to the
//! blocking pool.
//!
//! Run: `cargo run -p mcp-examples --example rmcp_echo_server` and speak MCP
//! on stdin.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

/// The server: no state, one tool.
#[derive(Clone)]
struct Echo {
    tool: Tool,
}

impl Echo {
    fn new() -> Self {
        let schema: Map<String, Value> = match json!({
            "type": "object",
            "properties": { "text": { "type": "string" } },
            "required": ["text"]
        }) {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self {
            tool: Tool::new("echo", "Returns its `text` argument.", Arc::new(schema)),
        }
    }
}

impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![self.tool.clone()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != "echo" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let service = match Echo::new().serve(rmcp::transport::io::stdio_pipes()).await {
        Ok(service) => service,
        Err(error) => {
            eprintln!("rmcp_echo_server: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = service.waiting().await {
        eprintln!("rmcp_echo_server: {error}");
        std::process::exit(1);
    }
}
