//! The one HTTP client of the streamable HTTP transport, for the tests and
//! the HTTP bench (`#[path]`-included there): a server started in process
//! on an ephemeral loopback port ([`listen`]), or any URL (the binary's
//! `--http`); requests with the transport's headers, 2025-11-25 sessions,
//! 2026-07-28 stateless POSTs, SSE answers read event by event, raw bytes
//! over TCP for what reqwest will not send, and [`Connection`], a thin
//! kept-alive client for the benches (no HTTP library, no JSON decoding, so
//! a bench measures the server rather than its client).
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use mcp_local_server::Server;
use mcp_local_server::http::{HttpConfig, serve_http};
use mcp_local_server::mcp_proto::sse::SseParser;
use reqwest::header::HeaderMap;
use reqwest::{Method, Response, StatusCode};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// How long one answer or event may take: a guard against a hang, not a
/// timing assertion.
pub const PATIENCE: Duration = Duration::from_secs(60);
/// The handshake revision.
pub const LEGACY: &str = "2025-11-25";
/// The stateless revision.
pub const STATELESS: &str = "2026-07-28";
/// `Accept` of a POST that takes JSON only.
pub const JSON_ONLY: &str = "application/json";
/// `Accept` of a POST that takes JSON or SSE.
pub const BOTH: &str = "application/json, text/event-stream";

/// A server listening on `127.0.0.1:<ephemeral>`; dropping it stops it.
pub struct Listening {
    /// The bound address.
    pub addr: SocketAddr,
    /// `http://<addr>/mcp`.
    pub url: String,
    stop: tokio::sync::oneshot::Sender<()>,
}

impl Listening {
    /// A client of this server.
    pub fn client(&self) -> Http {
        Http::new(&self.url)
    }
}

/// Serves `server` over streamable HTTP with `config` until the result is
/// dropped; returns once the port is bound.
pub async fn listen(server: Arc<Server>, config: HttpConfig) -> Listening {
    let (bound_tx, bound_rx) = tokio::sync::oneshot::channel::<SocketAddr>();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_http(
        server,
        "127.0.0.1:0".parse().expect("address"),
        config,
        move |bound| {
            let _ = bound_tx.send(bound);
        },
        async move {
            let _ = stopped.await;
        },
    ));
    let addr = bound_rx.await.expect("server bound");
    Listening {
        addr,
        url: format!("http://{addr}/mcp"),
        stop,
    }
}

/// A server listening in process, and a client of it (its methods are
/// the client's).
pub struct Running {
    pub http: Http,
    pub listening: Listening,
}

impl std::ops::Deref for Running {
    type Target = Http;

    fn deref(&self) -> &Http {
        &self.http
    }
}

/// [`listen`], and a client of the server.
pub async fn start(server: Server, config: HttpConfig) -> Running {
    let listening = listen(Arc::new(server), config).await;
    Running {
        http: listening.client(),
        listening,
    }
}

/// `_meta` of a 2026-07-28 request.
pub fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientInfo": { "name": "t", "version": "1" },
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

/// A 2025-11-25 `initialize` request with `capabilities`.
pub fn initialize_request(id: i64, capabilities: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": capabilities,
        "clientInfo": { "name": "t", "version": "1" } } })
}

/// A client of one MCP endpoint.
#[derive(Clone)]
pub struct Http {
    /// The endpoint, `http://<addr>/mcp`.
    pub url: String,
    /// The underlying client, for requests the helpers do not cover.
    pub client: reqwest::Client,
}

impl Http {
    pub fn new(url: &str) -> Self {
        Self {
            url: url.to_owned(),
            client: reqwest::Client::new(),
        }
    }

    /// A `method` request to the endpoint with `headers`, sent; waits at
    /// most [`PATIENCE`] for the answer's head.
    pub async fn send(
        &self,
        method: Method,
        headers: &[(&str, &str)],
        body: Option<Vec<u8>>,
    ) -> Response {
        let mut request = self.client.request(method, &self.url);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if let Some(body) = body {
            request = request.body(body);
        }
        tokio::time::timeout(PATIENCE, request.send())
            .await
            .expect("answered within the patience bound")
            .expect("request answered")
    }

    /// POSTs `body` as JSON accepting `accept`, with `headers`.
    pub async fn post_accept(
        &self,
        headers: &[(&str, &str)],
        accept: &str,
        body: &Value,
    ) -> Response {
        let mut all = vec![("content-type", "application/json"), ("accept", accept)];
        all.extend_from_slice(headers);
        self.send(Method::POST, &all, Some(body.to_string().into_bytes()))
            .await
    }

