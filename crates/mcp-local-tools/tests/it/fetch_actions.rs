//! The `fetch` tool against loopback HTTP servers written for the tests,
//! and its address guard with the setting off.
#![cfg(feature = "fetch")]

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{Sandbox, assert_outside_roots, tool_failed, tool_succeeded};
use crate::http_fixture::{
    Reply, Server, assert_no_credential_sent, not_found, ok, private_allowed, redirect,
};
use mcp_local_tools::fetch::{FetchConfig, FetchTool};
use mcp_local_tools::net::{GuardedResolver, NetPolicy};
use mcp_local_tools::{Roots, ToolContext};
use serde_json::{Value, json};

/// The tool with private addresses allowed (the test servers are on
/// loopback).
fn open_tool() -> FetchTool {
    FetchTool::with_config(FetchConfig {
        policy: private_allowed(),
        ..FetchConfig::default()
    })
}

/// The tool with the default policy: private addresses refused.
fn guarded_tool() -> FetchTool {
    FetchTool::with_config(FetchConfig::default())
}

/// Calls `fetch`; returns (isError, text, structuredContent).
async fn fetch(tool: &FetchTool, roots: &Roots, args: Value) -> (bool, String, Value) {
    crate::common::call_tool(tool, ToolContext::new(roots.clone()), args).await
}

/// Calls the tool with private addresses allowed under `s`'s roots.
async fn open_fetch(s: &Sandbox, args: Value) -> (bool, String, Value) {
    fetch(&open_tool(), &s.roots, args).await
}

const ARTICLE_PAGE: &str = r#"<!doctype html>
<html><head><title>Tide tables</title></head>
<body>
<nav class="menu"><ul>
  <li><a href="/">NAVLINK-HOME</a></li><li><a href="/about">NAVLINK-ABOUT</a></li>
  <li><a href="/contact">NAVLINK-CONTACT</a></li><li><a href="/blog">NAVLINK-BLOG</a></li>
</ul></nav>
<main><article>
  <h1>Tide tables</h1>
  <p>ARTICLE-MARKER The tide rises and falls twice a day along most coasts, pulled by the moon and, to a lesser degree, by the sun. Harbour masters publish tables so that boats can leave and enter safely.</p>
  <h2>Spring and neap tides</h2>
  <p>When the sun and the moon line up, their pulls add together and the range between high and low water is largest: these are spring tides, which have nothing to do with the season. When they pull at right angles the range is smallest: neap tides.</p>
  <p>Local geography matters a great deal. A long, narrowing bay can funnel the incoming water into a range of many metres, while an enclosed sea may barely notice the tide at all. Reading the <a href="/tables">full table</a> for your harbour is always wiser than guessing.</p>
  <ul><li>High water: 06:12</li><li>Low water: 12:31</li></ul>
</article></main>
<footer><p>FOOTER-MARKER Copyright and contact details.</p></footer>
</body></html>"#;

#[tokio::test]
async fn html_becomes_markdown_with_the_article_and_not_the_navigation() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |_| {
        ok("text/html; charset=utf-8", ARTICLE_PAGE)
    })
    .await;
    let args = json!({"action": "fetch", "url": server.url("/tides")});
    let (text, meta) = tool_succeeded(open_fetch(&s, args).await);
    assert!(text.contains("ARTICLE-MARKER The tide rises"), "{text}");
    assert!(text.contains("## Spring and neap tides"), "{text}");
    assert!(text.contains("- High water: 06:12"), "{text}");
    assert!(!text.contains("NAVLINK"), "{text}");
    assert!(!text.contains("<p>"), "{text}");
    assert_eq!(meta["format"], "markdown");
    assert_eq!(meta["status"], 200);
    assert_eq!(meta["contentType"], "text/html");
    assert_eq!(meta["nextStartIndex"], Value::Null);

    let args = json!({"action": "get", "url": server.url("/tides"), "format": "text"});
    let (text, _) = tool_succeeded(open_fetch(&s, args).await);
    assert!(text.contains("ARTICLE-MARKER"), "{text}");
    assert!(!text.contains("##"), "{text}");

    let args = json!({"action": "get", "url": server.url("/tides"), "format": "raw"});
    let (text, _) = tool_succeeded(open_fetch(&s, args).await);
    assert_eq!(text, format!("{ARTICLE_PAGE}\n"));
}

