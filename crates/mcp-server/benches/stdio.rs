//! `hanzo-mcp serve` over stdio pipes, side by side with a minimal rmcp
//! (official Rust SDK) stdio server serving one `echo` tool, in the same run:
//!
//! - spawn → `initialize` answered (median of 30 spawns);
//! - sequential `tools/call` round trip of a trivial call (median, p99 over
//!   10,000 calls): `fs` `help` for hanzo-mcp (static text, no file
//!   touched, like rmcp's `echo`), `echo` for rmcp; and, as a second
//!   hanzo-mcp row, `fs` `read` of a one-line file (a path resolved inside
//!   the roots, a file opened and read on the blocking pool);
//! - peak RSS (`VmHWM`) of the server after those 10,000 calls.
//!
//! The ratio rows divide each hanzo-mcp row by the rmcp row. The goal of
//! goal (every ratio at most 1.0) is about the trivial call.
//!
//! Run (release; builds the rmcp server first):
//!
//! ```sh
//! cargo build --release -p mcp-examples --example rmcp_echo_server
//! cargo bench -p mcp-local-server --bench stdio
//! ```
//!
//! The rmcp server is looked up at `$RMCP_ECHO_SERVER`, else next to this
//! bench in `<target>/release/examples/rmcp_echo_server`; `$HANZO_MCP_BIN`
//! measures another build of hanzo-mcp in place of the one cargo built.

#[path = "../tests/it/common/stdio.rs"]
mod stdio;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;
use stdio::{Proc, hermetic};

const SPAWNS: usize = 30;
const CALLS: usize = 10_000;

struct Subject {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    call: String,
    expect: &'static str,
}

#[derive(Default)]
struct Figures {
    startup: Vec<Duration>,
    round_trip: Vec<Duration>,
    peak_rss_kib: u64,
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

/// `program args`, logging errors only, with none of our `HANZO_*`.
fn spawn(program: &Path, args: &[String]) -> Proc {
    let mut command = Command::new(program);
    hermetic(&mut command);
    command.args(args).env("RUST_LOG", "error");
    Proc::start(command)
}

fn startup_once(subject: &Subject) -> Duration {
    let start = Instant::now();
    let mut proc = spawn(&subject.program, &subject.args);
    let answer = proc.initialize_only("2025-11-25", json!({}));
    let elapsed = start.elapsed();
    assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
    proc.finish();
    elapsed
}

fn calls(subject: &Subject, figures: &mut Figures) {
    let mut proc = spawn(&subject.program, &subject.args);
    proc.handshake("2025-11-25", json!({}));
    for id in 1..=CALLS {
        let line = subject.call.replace("\"ID\"", &id.to_string());
        let start = Instant::now();
        proc.send_line(&line);
        let answer = proc.response(id as u64);
        figures.round_trip.push(start.elapsed());
        if id == 1 {
            assert!(
                answer.contains(subject.expect),
                "{}: {answer}",
                subject.name
            );
        }
    }
    figures.peak_rss_kib = proc.peak_rss_kib();
    proc.finish();
}

/// The first three fields of `/proc/loadavg`: how busy the machine was.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|text| {
            text.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|_| "unknown".into())
}

fn rmcp_server() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("RMCP_ECHO_SERVER") {
        return Some(PathBuf::from(path));
    }
    // <target>/release/deps/stdio-<hash> → <target>/release/examples/
    let exe = std::env::current_exe().ok()?;
    let path = exe
        .parent()?
        .parent()?
        .join("examples")
        .join("rmcp_echo_server");
    path.exists().then_some(path)
}

fn main() {
    // `cargo test --benches` runs this with `--bench` absent: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let root = tempfile::tempdir().expect("tempdir");
    let file = root.path().join("one.txt");
    std::fs::write(&file, "hello\n").expect("write");
    let hanzo_args: Vec<String> = vec![
        "serve".into(),
        "--no-door".into(),
        "--log-level".into(),
        "error".into(),
        "--root".into(),
        root.path().display().to_string(),
    ];
    // Another build of hanzo-mcp (say one linked another way) can
    // be measured in place of this one.
    let program = std::env::var_os("HANZO_MCP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hanzo-mcp")));
    let mut subjects = vec![
        Subject {
            name: "hanzo help",
            program: program.clone(),
            args: hanzo_args.clone(),
            call: r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}"#.into(),
            expect: "Every result is capped",
        },
        Subject {
            name: "hanzo read",
            program,
            args: hanzo_args,
            call: format!(
                r#"{{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{{"name":"fs","arguments":{{"action":"read","path":{}}}}}}}"#,
                serde_json::to_string(&file.display().to_string()).expect("json")
            ),
            expect: "hello",
        },
    ];
    match rmcp_server() {
        Some(program) => subjects.push(Subject {
            name: "rmcp echo",
            program,
            args: Vec::new(),
            call: r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#.into(),
            expect: "hello",
        }),
        None => eprintln!(
            "rmcp_echo_server not found: build it with \
             `cargo build --release -p mcp-examples --example rmcp_echo_server` \
             or set RMCP_ECHO_SERVER; measuring hanzo-mcp alone"
        ),
    }
    let load_before = load_average();
    let mut figures: Vec<Figures> = subjects.iter().map(|_| Figures::default()).collect();
    // Interleave the spawns so both servers see the same machine load.
    for _ in 0..SPAWNS {
        for (subject, figures) in subjects.iter().zip(figures.iter_mut()) {
            figures.startup.push(startup_once(subject));
        }
    }
    for (subject, figures) in subjects.iter().zip(figures.iter_mut()) {
        calls(subject, figures);
    }

    println!(
        "load average (1, 5, 15 min) before: {load_before}; after: {}",
        load_average()
    );
    println!(
        "{:<12} {:>16} {:>16} {:>16} {:>14}",
        "server", "init median", "call median", "call p99", "peak RSS"
    );
    let mut rows = Vec::new();
    for (subject, figures) in subjects.iter().zip(figures.iter_mut()) {
        let startup = percentile(&mut figures.startup, 0.5);
        let median = percentile(&mut figures.round_trip, 0.5);
        let p99 = percentile(&mut figures.round_trip, 0.99);
        let rss = figures.peak_rss_kib as f64 / 1024.0;
        println!(
            "{:<12} {:>13.2} ms {:>13.1} us {:>13.1} us {:>10.2} MiB",
            subject.name,
            startup.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6,
            rss
        );
        rows.push((startup, median, p99, rss));
    }
    if let Some((theirs, ours)) = rows.split_last()
        && subjects.len() == 3
    {
        for (subject, row) in subjects.iter().zip(ours) {
            println!(
                "{:<12} {:>16.2} {:>16.2} {:>16.2} {:>14.2}",
                format!("ratio {}", subject.name.trim_start_matches("hanzo ")),
                row.0.as_secs_f64() / theirs.0.as_secs_f64(),
                row.1.as_secs_f64() / theirs.1.as_secs_f64(),
                row.2.as_secs_f64() / theirs.2.as_secs_f64(),
                row.3 / theirs.3
            );
        }
    }
}
