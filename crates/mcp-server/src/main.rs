//! `hanzo-mcp`: see the `mcp_local_server` crate docs. `hanzo-mcp door`
//! serves a HIP-0300 door through the `mcp-door` crate.

mod door_command;

use std::process::ExitCode;

use clap::{Args, CommandFactory, FromArgMatches};
use mcp_local_server::cli::Cli;

fn main() -> ExitCode {
    let door = door_command::DoorArgs::augment_args(clap::Command::new("door"));
    let matches = Cli::command().subcommand(door).get_matches();
    if let Some(("door", m)) = matches.subcommand() {
        return match door_command::DoorArgs::from_arg_matches(m) {
            Ok(args) => door_command::run(args),
            Err(e) => e.exit(),
        };
    }
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => mcp_local_server::cli::run(cli, &matches),
        Err(e) => e.exit(),
    }
}