#[tokio::test]
async fn a_page_with_no_text_is_an_error_that_suggests_raw() {
    let s = Sandbox::new();
    let page = "<html><body><div id=app></div><script>render()</script></body></html>";
    let server = Server::start("127.0.0.1", move |_| ok("text/html", page)).await;
    let text =
        tool_failed(open_fetch(&s, json!({"action": "get", "url": server.url("/app")})).await);
    assert!(text.contains("no readable text"), "{text}");
    assert!(text.contains("format: raw"), "{text}");
}

#[tokio::test]
async fn paging_splits_on_characters_and_names_the_next_start_index() {
    let s = Sandbox::new();
    // 3 characters a unit, 1 + 2 + 4 bytes.
    let body = "aé😀".repeat(10);
    let served = body.clone();
    let server = Server::start("127.0.0.1", move |_| {
        ok("text/plain; charset=utf-8", served.clone())
    })
    .await;
    let tool = open_tool();
    let mut start = 0;
    let mut joined = String::new();
    let mut pages = 0;
    loop {
        let args = json!({"action": "get", "url": server.url("/u"), "start_index": start, "max_length": 7});
        let (text, meta) = tool_succeeded(fetch(&tool, &s.roots, args).await);
        assert_eq!(meta["totalChars"], 30);
        let content = text.split("\n[").next().unwrap().trim_end_matches('\n');
        joined.push_str(content);
        pages += 1;
        match meta["nextStartIndex"].as_u64() {
            Some(next) => {
                assert_eq!(next, start + 7);
                assert!(text.contains(&format!("continue with start_index={next}")));
                start = next;
            }
            None => break,
        }
    }
    assert_eq!(pages, 5);
    assert_eq!(joined, body);
    // A page that starts on the 4-byte character.
    let (_, text, _) = fetch(
        &tool,
        &s.roots,
        json!({"action": "get", "url": server.url("/u"), "start_index": 2, "max_length": 2}),
    )
    .await;
    assert!(text.starts_with("😀a\n"), "{text}");
    let args = json!({"action": "get", "url": server.url("/u"), "start_index": 30});
    let text = tool_failed(fetch(&tool, &s.roots, args).await);
    assert!(
        text.contains("past the end: the content has 30 characters"),
        "{text}"
    );
}

/// The peak resident set of this process, in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap()
}

#[tokio::test]
async fn a_50_mb_body_stops_at_the_cap_with_memory_bounded() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |_| Reply::Stream { total: 50_000_000 }).await;
    // A 1 MiB cap: the peak resident set grows by far less than the body.
    let small = FetchTool::with_config(FetchConfig {
        policy: private_allowed(),
        max_bytes: 1 << 20,
        ..FetchConfig::default()
    });
    let before = peak_rss_kib();
    let (err, text, meta) = fetch(
        &small,
        &s.roots,
        json!({"action": "get", "url": server.url("/big"), "max_length": 10}),
    )
    .await;
    let grown_kib = peak_rss_kib().saturating_sub(before);
    assert!(!err, "{text}");
    assert_eq!(meta["bodyBytes"], 1 << 20);
    assert_eq!(meta["bodyComplete"], false);
    assert!(text.starts_with("xxxxxxxxxx\n"), "{text}");
    assert!(
        text.contains(
            "[the body is larger than 1048576 bytes; only the first 1048576 bytes were read]"
        ),
        "{text}"
    );
    assert!(grown_kib < 30 * 1024, "peak RSS grew by {grown_kib} KiB");

    // The default cap: 10 MiB.
    let (err, _, meta) = open_fetch(
        &s,
        json!({"action": "get", "url": server.url("/big"), "max_length": 10}),
    )
    .await;
    assert!(!err);
    assert_eq!(meta["bodyBytes"], 10 * 1024 * 1024);
    assert_eq!(meta["totalChars"], 10 * 1024 * 1024);
}

