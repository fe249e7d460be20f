//! Helpers every test module shares: the GitHub document, a door on
//! loopback, one JSON-RPC client, and a loopback REST service.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use mcp_door::{Door, DoorConfig, OpenApiSource, Projection, ProjectionConfig};
use serde_json::{Value, json};

/// The decompressed bytes of `tests/data/<file>` (a gzip file).
pub fn data_bytes(file: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{file}", env!("CARGO_MANIFEST_DIR"));
    let gz = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut out)
        .expect("gzip");
    out
}

/// The decompressed GitHub REST API description (tests/data).
pub fn github_bytes() -> &'static [u8] {
    static BYTES: OnceLock<Vec<u8>> = OnceLock::new();
    BYTES.get_or_init(|| data_bytes("api.github.com.json.gz"))
}

/// The GitHub document projected with the default configuration.
pub fn github() -> &'static Projection {
    static P: OnceLock<Projection> = OnceLock::new();
    P.get_or_init(|| {
        Projection::from_document(github_bytes(), None, &ProjectionConfig::default())
            .expect("the GitHub document projects")
    })
}

/// The large public descriptions of tests/data, by file name, each
/// projected with the default configuration and a loopback upstream.
pub fn public_documents() -> &'static [(&'static str, Projection)] {
    static P: OnceLock<Vec<(&'static str, Projection)>> = OnceLock::new();
    P.get_or_init(|| {
        [
            "api.github.com.json.gz",
            "stripe.com.json.gz",
            "kubernetes.io.json.gz",
            "digitalocean.com.json.gz",
        ]
        .into_iter()
        .map(|file| {
            let projection = if file.starts_with("api.github") {
                github().clone()
            } else {
                Projection::from_document(
                    &data_bytes(file),
                    Some("http://127.0.0.1:9"),
                    &ProjectionConfig::default(),
                )
                .unwrap_or_else(|e| panic!("{file} projects: {e}"))
            };
            (file, projection)
        })
        .collect()
    })
}

/// Serves `door` on 127.0.0.1 (an ephemeral port) in the background.
pub async fn spawn_door(door: Door) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mcp_door::serve(listener, Arc::new(door)));
    addr
}

/// A door over one YAML or JSON document sent to `upstream`.
pub fn door(doc: &str, upstream: &str, config: DoorConfig) -> Door {
    let source = OpenApiSource::from_bytes("test.yaml", doc.as_bytes(), Some(upstream));
    Door::new(vec![source], config).unwrap()
}

/// What an HTTP exchange with the door returned.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

/// POSTs `message` to `url` as a conforming client does (no redirects
/// followed): `Content-Type: application/json`, `Accept` listing JSON and
/// SSE, and `MCP-Protocol-Version` when the body's `_meta` names a
/// revision, each unless `headers` gives it; then `headers`.
pub async fn post(url: &str, message: &Value, headers: &[(&str, &str)]) -> Reply {
    let given = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut all: Vec<(&str, &str)> = Vec::new();
    if !given("content-type") {
        all.push(("content-type", "application/json"));
    }
    if !given("accept") {
        all.push(("accept", "application/json, text/event-stream"));
    }
    let revision = message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str();
    if let Some(revision) = revision
        && !given("mcp-protocol-version")
    {
        all.push(("mcp-protocol-version", revision));
    }
    all.extend_from_slice(headers);
    post_raw(url, &message.to_string(), &all).await
}

/// POSTs `body` to `url` with exactly `headers` (no redirects followed).
pub async fn post_raw(url: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut req = client.post(url).body(body.to_owned());
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    Reply {
        status,
        headers,
        body,
    }
}

/// GETs `url` (no redirects followed).
pub async fn get(url: &str) -> Reply {
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = client.get(url).send().await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await.unwrap();
    Reply {
        status,
        headers,
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
    }
}

/// A `tools/call` request.
pub fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

/// A `tools/list` request (2026-07-28 style, with the request `_meta`).
pub fn list(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}})
}

/// A document of the [`spawn_rest`] service's paths: `items` (get,
/// update, add tags), `errors` (404, 500) and `slow` (hang, text, big).
pub const REST_DOC: &str = r##"
openapi: 3.0.3
info: {title: rest, version: "1"}
paths:
  /items/{name}:
    parameters: [{name: name, in: path, required: true, schema: {type: string}}]
    get:
      operationId: getItem
      tags: [items]
      parameters:
        - {name: q, in: query, schema: {type: string}}
        - {name: tags, in: query, schema: {type: array, items: {type: string}}}
        - {name: X-Trace, in: header, schema: {type: string}}
    put:
      operationId: updateItem
      tags: [items]
      requestBody:
        required: true
        content: {application/json: {schema: {$ref: '#/components/schemas/Item'}}}
  /items/{name}/tags:
    post:
      operationId: addTags
      tags: [items]
      parameters: [{name: name, in: path, required: true, schema: {type: string}}]
      requestBody:
        content: {application/json: {schema: {type: array, items: {type: string}}}}
  /missing: {get: {operationId: getMissing, tags: [errors]}}
  /boom: {post: {operationId: triggerBoom, tags: [errors]}}
  /hang: {get: {operationId: getHang, tags: [slow]}}
  /text: {get: {operationId: getText, tags: [slow]}}
  /big: {get: {operationId: getBig, tags: [slow]}}
