//! An agent runtime that assembles each agent's tool registry from two MCP
//! servers, with a per-server allowlist (the agent's `allowedTools`, applied
//! by `mcp-gating` where the registry is assembled).
//!
//! The two servers run in-process and are spoken to in JSON-RPC, one message
//! at a time, exactly as over stdio: `github-workflow` (issues, pull
//! requests, and the `signal_state_transition` trap endpoint) and
//! `knowledge-base`. Three agent profiles share them:
//!
//! - `orchestrator`: no allowlist (`null`), so it sees every tool;
//! - `librarian`: `github-workflow` denied (`[]`), `knowledge-base` open;
//! - `worker`: limited to `signal_state_transition` and one op of
//!   `update_issue` (`"update_issue:close"`), knowledge-base denied.
//!
//! The runtime gates each server's list when it assembles the registry, so
//! a gated-out tool is never registered: a call to it fails as an unknown
//! tool (-32602) and never reaches the server (its request log proves it).
//!
//! Run: `cargo run -p mcp-examples --example agent_loop`.

use std::error::Error;

use mcp_gating::{AllowedTools, GatedSurface, OpTool, Policy, SurfaceRules, route_call};
use mcp_proto::{
    CallToolRequestParams, CallToolResult, ErrorObject, ListToolsResult, Message, Request,
    RequestId, Response, Tool, parse_message,
};
use serde_json::{Value, json};

/// A minimal MCP server: answers `tools/list` and `tools/call` messages and
/// remembers every tool it was asked to run.
struct McpServer {
    name: &'static str,
    tools: Vec<Tool>,
    calls_received: Vec<String>,
}

impl McpServer {
    fn new(name: &'static str, tools: Value) -> Result<Self, Box<dyn Error>> {
        Ok(Self {
            name,
            tools: serde_json::from_value(tools)?,
            calls_received: Vec::new(),
        })
    }

    /// One JSON-RPC message in, one out (what a stdio transport carries).
    fn handle(&mut self, line: &[u8]) -> Result<Vec<u8>, Box<dyn Error>> {
        let Message::Request(request) = parse_message(line).map_err(|e| e.error.message)? else {
            return Err("the runtime only sends requests".into());
        };
        let response = match request.method.as_str() {
            "tools/list" => {
                let result = ListToolsResult {
                    tools: self.tools.clone(),
                    ..ListToolsResult::default()
                };
                Response::success(request.id, serde_json::to_value(result)?)
            }
            "tools/call" => {
                let params: CallToolRequestParams = request.parse_params()?;
                self.calls_received.push(params.name.clone());
                let result = CallToolResult::text(format!(
                    "{} ran {} with {}",
                    self.name,
                    params.name,
                    Value::Object(params.arguments.unwrap_or_default())
                ));
                Response::success(request.id, serde_json::to_value(result)?)
            }
            other => Response::error(Some(request.id), ErrorObject::method_not_found(other)),
        };
        Ok(serde_json::to_vec(&Message::Response(response))?)
    }
}

/// The client side of one connection: numbered requests, parsed responses.
fn request(
    server: &mut McpServer,
    id: i64,
    method: &str,
    params: Option<Value>,
) -> Result<Response, Box<dyn Error>> {
    let line = serde_json::to_vec(&Message::Request(Request::new(
        RequestId::Number(id),
        method,
        params,
    )))?;
    match parse_message(&server.handle(&line)?).map_err(|e| e.error.message)? {
        Message::Response(response) => Ok(response),
        _ => Err("a server answered a request with something else".into()),
    }
}

/// An agent's view: one gated surface per server, in connection order.
struct Registry {
    surfaces: Vec<GatedSurface<Tool>>,
}

impl Registry {
    /// Lists every server's tools and gates each list before merging:
    /// a tool gated out is never registered.
    fn assemble(servers: &mut [McpServer], allowed: &AllowedTools) -> Result<Self, Box<dyn Error>> {
        let mut surfaces = Vec::new();
        for (index, server) in servers.iter_mut().enumerate() {
            let listed: ListToolsResult =
                request(server, index as i64, "tools/list", None)?.parse_result()?;
            let surface = GatedSurface::new(
                server.name,
                &listed.tools,
                allowed,
                Policy::FailOpen,
                SurfaceRules::local(),
            );
            for unmatched in surface.unmatched_entries() {
                println!("  warning: allowlist for {}: {unmatched}", server.name);
            }
            surfaces.push(surface);
        }
        Ok(Self { surfaces })
    }

