//! The `hanzo-mcp` command line (clap): `serve`, `tools`, `--version`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use mcp_proto::Implementation;
use tracing_subscriber::EnvFilter;

use crate::error::ServerError;
use crate::server::{Server, ServerConfig};
use crate::source::{Composition, ToolSource};
use crate::test_tools::TestTools;

/// `hanzo-mcp`: the local MCP server (HIP-0300 §2).
#[derive(Debug, Parser)]
#[command(
    name = "hanzo-mcp",
    version,
    about = "Local MCP server: the machine's tools over stdio, everything else forwarded to the Hanzo door"
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP over stdin/stdout (logs go to stderr).
    Serve(ServeArgs),
    /// Print the assembled tool list as JSON on stdout and exit.
    Tools(SourceArgs),
}

/// Options that decide which tools exist.
#[derive(Debug, Clone, Args)]
pub struct SourceArgs {
    /// A directory the local tools may read and write (repeatable).
    /// Default: the working directory.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,

    /// Adds the test-only `test_sleep` tool (for this crate's tests).
    #[arg(long, hide = true)]
    pub test_tools: bool,
}

/// Options of `serve`.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Which tools exist.
    #[command(flatten)]
    pub sources: SourceArgs,

    /// Log filter for stderr (`error`, `warn`, `info`, `debug`, `trace`, or
    /// a `RUST_LOG`-style directive). Default: `RUST_LOG`, else `info`.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

/// Runs the parsed command line; the process's exit status.
pub fn run(cli: Cli) -> ExitCode {
    let log_level = match &cli.command {
        Command::Serve(args) => args.log_level.clone(),
        Command::Tools(_) => None,
    };
    let default_level = match &cli.command {
        Command::Serve(_) => "info",
        Command::Tools(_) => "warn",
    };
    init_tracing(log_level.as_deref(), default_level);

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("hanzo-mcp: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(async {
        match cli.command {
            Command::Serve(args) => serve(args).await,
            Command::Tools(args) => print_tools(args).await,
        }
    });
    // stdin is read on a blocking thread that may still wait for input after
    // a signal; do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(100));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("hanzo-mcp: {error}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(flag: Option<&str>, default_level: &str) {
    let filter = match flag {
        Some(level) => EnvFilter::try_new(level),
        None => EnvFilter::try_from_default_env().or_else(|_| EnvFilter::try_new(default_level)),
    }
    .unwrap_or_else(|_| EnvFilter::new(default_level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// The server's `serverInfo`.
pub fn server_info() -> Implementation {
    let info = serde_json::json!({
        "name": "hanzo-mcp",
        "title": "Hanzo MCP (local)",
        "version": env!("CARGO_PKG_VERSION"),
    });
    match serde_json::from_value(info) {
        Ok(info) => info,
        Err(error) => unreachable!("the serverInfo literal is a valid Implementation: {error}"),
    }
}

/// The tool sources `args` describe, in routing order, and whether any of
/// their lists can change.
pub async fn assemble(args: &SourceArgs) -> Result<(Composition, bool), ServerError> {
    let roots =
        if args.roots.is_empty() {
            vec![std::env::current_dir().map_err(|e| {
                ServerError::Config(format!("cannot read the working directory: {e}"))
            })?]
        } else {
            args.roots.clone()
        };
    for root in &roots {
        if !root.is_dir() {
            return Err(ServerError::Config(format!(
                "--root {}: not a directory",
                root.display()
            )));
        }
    }
    let mut sources: Vec<Arc<dyn ToolSource>> = Vec::new();
    if args.test_tools {
        sources.push(Arc::new(TestTools));
    }
    sources.push(Arc::new(crate::local::LocalSource::new(roots)?));
    Ok((Composition::new(sources), false))
}

async fn serve(args: ServeArgs) -> Result<(), ServerError> {
    let (composition, list_changed) = assemble(&args.sources).await?;
    let mut config = ServerConfig::new(server_info());
    config.list_changed = list_changed;
    let server = Arc::new(Server::new(composition, config));
    server
        .serve(tokio::io::stdin(), tokio::io::stdout(), shutdown_signal())
        .await
}

async fn print_tools(args: SourceArgs) -> Result<(), ServerError> {
    let (composition, _) = assemble(&args).await?;
    let list = composition.list_tools().await;
    let mut out = serde_json::json!({ "tools": list.tools });
    if let Some(meta) = list.meta {
        out["_meta"] = serde_json::Value::Object(meta);
    }
    let text = serde_json::to_string_pretty(&out)
        .map_err(|e| ServerError::Config(format!("cannot serialize the tool list: {e}")))?;
    println!("{text}");
    Ok(())
}

/// Completes on SIGTERM or Ctrl-C (SIGINT).
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