components:
  schemas:
    Item: {type: object, required: [size], properties: {size: {type: integer}, note: {type: string}}}
"##;
/// The names of the tools of a `tools/list` result, in order.
pub fn tool_names(result: &Value) -> Vec<&str> {
    result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools in {result}"))
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect()
}

/// One request the loopback REST service received.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    /// The path as sent, still percent-encoded.
    pub path: String,
    pub query: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Seen {
    /// The value of header `name` (lower case), if it arrived.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A loopback REST service: `/missing` answers 404, `/boom` 500, `/hang`
/// never, `/text` plain text, anything else 200 with a JSON echo. Every
/// request is recorded.
pub async fn spawn_rest() -> (String, Arc<Mutex<Vec<Seen>>>) {
    spawn_rest_on("127.0.0.1").await
}

/// [`spawn_rest`] on another loopback address (`127.0.0.3`).
pub async fn spawn_rest_on(ip: &str) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let log = Arc::clone(&seen);
    let app = Router::new().fallback(move |req: Request| {
        let log = Arc::clone(&log);
        async move { rest(req, log).await }
    });
    let listener = tokio::net::TcpListener::bind((ip, 0)).await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), seen)
}

async fn rest(req: Request, log: Arc<Mutex<Vec<Seen>>>) -> Response {
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    log.lock().unwrap().push(seen.clone());
    let json_ct = [("content-type", "application/json")];
    match seen.path.as_str() {
        "/missing" => {
            (StatusCode::NOT_FOUND, json_ct, r#"{"message":"Not Found"}"#).into_response()
        }
        "/boom" => (StatusCode::INTERNAL_SERVER_ERROR, "upstream exploded").into_response(),
        "/hang" => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::OK.into_response()
        }
        "/text" => "plain words".into_response(),
        "/big" => (json_ct, format!("[{}0]", "0,".repeat(100_000))).into_response(),
        _ => {
            let echo = json!({"method": seen.method, "path": seen.path, "query": seen.query,
                "body": serde_json::from_str::<Value>(&seen.body).unwrap_or(Value::String(seen.body.clone()))});
            (json_ct, echo.to_string()).into_response()
        }
    }
}

/// How [`spawn_counting_rest`] treats a connection after each answer.
#[derive(Debug, Clone, Copy)]
pub enum AfterAnswer {
    /// Keeps it open for the next request.
    KeepOpen,
    /// Closes it after this long, without saying so in the answer (as a
    /// server whose idle timeout has passed does).
    Close(Duration),
    /// Sends a second, unasked answer (`{"unasked": true}`) in the same
    /// write.
    ExtraAnswer,
    /// Sends an unasked answer after this long.
    LateAnswer(Duration),
}

/// A loopback HTTP/1.1 service written on bare sockets, to see the
/// connections the door makes: it answers every request (headers only, no
/// body expected) with `{"n": <its number>, "path": <its target>}`, then
/// does what `after` says.
/// Returns its URL and the number of connections accepted so far.
pub async fn spawn_counting_rest(
    after: AfterAnswer,
) -> (String, Arc<std::sync::atomic::AtomicUsize>) {
    use mcp_fake_door::raw_http::{RawConnection, json_answer};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let requests = Arc::clone(&requests);
            tokio::spawn(async move {
                let mut connection = RawConnection::new(stream);
                let unasked = json_answer(r#"{"unasked":true}"#);
                while let Some(head) = connection.next_head().await {
                    let path = head.split(' ').nth(1).unwrap_or("");
                    let number = requests.fetch_add(1, Ordering::SeqCst) + 1;
                    let mut text = json_answer(&json!({"n": number, "path": path}).to_string());
                    if let AfterAnswer::ExtraAnswer = after {
                        text.push_str(&unasked);
                    }
                    if !connection.send(&text).await {
                        return;
                    }
                    match after {
                        AfterAnswer::KeepOpen | AfterAnswer::ExtraAnswer => {}
                        AfterAnswer::Close(wait) => {
                            tokio::time::sleep(wait).await;
                            return;
                        }
                        AfterAnswer::LateAnswer(wait) => {
                            tokio::time::sleep(wait).await;
                            if !connection.send(&unasked).await {
                                return;
                            }
                        }
                    }
                }
            });
        }
    });
    (format!("http://{addr}"), connections)
}
