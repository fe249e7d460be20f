//! What mounting another MCP server costs: a `tools/call` through
//! `hanzo-mcp` to a mounted stdio server next to the same call sent to that
//! server directly, in one run, the four processes taking turns
//! (round-robin) so they see the same machine; and the `tools/list` of a
//! merged composition of three mounted servers.
//!
//! Servers mounted:
//!
//! - `everything`: the official `@modelcontextprotocol/server-everything`
//!   (Node.js; installed by npm on first use, as the tests do), `echo`;
//! - `fixture`: the tests' small Python server
//!   (`tests/fixtures/mounted_server.py`), `kb_ops`.
//!
//! A fifth subject, `everything via relay`, puts the least a process in
//! between can do in `hanzo-mcp`'s place: this bench binary run again as a
//! byte relay (two threads, each a blocking copy of one pipe into the
//! other; no parsing, no lines). Through the relay the call crosses the
//! same two extra pipes and wakes the same extra process as through
//! `hanzo-mcp`, so its ratio is the floor of any mounting proxy on this
//! machine; `hanzo-mcp`'s own share is its figure minus the relay's.
//!
//! `hanzo-mcp` runs as it ships (`cargo build --release`, or
//! `$HANZO_MCP_BIN`), `serve --no-door --server NAME=...`, at its default
//! log level. Figures, each the median over [`ROUNDS`] rounds of a
//! per-round figure: `call` and `p99` of [`CALLS`] sequential round trips
//! on one process (the first [`WARM_UP`] dropped), `added` = through −
//! direct, `ratio` = through ÷ direct; `list 3` = the first `tools/list`
//! of `hanzo-mcp` with three servers mounted (everything and the fixture
//! twice) and a loopback door, written → answered, after every server's
//! first list is in.
//!
//! Run: `cargo bench -p mcp-local-server --bench mounted`.

#[path = "../tests/it/common/servers.rs"]
mod servers;
#[path = "../tests/it/common/stdio.rs"]
mod stdio;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::json;
use stdio::{Proc, hermetic, percentile};

/// Rounds; every figure is the median of its per-round values.
const ROUNDS: usize = 11;
/// Sequential calls per process and round.
const CALLS: usize = 2_000;
/// Calls dropped at the start of each round's process.
const WARM_UP: usize = 200;

/// Set (to anything) in the environment of this binary run again as the
/// byte relay; its arguments are then the server's command line.
const RELAY: &str = "MOUNTED_BENCH_RELAY";

/// The byte relay: spawns the command in `args` and copies stdin into its
/// stdin and its stdout into stdout, each on its own thread, until either
/// side closes; exits when the child does.
fn relay(args: &[String]) -> ! {
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn the relayed server");
    let mut to_child = child.stdin.take().expect("stdin");
    let mut from_child = child.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_child);
    });
    let _ = std::io::copy(&mut from_child, &mut std::io::stdout().lock());
    let status = child.wait().map_or(1, |s| s.code().unwrap_or(1));
    std::process::exit(status)
}

/// One way to reach one server.
struct Subject {
    name: String,
    command: Command,
    /// A `tools/call` line; `"ID"` is replaced by the id.
    call: &'static str,
    /// What its answer contains.
    expect: &'static str,
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort_unstable();
    values[values.len() / 2]
}

/// The `hanzo-mcp` measured: `$HANZO_MCP_BIN`, else the release build
/// (built now, by its own cargo invocation, so no dev-dependency feature
/// leaks into it).
fn hanzo_mcp() -> PathBuf {
    if let Some(path) = std::env::var_os("HANZO_MCP_BIN") {
        return PathBuf::from(path);
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "mcp-local-server",
            "--bin",
            "hanzo-mcp",
        ])
        .status()
        .expect("cargo");
    assert!(status.success(), "cargo build --release failed");
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"),
        PathBuf::from,
    );
    target.join("release/hanzo-mcp")
}

/// `hanzo-mcp serve --no-door` with `servers` mounted (`NAME=COMMAND`).
fn through(binary: &PathBuf, servers: &[String], extra: &[&str]) -> Command {
    let mut command = Command::new(binary);
    hermetic(&mut command);
    command.env_remove("RUST_LOG").args(["serve", "--root"]);
    command.arg(std::env::temp_dir());
    for server in servers {
        command.args(["--server", server]);
    }
    command.args(["--server-wait", "60"]).args(extra);
    command
}

