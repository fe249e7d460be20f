//! `fs` `search` over a generated tree of 50,000 files, next to ripgrep on
//! the same tree and pattern (figures in BENCHMARKS.md).
//!
//! Run: `cargo bench -p mcp-local-tools --bench search` (needs `rg` on PATH:
//! `apt-get install -y ripgrep`). The tree is generated once into
//! `$MCP_BENCH_TREE` (default: `<tmp>/mcp-local-tools-bench-tree`) and
//! reused.

use std::path::{Path, PathBuf};
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_local_tools::{Roots, ToolContext, Toolbox};
use serde_json::json;

const DIRS: usize = 50;
const SUBDIRS: usize = 20;
const FILES: usize = 50;
const LITERAL: &str = "needle_literal_42";
const REGEX: &str = r"fn handler_[0-9]+\(ctx: &Context";

/// A small deterministic generator (xorshift64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const WORDS: &[&str] = &[
    "let", "value", "config", "return", "match", "result", "error", "buffer", "index", "count",
    "server", "client", "request", "response", "state", "handle", "stream", "token", "parse",
];

fn file_text(rng: &mut Rng, n: usize) -> String {
    let mut text = String::with_capacity(1600);
    text.push_str(&format!("// generated file {n}\nuse std::io;\n\n"));
    for line in 0..40 {
        let words: Vec<&str> = (0..6)
            .map(|_| WORDS[(rng.next() % WORDS.len() as u64) as usize])
            .collect();
        text.push_str(&format!(
            "    {} = {}({}); // {line}\n",
            words[0],
            words[1],
            words[2..].join("_")
        ));
    }
    if n % 100 == 7 {
        text.push_str(&format!("    let marker = \"{LITERAL}\";\n"));
    }
    if n % 50 == 3 {
        text.push_str(&format!(
            "fn handler_{n}(ctx: &Context) -> io::Result<()> {{ Ok(()) }}\n"
        ));
    }
    text
}

/// The tree's directory, generated when its completion marker is missing.
fn tree() -> PathBuf {
    let dir = std::env::var_os("MCP_BENCH_TREE")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("mcp-local-tools-bench-tree"));
    let marker = dir.join(".complete");
    if marker.exists() {
        return dir;
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut n = 0;
    for d in 0..DIRS {
        for s in 0..SUBDIRS {
            let sub = dir.join(format!("crate_{d:02}/mod_{s:02}"));
            std::fs::create_dir_all(&sub).expect("create bench dir");
            for f in 0..FILES {
                std::fs::write(sub.join(format!("file_{f:02}.rs")), file_text(&mut rng, n))
                    .expect("write bench file");
                n += 1;
            }
        }
    }
    std::fs::write(&marker, "").expect("write marker");
    dir
}

fn rg(dir: &Path, pattern: &str, fixed: bool) -> Vec<u8> {
    let mut cmd = Command::new("rg");
    cmd.arg("-n").arg("--no-heading");
    if fixed {
        cmd.arg("-F");
    }
    // Captured through a pipe: rg stops at the first match when its
    // output is /dev/null, which would not be the same work.
    let out = cmd.arg(pattern).arg(dir).output().expect("rg on PATH");
    out.stdout
}

fn ours(
    rt: &tokio::runtime::Runtime,
    toolbox: &Toolbox,
    roots: &Roots,
    pattern: &str,
    literal: bool,
) -> String {
    let args = json!({"action": "search", "pattern": pattern, "literal": literal});
    let ctx = ToolContext::new(roots.clone());
    let result = rt
        .block_on(toolbox.call("fs", args.as_object().cloned().unwrap_or_default(), ctx))
        .expect("fs tool");
    assert_ne!(result.is_error, Some(true));
    result.content[0].as_text().unwrap_or_default().to_owned()
}

/// The total in our marker `[matches 1-200 of N; ...]`.
fn total_of(text: &str) -> usize {
    text.rsplit(" of ")
        .next()
        .and_then(|t| t.split(';').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| text.lines().count())
}

fn bench(c: &mut Criterion) {
    let dir = tree();
    let roots = Roots::new(vec![dir.clone()]).expect("roots");
    let toolbox = Toolbox::with_default_tools();
    let rt = tokio::runtime::Runtime::new().expect("runtime");

    for (name, pattern, literal) in [("literal", LITERAL, true), ("regex", REGEX, false)] {
        // Both must find the same lines before their times mean anything.
        let rg_lines = rg(&dir, pattern, literal)
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count();
        let our_lines = total_of(&ours(&rt, &toolbox, &roots, pattern, literal));
        assert_eq!(rg_lines, our_lines, "{name}: rg and fs search disagree");
        eprintln!(
            "{name}: {our_lines} matching lines in {} files",
            DIRS * SUBDIRS * FILES
        );

        let mut group = c.benchmark_group(format!("fs_search_{name}"));
        group.sample_size(10);
        group.measurement_time(std::time::Duration::from_secs(15));
        group.bench_function("mcp_fs_search", |b| {
            b.iter(|| ours(&rt, &toolbox, &roots, pattern, literal))
        });
        group.bench_function("ripgrep", |b| b.iter(|| rg(&dir, pattern, literal)));
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
