//! `resolve_allowed_tools` against a 1,000-entry allowlist, at 1k, 10k and
//! 100k tools (issue 4: 10,000 tools in at most 1 ms, linear growth).
//!
//! Run: `cargo bench -p mcp-gating --bench resolve`.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcp_gating::{AllowedTools, resolve_allowed_tools};

const ENTRIES: usize = 1_000;

/// Tool names `tool_00000`, `tool_00001`, …
fn tools(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("tool_{i:05}")).collect()
}

/// 1,000 entries for server `door`: every seventh tool name, and a few names
/// that match nothing, so the filter does real lookups both ways.
fn config() -> AllowedTools {
    let entries: Vec<String> = (0..ENTRIES)
        .map(|i| {
            if i % 10 == 9 {
                format!("missing_{i}")
            } else {
                format!("tool_{:05}", i * 7)
            }
        })
        .collect();
    match AllowedTools::from_servers([("door", entries)]) {
        Ok(config) => config,
        Err(error) => panic!("benchmark configuration is valid: {error}"),
    }
}

fn bench_resolve(c: &mut Criterion) {
    let config = config();
    let mut group = c.benchmark_group("resolve_allowed_tools/1000_entries");
    for count in [1_000, 10_000, 100_000] {
        let tools = tools(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::from_parameter(count), &tools, |b, tools| {
            b.iter(|| resolve_allowed_tools(black_box(tools), black_box(&config), "door"));
        });
    }
    group.finish();
}

criterion_group!(benches, bench_resolve);
criterion_main!(benches);
