//! `hanzo-mcp` against rmcp's strongest configurations, in one run, the
//! servers taking turns (round-robin) so they see the same machine:
//!
//! - stdio: rmcp 3.11 on a current-thread runtime with
//!   `rmcp::transport::io::stdio_pipes()` (`examples/rmcp_echo_server.rs`);
//! - streamable HTTP: rmcp's `StreamableHttpService`, stateless, JSON
//!   answers (`examples/rmcp_echo_http_server.rs`);
//! - stdio, `rmcp tools`: the same rmcp set-up serving the twelve local
//!   tools of `mcp-local-tools` (`examples/rmcp_toolbox_server.rs`), so
//!   the tools and the libraries they link are the same on both sides and
//!   a ratio to it measures the server core alone.
//!
//! `hanzo-mcp` runs as it ships: every local tool compiled in, the door
//! configured, its default log level (the start-up line is written to
//! stderr) and a configuration file read (`HANZO_MCP_CONFIG`, a file
//! that writes down default values). Three configurations:
//!
//! - `refused`: `HANZO_MCP_DOOR=http://127.0.0.1:1/v1/mcp`, a door whose
//!   connection is refused (nothing listens on port 1);
//! - `door`: a loopback fake door that answers (`mcp-fake-door`);
//! - `no-door`: `--no-door` (an extra row).
//!
//! Figures, each the median over [`ROUNDS`] rounds of a per-round figure:
//!
//! - `init`: spawn → `initialize` answered (median of [`SPAWNS`] spawns a
//!   round; each turn spawns every subject once, in a shuffled order, so
//!   no subject always runs right after the same one);
//! - `list`: the first `tools/list` after the handshake, request written →
//!   answer read, on each of those processes;
//! - `call` and `p99`: sequential `tools/call` round trips on one process
//!   ([`CALLS`] a round, the first [`WARM_UP`] dropped): `fs` `help` for
//!   hanzo-mcp and `rmcp tools` (a fixed text, no file touched), `echo`
//!   for rmcp;
//! - `rss`: that process's peak resident set (`VmHWM`) after its calls
//!   (the process lists the tools first, as a client does);
//! - `http 1` and `http 16`: stateless (2026-07-28) `tools/call` requests
//!   per second over 1 and 16 kept-alive connections, [`HTTP_SECONDS`] a
//!   round, from a small HTTP/1.1 client in this process (one thread), to
//!   servers started once for the whole bench; `http MiB` is their peak
//!   RSS at the end.
//!
//! Ratios divide each hanzo-mcp figure by a baseline's, once for `rmcp`
//! and once for `rmcp tools` (for requests per second, the baseline's by
//! hanzo-mcp's, so below 1.0 is better everywhere).
//!
//! Run (release profile; the rmcp examples are built by the bench itself,
//! with the same cargo and target directory):
//!
//! ```sh
//! cargo bench -p mcp-local-server --bench rmcp
//! ```
//!
//! The hanzo-mcp measured is the one `cargo build --release` makes (the
//! bench builds it; the binary `cargo bench` links for this package has
//! its dev-dependencies' features and the test tools). `HANZO_MCP_BIN`
//! measures another build in its place; `HANZO_MCP_ALT` adds a row for a
//! second build (the `refused` configuration), measured in the same
//! rounds, e.g. the same code linked another way. `RMCP_BENCH=stdio` or
//! `RMCP_BENCH=http` runs one half.
//!
//! The symbol ordering file (`link/hanzo-mcp.order`) is checked first: the
//! bench stops when the measured binary defines fewer than
//! [`ORDER_COVERAGE`] of its names (a stale file; `scripts/orderfile.sh`
//! makes a new one), unless `HANZO_MCP_BIN` names another build.

#[path = "../tests/it/common/http.rs"]
mod http;
#[path = "../tests/it/common/stdio.rs"]
mod stdio;

use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use http::{Connection, find};
use mcp_fake_door::{Behaviour, FakeDoor};
use serde_json::json;
use stdio::{Proc, hermetic, load_average, percentile};

/// Rounds; every figure is the median of its per-round values.
const ROUNDS: usize = 15;
/// Spawns per server and round (`init`, `list`).
const SPAWNS: usize = 10;
/// Sequential calls per server and round.
const CALLS: usize = 3_000;
/// Calls dropped at the start of each round's process.
const WARM_UP: usize = 300;
/// Seconds of requests per server, concurrency and round over HTTP.
const HTTP_SECONDS: f64 = 1.0;
/// The share of the symbol ordering file's names the measured binary must
/// define.
const ORDER_COVERAGE: f64 = 0.9;
/// A door address whose connection is refused.
const REFUSED_DOOR: &str = "http://127.0.0.1:1/v1/mcp";

