//! tools/call requests per second over streamable HTTP on loopback, with 1
//! and 16 concurrent clients, for a trivial tool. Both wire styles:
//! 2026-07-28 (stateless: each POST is its own server connection) and
//! 2025-11-25 (one session shared by the clients, opened with `initialize`
//! and `notifications/initialized`).
//!
//! `CARGO_TARGET_DIR=/work/target-http cargo bench -p mcp-local-server --bench http`
//! Criterion's "thrpt" line is requests per second.

#[path = "../tests/it/common/http.rs"]
mod http;
#[path = "../tests/it/common/tools.rs"]
mod tools;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use http::{Http, Listening, Session, listen};
use mcp_local_server::http::HttpConfig;
use serde_json::{Value, json};
use tools::{Tools, text};

/// The tests' HTTP client, in a session (2025-11-25) or not (2026-07-28).
struct Target {
    http: Http,
    session: Option<Session>,
    _server: Listening,
}

/// A server whose one tool, `echo`, returns its `text` argument as one
/// text block.
async fn start() -> Listening {
    let echo = json!({
        "name": "echo", "description": "Echoes `text`.",
        "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } } }
    });
    let tools = Tools::from_json("bench", vec![echo], |params, _cx| async move {
        let said = params
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        text(said)
    });
    listen(Arc::new(tools.serve("bench")), HttpConfig::default()).await
}

impl Target {
    async fn call(&self, id: u64) {
        let mut params = json!({ "name": "echo", "arguments": { "text": "hi" } });
        let response = match &self.session {
            Some(session) => {
                let body =
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
                session.post(&body).await
            }
            None => {
                params["_meta"] = json!({
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {}
                });
                let body =
                    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
                self.http.post_stateless(&body).await
            }
        };
        let reply: Value = response.json().await.expect("JSON reply");
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
            let listening = start().await;
            let http = listening.client();
            // The lifecycle's two steps (MCP 2025-11-25 basic/lifecycle).
            let session = if style == "2025-11-25" {
                Some(http.open_session(json!({})).await)
            } else {
                None
            };
            Arc::new(Target {
                http,
                session,
                _server: listening,
            })
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
