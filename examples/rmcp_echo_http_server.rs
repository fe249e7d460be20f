//! An MCP server over streamable HTTP built on rmcp, the official Rust SDK,
//! serving one `echo` tool that returns its `text` argument: the baseline
//! the HTTP rows of `hanzo-mcp`'s benchmark run against
//! (crates/mcp-server/benches/rmcp.rs).
//!
//! It is rmcp's fastest HTTP set-up: `StreamableHttpService` in stateless
//! mode (no session, `legacy_session_mode: false`) answering with
//! `application/json` (`json_response: true`) instead of an SSE stream,
//! the service handed to hyper's HTTP/1 connection directly (no router in
//! front), on a Tokio runtime with two workers as `hanzo-mcp serve --http`
//! has. The server is the stdio example's (`rmcp_echo/echo.rs`).
//!
//! Run: `cargo run -p mcp-examples --example rmcp_echo_http_server -- 127.0.0.1:8080`
//! (port 0, the default, picks a free port). The first line on stdout is
//! `listening on http://ADDR/mcp`.

#[path = "rmcp_echo/echo.rs"]
mod echo;

use std::net::SocketAddr;
use std::sync::Arc;

use echo::Echo;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

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
