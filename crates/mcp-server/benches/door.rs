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

#[path = "../tests/it/common/driver.rs"]
mod driver;
#[path = "../tests/it/common/stdio.rs"]
mod stdio;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use driver::{Connection, local_and_door};
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_local_server::Composition;
use serde_json::{Value, json};
use stdio::{Proc, hanzo_mcp, hermetic};

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

/// A server on an in-memory pipe (the tests' driver), on its own runtime.
struct InProcess {
    rt: tokio::runtime::Runtime,
    connection: Connection,
    composition: Composition,
}

impl InProcess {
    /// Writes `request` (one line) and reads the next line; returns it.
    fn round_trip(&mut self, request: &[u8]) -> &[u8] {
        let Self { rt, connection, .. } = self;
        rt.block_on(connection.round_trip(request))
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
    let (connection, composition) = rt.block_on(async {
        let (server, door, composition) =
            local_and_door(&fake.url(), "bench-token", root, Duration::from_secs(5));
        door.fetch_now().await;
        (Connection::stdio(server, 1 << 20), composition)
    });
    InProcess {
        rt,
        connection,
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
    stdio::cpu_time_of(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default())
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

/// `hanzo-mcp <args>` with its door at `door`, over pipes, past the
/// handshake. `DOOR_BENCH_WRAP` runs the binary under a profiler, e.g.
/// `valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.out`; end it
/// with `finish`, so the profiler can write its data.
fn spawn(args: &[&str], door: &str) -> Proc {
    let wrap = std::env::var("DOOR_BENCH_WRAP").unwrap_or_default();
    let mut words = wrap.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            hermetic(&mut command);
            command.args(words).arg(env!("CARGO_BIN_EXE_hanzo-mcp"));
            command
        }
        None => hanzo_mcp(),
    };
    command
        .args(args)
        .env("HANZO_MCP_DOOR", door)
        .env("HANZO_API_KEY", "bench-token")
        .env("RUST_LOG", "error");
    let mut proc = Proc::start(command);
    proc.handshake("2025-11-25", json!({}));
    proc
}

/// Sends `line` and reads until the response to `id`; its length.
fn answer(server: &mut Proc, line: &str, id: u64) -> usize {
    server.send_line(line);
    server.response(id).len()
}

fn root_arg(root: &Path) -> String {
    root.to_str().expect("utf-8 root").to_owned()
}

fn stdio_list() {
    let fake = FakeDoor::start(Behaviour::Grouped(DOOR_TOOLS)).expect("fake door");
    let root = tempfile::tempdir().expect("root");
    let root = root_arg(root.path());
    let mut server = spawn(&["serve", "--root", &root, "--door-wait", "5"], &fake.url());
    let mut samples = Vec::new();
    let mut bytes = 0;
    for id in 1..=3_000u64 {
        let start = Instant::now();
        bytes = answer(
            &mut server,
            &format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#),
            id,
        );
        if id > 500 {
            samples.push(start.elapsed());
        }
    }
    server.finish();
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
    let mut server = spawn(&["serve", "--root", &root], &fake.url());

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
        answer(
            server,
            &format!(
                r#"{{"jsonrpc":"2.0","id":{next_id},"method":"tools/call","params":{{"name":"agents","arguments":{{"op":"list_agents","input":{{"limit":10}}}}}}}}"#
            ),
            next_id,
        );
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
    server.finish();
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
        let mut server = spawn(
            &["serve", "--root", &root, "--door-wait", "0.5"],
            &fake.url(),
        );
        init.push(start.elapsed());
        answer(
            &mut server,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            1,
        );
        list.push(start.elapsed());
        server.finish();
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
