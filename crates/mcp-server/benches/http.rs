//! tools/call requests per second over streamable HTTP on loopback, with 1
//! and 16 concurrent clients, for a trivial tool. Both wire styles:
//! 2026-07-28 (stateless: each POST is its own server connection) and
//! 2025-11-25 (one session shared by the clients, opened with `initialize`
//! and `notifications/initialized`).
//!
//! `CARGO_TARGET_DIR=/work/target-http cargo bench -p mcp-local-server --bench http`
//! Criterion's "thrpt" line is requests per second.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::source::{BoxFuture, SourceList, ToolSource};
use mcp_local_server::{Composition, Server, ServerConfig};
use mcp_proto::{Implementation, Tool};
use serde_json::{Value, json};

/// `echo`: returns its `text` argument as one text block.
struct Echo;

impl ToolSource for Echo {
    fn name(&self) -> &str {
        "bench"
    }

    fn list_tools(&self) -> BoxFuture<'_, SourceList> {
        Box::pin(async {
            let tool: Tool = serde_json::from_value(json!({
                "name": "echo", "description": "Echoes `text`.",
                "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } }
            }))
            .expect("echo tool literal");
            SourceList {
                tools: vec![tool],
                meta: None,
            }
        })
    }

    fn owns(&self, tool: &str) -> bool {
        tool == "echo"
    }

    fn call_tool(
        &self,
        call: mcp_local_server::source::CallRequest,
        _cx: mcp_local_server::CallContext,
    ) -> mcp_local_server::source::ToolCall<'_> {
        Box::pin(async move {
            let params = call.params()?;
            let answered: Result<Value, mcp_proto::ErrorObject> = async move {
                let text = params
                    .arguments
                    .as_ref()
                    .and_then(|a| a.get("text"))
                    .cloned()
                    .unwrap_or(Value::Null);
                Ok(json!({ "content": [ { "type": "text", "text": text } ] }))
            }
            .await;
            mcp_local_server::source::result_text(&answered?)
        })
    }
}

struct Target {
    url: String,
    client: reqwest::Client,
    session: Option<String>,
}

async fn start() -> String {
    let info: Implementation =
        serde_json::from_value(json!({ "name": "bench", "version": "0" })).expect("info");
    let sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(Echo)];
    let server = Arc::new(Server::new(
        Composition::new(sources),
        ServerConfig::new(info),
    ));
    let (tx, rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let addr: SocketAddr = "127.0.0.1:0".parse().expect("address");
    tokio::spawn(serve_http(
        server,
        addr,
        HttpConfig::default(),
        move |bound| {
            let _ = tx.send(bound);
        },
        std::future::pending(),
    ));
    format!("http://{}/mcp", rx.await.expect("bound"))
}

impl Target {
    async fn open_session(&mut self) {
        let response = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .json(
                &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": { "name": "bench", "version": "0" } }}),
            )
            .send()
            .await
            .expect("initialize");
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("session id")
            .to_owned();
        // The lifecycle's second step (MCP 2025-11-25 basic/lifecycle).
        let status = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &id)
            .header("mcp-protocol-version", "2025-11-25")
            .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .send()
            .await
            .expect("initialized")
            .status();
        assert_eq!(status.as_u16(), 202, "notifications/initialized answered");
        self.session = Some(id);
    }

    async fn call(&self, id: u64) {
        let mut params = json!({ "name": "echo", "arguments": { "text": "hi" } });
        let mut request = self
            .client
            .post(&self.url)
            .header("accept", "application/json, text/event-stream");
        match &self.session {
            Some(session) => {
                request = request
                    .header("mcp-session-id", session)
                    .header("mcp-protocol-version", "2025-11-25");
            }
            None => {
                params["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                });
                request = request
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "echo");
            }
        }
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
        let reply: Value = request
            .json(&body)
            .send()
            .await
            .expect("call answered")
            .json()
            .await
            .expect("JSON reply");
        assert_eq!(reply["result"]["content"][0]["text"], "hi");
    }
}

/// Runs `iters` calls split over `clients` concurrent tasks; the wall time.
async fn run(target: &Arc<Target>, clients: u64, iters: u64) -> Duration {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let target = target.clone();
        let share = iters / clients + u64::from(c < iters % clients);
        tasks.push(tokio::spawn(async move {
            for i in 0..share {
                target.call(c * 1_000_000_000 + i + 1).await;
            }
        }));
    }
    for task in tasks {
        task.await.expect("client task");
    }
    started.elapsed()
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut group = c.benchmark_group("http_tools_call");
    group.throughput(Throughput::Elements(1));
    for style in ["2026-07-28", "2025-11-25"] {
        let target = runtime.block_on(async {
            let mut target = Target {
                url: start().await,
                client: reqwest::Client::new(),
                session: None,
            };
            if style == "2025-11-25" {
                target.open_session().await;
            }
            Arc::new(target)
        });
        for clients in [1u64, 16] {
            group.bench_function(format!("{style}/{clients}_clients"), |b| {
                b.iter_custom(|iters| runtime.block_on(run(&target, clients, iters)));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
