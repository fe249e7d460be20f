//! `hanzo-mcp`: see the `mcp_local_server` crate docs.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    mcp_local_server::cli::run(mcp_local_server::cli::Cli::parse())
}
