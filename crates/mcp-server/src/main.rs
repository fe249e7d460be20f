//! `hanzo-mcp`: see the `mcp_local_server` crate docs. `hanzo-mcp door`
//! (feature `door`) serves a HIP-0300 door through the `mcp-door` crate.

#[cfg(feature = "door")]
mod door_command;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};
use mcp_local_server::cli::Cli;

/// The whole command line: [`Cli`] and, with the `door` feature, `door`.
fn command() -> clap::Command {
    #[cfg(feature = "door")]
    {
        use clap::Args as _;
        let door = door_command::DoorArgs::augment_args(
            clap::Command::new("door").about("Serve a HIP-0300 door over HTTP (mcp-door)"),
        );
        Cli::command().subcommand(door)
    }
    #[cfg(not(feature = "door"))]
    Cli::command()
}

fn main() -> ExitCode {
    let matches = command().get_matches();
    match matches.subcommand() {
        #[cfg(feature = "door")]
        Some(("door", m)) => {
            return match door_command::DoorArgs::from_arg_matches(m) {
                Ok(args) => door_command::run(args),
                Err(e) => e.exit(),
            };
        }
        Some(("completions", m)) => {
            if let Some(shell) = m.get_one::<clap_complete::Shell>("shell") {
                use std::io::Write as _;
                let script = completions(*shell);
                if std::io::stdout().write_all(&script).is_err() {
                    return ExitCode::FAILURE;
                }
            }
            return ExitCode::SUCCESS;
        }
        Some(("man", _)) => {
            let rendered = clap_mangen::Man::new(command()).render(&mut std::io::stdout());
            return if rendered.is_ok() {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        _ => {}
    }
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => mcp_local_server::cli::run(cli, &matches),
        Err(e) => e.exit(),
    }
}

/// The completion script for `shell`. For bash, clap_complete spells the
/// states of a subcommand of a program whose name has a `-` one way where
/// it computes them (`hanzo__mcp__subcmd__install`) and another in the
/// `case` arms (`hanzo__subcmd__mcp__subcmd__install`), so nothing after
/// the subcommand completed; the arms are respelled the way the state is
/// computed.
fn completions(shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command(), "hanzo-mcp", &mut script);
    if shell == clap_complete::Shell::Bash {
        let text = String::from_utf8_lossy(&script);
        return text
            .replace("hanzo__subcmd__mcp__subcmd__", "hanzo__mcp__subcmd__")
            .into_bytes();
    }
    script
}