/// One server as the bench starts it.
struct Subject {
    name: &'static str,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
    /// A sequential `tools/call` line; `"ID"` is replaced by the id.
    call: String,
    /// What the call's answer contains.
    expect: &'static str,
    /// The program serving HTTP (`--http ADDR` is added for hanzo-mcp,
    /// `ADDR` for rmcp's example; none: stdio only) and the stateless
    /// call's body.
    http_program: Option<PathBuf>,
    http_call: String,
    http_name: &'static str,
    /// An rmcp server: a baseline the others are divided by.
    rmcp: bool,
}

/// The order of the subjects in each turn of spawns: a shuffle drawn from
/// a fixed seed (xorshift64), the same in every run. A spawn's figure
/// depends on what ran just before it (caches, the CPU's state); in a
/// fixed order each subject would always follow the same one.
struct Turns(u64);

impl Turns {
    fn order(&mut self, n: usize) -> Vec<usize> {
        let mut order: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            order.swap(i, (self.0 % (i as u64 + 1)) as usize);
        }
        order
    }
}

/// Per-round figures of one subject.
#[derive(Default, Clone)]
struct Round {
    init: Duration,
    list: Duration,
    call: Duration,
    p99: Duration,
    rss_kib: u64,
    http: [f64; 2],
    http_rss_kib: u64,
}

fn median_f64(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn command(subject: &Subject, root: &Path) -> Command {
    let mut command = Command::new(&subject.program);
    hermetic(&mut command);
    command.args(&subject.args).current_dir(root);
    if subject.rmcp {
        command.env("RUST_LOG", "error");
    } else {
        // As users run it: its default log level (the start-up line is
        // written) and a configuration file read.
        command
            .env_remove("RUST_LOG")
            .env("HANZO_MCP_CONFIG", config_file());
    }
    for (key, value) in &subject.env {
        command.env(key, value);
    }
    command
}

/// The configuration file every hanzo-mcp start reads: settings a user
/// writes down, each its default, so the figures measure reading the file
/// and not a different configuration.
fn config_file() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let path =
            std::env::temp_dir().join(format!("hanzo-mcp-bench-{}.toml", std::process::id()));
        std::fs::write(
            &path,
            "# hanzo-mcp bench: the defaults, written down\n\
             log_level = \"info\"\n\
             fetch_allow_private = false\n\
             \n\
             [door]\n\
             enabled = true\n",
        )
        .expect("write the bench's config file");
        path
    })
    .clone()
}

/// Spawn → `initialize` answered; then the first `tools/list` after
/// `notifications/initialized`, written → answered.
fn start_once(subject: &Subject, root: &Path) -> (Duration, Duration) {
    let start = Instant::now();
    let mut proc = Proc::start_with_stderr(command(subject, root), Stdio::null());
    let answer = proc.initialize_only("2025-11-25", json!({}));
    let init = start.elapsed();
    assert!(answer["result"]["protocolVersion"].is_string(), "{answer}");
    proc.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let start = Instant::now();
    proc.send_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    let listed = proc.response(1);
    let list = start.elapsed();
    assert!(listed.contains("\"tools\""), "{}: {listed}", subject.name);
    proc.finish();
    (init, list)
}

/// [`CALLS`] sequential calls on one process, after the handshake and a
/// `tools/list` as a client starts a session: median, p99, peak RSS.
fn calls(subject: &Subject, root: &Path) -> (Duration, Duration, u64) {
    let mut proc = Proc::start_with_stderr(command(subject, root), Stdio::null());
    proc.handshake("2025-11-25", json!({}));
    proc.send_line(r#"{"jsonrpc":"2.0","id":0,"method":"tools/list"}"#);
    proc.response(0);
    let mut times = proc.timed_calls(&subject.call, CALLS, WARM_UP, subject.expect, subject.name);
    let rss = proc.peak_rss_kib();
    proc.finish();
    (
        percentile(&mut times, 0.5),
        percentile(&mut times, 0.99),
        rss,
    )
}

/// A free loopback port (bound, read and released: another process could
/// take it in between, which a bench can live with).
fn free_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr")
}

/// A server process over HTTP, killed when dropped.
struct HttpServer {
    child: Child,
    addr: SocketAddr,
}

