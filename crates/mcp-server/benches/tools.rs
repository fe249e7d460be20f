//! Local tools through the binary against the bare commands they run, in
//! the same run (criterion):
//!
//! - `exec run` of `true` (argv) through `hanzo-mcp serve` over stdio, one
//!   sequential `tools/call` round trip, against spawning `true` with
//!   `std::process::Command` and waiting for it;
//! - `git status` on a repository of 10,000 committed files (one modified)
//!   through the `git` tool, against running `git status --porcelain=v2`
//!   directly in it;
//! - `memory store` and `memory search` with 100,000 memories in the state
//!   database, and `tasks list` (first page) with 10,000 tasks, each one
//!   round trip through the binary;
//! - `fetch get` (Markdown) of a 200 KB HTML page from a loopback server
//!   through the binary (`HANZO_MCP_FETCH_ALLOW_PRIVATE=1`), against
//!   `curl -s` of the same page (a process per request, as users run it),
//!   and the Markdown conversion of that page alone.
//!
//! ```sh
//! cargo bench -p mcp-local-server --bench tools
//! ```

#[path = "../tests/it/common/stdio.rs"]
mod stdio;

use std::path::Path;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use stdio::Proc;

/// `hanzo-mcp serve --no-door` on `root`, its state in `state`, with
/// `env`, past the handshake.
fn hanzo(root: &Path, state: &Path, env: &[(&str, &str)]) -> Proc {
    let root = root.display().to_string();
    let state = state.display().to_string();
    let mut all = vec![("HANZO_MCP_STATE", state.as_str())];
    all.extend_from_slice(env);
    let mut proc = Proc::spawn_with_env(
        &[
            "serve",
            "--no-door",
            "--log-level",
            "error",
            "--root",
            &root,
        ],
        &all,
    );
    proc.handshake("2025-11-25", json!({}));
    proc
}

/// Sends `call` (with `"ID"` standing for the id) and waits for its answer.
fn round_trip(proc: &mut Proc, id: &mut u64, call: &str, expect: &str) {
    *id += 1;
    proc.send_line(&call.replace("\"ID\"", &id.to_string()));
    let answer = proc.response(*id);
    assert!(answer.contains(expect), "{answer}");
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.test",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(status.status.success(), "git {args:?}: {status:?}");
}

fn exec_true(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("tempdir");
    let mut proc = hanzo(root.path(), root.path(), &[]);
    let mut id = 0;
    let call = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"exec","arguments":{"action":"run","command":["true"]}}}"#;
    let mut group = c.benchmark_group("exec_true");
    group.bench_function("hanzo-mcp exec run", |b| {
        b.iter(|| round_trip(&mut proc, &mut id, call, "exit code 0"))
    });
    group.bench_function("std::process::Command", |b| {
        b.iter(|| assert!(Command::new("true").status().expect("true").success()))
    });
    group.finish();
    proc.finish();
}

fn git_status(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("tempdir");
    let repo = root.path();
    git(repo, &["init", "-q"]);
    for i in 0..10_000 {
        let dir = repo.join(format!("d{}", i / 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(format!("f{i}.txt")), format!("file {i}\n")).expect("write");
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "ten thousand files"]);
    std::fs::write(repo.join("d0/f0.txt"), "changed\n").expect("write");
    let mut proc = hanzo(repo, repo, &[]);
    let mut id = 0;
    let call = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"git","arguments":{"action":"status"}}}"#;
    let mut group = c.benchmark_group("git_status_10k");
    group.bench_function("hanzo-mcp git status", |b| {
        b.iter(|| round_trip(&mut proc, &mut id, call, "d0/f0.txt"))
    });
    group.bench_function("git status --porcelain=v2", |b| {
        b.iter(|| {
            let out = Command::new("git")
                .args(["status", "--porcelain=v2", "--branch"])
                .current_dir(repo)
                .output()
                .expect("git");
            assert!(out.stdout.windows(9).any(|w| w == b"d0/f0.txt"));
        })
    });
    group.finish();
    proc.finish();
}

/// Sends `calls` pipelined, 256 at a time (ids from `*id + 1`), and reads
/// every answer: fills the state database fast. (All at once would fill
/// both pipes: the server stops reading while its answers wait unread.)
fn pipelined(proc: &mut Proc, id: &mut u64, calls: impl Iterator<Item = String>) {
    let calls: Vec<String> = calls.collect();
    for chunk in calls.chunks(256) {
        for call in chunk {
            *id += 1;
            proc.send_line(&call.replace("\"ID\"", &id.to_string()));
        }
        // Answers come in any order; count them.
        for _ in chunk {
            let answer = proc.any_response();
            assert!(!answer.contains("\"isError\":true"), "{answer}");
        }
    }
}