#[tokio::test]
async fn json_is_pretty_printed_on_request() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |_| {
        ok("application/json", r#"{"name":"tide","levels":[1,2]}"#)
    })
    .await;
    let args = json!({"action": "get", "url": server.url("/j"), "format": "json"});
    let (text, meta) = tool_succeeded(open_fetch(&s, args).await);
    assert_eq!(
        text,
        "{\n  \"name\": \"tide\",\n  \"levels\": [\n    1,\n    2\n  ]\n}\n"
    );
    assert_eq!(meta["format"], "json");
    let (_, text, meta) = open_fetch(&s, json!({"action": "get", "url": server.url("/j")})).await;
    assert_eq!(text, "{\"name\":\"tide\",\"levels\":[1,2]}\n");
    assert_eq!(meta["format"], "raw");

    let html = Server::start("127.0.0.1", |_| ok("text/html", "<p>x</p>")).await;
    let args = json!({"action": "get", "url": html.url("/"), "format": "json"});
    let text = tool_failed(open_fetch(&s, args).await);
    assert!(text.starts_with("the body is not JSON"), "{text}");
}

/// `/r/N` redirects to `/r/N-1`; `/r/0` answers "arrived".
async fn redirect_chain() -> Server {
    Server::start("127.0.0.1", |req| {
        match req
            .path
            .strip_prefix("/r/")
            .and_then(|n| n.parse::<u32>().ok())
        {
            Some(0) => ok("text/plain", "arrived"),
            Some(n) => redirect(302, &format!("/r/{}", n - 1)),
            None => not_found(),
        }
    })
    .await
}

#[tokio::test]
async fn five_redirects_are_followed_and_a_sixth_is_refused() {
    let s = Sandbox::new();
    let server = redirect_chain().await;
    let (text, meta) =
        tool_succeeded(open_fetch(&s, json!({"action": "get", "url": server.url("/r/5")})).await);
    assert_eq!(text, "arrived\n");
    assert_eq!(meta["redirects"], 5);
    assert_eq!(meta["finalUrl"], server.url("/r/0"));

    let before = server.log().len();
    let text =
        tool_failed(open_fetch(&s, json!({"action": "get", "url": server.url("/r/6")})).await);
    assert!(text.starts_with("too many redirects"), "{text}");
    // The sixth hop (/r/0) was never requested.
    let paths: Vec<String> = server.log()[before..]
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(paths, ["/r/6", "/r/5", "/r/4", "/r/3", "/r/2", "/r/1"]);
}

#[tokio::test]
async fn post_with_a_body_and_headers() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |req| Reply::Full {
        status: 201,
        headers: vec![
            ("Content-Type".to_owned(), "text/plain".to_owned()),
            ("X-Seen".to_owned(), req.method.clone()),
        ],
        body: [b"got: ".as_slice(), &req.body].concat(),
    })
    .await;
    let args = json!({
        "action": "request",
        "url": server.url("/items"),
        "method": "post",
        "headers": {"Content-Type": "application/json", "X-Trace": "t-1"},
        "body": "{\"a\":1}"
    });
    let (text, meta) = tool_succeeded(open_fetch(&s, args).await);
    assert!(text.starts_with("HTTP 201 "), "{text}");
    assert!(text.contains("x-seen: POST\n"), "{text}");
    assert!(text.ends_with("\ngot: {\"a\":1}\n"), "{text}");
    assert_eq!(meta["status"], 201);
    let logged = &server.log()[0];
    assert_eq!(logged.method, "POST");
    assert_eq!(logged.body, b"{\"a\":1}");
    assert_eq!(logged.header("x-trace"), Some("t-1"));
    assert_eq!(logged.header("content-type"), Some("application/json"));

    let args = json!({"action": "head", "url": server.url("/items")});
    let (_, meta) = tool_succeeded(open_fetch(&s, args).await);
    assert_eq!(meta["status"], 201);
    assert_eq!(meta["headers"]["x-seen"], "HEAD");

    let args = json!({"action": "request", "url": server.url("/"), "method": "TRACE"});
    let text = tool_failed(open_fetch(&s, args).await);
    assert!(text.contains("GET, POST, PUT, PATCH or DELETE"), "{text}");
    let args = json!({"action": "get", "url": server.url("/"), "headers": {"Host": "evil.test"}});
    let text = tool_failed(open_fetch(&s, args).await);
    assert!(text.contains("'Host' cannot be set"), "{text}");
}