impl HttpServer {
    fn start(subject: &Subject, root: &Path) -> Option<Self> {
        let program = subject.http_program.as_ref()?;
        let addr = free_port();
        let mut command = if subject.rmcp {
            let mut command = Command::new(program);
            hermetic(&mut command);
            command
                .arg(addr.to_string())
                .current_dir(root)
                .env("RUST_LOG", "error");
            command
        } else {
            let mut command = command(subject, root);
            // Like rmcp's server, without a bearer: the same work on
            // both sides.
            command.args(["--http", &addr.to_string(), "--http-no-auth"]);
            command
        };
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn the HTTP server");
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(addr).is_err() {
            assert!(
                Instant::now() < deadline,
                "{}: never listened",
                subject.name
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        Some(Self { child, addr })
    }

    fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("read /proc status");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Requests per second over `connections` connections for
/// [`HTTP_SECONDS`], on a one-thread runtime of this process.
fn http_rate(subject: &Subject, addr: SocketAddr, connections: usize) -> f64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let mut tasks = Vec::new();
        let start_line = std::sync::Arc::new(tokio::sync::Barrier::new(connections));
        for _ in 0..connections {
            let body = subject.http_call.clone();
            let name = subject.http_name;
            let expect = subject.expect;
            let start_line = start_line.clone();
            tasks.push(tokio::spawn(async move {
                let headers = Connection::stateless_call_headers(name);
                let mut connection = Connection::open(addr, &headers).await;
                let body = body.as_bytes();
                let first = connection.post(body).await;
                assert!(
                    find(first, expect.as_bytes()).is_some(),
                    "{}",
                    String::from_utf8_lossy(first)
                );
                for _ in 0..50 {
                    connection.post(body).await;
                }
                start_line.wait().await;
                let deadline = Instant::now() + Duration::from_secs_f64(HTTP_SECONDS);
                let started = Instant::now();
                let mut done = 0u64;
                while Instant::now() < deadline {
                    connection.post(body).await;
                    done += 1;
                }
                (done, started.elapsed())
            }));
        }
        let mut total = 0.0;
        for task in tasks {
            let (done, elapsed) = task.await.expect("client task");
            total += done as f64 / elapsed.as_secs_f64();
        }
        total
    })
}

/// `<target>/release`, from this bench's path `<target>/release/deps/rmcp-<hash>`.
fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    exe.parent()
        .and_then(Path::parent)
        .expect("<target>/release")
        .to_path_buf()
}

/// Runs `cargo build --release <args>` with the cargo running this bench,
/// on this workspace and target directory.
fn cargo_build(args: &[&str]) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let target = release_dir().parent().expect("<target>").to_path_buf();
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.toml");
    let status = Command::new(cargo)
        .args(["build", "--release"])
        .args(args)
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("run cargo build");
    assert!(status.success(), "cargo build {args:?} failed");
}

/// The servers measured: `hanzo-mcp` as `cargo build --release` (and
/// `cargo install`) makes it, unless `$HANZO_MCP_BIN` names another
/// build, and the three rmcp examples (stdio echo, HTTP echo, stdio with
/// the local tools). Each is built by its own cargo
/// invocation, so no package's features leak into another's build (the
/// binary `cargo bench` links for this package has its dev-dependencies'
/// features and the test tools; this one is rebuilt in its place).
fn build_servers() -> (PathBuf, [PathBuf; 3]) {
    let hanzo = match std::env::var_os("HANZO_MCP_BIN") {
        Some(path) => PathBuf::from(path),
        None => {
            cargo_build(&["-p", "mcp-local-server", "--bin", "hanzo-mcp"]);
            release_dir().join("hanzo-mcp")
        }
    };
    cargo_build(&[
        "-p",
        "mcp-examples",
        "--example",
        "rmcp_echo_server",
        "--example",
        "rmcp_echo_http_server",
        "--example",
        "rmcp_toolbox_server",
    ]);
    let examples = release_dir().join("examples");
    (
        hanzo,
        [
            examples.join("rmcp_echo_server"),
            examples.join("rmcp_echo_http_server"),
            examples.join("rmcp_toolbox_server"),
        ],
    )
}

/// How many of the symbol ordering file's names `binary` defines, and how
/// many names the file has.
fn order_file_coverage(binary: &Path) -> Option<(usize, usize)> {
    let order = Path::new(env!("CARGO_MANIFEST_DIR")).join("link/hanzo-mcp.order");
    let text = std::fs::read_to_string(order).ok()?;
    let output = Command::new("nm")
        .arg("--defined-only")
        .arg(binary)
        .output()
        .ok()?;
    let defined: std::collections::HashSet<&str> = std::str::from_utf8(&output.stdout)
        .ok()?
        .lines()
        .filter_map(|line| line.split_whitespace().nth(2))
        .collect();
    let names: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .collect();
    let found = names.iter().filter(|name| defined.contains(*name)).count();
    Some((found, names.len()))
}