    fn print(&self) {
        for surface in &self.surfaces {
            let names: Vec<String> = surface
                .tools()
                .iter()
                .map(|tool| match tool.op_values("action") {
                    Some(actions) => format!("{} (action: {})", tool.name, actions.join("|")),
                    None => tool.name.clone(),
                })
                .collect();
            let names = if names.is_empty() {
                "(none)".to_owned()
            } else {
                names.join(", ")
            };
            println!("    {:<16} {names}", surface.source());
        }
    }

    /// Routes a `tools/call` to the server that registered the tool, or
    /// answers -32602 itself.
    fn call(
        &self,
        servers: &mut [McpServer],
        name: &str,
        arguments: Value,
    ) -> Result<String, Box<dyn Error>> {
        let arguments = arguments.as_object().cloned();
        let target = route_call(&self.surfaces, name, |key| {
            mcp_gating::OpArg::from_arguments(arguments.as_ref(), key)
        });
        let Some(index) = target else {
            let error = ErrorObject::invalid_params(format!("Unknown tool: {name}"));
            return Ok(format!("error {} {:?}", error.code, error.message));
        };
        let server = servers.get_mut(index).ok_or("no such server")?;
        let params = json!({"name": name, "arguments": arguments});
        let response = request(server, 100, "tools/call", Some(params))?;
        let result: CallToolResult = response.parse_result()?;
        let text = result
            .content
            .first()
            .and_then(|block| block.as_text())
            .unwrap_or_default()
            .to_owned();
        Ok(format!("ok {text:?}"))
    }
}

fn servers() -> Result<Vec<McpServer>, Box<dyn Error>> {
    let object = |required: &[&str]| json!({"type": "object", "required": required});
    Ok(vec![
        McpServer::new(
            "github-workflow",
            json!([
                {"name": "create_issue", "inputSchema": object(&["title"])},
                {"name": "update_issue", "inputSchema": {
                    "type": "object",
                    "properties": {
                        "action": {"type": "string", "enum": ["edit", "close", "reopen"]},
                        "number": {"type": "integer"}
                    },
                    "required": ["action", "number"]
                }},
                {"name": "signal_state_transition", "inputSchema": object(&["issue", "to"])},
                {"name": "merge_pull_request", "inputSchema": object(&["number"])}
            ]),
        )?,
        McpServer::new(
            "knowledge-base",
            json!([
                {"name": "search", "inputSchema": object(&["query"])},
                {"name": "read_document", "inputSchema": object(&["id"])}
            ]),
        )?,
    ])
}

fn main() -> Result<(), Box<dyn Error>> {
    let profiles = [
        (
            "orchestrator",
            "no allowlist: every tool of every server",
            "null",
        ),
        (
            "librarian",
            "github-workflow denied; knowledge-base narrowed, with a typo",
            r#"{"github-workflow": [], "knowledge-base": ["search", "read_documnet"]}"#,
        ),
        (
            "worker",
            "limited to the trap endpoint signal_state_transition",
            r#"{"github-workflow": ["signal_state_transition"], "knowledge-base": []}"#,
        ),
        (
            "triager",
            "may close issues only; knowledge-base not named, so open",
            r#"{"github-workflow": ["update_issue:close"]}"#,
        ),
    ];
    let calls = [
        (
            "signal_state_transition",
            json!({"issue": 42, "to": "in-review"}),
        ),
        ("update_issue", json!({"action": "close", "number": 42})),
        ("update_issue", json!({"action": "reopen", "number": 42})),
        ("merge_pull_request", json!({"number": 7})),
        ("search", json!({"query": "release checklist"})),
    ];

    println!("Each agent assembles its registry from the same two MCP servers, gated by");
    println!("its allowedTools, then makes the same five calls. A tool gated out is never");
    println!("registered: calling it is error -32602 (unknown tool) and the server never sees it.");
    println!();
    for (agent, summary, config) in profiles {
        let mut servers = servers()?;
        let allowed: AllowedTools = serde_json::from_str(config)?;
        println!("agent {agent} ({summary})");
        println!("  allowedTools = {config}");
        let registry = Registry::assemble(&mut servers, &allowed)?;
        println!("  registered tools:");
        registry.print();
        println!("  calls:");
        for (name, arguments) in &calls {
            let outcome = registry.call(&mut servers, name, arguments.clone())?;
            println!("    {name} {arguments} -> {outcome}");
        }
        println!("  what each server actually received:");
        for server in &servers {
            println!(
                "    {:<16} tools/call for [{}]",
                server.name,
                server.calls_received.join(", ")
            );
        }
        println!();
    }
    Ok(())
}