fn state_tools(c: &mut Criterion) {
    let root = tempfile::tempdir().expect("tempdir");
    let mut proc = hanzo(root.path(), root.path(), &[]);
    let mut id = 0;
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf",
    ];
    pipelined(
        &mut proc,
        &mut id,
        (0..100_000).map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{{"name":"memory","arguments":{{"action":"store","key":"k{i}","content":"note {i} about {} and {}"}}}}}}"#,
                words[i % 7],
                words[(i / 7) % 7]
            )
        }),
    );
    pipelined(
        &mut proc,
        &mut id,
        (0..10_000).map(|i| {
            format!(
                r#"{{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{{"name":"tasks","arguments":{{"action":"add","title":"task {i}"}}}}}}"#
            )
        }),
    );
    let mut group = c.benchmark_group("state_100k");
    let mut n = 0;
    group.bench_function("memory store (100,000 stored)", |b| {
        b.iter(|| {
            n += 1;
            let call = format!(
                r#"{{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{{"name":"memory","arguments":{{"action":"store","key":"bench{n}","content":"bench note {n}"}}}}}}"#
            );
            round_trip(&mut proc, &mut id, &call, "stored memory");
        })
    });
    let search = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"memory","arguments":{"action":"search","query":"charlie golf","limit":10}}}"#;
    group.bench_function(
        "memory search, 28,571 matches ranked (100,000 stored)",
        |b| b.iter(|| round_trip(&mut proc, &mut id, search, "about")),
    );
    let one = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"memory","arguments":{"action":"search","query":"k4242","limit":10}}}"#;
    group.bench_function("memory search, one match (100,000 stored)", |b| {
        b.iter(|| round_trip(&mut proc, &mut id, one, "note 4242"))
    });
    let list = r#"{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{"name":"tasks","arguments":{"action":"list"}}}"#;
    group.bench_function("tasks list (10,000 tasks)", |b| {
        b.iter(|| round_trip(&mut proc, &mut id, list, "of 10000"))
    });
    group.finish();
    proc.finish();
}

/// Serves `body` as `text/html` to every request on a loopback port, one
/// connection at a time, each closed after its answer.
fn serve_page(body: String) -> std::net::SocketAddr {
    use std::io::{BufRead as _, BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut line = String::new();
            while reader.read_line(&mut line).map(|n| n > 2).unwrap_or(false) {
                line.clear();
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    addr
}

fn fetch_page(c: &mut Criterion) {
    let mut body = String::from(
        "<!doctype html><html><head><title>Bench</title></head><body><nav><a href=\"/\">Home</a></nav><article><h1>Bench</h1>",
    );
    let mut n = 0;
    while body.len() < 200 * 1024 {
        n += 1;
        body.push_str(&format!(
            "<h2>Part {n}</h2><p>Paragraph {n} of the article, with <a href=\"/p/{n}\">a link</a>, <em>emphasis</em> and enough words to read like prose about tides, charts and harbours.</p><ul><li>item {n}.1</li><li>item {n}.2</li></ul>"
        ));
    }
    body.push_str("</article><footer>footer</footer></body></html>");
    let page = body.clone();
    let addr = serve_page(body);
    let url = format!("http://{addr}/page.html");
    let root = tempfile::tempdir().expect("tempdir");
    let mut proc = hanzo(
        root.path(),
        root.path(),
        &[("HANZO_MCP_FETCH_ALLOW_PRIVATE", "1")],
    );
    let mut id = 0;
    let call = format!(
        r#"{{"jsonrpc":"2.0","id":"ID","method":"tools/call","params":{{"name":"fetch","arguments":{{"action":"get","url":"{url}"}}}}}}"#
    );
    let mut group = c.benchmark_group("fetch_200k");
    group.bench_function("hanzo-mcp fetch get (markdown)", |b| {
        b.iter(|| round_trip(&mut proc, &mut id, &call, "Part 1"))
    });
    group.bench_function("Markdown conversion alone", |b| {
        b.iter(|| {
            let markdown = mcp_local_tools::fetch::html_to_markdown(&page, &url).expect("markdown");
            assert!(markdown.contains("Part 1"));
        })
    });
    group.bench_function("curl -s", |b| {
        b.iter(|| {
            let out = Command::new("curl")
                .args(["-s", &url])
                .output()
                .expect("curl");
            assert!(out.stdout.len() > 200 * 1024);
        })
    });
    group.finish();
    proc.finish();
}

criterion_group!(benches, exec_true, git_status, state_tools, fetch_page);
criterion_main!(benches);
