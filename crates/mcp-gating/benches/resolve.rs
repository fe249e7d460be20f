//! `resolve_allowed_tools` against a 1,000-entry allowlist, at 1k, 10k and
//! 100k tools (the goal: 10,000 tools in at most 1 ms, linear growth).
//!
//! Two groups measure the same calls: `wall` (criterion's wall clock) and
//! `thread_cpu` (CPU time of the benchmarking thread). The machine is shared
//! by several builds at once; the thread's CPU time leaves out the time the
//! scheduler gives to other processes, which wall time counts.
//!
//! Run: `cargo bench -p mcp-gating --bench resolve`.

use std::hint::black_box;
use std::time::Duration;

use cpu_time::ThreadTime;
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use mcp_gating::{AllowedTools, resolve_allowed_tools};

const ENTRIES: usize = 1_000;

/// Tool names `tool_00000`, `tool_00001`, …
fn tools(count: usize) -> Vec<String> {
    (0..count).map(|i| format!("tool_{i:05}")).collect()
}

/// 1,000 entries for server `door`: every seventh tool name, and a tenth of
/// names that match nothing, so the filter does real lookups both ways.
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

/// CPU time consumed by the calling thread, in nanoseconds.
struct ThreadCpuTime;

impl Measurement for ThreadCpuTime {
    type Intermediate = ThreadTime;
    type Value = Duration;

    fn start(&self) -> ThreadTime {
        ThreadTime::now()
    }

    fn end(&self, start: ThreadTime) -> Duration {
        start.elapsed()
    }

    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }

    fn zero(&self) -> Duration {
        Duration::ZERO
    }

    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }

    fn formatter(&self) -> &dyn ValueFormatter {
        // Values are nanoseconds, as for the wall clock: reuse its units.
        static WALL: WallTime = WallTime;
        WALL.formatter()
    }
}

fn sizes<M: Measurement>(group: &mut BenchmarkGroup<'_, M>, config: &AllowedTools) {
    for count in [1_000, 10_000, 100_000] {
        let tools = tools(count);
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::from_parameter(count), &tools, |b, tools| {
            b.iter(|| resolve_allowed_tools(black_box(tools), black_box(config), "door"));
        });
    }
}

fn bench_wall(c: &mut Criterion) {
    let config = config();
    let mut group = c.benchmark_group("resolve_allowed_tools/1000_entries/wall");
    sizes(&mut group, &config);
    group.finish();
}

fn bench_thread_cpu(c: &mut Criterion<ThreadCpuTime>) {
    let config = config();
    let mut group = c.benchmark_group("resolve_allowed_tools/1000_entries/thread_cpu");
    sizes(&mut group, &config);
    group.finish();
}

criterion_group!(wall, bench_wall);
criterion_group! {
    name = thread_cpu;
    config = Criterion::default().with_measurement(ThreadCpuTime);
    targets = bench_thread_cpu
}
criterion_main!(wall, thread_cpu);