#[tokio::test]
async fn download_saves_inside_the_roots_only() {
    let s = Sandbox::new();
    let payload: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let served = payload.clone();
    let server = Server::start("127.0.0.1", move |req| match req.path.as_str() {
        "/blob" => ok("application/octet-stream", served.clone()),
        _ => ok("text/plain", "second"),
    })
    .await;
    let tool = open_tool();
    let args = json!({"action": "download", "url": server.url("/blob"), "path": "dl/blob.bin"});
    let (_, meta) = tool_succeeded(fetch(&tool, &s.roots, args).await);
    assert_eq!(std::fs::read(s.root.join("dl/blob.bin")).unwrap(), payload);
    assert_eq!(meta["bytes"], 100_000);
    assert_eq!(meta["path"], "dl/blob.bin");

    let args = json!({"action": "download", "url": server.url("/other"), "path": "dl/blob.bin"});
    let text = tool_failed(fetch(&tool, &s.roots, args).await);
    assert!(
        text.contains("already exists (pass overwrite: true"),
        "{text}"
    );
    assert_eq!(std::fs::read(s.root.join("dl/blob.bin")).unwrap(), payload);
    let (err, _, _) = fetch(
        &tool,
        &s.roots,
        json!({"action": "download", "url": server.url("/other"), "path": "dl/blob.bin", "overwrite": true}),
    )
    .await;
    assert!(!err);
    assert_eq!(s.read("dl/blob.bin"), "second");

    let requests = server.log().len();
    for path in ["../outside/got.bin", &s.abs("outside/got.bin")] {
        let args = json!({"action": "download", "url": server.url("/blob"), "path": path});
        let (is_error, text, _) = fetch(&tool, &s.roots, args).await;
        assert_outside_roots(&(is_error, text));
    }
    assert!(!s.base.join("outside/got.bin").exists());
    // Refused before any request.
    assert_eq!(server.log().len(), requests);

    let small = json!({"action": "download", "url": server.url("/blob"), "path": "small.bin", "max_bytes": 1000});
    let text = tool_failed(fetch(&tool, &s.roots, small).await);
    assert!(
        text.contains("more than max_bytes (1000); nothing was saved"),
        "{text}"
    );
    assert!(!s.root.join("small.bin").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&s.root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("mcp-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |_| {
        Reply::Sleep(std::time::Duration::from_secs(20))
    })
    .await;
    let args = json!({"action": "get", "url": server.url("/slow"), "timeout_ms": 300});
    let text = tool_failed(open_fetch(&s, args).await);
    assert_eq!(text, "timed out after 300 ms");
    // A download cut by its timeout leaves no temporary file behind.
    let stalling = Server::start("127.0.0.1", |_| Reply::Stall {
        sent: 100_000,
        total: 1_000_000,
    })
    .await;
    let args = json!({"action": "download", "url": stalling.url("/f"), "path": "f.bin", "timeout_ms": 500});
    let text = tool_failed(open_fetch(&s, args).await);
    assert_eq!(text, "timed out after 500 ms");
    let names: Vec<_> = std::fs::read_dir(&s.root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(names.is_empty(), "{names:?}");

    let args = json!({"action": "get", "url": server.url("/slow"), "timeout_ms": 999_999});
    let text = tool_failed(open_fetch(&s, args).await);
    assert_eq!(text, "timeout_ms must be 1..=120000 (got 999999)");
}

#[tokio::test]
async fn only_http_and_https() {
    let s = Sandbox::new();
    for (url, scheme) in [
        ("file:///etc/passwd", "file"),
        ("ftp://example.com/x", "ftp"),
        ("data:text/plain,hi", "data"),
        ("gopher://example.com/", "gopher"),
    ] {
        let (err, text, _) = open_fetch(&s, json!({"action": "get", "url": url})).await;
        assert!(err, "{url}");
        assert_eq!(
            text,
            format!("'{url}': the {scheme}: scheme is refused (only http and https)")
        );
    }
    let text = tool_failed(open_fetch(&s, json!({"action": "get"})).await);
    assert_eq!(text, "get: missing field 'url'");
    let text = tool_failed(open_fetch(&s, json!({"action": "get", "url": "not a url"})).await);
    assert!(text.starts_with("'not a url' is not a URL"), "{text}");
}

#[tokio::test]
async fn internal_addresses_are_refused_and_never_connected() {
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |_| ok("text/plain", "reached")).await;
    let port = server.addr.port();
    let cases = [
        (
            format!("http://127.0.0.1:{port}/"),
            "127.0.0.1 is a loopback address",
        ),
        (format!("http://[::1]:{port}/"), "::1 is a loopback address"),
        (
            format!("http://[::ffff:127.0.0.1]:{port}/"),
            "::ffff:127.0.0.1 is a loopback address",
        ),
        (
            format!("http://2130706433:{port}/"),
            "127.0.0.1 is a loopback address",
        ),
        (
            format!("http://0x7f.1:{port}/"),
            "127.0.0.1 is a loopback address",
        ),
        (
            format!("http://localhost:{port}/"),
            "'localhost' resolves to",
        ),
        (
            "http://10.0.0.1/".to_owned(),
            "10.0.0.1 is a private address (RFC 1918)",
        ),
        (
            "http://100.64.1.1/".to_owned(),
            "100.64.1.1 is a shared address (RFC 6598)",
        ),
        (
            "http://169.254.169.254/latest/meta-data/".to_owned(),
            "169.254.169.254 is a link-local address (where cloud metadata services live)",
        ),
        (
            "http://[fd00:ec2::254]/".to_owned(),
            "fd00:ec2::254 is a unique-local IPv6 address",
        ),
        (
            format!("http://0.0.0.0:{port}/"),
            "0.0.0.0 is an unspecified address",
        ),
        ("http://[::]/".to_owned(), ":: is an unspecified address"),
        (
            "http://224.0.0.1/".to_owned(),
            "224.0.0.1 is a multicast address",
        ),
    ];
    let tool = guarded_tool();
    for (url, why) in &cases {
        for action in ["get", "head", "request", "download"] {
            // Only download takes a path: the others refuse the field.
            let mut args = json!({"action": action, "url": url});
            if action == "download" {
                args["path"] = json!("never.txt");
            }
            let (err, text, _) = fetch(&tool, &s.roots, args).await;
            assert!(err, "{action} {url}: {text}");
            assert!(text.contains(why), "{action} {url}: {text}");
            assert!(text.contains("--fetch-allow-private"), "{text}");
        }
    }
    let (_, text, _) = fetch(
        &tool,
        &s.roots,
        json!({"action": "get", "url": format!("http://localhost:{port}/")}),
    )
    .await;
    assert!(text.contains("a loopback address"), "{text}");
    assert_eq!(server.connections(), 0);
    assert!(server.log().is_empty());
    assert!(!s.root.join("never.txt").exists());
}