    /// POSTs `body` as JSON accepting JSON or SSE, with `headers`.
    pub async fn post(&self, headers: &[(&str, &str)], body: &Value) -> Response {
        self.post_accept(headers, BOTH, body).await
    }

    /// A 2026-07-28 POST with the headers mirrored from `body`.
    pub async fn post_stateless(&self, body: &Value) -> Response {
        let method = body["method"].as_str().unwrap_or("");
        let mut headers = vec![("mcp-protocol-version", STATELESS), ("mcp-method", method)];
        if let Some(name) = body["params"]["name"].as_str() {
            headers.push(("mcp-name", name));
        }
        self.post(&headers, body).await
    }

    /// `initialize` alone (no session header): the raw answer.
    pub async fn initialize(&self, id: i64, capabilities: Value) -> Response {
        self.post(&[], &initialize_request(id, capabilities)).await
    }

    /// A 2025-11-25 session past `notifications/initialized`.
    pub async fn open_session(&self, capabilities: Value) -> Session {
        let response = self.initialize(0, capabilities).await;
        assert_eq!(response.status(), StatusCode::OK);
        let id = header(response.headers(), "mcp-session-id");
        assert!(!id.is_empty(), "a session id");
        let session = Session {
            http: self.clone(),
            id,
        };
        let initialized = session
            .post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))
            .await;
        assert_eq!(initialized.status(), StatusCode::ACCEPTED);
        session
    }
}

/// One 2025-11-25 session.
#[derive(Clone)]
pub struct Session {
    pub http: Http,
    /// The `Mcp-Session-Id`.
    pub id: String,
}

impl Session {
    /// The session's headers followed by `extra`.
    fn headers<'a>(&'a self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut all = vec![
            ("mcp-session-id", self.id.as_str()),
            ("mcp-protocol-version", LEGACY),
        ];
        all.extend_from_slice(extra);
        all
    }

    /// POSTs `body` in the session accepting `accept`.
    pub async fn post_accept(&self, accept: &str, body: &Value) -> Response {
        self.http
            .post_accept(&self.headers(&[]), accept, body)
            .await
    }

    /// POSTs `body` in the session accepting JSON or SSE.
    pub async fn post(&self, body: &Value) -> Response {
        self.post_accept(BOTH, body).await
    }

    /// The response to request `id`, read from a JSON or an SSE answer.
    pub async fn call(&self, id: i64, body: &Value) -> Value {
        let response = self.post(body).await;
        assert_eq!(response.status(), StatusCode::OK);
        if !header(response.headers(), "content-type").starts_with("text/event-stream") {
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

    /// The session's GET stream, for messages the server sends on its own.
    pub async fn get(&self) -> Response {
        let headers = self.headers(&[("accept", "text/event-stream")]);
        self.http.send(Method::GET, &headers, None).await
    }

    /// Ends the session (DELETE).
    pub async fn delete(&self) -> Response {
        self.http
            .send(Method::DELETE, &self.headers(&[]), None)
            .await
    }
}

/// A header's value, `""` when absent.
pub fn header(headers: &HeaderMap, name: &str) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned()
}

/// Asserts that `response` is a 200 whose body is an SSE stream.
pub fn assert_sse(response: &Response) {
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        header(response.headers(), "content-type"),
        "text/event-stream"
    );
}

/// Status, content type and JSON body of an answer.
pub async fn parts(response: Response) -> (StatusCode, String, Value) {
    let status = response.status();
    let kind = header(response.headers(), "content-type");
    let body = response.json::<Value>().await.expect("a JSON body");
    (status, kind, body)
}

/// The JSON body of an `application/json` answer.
pub async fn json_body(response: Response) -> Value {
    assert_eq!(
        header(response.headers(), "content-type"),
        "application/json"
    );
    response.json().await.expect("JSON body")
}

/// Reads the events of an SSE answer one at a time.
pub struct Events {
    body: futures_util::stream::BoxStream<'static, reqwest::Result<axum::body::Bytes>>,
    parser: SseParser,
    ready: VecDeque<Value>,
}

impl Events {
    pub fn of(response: Response) -> Self {
        Self {
            body: response.bytes_stream().boxed(),
            parser: SseParser::new(),
            ready: VecDeque::new(),
        }
    }

