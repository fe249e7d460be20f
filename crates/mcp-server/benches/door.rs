//! The door's cost inside `hanzo-mcp`, four figures:
//!
//! 1. `tools_list/in_process_cached` (criterion): a `tools/list` request
//!    written to [`Server::serve`] over an in-memory pipe until its response
//!    line is read, with the door's list (120 tools from a loopback fake
//!    door) cached and the local tools in front: what the server adds per
//!    request.
//! 2. `stdio tools/list`: the same request over the release binary's stdio
//!    pipes (informational; includes two pipe hops and the reading thread).
//! 3. `stdio tools/call`: a call forwarded by the binary to the fake door,
//!    against the same call POSTed straight to the fake door by a kept-alive
//!    `reqwest` client; the added cost is the difference of the medians.
//! 4. `hanging door`: spawn → `initialize` answered and spawn → `tools/list`
//!    answered, with a door that never answers and `--door-wait 0.5`.
//!
//! Run: `cargo bench -p mcp-local-server --bench door` (all four), or pick
//! with `DOOR_BENCH=inproc,list,call,hang`.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::Criterion;
use mcp_door_client::{Bearer, BearerSource, Door, DoorConfig};
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_local_server::door::DoorSource;
use mcp_local_server::local::LocalSource;
use mcp_local_server::{Composition, Server, ServerConfig, ToolSource};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader as AsyncBufReader};

/// Door tools in the cached list (HIP-0300 §1.3's grouped door: 110).
const DOOR_TOOLS: usize = 120;

fn selected(part: &str) -> bool {
    match std::env::var("DOOR_BENCH") {
        Ok(parts) => parts.split(',').any(|p| p.trim() == part),
        Err(_) => true,
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort_unstable();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A [`Server`] on an in-memory pipe, and the client's ends.
struct InProcess {
    rt: tokio::runtime::Runtime,
    input: tokio::io::DuplexStream,
    output: AsyncBufReader<tokio::io::DuplexStream>,
    line: Vec<u8>,
    composition: Composition,
}

impl InProcess {
    /// Writes `request` (one line) and reads the next line; returns it.
    fn round_trip(&mut self, request: &[u8]) -> &[u8] {
        let Self {
            rt,
            input,
            output,
            line,
            ..
        } = self;
        rt.block_on(async {
            input.write_all(request).await.expect("write");
            line.clear();
            output.read_until(b'\n', line).await.expect("read");
        });
        &self.line
    }
}

/// `flavor`: `"multi_thread"` (two workers, as `hanzo-mcp serve --http`) or
/// `"current_thread"` (one thread, as `hanzo-mcp serve` over stdio).
fn in_process_server(fake: &FakeDoor, root: &Path, flavor: &str) -> InProcess {
    let mut builder = if flavor == "multi_thread" {
        let mut builder = tokio::runtime::Builder::new_multi_thread();
        builder.worker_threads(2);
        builder
    } else {
        tokio::runtime::Builder::new_current_thread()
    };
    let rt = builder.enable_all().build().expect("runtime");
    let (input, output, composition) = rt.block_on(async {
        let mut config = DoorConfig::new(fake.url());
        config.bearer = BearerSource::Fixed(Bearer::new("bench-token").expect("bearer"));
        let door = Door::new(config).expect("door");
        let local = LocalSource::new(vec![root.to_path_buf()]).expect("local");
        let sources: Vec<Arc<dyn ToolSource>> = vec![
            Arc::new(local),
            Arc::new(DoorSource::start(door.clone(), Duration::from_secs(5))),
        ];
        door.fetch_now().await;
        let composition = Composition::new(sources);
        let info = serde_json::from_value(json!({"name": "bench", "version": "0"})).expect("info");
        let server = Arc::new(Server::new(composition.clone(), ServerConfig::new(info)));
        let (client_in, server_in) = tokio::io::duplex(1 << 20);
        let (server_out, client_out) = tokio::io::duplex(1 << 20);
        tokio::spawn(server.serve(server_in, server_out, std::future::pending()));
        (client_in, AsyncBufReader::new(client_out), composition)
    });
    InProcess {
        rt,
        input,
        output,
        line: Vec::with_capacity(1 << 17),
        composition,
    }
}

/// The per-request work of `tools/list` before the memo: every source asked,
/// the lists merged (every tool cloned), the result built as a `Value` and
/// serialized in its response.
fn list_without_memo(server: &InProcess) -> usize {
    server.rt.block_on(async {
        let mut tools = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut meta = None;
        for source in server.composition.sources() {
            let list = source.list_tools().await;
            for tool in list.tools {
                if seen.insert(tool.name.clone()) {
                    tools.push(tool);
                }
            }
            if list.meta.is_some() {
                meta = list.meta;
            }
        }
        let mut result = serde_json::Map::new();
        result.insert("tools".into(), json!(tools));
        if let Some(meta) = meta {
            result.insert("_meta".into(), Value::Object(meta));
        }
        result.insert("ttlMs".into(), json!(60_000));
        result.insert("cacheScope".into(), json!("private"));
        result.insert("resultType".into(), json!("complete"));
        let response =
            mcp_proto::Response::success(mcp_proto::RequestId::Number(7), Value::Object(result));
        serde_json::to_vec(&mcp_proto::Message::Response(response))
            .expect("json")
            .len()
    })
}

/// CPU time (user + system) of this whole process so far, from
/// `/proc/self/stat` (clock ticks of 10 ms).
fn process_cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
    Duration::from_millis(ticks * 10)
}

fn in_process(c: &mut Criterion, flavor: &str) {
    let fake = FakeDoor::start(Behaviour::Grouped(DOOR_TOOLS)).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let mut server = in_process_server(&fake, root.path(), flavor);
    let tools = server
        .rt
        .block_on(server.composition.list_tools())
        .tools
        .len();
    let list = b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n";
    let bytes = server.round_trip(list).len();
    assert_eq!(bytes, list_without_memo(&server) + 1, "same response size");
    // CPU time of the whole process (client end, server, idle fake door)
    // per request: less sensitive to other builds than the wall clock.
    let rounds = 5_000;
    let cpu_before = process_cpu_time();
    for _ in 0..rounds {
        server.round_trip(list);
    }
    let cpu = process_cpu_time().saturating_sub(cpu_before);
    println!(
        "in-process tools/list ({flavor}): {tools} tools, {bytes} bytes a response; \
         process CPU time per request {:.1} us over {rounds}",
        us(cpu) / f64::from(rounds)
    );
    let mut group = c.benchmark_group(format!("tools_list_{flavor}"));
    group.bench_function(format!("in_process_cached_{tools}"), |b| {
        b.iter(|| server.round_trip(list).len())
    });
    group.bench_function(format!("work_without_memo_{tools}"), |b| {
        b.iter(|| list_without_memo(&server))
    });
    group.finish();

    // The same server forwards a call; next to it the same call POSTed
    // straight to the fake door from the same runtime.
    let call = b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}},\"name\":\"agents\",\"arguments\":{\"op\":\"list_agents\",\"input\":{\"limit\":10}}}}\n";
    let answer = String::from_utf8_lossy(server.round_trip(call)).into_owned();
    assert!(answer.contains("called agents"), "{answer}");
    let client = reqwest::Client::new();
    let url = fake.url();
    let body = direct_body();
    let direct = |server: &InProcess| server.rt.block_on(post(&client, &url, &body));
    assert_eq!(
        direct(&server)["result"]["structuredContent"]["name"],
        "agents"
    );
    let mut group = c.benchmark_group(format!("call_{flavor}"));
    group.bench_function("in_process_forwarded", |b| {
        b.iter(|| server.round_trip(call).len())
    });
    group.bench_function("direct_post", |b| b.iter(|| direct(&server)));
    group.finish();
}

