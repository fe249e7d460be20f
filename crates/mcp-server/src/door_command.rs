//! `hanzo-mcp door`: serves a HIP-0300 door (§1) from OpenAPI documents,
//! through the `mcp-door` crate.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use mcp_door::{Door, DoorConfig, OpenApiSource, ProjectionConfig};

/// Serve a HIP-0300 door: OpenAPI documents as one tool per subsystem at
/// POST /v1/mcp, forwarded to their REST upstreams.
#[derive(Debug, Clone, Args)]
pub struct DoorArgs {
    /// An OpenAPI 3.0 or 3.1 document (JSON or YAML) and the base URL its
    /// operations are forwarded to; without `=UPSTREAM`, the document's
    /// first absolute `servers[].url` (repeatable).
    #[arg(long = "openapi", value_name = "FILE[=UPSTREAM]", required = true)]
    pub openapi: Vec<String>,

    /// Where to listen (`IP:PORT`; port 0 picks a free one).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,

    /// The authorization server the protected-resource metadata names.
    #[arg(long, value_name = "URL")]
    pub issuer: Option<String>,

    /// The public origin clients reach the door at (default: each
    /// request's Host).
    #[arg(long, value_name = "URL")]
    pub origin: Option<String>,

    /// A browser origin besides the door's own allowed to call it
    /// (`https://app.example.com`; repeatable). Any other `Origin` is 403.
    #[arg(long = "allow-origin", value_name = "URL")]
    pub allow_origins: Vec<String>,

    /// A path prefix whose operations are not offered (repeatable).
    #[arg(long = "exclude-prefix", value_name = "PREFIX")]
    pub exclude_prefixes: Vec<String>,

    /// A tag whose operations are not offered (repeatable).
    #[arg(long = "exclude-tag", value_name = "TAG")]
    pub exclude_tags: Vec<String>,

    /// The longest a forwarded call may take, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "30")]
    pub timeout: u64,
}

/// Runs the door until the process is stopped.
pub fn run(args: DoorArgs) -> ExitCode {
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
    let mut sources = Vec::new();
    for arg in &args.openapi {
        match OpenApiSource::from_arg(arg) {
            Ok(source) => sources.push(source),
            Err(e) => return fail(&e.to_string()),
        }
    }
    let config = DoorConfig {
        projection: ProjectionConfig {
            excluded_prefixes: args.exclude_prefixes.clone(),
            excluded_tags: args.exclude_tags.clone(),
            ..ProjectionConfig::default()
        },
        issuer: args.issuer.clone(),
        origin: args.origin.clone(),
        allowed_origins: args.allow_origins.clone(),
        timeout: Duration::from_secs(args.timeout.max(1)),
        ..DoorConfig::default()
    };
    let door = match Door::new(sources, config) {
        Ok(door) => door,
        Err(e) => return fail(&e.to_string()),
    };
    let projection = door.projection();
    for entry in projection.unavailable() {
        eprintln!("hanzo-mcp door: unavailable: {entry}");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(args.listen).await {
            Ok(l) => l,
            Err(e) => return fail(&format!("cannot listen on {}: {e}", args.listen)),
        };
        let addr = listener.local_addr().unwrap_or(args.listen);
        let count =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        eprintln!(
            "hanzo-mcp door: listening on http://{addr}/v1/mcp ({}, {}, {} withheld)",
            count(projection.tools().len(), "tool", "tools"),
            count(projection.ops().count(), "op", "ops"),
            projection.refused().len()
        );
        drop(projection);
        mcp_door::serve(listener, Arc::new(door)).await;
        ExitCode::SUCCESS
    })
}

fn fail(message: &str) -> ExitCode {
    eprintln!("hanzo-mcp door: {message}");
    ExitCode::FAILURE
}