    /// The next event's JSON data (events without data skipped); `None`
    /// when the stream ends.
    pub async fn next(&mut self) -> Option<Value> {
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

    /// The next event, which must come.
    pub async fn expect_next(&mut self) -> Value {
        self.next().await.expect("the stream is still open")
    }
}

/// Every JSON message of an SSE answer, read to its end.
pub async fn sse_messages(response: Response) -> Vec<Value> {
    assert_eq!(
        header(response.headers(), "content-type"),
        "text/event-stream"
    );
    let mut events = Events::of(response);
    let mut messages = Vec::new();
    while let Some(message) = events.next().await {
        messages.push(message);
    }
    messages
}

/// A whole HTTP/1.1 POST of `body` to `/mcp` at `addr`, closing the
/// connection after the answer.
pub fn raw_post(addr: SocketAddr, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: {BOTH}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Sends `request` on a fresh connection to `addr` and reads until the
/// server closes it: (status line, lower-case header lines, body).
pub async fn exchange(addr: SocketAddr, request: &[u8]) -> (String, Vec<String>, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("send");
    let mut got = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut got))
        .await
        .expect("the server closes the connection")
        .expect("read");
    let text = String::from_utf8(got).expect("UTF-8");
    let (head, body) = text.split_once("\r\n\r\n").expect("header and body");
    let mut lines = head.lines();
    let status = lines.next().expect("status line").to_owned();
    let headers = lines.map(str::to_ascii_lowercase).collect();
    (status, headers, body.to_owned())
}

/// One kept-alive HTTP/1.1 connection to `http://<addr>/mcp` that POSTs
/// JSON-RPC bodies and reads each whole answer.
pub struct Connection {
    stream: tokio::net::TcpStream,
    /// The request head up to and including the headers every request
    /// carries; `Content-Length` and the body are added per request.
    head: String,
    request: Vec<u8>,
    buffer: Vec<u8>,
}

impl Connection {
    /// Connects to `addr`; every request will carry `headers` (`Name: value`
    /// lines, each ending in `\r\n`) besides `Host`, `Content-Type` and
    /// `Accept`.
    pub async fn open(addr: SocketAddr, headers: &str) -> Self {
        let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("nodelay");
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{headers}"
        );
        Self {
            stream,
            head,
            request: Vec::with_capacity(1024),
            buffer: Vec::with_capacity(8192),
        }
    }

    /// Headers of a stateless 2026-07-28 `tools/call` of `tool`.
    pub fn stateless_call_headers(tool: &str) -> String {
        format!(
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: {tool}\r\n"
        )
    }

    /// Headers of a request in the 2025-11-25 session `session_id`.
    pub fn session_headers(session_id: &str) -> String {
        format!("MCP-Protocol-Version: 2025-11-25\r\nMcp-Session-Id: {session_id}\r\n")
    }

    /// POSTs `body` and reads the whole answer, which must be `200 OK`;
    /// returns its body (a chunked body with its chunk framing: callers
    /// only look for a substring).
    pub async fn post(&mut self, body: &[u8]) -> &[u8] {
        self.request.clear();
        self.request.extend_from_slice(self.head.as_bytes());
        self.request
            .extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.request.extend_from_slice(body);
        self.stream
            .write_all(&self.request)
            .await
            .expect("write request");
        self.buffer.clear();
        let head_end = loop {
            if let Some(at) = find(&self.buffer, b"\r\n\r\n") {
                break at + 4;
            }
            self.read_more().await;
        };
        let head = String::from_utf8_lossy(&self.buffer[..head_end]).to_ascii_lowercase();
        assert!(
            head.starts_with("http/1.1 200"),
            "answer: {}",
            String::from_utf8_lossy(&self.buffer)
        );
        if let Some(length) = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            while self.buffer.len() < head_end + length {
                self.read_more().await;
            }
            return &self.buffer[head_end..head_end + length];
        }
        assert!(head.contains("transfer-encoding: chunked"), "{head}");
        while find(&self.buffer[head_end..], b"\r\n0\r\n\r\n").is_none() {
            self.read_more().await;
        }
        &self.buffer[head_end..]
    }

    async fn read_more(&mut self) {
        let mut chunk = [0u8; 8192];
        let n = self.stream.read(&mut chunk).await.expect("read answer");
        assert!(n > 0, "the server closed the connection");
        self.buffer.extend_from_slice(&chunk[..n]);
    }
}

/// Where `needle` first occurs in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