fn selected(part: &str) -> bool {
    std::env::var("RMCP_BENCH").map_or(true, |parts| parts.split(',').any(|p| p.trim() == part))
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (hanzo, [rmcp_stdio, rmcp_http, rmcp_tools]) = build_servers();
    let root = tempfile::tempdir().expect("tempdir");
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");

    let help = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"fs","arguments":{"action":"help"}}}"#;
    let echo = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
    let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    let http_help = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"fs","arguments":{{"action":"help"}},{meta}}}}}"#
    );
    let http_echo = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}},{meta}}}}}"#
    );
    let hanzo_subject = |name: &'static str, args: &[&str], env: Vec<(String, String)>| Subject {
        name,
        program: hanzo.clone(),
        args: ["serve"]
            .iter()
            .chain(args)
            .map(|s| (*s).to_owned())
            .collect(),
        env,
        call: help.into(),
        expect: "Every result is capped",
        http_program: Some(hanzo.clone()),
        http_call: http_help.clone(),
        http_name: "fs",
        rmcp: false,
    };
    let refused = || vec![("HANZO_MCP_DOOR".to_owned(), REFUSED_DOOR.to_owned())];
    let mut subjects = vec![
        hanzo_subject("hanzo refused", &[], refused()),
        hanzo_subject(
            "hanzo door",
            &[],
            vec![
                ("HANZO_MCP_DOOR".into(), fake.url()),
                ("HANZO_API_KEY".into(), "bench-not-a-key".into()),
            ],
        ),
        hanzo_subject("hanzo no-door", &["--no-door"], Vec::new()),
    ];
    if let Some(alt) = std::env::var_os("HANZO_MCP_ALT") {
        subjects.push(Subject {
            name: "alt refused",
            program: PathBuf::from(&alt),
            http_program: Some(PathBuf::from(&alt)),
            ..hanzo_subject("alt refused", &[], refused())
        });
    }
    subjects.push(Subject {
        name: "rmcp",
        program: rmcp_stdio,
        args: Vec::new(),
        env: Vec::new(),
        call: echo.into(),
        expect: "hello",
        http_program: Some(rmcp_http),
        http_call: http_echo,
        http_name: "echo",
        rmcp: true,
    });
    subjects.push(Subject {
        name: "rmcp tools",
        program: rmcp_tools,
        args: Vec::new(),
        env: Vec::new(),
        call: help.into(),
        expect: "Every result is capped",
        http_program: None,
        http_call: String::new(),
        http_name: "fs",
        rmcp: true,
    });

    println!("hanzo-mcp: {}", hanzo.display());
    match order_file_coverage(&hanzo) {
        Some((found, total)) => {
            let share = found as f64 / total.max(1) as f64;
            println!(
                "symbol ordering file: {found} of {total} names defined by this binary ({:.1}%)",
                100.0 * share
            );
            assert!(
                share >= ORDER_COVERAGE || std::env::var_os("HANZO_MCP_BIN").is_some(),
                "link/hanzo-mcp.order is stale (below {:.0}% of its names in the binary): \
                 run scripts/orderfile.sh",
                100.0 * ORDER_COVERAGE
            );
        }
        None => println!("symbol ordering file: none (or nm missing)"),
    }
    println!("load average before: {}", load_average());
    // The HTTP servers run for the whole bench; each round gives every one
    // a slice of requests in turn, so a change in the machine's load
    // reaches them all alike.
    let servers: Vec<Option<HttpServer>> = if selected("http") {
        subjects
            .iter()
            .map(|subject| HttpServer::start(subject, root.path()))
            .collect()
    } else {
        Vec::new()
    };
    let mut rounds: Vec<Vec<Round>> = vec![Vec::new(); subjects.len()];
    let mut turns = Turns(0x9E37_79B9_7F4A_7C15);
    for round in 0..ROUNDS {
        let mut figures = vec![Round::default(); subjects.len()];
        if selected("stdio") {
            let mut inits = vec![Vec::new(); subjects.len()];
            let mut lists = vec![Vec::new(); subjects.len()];
            for _ in 0..SPAWNS {
                for i in turns.order(subjects.len()) {
                    let (init, list) = start_once(&subjects[i], root.path());
                    inits[i].push(init);
                    lists[i].push(list);
                }
            }
            for (i, subject) in subjects.iter().enumerate() {
                figures[i].init = percentile(&mut inits[i], 0.5);
                figures[i].list = percentile(&mut lists[i], 0.5);
                let (call, p99, rss) = calls(subject, root.path());
                figures[i].call = call;
                figures[i].p99 = p99;
                figures[i].rss_kib = rss;
            }
        }
        for (c, connections) in [1usize, 16].into_iter().enumerate() {
            for (i, (subject, server)) in subjects.iter().zip(&servers).enumerate() {
                let Some(server) = server else { continue };
                figures[i].http[c] = http_rate(subject, server.addr, connections);
                figures[i].http_rss_kib = server.peak_rss_kib();
            }
        }
        println!("round {} done, load average {}", round + 1, load_average());
        for (i, figure) in figures.into_iter().enumerate() {
            rounds[i].push(figure);
        }
    }
    println!("load average after: {}", load_average());
    report(&subjects, &rounds);
    let _ = std::fs::remove_file(config_file());
}