#[tokio::test]
async fn a_redirect_from_an_allowed_host_to_loopback_is_refused_at_the_connection() {
    let s = Sandbox::new();
    // The second server listens on another loopback address (Linux routes
    // all of 127.0.0.0/8 to the loopback interface), which the guard treats
    // as loopback; the first is made "public" by the test's
    // policy (its address allowed, its name fixed without DNS).
    let inner = Server::start("127.0.0.2", |_| ok("text/plain", "internal secret")).await;
    let inner_port = inner.addr.port();
    let outer = Server::start("127.0.0.1", move |req| match req.path.as_str() {
        "/to-literal" => redirect(302, &format!("http://127.0.0.2:{inner_port}/")),
        "/to-name" => redirect(307, &format!("http://internal.test:{inner_port}/")),
        "/to-mapped" => redirect(301, &format!("http://[::ffff:127.0.0.2]:{inner_port}/")),
        _ => ok("text/plain", "public page"),
    })
    .await;
    let tool = FetchTool::with_config(FetchConfig {
        policy: NetPolicy {
            allow_private: false,
            allowed_addrs: vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
            hosts: vec![
                (
                    "allowed.test".to_owned(),
                    vec![IpAddr::V4(Ipv4Addr::LOCALHOST)],
                ),
                (
                    "internal.test".to_owned(),
                    vec![IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2))],
                ),
            ],
        },
        ..FetchConfig::default()
    });
    let base = format!("http://allowed.test:{}", outer.addr.port());
    let args = json!({"action": "get", "url": format!("{base}/")});
    let (text, _) = tool_succeeded(fetch(&tool, &s.roots, args).await);
    assert_eq!(text, "public page\n");
    for (path, why) in [
        ("/to-literal", "refused: 127.0.0.2 is a loopback address"),
        (
            "/to-name",
            "refused: 'internal.test' resolves to 127.0.0.2, a loopback address",
        ),
        (
            "/to-mapped",
            "refused: ::ffff:127.0.0.2 is a loopback address",
        ),
    ] {
        let (err, text, _) = fetch(
            &tool,
            &s.roots,
            json!({"action": "get", "url": format!("{base}{path}")}),
        )
        .await;
        assert!(err, "{path}: {text}");
        assert!(text.starts_with(why), "{path}: {text}");
    }
    assert_eq!(outer.log().len(), 4);
    assert_eq!(inner.connections(), 0);
    assert!(inner.log().is_empty());
}