/// [`CALLS`] sequential calls after the handshake and a `tools/list`:
/// median and p99.
fn calls(subject: &mut Subject) -> (Duration, Duration) {
    let mut proc = Proc::start_with_stderr(
        std::mem::replace(&mut subject.command, Command::new("true")),
        Stdio::null(),
    );
    proc.handshake("2025-11-25", json!({}));
    proc.send_line(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#);
    proc.response(0);
    let mut times = proc.timed_calls(subject.call, CALLS, WARM_UP, subject.expect, &subject.name);
    proc.finish();
    (percentile(&mut times, 0.5), percentile(&mut times, 0.99))
}

fn main() {
    if std::env::var_os(RELAY).is_some() {
        relay(&std::env::args().skip(1).collect::<Vec<_>>());
    }
    let binary = hanzo_mcp();
    let everything = servers::server_everything();
    let fixture = servers::fixture();
    let logs = tempfile::tempdir().expect("a folder for the fixture's log");
    let log = logs.path().join("fixture.log");
    let everything_cmd = format!("node {} stdio", everything.display());
    let fixture_cmd = |prefix: &str| {
        format!(
            "python3 {fixture} --prefix {prefix} --log {}",
            log.display()
        )
    };
    const ECHO: &str = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}"#;
    const OPS: &str = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"kb_ops","arguments":{"action":"read"}}}"#;
    let direct = |program: &str| {
        let words = shlex::split(program).expect("a command line");
        let mut command = Command::new(&words[0]);
        command.args(&words[1..]);
        command
    };
    // (direct, through) pairs, rebuilt each round (a Command is spent).
    let subjects = |_: usize| -> Vec<Subject> {
        vec![
            Subject {
                name: "everything direct".into(),
                command: direct(&everything_cmd),
                call: ECHO,
                expect: "Echo: hello",
            },
            Subject {
                name: "everything via hanzo-mcp".into(),
                command: through(
                    &binary,
                    &[format!("everything={everything_cmd}")],
                    &["--no-door"],
                ),
                call: ECHO,
                expect: "Echo: hello",
            },
            Subject {
                name: "everything via relay".into(),
                command: {
                    let mut command =
                        Command::new(std::env::current_exe().expect("this bench's path"));
                    command
                        .env(RELAY, "1")
                        .args(shlex::split(&everything_cmd).expect("words"));
                    command
                },
                call: ECHO,
                expect: "Echo: hello",
            },
            Subject {
                name: "fixture direct".into(),
                command: direct(&fixture_cmd("kb_")),
                call: OPS,
                expect: "ran read",
            },
            Subject {
                name: "fixture via hanzo-mcp".into(),
                command: through(
                    &binary,
                    &[format!("kb={}", fixture_cmd("kb_"))],
                    &["--no-door"],
                ),
                call: OPS,
                expect: "ran read",
            },
        ]
    };
    let names: Vec<String> = subjects(0).into_iter().map(|s| s.name).collect();
    let mut medians: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    let mut p99s: Vec<Vec<Duration>> = vec![Vec::new(); names.len()];
    let mut lists = Vec::new();
    let door = FakeDoor::start(Behaviour::Normal).expect("fake door");
    for round in 0..ROUNDS {
        for (at, mut subject) in subjects(round).into_iter().enumerate() {
            let (call, p99) = calls(&mut subject);
            medians[at].push(call);
            p99s[at].push(p99);
        }
        // tools/list of three mounted servers and a door, once all are in.
        let mut command = through(
            &binary,
            &[
                format!("everything={everything_cmd}"),
                format!("kb={}", fixture_cmd("kb_")),
                format!("big={}", fixture_cmd("big_")),
            ],
            &[],
        );
        command.env("HANZO_MCP_DOOR", door.url());
        let mut proc = Proc::start_with_stderr(command, Stdio::null());
        proc.handshake("2025-11-25", json!({}));
        proc.send_line(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#);
        proc.response(0);
        let start = Instant::now();
        proc.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        let listed = proc.response(1).to_owned();
        lists.push(start.elapsed());
        assert!(
            listed.contains("\"big_echo\"") && listed.contains("\"get-sum\""),
            "{listed}"
        );
        proc.finish();
        eprintln!("round {}/{ROUNDS} done", round + 1);
    }
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    println!("\n{:<26} {:>10} {:>10}", "subject", "call µs", "p99 µs");
    let figures: Vec<(Duration, Duration)> = (0..names.len())
        .map(|at| (median(&mut medians[at]), median(&mut p99s[at])))
        .collect();
    for (name, (call, p99)) in names.iter().zip(&figures) {
        println!("{name:<26} {:>10.1} {:>10.1}", micros(*call), micros(*p99));
    }
    for pair in [(0, 1), (0, 2), (3, 4)] {
        let (direct, via) = (figures[pair.0], figures[pair.1]);
        println!(
            "{:<26} added {:>7.1} µs (p99 {:>7.1} µs), ratio {:.2}",
            names[pair.1],
            micros(via.0) - micros(direct.0),
            micros(via.1) - micros(direct.1),
            via.0.as_secs_f64() / direct.0.as_secs_f64()
        );
    }
    println!(
        "list 3 (everything, kb, big, door): {:.1} µs",
        micros(median(&mut lists))
    );
}
