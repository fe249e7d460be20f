//! rmcp, the official Rust SDK, serving the twelve local tools of
//! `mcp-local-tools` over stdio: the same tools `hanzo-mcp serve` ships,
//! behind rmcp's server core instead of ours.
//!
//! It is the second rmcp baseline of `hanzo-mcp`'s benchmark
//! (crates/mcp-server/benches/rmcp.rs). Against the one-tool `echo`
//! server, a ratio measures the whole binary: the server core plus the
//! libraries the tools link (an HTML parser, regular expressions, SQLite,
//! TLS, tree-sitter grammars). Against this one, the tools and their
//! libraries are the same on both sides, so a ratio measures the server
//! core. Set-up as `rmcp_echo_server`: a current-thread runtime and
//! `rmcp::transport::io::stdio_pipes()`. The tool definitions are built on
//! the first `tools/list`, as `hanzo-mcp` builds them; definitions and
//! results cross from `mcp-proto`'s types to rmcp's through
//! `serde_json::Value`.
//!
//! Run: `cargo run -p mcp-examples --example rmcp_toolbox_server` and speak
//! MCP on stdin; the tools are confined to the working directory.

use std::sync::{Arc, OnceLock};

use mcp_local_tools::{Roots, ToolContext, Toolbox};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

/// The server: the toolbox, its roots, and the definitions once listed.
#[derive(Clone)]
struct Tools {
    toolbox: Toolbox,
    roots: Roots,
    definitions: Arc<OnceLock<Vec<Tool>>>,
}

/// `value` as rmcp's type of the same wire shape.
fn convert<T: Serialize, U: DeserializeOwned>(value: &T) -> Result<U, ErrorData> {
    serde_json::to_value(value)
        .and_then(serde_json::from_value)
        .map_err(|error| ErrorData::internal_error(error.to_string(), None))
}

impl ServerHandler for Tools {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let tools = match self.definitions.get() {
            Some(tools) => tools,
            None => {
                let tools = self
                    .toolbox
                    .tools()
                    .iter()
                    .map(convert)
                    .collect::<Result<Vec<Tool>, ErrorData>>()?;
                self.definitions.get_or_init(|| tools)
            }
        };
        Ok(ListToolsResult::with_all_items(tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        let ctx = ToolContext::new(self.roots.clone());
        match self.toolbox.call(&request.name, arguments, ctx).await {
            Some(result) => Ok(convert::<_, CallToolResult>(&result)?.into()),
            None => Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            )),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let roots = std::env::current_dir()
        .map_err(|error| error.to_string())
        .and_then(|dir| Roots::new(vec![dir]).map_err(|error| error.to_string()));
    let roots = match roots {
        Ok(roots) => roots,
        Err(error) => {
            eprintln!("rmcp_toolbox_server: {error}");
            std::process::exit(1);
        }
    };
    let server = Tools {
        toolbox: Toolbox::with_default_tools(),
        roots,
        definitions: Arc::default(),
    };
    let service = match server.serve(rmcp::transport::io::stdio_pipes()).await {
        Ok(service) => service,
        Err(error) => {
            eprintln!("rmcp_toolbox_server: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = service.waiting().await {
        eprintln!("rmcp_toolbox_server: {error}");
        std::process::exit(1);
    }
}
