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
        // Built with the rest, not deferred: its own `--config` must be
        // there before clap propagates the global one.
        let door = door_command::DoorArgs::augment_args(
            clap::Command::new("door").about("Serve a HIP-0300 door over HTTP (mcp-door)"),
        );
        Cli::command().subcommand(door)
    }
    #[cfg(not(feature = "door"))]
    Cli::command()
}

fn main() -> ExitCode {
    // `serve`, how every MCP client starts the server, is parsed against
    // `Cli` alone: the other subcommands are deferred, but `door`'s flags
    // would be built for nothing (some 30,000 instructions of start-up).
    // What `serve` accepts, and its help and errors, are the same.
    let serving = std::env::args_os().nth(1).is_some_and(|arg| arg == "serve");
    let mut command = if serving { Cli::command() } else { command() };
    let mut matches = command.get_matches_mut();
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
        Some(("man", m)) => return man(m.get_one::<std::path::PathBuf>("dir")),
        _ => {}
    }
    // How the subcommand's arguments were given, read before turning the
    // matches into `Cli` takes their values out.
    let given = matches
        .subcommand()
        .map(|(_, m)| mcp_local_server::config::GivenArgs::of(m))
        .unwrap_or_default();
    let cli = Cli::from_arg_matches_mut(&mut matches);
    // clap's tree of every flag, and the matches, are freed before the
    // server starts, so the session's memory reuses theirs (about 0.1 MiB
    // of peak heap for some 26,000 instructions of start-up).
    drop(matches);
    drop(command);
    match cli {
        Ok(cli) => mcp_local_server::cli::run(cli, &given),
        Err(e) => e.exit(),
    }
}

/// `hanzo-mcp man`: the top-level page on stdout, or with `dir` every
/// page written there and each file named on stdout; exit status 1 with
/// the reason when writing fails.
fn man(dir: Option<&std::path::PathBuf>) -> ExitCode {
    use std::io::Write as _;
    // No page is written for clap's `help` subcommand, so no page names
    // it; every page carries the version.
    let mut cmd = command()
        .disable_help_subcommand(true)
        .propagate_version(true);
    cmd.build();
    let Some(dir) = dir else {
        return match clap_mangen::Man::new(cmd).render(&mut std::io::stdout()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    };
    /// Writes the page of `cmd` and of each of its visible subcommands,
    /// deepest first, into `dir`; pushes each file's path.
    fn write_pages(
        cmd: &clap::Command,
        dir: &std::path::Path,
        written: &mut Vec<std::path::PathBuf>,
    ) -> std::io::Result<()> {
        for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
            write_pages(sub, dir, written)?;
        }
        written.push(clap_mangen::Man::new(cmd.clone()).generate_to(dir)?);
        Ok(())
    }
    // Built, each subcommand's page is named for its whole command line
    // (`hanzo-mcp-config-show.1`).
    let mut pages = Vec::new();
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| write_pages(&cmd, dir, &mut pages))
        .map(|()| pages);
    match written {
        Ok(pages) => {
            let mut out = std::io::stdout().lock();
            for page in pages {
                let _ = writeln!(out, "{}", page.display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "hanzo-mcp: man --dir {}: {error}",
                dir.display()
            );
            ExitCode::FAILURE
        }
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