/// Why `resolver` refuses `name`.
async fn refusal(resolver: &GuardedResolver, name: &str) -> String {
    let refused = resolver.resolve_checked(name).await;
    refused.unwrap_err().to_string()
}

#[tokio::test]
async fn the_resolver_hook_checks_every_answer_it_returns() {
    use reqwest::dns::Resolve as _;
    let policy = Arc::new(NetPolicy::default());
    // A name whose answer changes: public first, loopback next (DNS
    // rebinding). Each answer the client would connect to is checked.
    let calls = Arc::new(AtomicUsize::new(0));
    let counter = calls.clone();
    let resolver = GuardedResolver::with_lookup(policy.clone(), move |name| {
        assert_eq!(name, "rebind.test");
        Ok(match counter.fetch_add(1, Ordering::SeqCst) {
            0 => vec!["93.184.215.14".parse().unwrap()],
            _ => vec!["127.0.0.1".parse().unwrap()],
        })
    });
    let first: Vec<_> = resolver
        .resolve("rebind.test".parse().unwrap())
        .await
        .unwrap()
        .collect();
    assert_eq!(first, ["93.184.215.14:0".parse().unwrap()]);
    let second = resolver.resolve("rebind.test".parse().unwrap()).await;
    let error = second.err().expect("loopback refused").to_string();
    assert!(
        error.starts_with("refused: 'rebind.test' resolves to 127.0.0.1, a loopback address"),
        "{error}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    // One bad address among good ones refuses the name.
    let mixed = GuardedResolver::with_lookup(policy.clone(), |_| {
        Ok(vec![
            "8.8.8.8".parse().unwrap(),
            "169.254.169.254".parse().unwrap(),
        ])
    });
    let error = refusal(&mixed, "mixed.test").await;
    assert!(
        error.contains("169.254.169.254, a link-local address"),
        "{error}"
    );
    let mapped =
        GuardedResolver::with_lookup(policy, |_| Ok(vec!["::ffff:10.1.2.3".parse().unwrap()]));
    let error = refusal(&mapped, "m.test").await;
    assert!(error.contains("a private address (RFC 1918)"), "{error}");

    // The setting allows them.
    let open = GuardedResolver::with_lookup(Arc::new(private_allowed()), |_| {
        Ok(vec!["127.0.0.1".parse().unwrap()])
    });
    assert_eq!(
        open.resolve_checked("x.test").await.unwrap(),
        [IpAddr::V4(Ipv4Addr::LOCALHOST)]
    );
    // The system resolver path: localhost is loopback.
    let system = GuardedResolver::new(Arc::new(NetPolicy::default()));
    let error = refusal(&system, "localhost").await;
    assert!(error.contains("a loopback address"), "{error}");
}

#[tokio::test]
async fn no_credential_of_the_server_is_sent() {
    const CANARY: &str = "hk-canary-4b1f7d0e9a";
    // The door's bearer variable is set; the tool must never send it. The
    // tool is built as the default toolbox builds it, from the environment.
    #[allow(unsafe_code)]
    // SAFETY: no other test of this binary reads or writes these variables.
    unsafe {
        std::env::set_var("HANZO_API_KEY", CANARY);
        std::env::set_var("HANZO_MCP_FETCH_ALLOW_PRIVATE", "1");
    }
    let s = Sandbox::new();
    let server = Server::start("127.0.0.1", |req| match req.path.as_str() {
        "/hop" => redirect(302, "/end"),
        _ => ok("text/html", ARTICLE_PAGE),
    })
    .await;
    let tool = FetchTool::new();
    for args in [
        json!({"action": "get", "url": server.url("/hop")}),
        json!({"action": "head", "url": server.url("/end")}),
        json!({"action": "request", "url": server.url("/end"), "method": "PUT", "body": "x"}),
        json!({"action": "download", "url": server.url("/end"), "path": "page.html"}),
    ] {
        let (_, _) = tool_succeeded(fetch(&tool, &s.roots, args).await);
    }
    let log = server.log();
    assert_eq!(log.len(), 5);
    assert_no_credential_sent(&log, CANARY);
}
