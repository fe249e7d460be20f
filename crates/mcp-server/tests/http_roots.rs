//! Client roots are followed over stdio only (docs/ARCHITECTURE.md, "Local tools";
//! MCP 2025-11-25 client/roots): over `serve --http` one session's roots
//! must never widen or narrow what another session's tools may touch, so
//! without `--root` the local tools keep the working directory.
//!
//! The server here is built the way `hanzo-mcp serve` builds it
//! ([`cli::assemble`], [`cli::serve_server`], [`ServeArgs::http_config`])
//! and served with `serve_http` on an ephemeral loopback port.

mod http_support;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use futures_util::StreamExt;
use mcp_local_server::cli::{self, Cli, Command, ServeArgs};
use mcp_proto::sse::SseParser;
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A guard against a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30);

/// The one file of the directory the client offers as its root.
const MARKER: &str = "client-root-marker.txt";

fn serve_args(argv: &[&str]) -> ServeArgs {
    let cli = Cli::try_parse_from(argv).expect("a valid command line");
    match cli.command {
        Command::Serve(args) => args,
        other => panic!("not serve: {other:?}"),
    }
}

#[test]
fn only_stdio_without_root_follows_the_client_roots() {
    assert!(cli::follows_client_roots(&serve_args(&[
        "hanzo-mcp",
        "serve"
    ])));
    assert!(!cli::follows_client_roots(&serve_args(&[
        "hanzo-mcp",
        "serve",
        "--http",
        "127.0.0.1:0"
    ])));
    assert!(!cli::follows_client_roots(&serve_args(&[
        "hanzo-mcp",
        "serve",
        "--http",
        "8080"
    ])));
    assert!(!cli::follows_client_roots(&serve_args(&[
        "hanzo-mcp",
        "serve",
        "--root",
        "/tmp"
    ])));
    assert!(!cli::follows_client_roots(&serve_args(&[
        "hanzo-mcp",
        "serve",
        "--http",
        "127.0.0.1:0",
        "--root",
        "/tmp"
    ])));
}

/// One 2025-11-25 session over HTTP.
#[derive(Clone)]
struct Session {
    url: String,
    client: reqwest::Client,
    id: String,
}

impl Session {
    async fn open(url: &str) -> Session {
        let client = reqwest::Client::new();
        let init = json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "roots": { "listChanged": true } },
            "clientInfo": { "name": "http-roots", "version": "1" } } });
        let response = client
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string())
            .send()
            .await
            .expect("initialize answered");
        assert_eq!(response.status(), StatusCode::OK);
        let id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_owned();
        Session {
            url: url.to_owned(),
            client,
            id,
        }
    }

    async fn post(&self, body: &Value) -> reqwest::Response {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &self.id)
            .body(body.to_string())
            .send()
            .await
            .expect("POST answered")
    }

    /// The session's GET stream, for requests the server sends on its own.
    async fn standalone_stream(&self) -> Events {
        let response = self
            .client
            .get(&self.url)
            .header("accept", "text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .header("mcp-session-id", &self.id)
            .send()
            .await
            .expect("GET answered");
        assert_eq!(response.status(), StatusCode::OK);
        Events::of(response)
    }

    /// The response to request `id`, read from a JSON or an SSE answer.
    async fn call(&self, id: i64, body: &Value) -> Value {
        let response = self.post(body).await;
        assert_eq!(response.status(), StatusCode::OK);
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !sse {
            return response.json().await.expect("a JSON answer");
        }
        let mut events = Events::of(response);
        loop {
            let message = events.next().await.expect("the answer before the end");
            if message["id"] == json!(id) {
                return message;
            }
        }
    }

    /// `fs list` of `path` (the first root when `None`): (isError, text).
    async fn fs_list(&self, id: i64, path: Option<&str>) -> (bool, String) {
        let mut arguments = json!({ "action": "list" });
        if let Some(path) = path {
            arguments["path"] = json!(path);
        }
        let answer = self
            .call(
                id,
                &json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
                    "params": { "name": "fs", "arguments": arguments } }),
            )
            .await;
        let result = &answer["result"];
        (
            result["isError"] == json!(true),
            result["content"][0]["text"]
                .as_str()
                .unwrap_or_else(|| panic!("a text block in {answer}"))
                .to_owned(),
        )
    }
}

/// Reads the events of an SSE response one at a time.
struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    parser: SseParser,
    ready: std::collections::VecDeque<Value>,
}

