//! The `echo` server both rmcp baselines serve (`rmcp_echo_server`,
//! `rmcp_echo_http_server`): one tool that returns its `text` argument as
//! one text block. It leaves `ServerHandler::get_tool` at its default, so
//! rmcp skips the `Mcp-Param-*` header check (SEP-2243) that needs a
//! tool's schema: the least work rmcp does per call.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

/// The server: no state, one tool.
#[derive(Clone)]
pub struct Echo {
    tool: Tool,
}

impl Echo {
    /// The server with its one tool, `echo` (`{"text": string}`, required).
    pub fn new() -> Self {
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