/// The `tools/call` body a client would POST to the door itself.
fn direct_body() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "agents",
            "arguments": {"op": "list_agents", "input": {"limit": 10}},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
            }
        }
    }))
    .expect("body")
}

/// One POST of `body` to the door with the 2026-07-28 headers, read as JSON.
async fn post(client: &reqwest::Client, url: &str, body: &[u8]) -> Value {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "agents")
        .header("authorization", "Bearer bench-token")
        .body(body.to_vec())
        .send()
        .await
        .expect("send");
    let bytes = response.bytes().await.expect("body");
    serde_json::from_slice(&bytes).expect("json")
}

/// The release binary over pipes.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    line: String,
}

impl Proc {
    fn spawn(args: &[&str], door: &str) -> Proc {
        // DOOR_BENCH_WRAP runs the binary under a profiler, e.g.
        // `valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out`.
        let wrap = std::env::var("DOOR_BENCH_WRAP").unwrap_or_default();
        let mut words = wrap.split_whitespace();
        let mut command = match words.next() {
            Some(program) => {
                let mut command = Command::new(program);
                command.args(words).arg(env!("CARGO_BIN_EXE_hanzo-mcp"));
                command
            }
            None => Command::new(env!("CARGO_BIN_EXE_hanzo-mcp")),
        };
        let mut child = command
            .args(args)
            .env("HANZO_MCP_DOOR", door)
            .env("HANZO_API_KEY", "bench-token")
            .env("RUST_LOG", "error")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn hanzo-mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Proc {
            child,
            stdin: Some(stdin),
            stdout,
            line: String::new(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    /// Reads lines until the response to `id`; returns its length.
    fn answer(&mut self, id: u64) -> usize {
        let needle = format!("\"id\":{id},");
        loop {
            self.line.clear();
            let n = self.stdout.read_line(&mut self.line).expect("read");
            assert!(n > 0, "hanzo-mcp closed stdout");
            if self.line.contains(&needle) {
                return n;
            }
        }
    }

    /// CPU time (user + system) the process has used so far, from
    /// `/proc/<pid>/stat` (clock ticks of 10 ms).
    fn cpu_time(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap_or_default();
        let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
        let fields: Vec<u64> = after_name
            .split_whitespace()
            .map(|f| f.parse().unwrap_or(0))
            .collect();
        // utime and stime are fields 14 and 15; after the name, 12 and 13.
        let ticks = fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0);
        Duration::from_millis(ticks * 10)
    }

    fn initialize(&mut self) {
        self.send(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
        );
        self.answer(0);
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // End of input first, so a profiler wrapping the binary can write
        // its data; then make sure it is gone.
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn root_arg(root: &Path) -> String {
    root.to_str().expect("utf-8 root").to_owned()
}

fn stdio_list() {
    let fake = FakeDoor::start(Behaviour::Grouped(DOOR_TOOLS)).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let root = root_arg(root.path());
    let mut server = Proc::spawn(&["serve", "--root", &root, "--door-wait", "5"], &fake.url());
    server.initialize();
    let mut samples = Vec::new();
    let mut bytes = 0;
    for id in 1..=3_000u64 {
        let start = Instant::now();
        server.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#
        ));
        bytes = server.answer(id);
        if id > 500 {
            samples.push(start.elapsed());
        }
    }
    let median = percentile(&mut samples, 0.5);
    let p99 = percentile(&mut samples, 0.99);
    println!(
        "stdio tools/list ({bytes} bytes, {} samples): median {:.1} us, p99 {:.1} us",
        samples.len(),
        us(median),
        us(p99)
    );
}

fn stdio_call() {
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let root = root_arg(root.path());
    let mut server = Proc::spawn(&["serve", "--root", &root], &fake.url());
    server.initialize();

    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = reqwest::Client::new();
    let url = fake.url();
    let body = direct_body();
    let direct = || rt.block_on(post(&client, &url, &body));
    let mut next_id = 1u64;
    let mut forwarded = |server: &mut Proc| {
        next_id += 1;
        server.send(&format!(
            r#"{{"jsonrpc":"2.0","id":{next_id},"method":"tools/call","params":{{"name":"agents","arguments":{{"op":"list_agents","input":{{"limit":10}}}}}}}}"#
        ));
        server.answer(next_id);
    };
    // Same answer both ways.
    assert_eq!(
        direct()["result"]["structuredContent"]["name"],
        json!("agents")
    );
    let calls: usize = std::env::var("DOOR_BENCH_CALLS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(250);
    let (mut fwd, mut dir) = (Vec::new(), Vec::new());
    let mut server_cpu = Duration::ZERO;
    for round in 0..12 {
        let cpu_before = server.cpu_time();
        for _ in 0..calls {
            let start = Instant::now();
            forwarded(&mut server);
            if round > 1 {
                fwd.push(start.elapsed());
            }
            let start = Instant::now();
            std::hint::black_box(direct());
            if round > 1 {
                dir.push(start.elapsed());
            }
        }
        if round > 1 {
            server_cpu += server.cpu_time().saturating_sub(cpu_before);
        }
    }
    let (fm, fp) = (percentile(&mut fwd, 0.5), percentile(&mut fwd, 0.99));
    let (dm, dp) = (percentile(&mut dir, 0.5), percentile(&mut dir, 0.99));
    println!(
        "stdio tools/call forwarded ({} calls): median {:.1} us, p99 {:.1} us",
        fwd.len(),
        us(fm),
        us(fp)
    );
    println!(
        "direct POST to the fake door ({} calls): median {:.1} us, p99 {:.1} us",
        dir.len(),
        us(dm),
        us(dp)
    );
    println!(
        "added by hanzo-mcp (difference of medians): {:.1} us; hanzo-mcp CPU time per forwarded call: {:.1} us",
        us(fm) - us(dm),
        us(server_cpu) / fwd.len() as f64
    );
}

fn hanging_door() {
    let fake = FakeDoor::start(Behaviour::Hang).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let root = root_arg(root.path());
    let (mut init, mut list) = (Vec::new(), Vec::new());
    for _ in 0..15 {
        let start = Instant::now();
        let mut server = Proc::spawn(
            &["serve", "--root", &root, "--door-wait", "0.5"],
            &fake.url(),
        );
        server.initialize();
        init.push(start.elapsed());
        server.send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
        server.answer(1);
        list.push(start.elapsed());
    }
    let (im, imax) = (percentile(&mut init, 0.5), percentile(&mut init, 1.0));
    let (lm, lmax) = (percentile(&mut list, 0.5), percentile(&mut list, 1.0));
    println!(
        "hanging door, --door-wait 0.5, {} spawns: spawn->initialize median {:.2} ms (max {:.2} ms); \
         spawn->tools/list median {:.1} ms (max {:.1} ms)",
        init.len(),
        im.as_secs_f64() * 1e3,
        imax.as_secs_f64() * 1e3,
        lm.as_secs_f64() * 1e3,
        lmax.as_secs_f64() * 1e3
    );
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: do nothing then.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    if selected("inproc") {
        let mut c = Criterion::default().configure_from_args();
        in_process(&mut c, "current_thread");
        in_process(&mut c, "multi_thread");
        c.final_summary();
    }
    if selected("list") {
        stdio_list();
    }
    if selected("call") {
        stdio_call();
    }
    if selected("hang") {
        hanging_door();
    }
}
