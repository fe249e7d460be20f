//! A minimal stdio MCP server built on rmcp, the official Rust SDK, serving
//! one `echo` tool that returns its `text` argument.
//!
//! It is the baseline `hanzo-mcp`'s stdio benchmark runs side by side with
//! (crates/mcp-server/benches/stdio.rs and rmcp.rs): startup, round trip and peak RSS.
//! It is rmcp's fastest stdio set-up: a current-thread runtime, and
//! `rmcp::transport::io::stdio_pipes()`, which drives stdin and stdout
//! through the event loop when they are pipes (as a client launching the
//! server makes them) instead of handing each read and write to the
//! blocking pool.
//!
//! Run: `cargo run -p mcp-examples --example rmcp_echo_server` and speak MCP
//! on stdin.

#[path = "rmcp_echo/echo.rs"]
mod echo;

use echo::Echo;
use rmcp::ServiceExt;

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
