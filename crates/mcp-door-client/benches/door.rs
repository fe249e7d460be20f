//! Criterion benchmarks of the door client:
//! - `tools_list_cached/*`: a `tools/list` of 12 local + 110 door tools (122)
//!   answered from the cache (snapshot + merge, and + JSON serialization;
//!   then the same through the `MergedTools` memo);
//! - `call/*`: a `tools/call` forwarded by `DoorClient::call_tool` to a loopback
//!   fake door, against the same request POSTed straight to it;
//! - `call_1mib/*`: a `tools/call` whose door result holds 1 MiB of text
//!   content (1,114,167 bytes of JSON), forwarded by `DoorClient::call_tool`
//!   (params and result through `serde_json::Value`) and by
//!   `DoorClient::call_tool_raw` (params and result as JSON text), against the
//!   same request POSTed straight to the door and its body read as bytes.
//!
//! Run: `cargo bench -p mcp-door-client --bench door`.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use mcp_door_client::{DoorClient, MergedTools, merge};
use mcp_fake_door::{Behaviour, FakeDoor};
use mcp_proto::Tool;
use serde_json::{Map, Value, json};

/// The door configuration and call params the integration tests use.
#[path = "../tests/it/common/door.rs"]
mod shared;

const LOCAL: [&str; 12] = [
    "fs",
    "exec",
    "git",
    "code",
    "fetch",
    "workspace",
    "ui",
    "think",
    "memory",
    "plan",
    "tasks",
    "mode",
];

fn local_tools() -> Vec<Tool> {
    LOCAL
        .iter()
        .map(|name| {
            let schema = json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["help", "read", "write", "list"]},
                    "path": {"type": "string"}
                },
                "required": ["action"]
            });
            serde_json::from_value(json!({
                "name": name,
                "description": format!("The machine's {name} tool."),
                "inputSchema": schema
            }))
            .expect("tool")
        })
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn door_for(fake: &FakeDoor) -> DoorClient {
    DoorClient::new(shared::config_with_bearer(&fake.url(), "bench-token")).expect("door")
}

fn tools_list_cached(c: &mut Criterion) {
    let rt = runtime();
    let fake = FakeDoor::start(Behaviour::Grouped(110)).expect("fake door");
    let door = rt.block_on(async { door_for(&fake) });
    let snapshot = rt.block_on(door.fetch_now());
    assert_eq!(snapshot.list.as_ref().map(|l| l.tools.len()), Some(110));
    let local = local_tools();
    assert_eq!(merge(&local, snapshot.list.as_deref()).tools.len(), 122);

    let mut group = c.benchmark_group("tools_list_cached");
    group.bench_function("snapshot_merge_122", |b| {
        b.iter(|| {
            let snapshot = door.snapshot();
            black_box(merge(black_box(&local), snapshot.list.as_deref()))
        })
    });
    group.bench_function("snapshot_merge_serialize_122", |b| {
        b.iter(|| {
            let snapshot = door.snapshot();
            let merged = merge(black_box(&local), snapshot.list.as_deref());
            black_box(serde_json::to_vec(&merged).expect("json"))
        })
    });
    let memo = MergedTools::new(local.clone());
    group.bench_function("memo_get_122", |b| {
        b.iter(|| black_box(memo.get(&door.snapshot())))
    });
    group.bench_function("memo_get_serialize_122", |b| {
        b.iter(|| {
            let merged = memo.get(&door.snapshot());
            black_box(serde_json::to_vec(&*merged).expect("json"))
        })
    });
    group.finish();
}

fn call_params() -> Map<String, Value> {
    shared::params(json!({
        "name": "agents",
        "arguments": {"op": "list_agents", "input": {"limit": 10}}
    }))
}

fn call(c: &mut Criterion) {
    let rt = runtime();
    let fake = FakeDoor::start(Behaviour::Normal).expect("fake door");
    let door = rt.block_on(async { door_for(&fake) });
    let client = reqwest::Client::new();
    let mut direct_params = call_params();
    direct_params.insert(
        "_meta".into(),
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
        }),
    );
    let body = serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": direct_params
    }))
    .expect("body");
    let url = fake.url();
    let direct = || async {
        let response = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "agents")
            .header("authorization", "Bearer bench-token")
            .body(body.clone())
            .send()
            .await
            .expect("send");
        let bytes = response.bytes().await.expect("body");
        let value: Value = serde_json::from_slice(&bytes).expect("json");
        value
    };
    // Both paths give the same result.
    let forwarded = rt
        .block_on(door.call_tool(call_params(), None))
        .expect("result");
    assert_eq!(rt.block_on(direct())["result"], forwarded);

    let mut group = c.benchmark_group("call");
    group.bench_function("forwarded_by_door_client", |b| {
        b.iter(|| black_box(rt.block_on(door.call_tool(call_params(), None))))
    });
    group.bench_function("direct_post", |b| {
        b.iter(|| black_box(rt.block_on(direct())))
    });
    group.finish();
    fake.clear_log();
}

/// Lines of text in the 1 MiB result: 16,384 lines of 64 bytes.
const BIG_LINES: usize = 16_384;

/// A door result whose one text block is 1 MiB (1,048,576 bytes) of
/// 64-byte lines, as the door would write it.
fn big_result() -> String {
    let text: String = (0..BIG_LINES)
        .map(|i| format!("{i:05} a line of tool output, \"quoted\" and \ttabbed, pad to 64 by\n"))
        .collect();
    assert_eq!(text.len(), 1_048_576);
    let text = serde_json::to_string(&text).expect("json");
    format!(r#"{{"content":[{{"type":"text","text":{text}}}],"isError":false}}"#)
}

fn call_1mib(c: &mut Criterion) {
    let rt = runtime();
    let result = big_result();
    assert_eq!(result.len(), 1_114_167);
    let fake = FakeDoor::start(Behaviour::RawCallResult(result.clone())).expect("fake door");
    let door = rt.block_on(async { door_for(&fake) });
    let client = reqwest::Client::new();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents","arguments":{"op":"list_agents","input":{"limit":10}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"}}}}"#.to_owned();
    let url = fake.url();
    let direct = || async {
        let response = client
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "agents")
            .header("authorization", "Bearer bench-token")
            .body(body.clone())
            .send()
            .await
            .expect("send");
        response.bytes().await.expect("body")
    };
    let expected: Value = serde_json::from_str(&result).expect("json");
    let forwarded = rt
        .block_on(door.call_tool(call_params(), None))
        .expect("result");
    assert_eq!(forwarded, expected);
    let raw_params = serde_json::value::to_raw_value(&call_params()).expect("params");
    let forwarded_raw = rt
        .block_on(door.call_tool_raw(&raw_params, None))
        .expect("result");
    assert_eq!(forwarded_raw.get(), result);
    let answer = rt.block_on(direct());
    assert_eq!(answer.len(), result.len() + 34);

    let mut group = c.benchmark_group("call_1mib");
    group.throughput(Throughput::Bytes(result.len() as u64));
    group.bench_function("call_tool_value", |b| {
        b.iter(|| black_box(rt.block_on(door.call_tool(call_params(), None))))
    });
    group.bench_function("call_tool_raw", |b| {
        b.iter(|| black_box(rt.block_on(door.call_tool_raw(black_box(&raw_params), None))))
    });
    group.bench_function("direct_post_bytes", |b| {
        b.iter(|| black_box(rt.block_on(direct())))
    });
    group.finish();
    fake.clear_log();
}

criterion_group!(benches, tools_list_cached, call, call_1mib);
criterion_main!(benches);