/// Prints the per-round figures, then the medians and the ratios to rmcp.
fn report(subjects: &[Subject], rounds: &[Vec<Round>]) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!(
        "\n{:<14} {:>5} {:>9} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>9}",
        "server",
        "round",
        "init ms",
        "list ms",
        "call us",
        "p99 us",
        "rss MiB",
        "http1 r/s",
        "http16 r/s",
        "http MiB"
    );
    for (subject, rounds) in subjects.iter().zip(rounds) {
        for (n, r) in rounds.iter().enumerate() {
            println!(
                "{:<14} {:>5} {:>9.2} {:>9.3} {:>9.1} {:>9.1} {:>9.2} {:>10.0} {:>10.0} {:>9.2}",
                subject.name,
                n + 1,
                ms(r.init),
                ms(r.list),
                us(r.call),
                us(r.p99),
                r.rss_kib as f64 / 1024.0,
                r.http[0],
                r.http[1],
                r.http_rss_kib as f64 / 1024.0
            );
        }
    }
    // Medians over the rounds.
    let medians: Vec<[f64; 9]> = rounds
        .iter()
        .map(|rounds| {
            let column = |f: &dyn Fn(&Round) -> f64| {
                let mut values: Vec<f64> = rounds.iter().map(f).collect();
                median_f64(&mut values)
            };
            [
                column(&|r| ms(r.init)),
                column(&|r| ms(r.list)),
                column(&|r| us(r.call)),
                column(&|r| us(r.p99)),
                column(&|r| r.rss_kib as f64 / 1024.0),
                column(&|r| r.http[0]),
                column(&|r| r.http[1]),
                column(&|r| r.http_rss_kib as f64 / 1024.0),
                0.0,
            ]
        })
        .collect();
    println!("\nmedians over {} rounds", rounds[0].len());
    for (subject, m) in subjects.iter().zip(&medians) {
        println!(
            "{:<14} {:>5} {:>9.2} {:>9.3} {:>9.1} {:>9.1} {:>9.2} {:>10.0} {:>10.0} {:>9.2}",
            subject.name, "", m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]
        );
    }
    for (baseline, theirs) in subjects.iter().zip(&medians).filter(|(s, _)| s.rmcp) {
        ratios(subjects, &medians, baseline.name, theirs);
    }
}

/// Prints each hanzo-mcp median divided by `theirs`, the medians of the
/// baseline named `baseline` (NaN where the baseline has no figure).
fn ratios(subjects: &[Subject], medians: &[[f64; 9]], baseline: &str, theirs: &[f64; 9]) {
    println!(
        "\nratios hanzo-mcp / {baseline} (requests per second: {baseline} / hanzo-mcp); \
         below 1.0 is better"
    );
    for (subject, m) in subjects.iter().zip(medians) {
        if subject.rmcp {
            continue;
        }
        let ratio = |ours: f64, theirs: f64| {
            if theirs > 0.0 && ours > 0.0 {
                ours / theirs
            } else {
                f64::NAN
            }
        };
        println!(
            "{:<14} {:>5} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>10.2} {:>10.2} {:>9.2}",
            subject.name,
            "",
            ratio(m[0], theirs[0]),
            ratio(m[1], theirs[1]),
            ratio(m[2], theirs[2]),
            ratio(m[3], theirs[3]),
            ratio(m[4], theirs[4]),
            ratio(theirs[5], m[5]),
            ratio(theirs[6], m[6]),
            ratio(m[7], theirs[7])
        );
    }
}
