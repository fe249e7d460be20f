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
//! A second part, `surface`, measures what the twelve local tools cost
//! against seven, with no rmcp server: spawn → `initialize` answered and
//! the first `tools/list` after it (median of 30 spawns each, alternating),
//! of `hanzo-mcp serve` with every tool and with `--allowed-tools` keeping
//! only `fs`, `code`, `workspace`, `exec`, `git`, `fetch` and `ui` (the
//! state tools `think`, `memory`, `plan`, `tasks` and `mode` gated out:
//! still built, and `mode` still applied, but never listed); then warm
//! round trips (median, p99 of 2,000) of `tools/list` and of `fs` `help` in
//! mode `full` (the list rendered once, then copied; calls not checked)
//! and in mode `review` (the list narrowed, and each call checked, per
//! request).
//!
//! Run (release; builds the rmcp server first):
//!
//! ```sh
//! cargo build --release -p mcp-examples --example rmcp_echo_server
//! cargo bench -p mcp-local-server --bench stdio
//! ```
//!
//! `STDIO_BENCH=calls` or `STDIO_BENCH=surface` runs one part.
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
use stdio::{Proc, hermetic, load_average};

const SPAWNS: usize = 30;
const CALLS: usize = 10_000;
const WARM: usize = 2_000;

/// The local tools other than the state tools and `mode`.
const SEVEN: &str = r#"{"local":["fs","code","workspace","exec","git","fetch","ui"]}"#;

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
    spawn_with(program, args, &[])
}

/// [`spawn`] with these variables set.
fn spawn_with(program: &Path, args: &[String], env: &[(&str, &Path)]) -> Proc {
    let mut command = Command::new(program);
    hermetic(&mut command);
    command.args(args).env("RUST_LOG", "error");
    for (key, value) in env {
        command.env(key, value);
    }
    Proc::start(command)
}

/// Whether `STDIO_BENCH` (a comma-separated list) picks `part`; without
/// it, every part runs.
fn picked(part: &str) -> bool {
    match std::env::var("STDIO_BENCH") {
        Ok(parts) => parts.split(',').any(|p| p.trim() == part),
        Err(_) => true,
    }
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
    if picked("calls") {
        calls_part();
    }
    if picked("surface") {
        surface_part();
    }
}

/// One server configuration of the `surface` part.
struct Surface {
    name: &'static str,
    args: Vec<String>,
    tools: usize,
}

#[derive(Default)]
struct SurfaceFigures {
    startup: Vec<Duration>,
    first_list: Vec<Duration>,
    list_bytes: usize,
}

fn surface_once(program: &Path, state: &Path, surface: &Surface, figures: &mut SurfaceFigures) {
    let start = Instant::now();
    let mut proc = spawn_with(program, &surface.args, &[("HANZO_MCP_STATE", state)]);
    let answer = proc.initialize_only("2025-11-25", json!({}));
    figures.startup.push(start.elapsed());
    assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
    proc.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let listing = Instant::now();
    proc.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let line = proc.response(1).to_owned();
    figures.first_list.push(listing.elapsed());
    let list: serde_json::Value = serde_json::from_str(&line).expect("JSON");
    let tools = list["result"]["tools"].as_array().map_or(0, Vec::len);
    assert_eq!(tools, surface.tools, "{}", surface.name);
    figures.list_bytes = line.len();
    proc.finish();
}

/// Median and p99 of `WARM` warm round trips of `request` (with `"ID"`
/// for its id) in mode `mode`, and the size of one answer.
fn warm(
    program: &Path,
    state: &Path,
    args: &[String],
    mode: &str,
    request: &str,
) -> (Duration, Duration, usize) {
    let mut proc = spawn_with(program, args, &[("HANZO_MCP_STATE", state)]);
    proc.handshake("2025-11-25", json!({}));
    let set = proc.call(
        0,
        "tools/call",
        json!({ "name": "mode", "arguments": { "action": "set", "name": mode } }),
    );
    assert!(set["result"]["isError"].is_null(), "{set}");
    let mut samples = Vec::with_capacity(WARM);
    let mut bytes = 0;
    for id in 1..=WARM {
        let line = request.replace("\"ID\"", &id.to_string());
        let start = Instant::now();
        proc.send_line(&line);
        let answer = proc.response(id as u64);
        samples.push(start.elapsed());
        assert!(!answer.contains("\"error\""), "{answer}");
        bytes = answer.len();
    }
    proc.finish();
    (
        percentile(&mut samples, 0.5),
        percentile(&mut samples, 0.99),
        bytes,
    )
}

/// Twelve local tools against seven: start-up, first `tools/list`, and a
/// warm `tools/list` in modes `full` and `review`.
fn surface_part() {
    let root = tempfile::tempdir().expect("tempdir");
    let state = tempfile::tempdir().expect("state");
    let program = std::env::var_os("HANZO_MCP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_hanzo-mcp")));
    let base: Vec<String> = vec![
        "serve".into(),
        "--no-door".into(),
        "--log-level".into(),
        "error".into(),
        "--root".into(),
        root.path().display().to_string(),
    ];
    let mut seven = base.clone();
    seven.extend(["--allowed-tools".into(), SEVEN.into()]);
    let surfaces = [
        Surface {
            name: "12 tools",
            args: base.clone(),
            tools: 12,
        },
        Surface {
            name: "7 tools",
            args: seven,
            tools: 7,
        },
    ];
    let load_before = load_average();
    let mut figures: Vec<SurfaceFigures> =
        surfaces.iter().map(|_| SurfaceFigures::default()).collect();
    for _ in 0..SPAWNS {
        for (surface, figures) in surfaces.iter().zip(figures.iter_mut()) {
            surface_once(&program, state.path(), surface, figures);
        }
    }
    let list = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/list"}"#;
    let help = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}"#;
    let mut warm_rows = Vec::new();
    for (request, what) in [(list, "tools/list"), (help, "fs help")] {
        for mode in ["full", "review"] {
            let figures = warm(&program, state.path(), &base, mode, request);
            warm_rows.push((what, mode, figures));
        }
    }
    println!(
        "load average (1, 5, 15 min) before: {load_before}; after: {}",
        load_average()
    );
    println!(
        "{:<10} {:>16} {:>20} {:>12}",
        "server", "init median", "first list median", "list bytes"
    );
    for (surface, figures) in surfaces.iter().zip(figures.iter_mut()) {
        println!(
            "{:<10} {:>13.2} ms {:>17.2} ms {:>12}",
            surface.name,
            percentile(&mut figures.startup, 0.5).as_secs_f64() * 1e3,
            percentile(&mut figures.first_list, 0.5).as_secs_f64() * 1e3,
            figures.list_bytes
        );
    }
    println!(
        "{:<18} {:>16} {:>16} {:>12}",
        "request, mode", "median", "p99", "answer bytes"
    );
    for (what, mode, (median, p99, bytes)) in warm_rows {
        println!(
            "{:<18} {:>13.1} us {:>13.1} us {:>12}",
            format!("{what}, {mode}"),
            median.as_secs_f64() * 1e6,
            p99.as_secs_f64() * 1e6,
            bytes
        );
    }
}

/// hanzo-mcp's start-up and trivial calls, next to rmcp's.
fn calls_part() {
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
