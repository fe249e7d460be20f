//! tools/call requests per second over streamable HTTP on loopback, with 1
//! and 16 concurrent clients, for a trivial tool. Both wire styles:
//! 2026-07-28 (stateless: each POST is its own request, no session) and
//! 2025-11-25 (one session shared by the clients, opened with `initialize`
//! and `notifications/initialized`).
//!
//! Each client is one kept-alive connection of the thin HTTP/1.1 client of
//! the tests' `common/http.rs` (`Connection`: no HTTP library, no JSON decoding of the
//! answer, only a check that it holds the echoed text), so that the figures
//! follow the server's cost rather than the client's. Server and clients
//! share one 2-worker Tokio runtime.
//!
//! `cargo bench -p mcp-local-server --bench http`
//! Criterion's "thrpt" line is requests per second.

#[path = "../tests/it/common/http.rs"]
mod http;
#[path = "../tests/it/common/tools.rs"]
mod tools;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use http::{Connection, Listening, Session, find, listen};
use mcp_local_server::http::HttpConfig;
use serde_json::{Value, json};
use tools::{Tools, text};

/// Where the clients connect, and what each of their requests carries.
struct Target {
    addr: SocketAddr,
    /// The headers of every request (the session's, or the stateless ones).
    headers: String,
    stateless: bool,
    _session: Option<Session>,
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

/// The body of `tools/call` `echo` `{"text":"hi"}` with request id `id`;
/// stateless requests carry the 2026-07-28 `_meta`.
fn call_body(id: u64, stateless: bool) -> Vec<u8> {
    let meta = if stateless {
        r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#
    } else {
        ""
    };
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}}{meta}}}}}"#
    )
    .into_bytes()
}

/// Runs `iters` calls split over `clients` connections, each its own task
/// posting one call after another (ids unique across the clients); the
/// wall time, connections opened before the clock starts.
async fn run(target: &Arc<Target>, clients: u64, iters: u64) -> Duration {
    let mut connections = Vec::new();
    for _ in 0..clients {
        connections.push(Connection::open(target.addr, &target.headers).await);
    }
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (c, mut connection) in (0u64..).zip(connections) {
        let share = iters / clients + u64::from(c < iters % clients);
        let stateless = target.stateless;
        tasks.push(tokio::spawn(async move {
            for i in 0..share {
                let body = call_body(c * 1_000_000_000 + i + 1, stateless);
                let answer = connection.post(&body).await;
                assert!(
                    find(answer, br#""text":"hi""#).is_some(),
                    "{}",
                    String::from_utf8_lossy(answer)
                );
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
            let headers = match &session {
                Some(session) => Connection::session_headers(&session.id),
                None => Connection::stateless_call_headers("echo"),
            };
            Arc::new(Target {
                addr: listening.addr,
                headers,
                stateless: session.is_none(),
                _session: session,
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
