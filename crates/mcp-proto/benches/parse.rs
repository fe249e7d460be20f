//! Parse and serialize cost of typed messages next to a plain
//! `serde_json::from_slice::<Value>` of the same bytes.
//!
//! Run: `cargo bench -p mcp-proto --bench parse`.
//!
//! Each case is measured twice: `wall` (criterion's clock) and `cpu` (CPU
//! time of the benchmarking thread), because on a shared machine the wall
//! clock also counts time the scheduler gives to other processes.

use std::hint::black_box;

use cpu_time::ThreadTime;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_proto::methods::CallTool;
use mcp_proto::{
    CallToolRequestParams, FromValue, ListToolsResult, Message, Request, parse_message,
};
use serde_json::{Value, json};

/// One tool of realistic shape: a description and an object schema with a
/// few described properties (about 800 bytes of JSON).
fn tool(i: usize) -> Value {
    json!({
        "name": format!("subsystem_{i}.operation"),
        "title": format!("Operation {i}"),
        "description": format!(
            "Performs operation number {i} on the selected subsystem. Reads the current state, \
             applies the requested change and returns a summary of what changed, including \
             counts and identifiers of affected records."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "description": "Identifier of the record to operate on."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "description": "Maximum number of records."},
                "dryRun": {"type": "boolean", "description": "Report what would change without changing it."},
                "tags": {"type": "array", "items": {"type": "string"}, "description": "Tags to filter by."}
            },
            "required": ["id"],
            "additionalProperties": false
        },
        "annotations": {"readOnlyHint": i.is_multiple_of(2), "openWorldHint": false}
    })
}

/// A `tools/list` response with `n` tools, as bytes.
fn list_response(n: usize) -> Vec<u8> {
    let tools: Vec<Value> = (0..n).map(tool).collect();
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": 2,
        "result": {"tools": tools, "nextCursor": "page-2", "ttlMs": 300000, "cacheScope": "public", "resultType": "complete"}
    }))
    .expect("bench data serializes")
}

fn call_request() -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0",
        "id": 41,
        "method": "tools/call",
        "params": {
            "name": "fs",
            "arguments": {"action": "read", "path": "src/lib.rs", "offset": 0, "limit": 2000},
            "_meta": {
                "progressToken": "p-41",
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0.0"}
            }
        }
    }))
    .expect("bench data serializes")
}

/// parse_message, then the typed params or result.
fn typed_parse(bytes: &[u8]) -> usize {
    match parse_message(bytes).expect("valid message") {
        Message::Request(req) => {
            let params: CallToolRequestParams = req.parse_params().expect("valid params");
            params.name.len()
        }
        Message::Response(resp) => match resp.payload {
            mcp_proto::ResponsePayload::Result(v) => ListToolsResult::from_value(v)
                .expect("valid result")
                .tools
                .len(),
            mcp_proto::ResponsePayload::Error(_) => 0,
        },
        Message::Notification(_) => 0,
    }
}

/// Measures `f` both by wall clock and by the thread's CPU time.
fn both<O>(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    size: usize,
    mut f: impl FnMut() -> O,
) {
    group.bench_function(BenchmarkId::new(format!("{name}/wall"), size), |b| {
        b.iter(&mut f)
    });
    group.bench_function(BenchmarkId::new(format!("{name}/cpu"), size), |b| {
        b.iter_custom(|iters| {
            let start = ThreadTime::now();
            for _ in 0..iters {
                black_box(f());
            }
            start.elapsed()
        })
    });
}

fn benches(c: &mut Criterion) {
    let inputs = [
        ("tools_call_request", call_request()),
        ("tools_list_110", list_response(110)),
        ("tools_list_1189", list_response(1189)),
    ];
    for (name, bytes) in &inputs {
        let size = bytes.len();
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(size as u64));
        if size > 500_000 {
            group.sample_size(20);
        }
        both(&mut group, "parse_value", size, || {
            serde_json::from_slice::<Value>(black_box(bytes)).expect("valid JSON")
        });
        both(&mut group, "parse_typed", size, || {
            typed_parse(black_box(bytes))
        });

        let plain: Value = serde_json::from_slice(bytes).expect("valid JSON");
        both(&mut group, "serialize_value", size, || {
            serde_json::to_vec(black_box(&plain)).expect("serializes")
        });
        match parse_message(bytes).expect("valid message") {
            Message::Request(req) => {
                let params: CallToolRequestParams = req.parse_params().expect("valid params");
                let typed = Request::typed::<CallTool>(req.id, &params).expect("serializes");
                both(&mut group, "serialize_typed", size, || {
                    serde_json::to_vec(black_box(&typed)).expect("serializes")
                });
            }
            Message::Response(resp) => {
                let list: ListToolsResult = resp.parse_result().expect("valid result");
                let id = resp.id.expect("has an id");
                // The typed result written inside its envelope.
                both(&mut group, "serialize_typed", size, || {
                    let mut out = Vec::with_capacity(size);
                    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
                    serde_json::to_writer(&mut out, &id).expect("serializes");
                    out.extend_from_slice(br#","result":"#);
                    serde_json::to_writer(&mut out, black_box(&list)).expect("serializes");
                    out.push(b'}');
                    out
                });
            }
            Message::Notification(_) => {}
        }
        group.finish();
    }
}

criterion_group!(parse, benches);
criterion_main!(parse);
