//! Parse and serialize cost of typed messages next to a plain
//! `serde_json::from_slice::<Value>` of the same bytes.
//!
//! Run: `cargo bench -p mcp-proto --bench parse`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_proto::{CallToolRequestParams, FromValue, ListToolsResult, Message, parse_message};
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
            let params = CallToolRequestParams::from_value(req.params.unwrap_or(Value::Null))
                .expect("valid params");
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

fn benches(c: &mut Criterion) {
    let inputs = [
        ("tools_call_request", call_request()),
        ("tools_list_110", list_response(110)),
        ("tools_list_1189", list_response(1189)),
    ];
    for (name, bytes) in &inputs {
        let mut group = c.benchmark_group(*name);
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::new("serde_json_value", bytes.len()),
            bytes,
            |b, bytes| {
                b.iter(|| serde_json::from_slice::<Value>(black_box(bytes)).expect("valid JSON"))
            },
        );
        group.bench_with_input(
            BenchmarkId::new("typed_parse", bytes.len()),
            bytes,
            |b, bytes| b.iter(|| typed_parse(black_box(bytes))),
        );
        // Serialization of the typed form back to bytes.
        let msg = parse_message(bytes).expect("valid message");
        let typed: Value = match &msg {
            Message::Request(r) => serde_json::to_value(
                CallToolRequestParams::from_value(r.params.clone().unwrap_or(Value::Null))
                    .expect("valid params"),
            )
            .expect("serializes"),
            _ => Value::Null,
        };
        let list = match &msg {
            Message::Response(r) => r.parse_result::<ListToolsResult>().ok(),
            _ => None,
        };
        let plain: Value = serde_json::from_slice(bytes).expect("valid JSON");
        group.bench_function(BenchmarkId::new("serialize_value", bytes.len()), |b| {
            b.iter(|| serde_json::to_vec(black_box(&plain)).expect("serializes"))
        });
        group.bench_function(BenchmarkId::new("serialize_typed", bytes.len()), |b| {
            b.iter(|| match &list {
                Some(list) => serde_json::to_vec(black_box(list)).expect("serializes"),
                None => serde_json::to_vec(black_box(&typed)).expect("serializes"),
            })
        });
        group.finish();
    }
}

criterion_group!(parse, benches);
criterion_main!(parse);