impl Events {
    fn of(response: reqwest::Response) -> Self {
        Self {
            body: response.bytes_stream().boxed(),
            parser: SseParser::new(),
            ready: Default::default(),
        }
    }

    /// The next event's JSON data; `None` when the stream ends.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(event);
            }
            let chunk = tokio::time::timeout(PATIENCE, self.body.next())
                .await
                .expect("an event within the patience bound")?
                .ok()?;
            for event in self.parser.feed(&chunk) {
                let data = event.expect("a well-formed event").data;
                if !data.is_empty() {
                    self.ready
                        .push_back(serde_json::from_str(&data).expect("JSON data"));
                }
            }
        }
    }
}

/// What `fs list` shows for `dir`: its entries in byte order, `/` after a
/// directory, ` -> target` after a symlink, one a line.
fn listing(dir: &Path) -> String {
    let mut entries: Vec<(Vec<u8>, String)> = std::fs::read_dir(dir)
        .expect("read the working directory")
        .map(|entry| {
            let entry = entry.expect("an entry");
            let name = entry.file_name();
            let mut shown = name.to_string_lossy().into_owned();
            let kind = entry.file_type().expect("a file type");
            if kind.is_dir() {
                shown.push('/');
            } else if kind.is_symlink() {
                let target = std::fs::read_link(entry.path()).expect("a link target");
                shown.push_str(&format!(" -> {}", target.to_string_lossy()));
            }
            (name.as_encoded_bytes().to_vec(), shown)
        })
        .collect();
    entries.sort();
    entries.into_iter().map(|(_, shown)| shown + "\n").collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_session_roots_list_does_not_move_the_local_tools() {
    let args = serve_args(&["hanzo-mcp", "serve", "--http", "127.0.0.1:0", "--no-door"]);
    let assembly = cli::assemble(&args.sources).await.expect("assembled");
    assert!(
        assembly.client_roots.is_some(),
        "without --root the local tools could follow a client"
    );
    let server = Arc::new(cli::serve_server(&args, assembly));
    let listening = http_support::listen(server, args.http_config()).await;

    let offered = tempfile::tempdir().expect("the client's directory");
    std::fs::write(offered.path().join(MARKER), "client root\n").expect("marker");
    let offered_path = offered.path().to_str().expect("utf-8").to_owned();

    let session = Session::open(&listening.url).await;
    // Answer every roots/list the server might send with the other
    // directory, and remember that it asked.
    let mut stream = session.standalone_stream().await;
    let asked = Arc::new(Mutex::new(Vec::<Value>::new()));
    let answerer = {
        let session = session.clone();
        let asked = Arc::clone(&asked);
        let uri = format!("file://{offered_path}");
        tokio::spawn(async move {
            while let Some(message) = stream.next().await {
                if message["method"] != "roots/list" {
                    continue;
                }
                asked.lock().expect("lock").push(message.clone());
                let answer = json!({ "jsonrpc": "2.0", "id": message["id"],
                    "result": { "roots": [ { "uri": uri, "name": "client" } ] } });
                session.post(&answer).await;
            }
        })
    };
    for notification in [
        "notifications/initialized",
        "notifications/roots/list_changed",
    ] {
        let sent = session
            .post(&json!({ "jsonrpc": "2.0", "method": notification }))
            .await;
        assert_eq!(sent.status(), StatusCode::ACCEPTED, "{notification}");
    }

    let working = std::env::current_dir().expect("the working directory");
    assert_eq!(
        session.fs_list(1, None).await,
        (false, listing(&working)),
        "fs list must show the working directory"
    );
    let canonical = working.canonicalize().expect("canonical working directory");
    assert_eq!(
        session.fs_list(2, Some(&offered_path)).await,
        (
            true,
            format!(
                "path '{offered_path}': outside the roots ({})",
                canonical.display()
            )
        )
    );
    // Ending the session ends its GET stream after everything the server
    // sent on it, so a roots/list sent after `notifications/initialized`
    // has been seen by now.
    let ended = session
        .client
        .delete(&session.url)
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", &session.id)
        .send()
        .await
        .expect("DELETE answered");
    assert!(ended.status().is_success(), "{}", ended.status());
    tokio::time::timeout(PATIENCE, answerer)
        .await
        .expect("the GET stream ends with its session")
        .expect("the answerer ran");
    assert_eq!(
        asked.lock().expect("lock").as_slice(),
        &[] as &[Value],
        "the server asked an HTTP session for its roots"
    );
}
