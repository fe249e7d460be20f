//! An MCP server over streamable HTTP built on rmcp, the official Rust SDK,
//! serving one `echo` tool that returns its `text` argument: the baseline
//! the HTTP rows of `hanzo-mcp`'s benchmark run against
//! (crates/mcp-server/benches/stdio.rs).
//!
//! It is rmcp's fastest HTTP set-up: `StreamableHttpService` in stateless
//! mode (no session, `legacy_session_mode: false`) answering with
//! `application/json` (`json_response: true`) instead of an SSE stream,
//! the service handed to hyper's HTTP/1 connection directly (no router in
//! front), on a Tokio runtime with two workers as `hanzo-mcp serve --http`
//! has. Like the stdio example it leaves `ServerHandler::get_tool` at its
//! default, so rmcp skips the `Mcp-Param-*` header check (SEP-2243) that
//! needs a tool's schema: the least work rmcp does per call.
//!
//! Run: `cargo run -p mcp-examples --example rmcp_echo_http_server -- 127.0.0.1:8080`
//! (port 0, the default, picks a free port). The first line on stdout is
//! `listening on http://ADDR/mcp`.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
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

fn main() {
    let addr: SocketAddr = match std::env::args().nth(1) {
        Some(text) => match text.parse() {
            Ok(addr) => addr,
            Err(error) => {
                eprintln!("rmcp_echo_http_server: {text:?}: {error}");
                std::process::exit(2);
            }
        },
        None => SocketAddr::from(([127, 0, 0, 1], 0)),
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("rmcp_echo_http_server: {error}");
            std::process::exit(1);
        }
    };
    if let Err(error) = runtime.block_on(serve(addr)) {
        eprintln!("rmcp_echo_http_server: {error}");
        std::process::exit(1);
    }
}

async fn serve(addr: SocketAddr) -> std::io::Result<()> {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service: StreamableHttpService<Echo, NeverSessionManager> =
        StreamableHttpService::new(|| Ok(Echo::new()), Arc::default(), config);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    let http1 = hyper::server::conn::http1::Builder::new();
    loop {
        let (stream, _) = listener.accept().await?;
        let connection = http1.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(service.clone()),
        );
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
}
