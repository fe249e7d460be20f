//! `fetch get` of a 200 KB HTML page from a loopback server, next to a
//! plain reqwest GET and `curl` of the same page, and the HTML-to-Markdown
//! conversion alone, in one run (figures in BENCHMARKS.md).
//!
//! Run: `cargo bench -p mcp-local-tools --bench fetch` (`curl` on PATH for
//! its row).

#[path = "../tests/it/http_fixture/mod.rs"]
mod http_fixture;

use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_local_tools::fetch::{FetchConfig, FetchTool, html_to_markdown};
use mcp_local_tools::net::NetPolicy;
use mcp_local_tools::{LocalTool, Roots, ToolContext};
use serde_json::json;

const WORDS: &[&str] = &[
    "harbour", "tide", "moon", "water", "range", "coast", "table", "spring", "neap", "current",
    "channel", "depth", "chart", "vessel", "pilot", "beacon", "shoal", "estuary", "swell", "wind",
];

/// A page of about `size` bytes: navigation, an article of sections with
/// paragraphs, links, lists and code, a footer.
fn page(size: usize) -> String {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut word = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        WORDS[(seed % WORDS.len() as u64) as usize]
    };
    let mut html = String::from(
        "<!doctype html><html><head><title>Tides</title><style>body{margin:0}</style></head><body>\
         <header><nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/charts\">Charts</a></li>\
         <li><a href=\"/about\">About</a></li></ul></nav></header><main><article><h1>Tides</h1>",
    );
    let mut section = 0;
    while html.len() < size {
        section += 1;
        html.push_str(&format!("<h2>Section {section}</h2>"));
        for _ in 0..4 {
            html.push_str("<p>");
            for i in 0..60 {
                if i % 17 == 5 {
                    html.push_str(&format!("<a href=\"/w/{}\">{}</a> ", word(), word()));
                } else {
                    html.push_str(word());
                    html.push(' ');
                }
            }
            html.push_str("</p>");
        }
        html.push_str("<ul>");
        for _ in 0..3 {
            html.push_str(&format!(
                "<li><strong>{}</strong> {} {}</li>",
                word(),
                word(),
                word()
            ));
        }
        html.push_str("</ul><pre><code>let depth = chart.depth(tide);</code></pre>");
    }
    html.push_str("</article></main><footer><p>Contact and copyright.</p></footer></body></html>");
    html
}

fn bench(c: &mut Criterion) {
    let html = page(200 * 1024);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let served = html.clone();
    let server = runtime.block_on(http_fixture::Server::start("127.0.0.1", move |_| {
        http_fixture::ok("text/html; charset=utf-8", served.clone())
    }));
    let url = server.url("/page");
    let tool = FetchTool::with_config(FetchConfig {
        policy: NetPolicy {
            allow_private: true,
            ..NetPolicy::default()
        },
        ..FetchConfig::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let roots = Roots::new(vec![dir.path().to_path_buf()]).unwrap();
    let call = |format: &'static str| {
        let args = json!({"action": "get", "url": url, "format": format, "max_length": 100_000});
        let serde_json::Value::Object(map) = args else {
            unreachable!()
        };
        let result = runtime.block_on(tool.call(map, ToolContext::new(roots.clone())));
        assert_ne!(result.is_error, Some(true), "{:?}", result.content);
        result
    };
    let markdown = html_to_markdown(&html, &url).unwrap();
    assert!(markdown.contains("## Section 1"), "the article is kept");
    assert!(!markdown.contains("Charts"), "the navigation is not");
    eprintln!(
        "page: {} bytes of HTML, {} bytes of Markdown",
        html.len(),
        markdown.len()
    );
    call("markdown");
    let client = reqwest::Client::new();

    let mut group = c.benchmark_group("fetch_200kb_html");
    group.sample_size(30);
    group.bench_function("fetch get (markdown), tool API", |b| {
        b.iter(|| call("markdown"))
    });
    group.bench_function("fetch get (raw), tool API", |b| b.iter(|| call("raw")));
    group.bench_function("reqwest GET, body read", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let body = client
                    .get(&url)
                    .send()
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap();
                assert_eq!(body.len(), html.len());
            })
        })
    });
    if Command::new("curl").arg("--version").output().is_ok() {
        group.bench_function("curl -s (process)", |b| {
            b.iter(|| {
                let out = Command::new("curl").args(["-s", &url]).output().unwrap();
                assert_eq!(out.stdout.len(), html.len());
            })
        });
    }
    group.bench_function("Markdown conversion alone", |b| {
        b.iter(|| html_to_markdown(&html, &url).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
