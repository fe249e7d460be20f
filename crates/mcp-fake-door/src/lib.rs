//! A scriptable, in-process HIP-0300 door for tests.
//!
//! [`FakeDoor::start`] binds an ephemeral port on `127.0.0.1`, serves the
//! door's endpoint `POST /v1/mcp` (revision 2026-07-28, stateless JSON-RPC,
//! HIP-0300 §1) from a thread of its own, and records every request it
//! receives. A [`Behaviour`] chooses how it answers: normally, with a 401
//! challenge, as `text/event-stream`, with an HTML 502, with garbage, never,
//! slowly, only once the test releases it, with redirects, in pages, with a
//! cursor that never advances, with invalid tool names, with a tool without
//! `inputSchema`, with a fixed `tools/call` result (a JSON value, or a raw
//! JSON text sent byte for byte as JSON or as an event stream), with 1,200
//! tools, or with a list that changes on each request. The behaviour can be
//! changed while the door runs.
//!
//! The door runs on its own thread and runtime, so it works the same from a
//! plain `#[test]`, from `#[tokio::test]`, and for tests that point a real
//! `hanzo-mcp` process at it through `HANZO_MCP_DOOR`.
//!
//! # Example: start a door and read its log
//!
//! ```no_run
//! use mcp_fake_door::{Behaviour, FakeDoor};
//!
//! let door = FakeDoor::start(Behaviour::Normal).expect("bind 127.0.0.1");
//! // Point the code under test at door.url(), e.g. HANZO_MCP_DOOR=<url>.
//! println!("door at {}", door.url());
//! for request in door.requests() {
//!     println!("{} {} {:?}", request.method, request.path, request.rpc_method());
//! }
//! ```
//!
//! # What every behaviour shares
//!
//! - `POST /mcp` answers `308` with `Location: /v1/mcp` (HIP-0300 §1.1).
//! - `GET /.well-known/oauth-protected-resource` (and the `/v1/mcp` suffixed
//!   form) answers the protected-resource metadata (HIP-0300 §1.7).
//! - Every request to any path is logged before it is answered, its body
//!   bytes exactly as received ([`LoggedRequest::body`],
//!   [`LoggedRequest::body_text`]).
//! - A JSON-RPC body is read with each `\u` escape of a lone UTF-16
//!   surrogate (e.g. `"\ud800"`, which no JSON parser can turn into a
//!   string) taken as `\ufffd`, so such a request is still routed and
//!   echoed; the log keeps the bytes as sent.
//! - A POST whose `MCP-Protocol-Version`, `Mcp-Method` or (for `tools/call`)
//!   `Mcp-Name` header is missing or disagrees with the body is answered
//!   `400` with JSON-RPC error -32020 (MCP 2026-07-28, HeaderMismatchError),
//!   so a client that forgets a header fails loudly.
//!
//! # Tools/call in the normal behaviour
//!
//! A `tools/call` without `Authorization` is answered `401` like the real
//! public door (HIP-0300 §1.6). With one, the call is echoed:
//! `{"content":[{"type":"text","text":"called <name>"}],
//! "structuredContent":{"name":<name>,"arguments":<arguments or null>},
//! "isError":false,"resultType":"complete"}`. The name `fail` answers the
//! same shape with `isError: true` and text `operation failed`; the name
//! `explode` answers the JSON-RPC error `{"code":-32603,"message":"subsystem
//! exploded","data":{"subsystem":"explode"}}`.
#![deny(missing_docs)]

use std::collections::BTreeMap;
use std::io;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

/// The door's path (HIP-0300 §1.1).
pub const DOOR_PATH: &str = "/v1/mcp";
/// The framework default path that answers 308 to [`DOOR_PATH`] (HIP-0300 §1.1).
pub const LEGACY_PATH: &str = "/mcp";
/// The protected-resource metadata path (RFC 9728, HIP-0300 §1.7).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
/// The protocol revision the door speaks (HIP-0300 §1.1).
pub const PROTOCOL_REVISION: &str = "2026-07-28";
/// Number of tools in [`Behaviour::Huge`].
pub const HUGE_TOOL_COUNT: usize = 1_200;
/// The 129-character tool name served by [`Behaviour::InvalidNames`]
/// (one more than the 128 the MCP tool-name rule allows).
pub const LONG_NAME_LEN: usize = 129;

/// How the door answers. Change it with [`FakeDoor::set_behaviour`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Behaviour {
    /// The tools of [`normal_tools`] in one page, with the `_meta` of
    /// [`normal_meta`]; calls echoed (see the crate docs).
    #[default]
    Normal,
    /// Every POST answers `401` with
    /// `WWW-Authenticate: Bearer resource_metadata="<origin>/.well-known/oauth-protected-resource/v1/mcp"`
    /// (see [`FakeDoor::challenge_metadata_url`]).
    Unauthorized,
    /// Every POST answers `401` with a bare `WWW-Authenticate: Bearer`, so a
    /// client must fall back to `<origin>/.well-known/oauth-protected-resource`.
    UnauthorizedBare,
    /// As [`Behaviour::Normal`], but every answer is `text/event-stream`:
    /// first a `notifications/message`, then (for a `tools/call` whose
    /// `_meta.progressToken` is set) a `notifications/progress` with
    /// `progress: 1, total: 2`, then a response with an unrelated id
    /// (`"not-yours"`), then the real response split over several `data:` lines.
    Sse,
    /// Every POST answers `502` with a `text/html` error page.
    Html502,
    /// Every POST answers `200`, `Content-Type: application/json`, with a body
    /// that is not JSON.
    Garbage,
    /// Every POST is read and logged, then never answered.
    Hang,
    /// As [`Behaviour::Normal`] after waiting this long.
    Slow(Duration),
    /// Every POST is read and logged, then held until [`FakeDoor::release`]
    /// is called; from then on answered as [`Behaviour::Normal`]. For tests
    /// that need "the door has not answered yet" without timing.
    Held,
    /// `tools/list` in three pages (cursors `page-2`, `page-3`): `describe`,
    /// `agents` | `billing`, `git` | `kms`, `storage`.
    ThreePages,
    /// `tools/list` always answers `describe`, `agents` and `nextCursor: "again"`.
    CursorLoop,
    /// `tools/list` answers `describe`, `a.b:c`, a 129-character name, `git`
    /// and `agents`.
    InvalidNames,
    /// `tools/list` answers [`missing_schema_tools`]: `describe`, `a.b:c`,
    /// `{"name":"noschema"}` (no `inputSchema`) and `git`.
    MissingSchema,
    /// `tools/list` as [`Behaviour::Normal`]; every authorized `tools/call`
    /// is answered `{"jsonrpc":"2.0","id":<id>,"result":<this value>}`,
    /// whatever its shape (a string, an object with a bad `content`, …).
    CallResult(Value),
    /// `tools/list` as [`Behaviour::Normal`]; every authorized `tools/call`
    /// is answered `application/json` with the body
    /// `{"jsonrpc":"2.0","id":<id>,"result":<this text>}`, the text
    /// inserted byte for byte (never parsed, so number spellings, key
    /// order, whitespace and escapes arrive as given; nor checked, so it can
    /// also be broken JSON).
    RawCallResult(String),
    /// As [`Behaviour::RawCallResult`], each POST first held as
    /// [`Behaviour::Held`] holds it, until [`FakeDoor::release`]: a door
    /// that is slow to answer large results.
    HeldRawCallResult(String),
    /// As [`Behaviour::RawCallResult`], but the answer is
    /// `text/event-stream`: a `notifications/message` event, a
    /// `notifications/progress` event when the call's `_meta.progressToken`
    /// is set, a response with the unrelated id `"not-yours"`, then the
    /// response `{"jsonrpc":"2.0","id":<id>,"result":<this text>}` with one
    /// `data:` line per line of it (split at LF, so the client's joined
    /// data is the text again; a CR cannot travel in an event's data).
    RawCallResultSse(String),
    /// `tools/list` answers [`huge_tools`]: 1,200 tools, about 1 MB.
    Huge,
    /// `tools/list` answers [`grouped_tools`] of this many tools.
    Grouped(usize),
    /// `tools/list` answers `describe` and `changing_<n>`, where n counts the
    /// `tools/list` requests answered so far (1 for the first).
    Changing,
    /// `POST /v1/mcp` answers `307` with `Location` set to this absolute URL
    /// (for example another fake door: a different origin).
    RedirectTo(String),
    /// `POST /v1/mcp` answers `308` with `Location: /v1/mcp`, forever.
    RedirectLoop,
}

/// One request the door received, as it arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path and query, e.g. `/v1/mcp`.
    pub path: String,
    /// Every header as (lower-case name, value); a value that is not UTF-8 is
    /// kept lossily.
    pub headers: Vec<(String, String)>,
    /// The body bytes.
    pub body: Vec<u8>,
}

impl LoggedRequest {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body bytes as UTF-8 text, exactly as received, or `None` when
    /// they are not UTF-8.
    pub fn body_text(&self) -> Option<&str> {
        std::str::from_utf8(&self.body).ok()
    }

    /// The body parsed as JSON, or `None` when it is not JSON. A `\u`
    /// escape of a lone UTF-16 surrogate is read as `\ufffd` (see the
    /// crate docs); [`LoggedRequest::body`] has the bytes as sent.
    pub fn json(&self) -> Option<Value> {
        parse_lenient(&self.body)
    }

    /// The JSON-RPC `method` of the body, when the body is a JSON-RPC message.
    pub fn rpc_method(&self) -> Option<String> {
        self.json()?.get("method")?.as_str().map(str::to_owned)
    }

    /// The JSON-RPC `params` of the body, when present.
    pub fn params(&self) -> Option<Value> {
        self.json()?.get("params").cloned()
    }

    /// The whole request (method, path, headers, body) as one string, for
    /// "this secret never appears" assertions.
    pub fn to_text(&self) -> String {
        let mut text = format!("{} {}\n", self.method, self.path);
        for (name, value) in &self.headers {
            text.push_str(name);
            text.push_str(": ");
            text.push_str(value);
            text.push('\n');
        }
        text.push_str(&String::from_utf8_lossy(&self.body));
        text
    }
}

struct Shared {
    origin: String,
    behaviour: Mutex<Behaviour>,
    ttl_ms: Mutex<Option<u64>>,
    log: Mutex<Vec<LoggedRequest>>,
    lists_answered: AtomicU64,
    /// Becomes `true` on [`FakeDoor::release`] ([`Behaviour::Held`]).
    released: tokio::sync::watch::Sender<bool>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking test thread must not hide the log from the others.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A running fake door. Dropping it stops the server (pending requests,
/// including hanging ones, are cut).
pub struct FakeDoor {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for FakeDoor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakeDoor")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl FakeDoor {
    /// Binds `127.0.0.1:0` and serves with `behaviour` on a new thread.
    ///
    /// Errors: the bind, or building the thread's runtime, failed.
    pub fn start(behaviour: Behaviour) -> io::Result<FakeDoor> {
        let listener = StdTcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            origin: format!("http://{addr}"),
            behaviour: Mutex::new(behaviour),
            ttl_ms: Mutex::new(None),
            log: Mutex::new(Vec::new()),
            lists_answered: AtomicU64::new(0),
            released: tokio::sync::watch::Sender::new(false),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let app = Router::new()
            .fallback(handle)
            .with_state(Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name(format!("fake-door-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                        return;
                    };
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stopped => {}
                    }
                });
                // Dropping the runtime here cancels hanging handlers.
            })?;
        Ok(FakeDoor {
            addr,
            shared,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The socket address, `127.0.0.1:<port>`.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The origin, `http://127.0.0.1:<port>` (no trailing `/`).
    pub fn origin(&self) -> String {
        self.shared.origin.clone()
    }

    /// The door's address, `http://127.0.0.1:<port>/v1/mcp`: the value for
    /// `HANZO_MCP_DOOR`.
    pub fn url(&self) -> String {
        format!("{}{DOOR_PATH}", self.shared.origin)
    }

    /// The framework default address `http://127.0.0.1:<port>/mcp`, which
    /// answers 308 to [`FakeDoor::url`].
    pub fn legacy_url(&self) -> String {
        format!("{}{LEGACY_PATH}", self.shared.origin)
    }

    /// The metadata URL the [`Behaviour::Unauthorized`] challenge names:
    /// `http://127.0.0.1:<port>/.well-known/oauth-protected-resource/v1/mcp`.
    pub fn challenge_metadata_url(&self) -> String {
        format!("{}{METADATA_PATH}{DOOR_PATH}", self.shared.origin)
    }

    /// The origin's default metadata URL,
    /// `http://127.0.0.1:<port>/.well-known/oauth-protected-resource`.
    pub fn default_metadata_url(&self) -> String {
        format!("{}{METADATA_PATH}", self.shared.origin)
    }

    /// Changes how the door answers from the next request on.
    pub fn set_behaviour(&self, behaviour: Behaviour) {
        *lock(&self.shared.behaviour) = behaviour;
    }

    /// The current behaviour.
    pub fn behaviour(&self) -> Behaviour {
        lock(&self.shared.behaviour).clone()
    }

    /// Sets the `ttlMs` put on the last page of every `tools/list` result
    /// (`None`, the default, leaves it out).
    pub fn set_ttl_ms(&self, ttl_ms: Option<u64>) {
        *lock(&self.shared.ttl_ms) = ttl_ms;
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<LoggedRequest> {
        lock(&self.shared.log).clone()
    }

    /// The requests whose JSON-RPC method is `rpc_method` (e.g. `tools/call`).
    pub fn requests_for(&self, rpc_method: &str) -> Vec<LoggedRequest> {
        lock(&self.shared.log)
            .iter()
            .filter(|r| r.rpc_method().as_deref() == Some(rpc_method))
            .cloned()
            .collect()
    }

    /// Empties the request log.
    pub fn clear_log(&self) {
        lock(&self.shared.log).clear();
    }

    /// Lets the requests [`Behaviour::Held`] holds (and every later one) be
    /// answered. Calling it again does nothing.
    pub fn release(&self) {
        self.shared.released.send_replace(true);
    }

    /// How many `tools/list` requests have been answered (not counting ones
    /// refused for headers, challenged, hanging or failing on purpose).
    pub fn lists_answered(&self) -> u64 {
        self.shared.lists_answered.load(Ordering::SeqCst)
    }
}

impl Drop for FakeDoor {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn tool(name: &str, description: &str, ops: &[&str], read_only: bool) -> Value {
    let mut tool = json!({
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ops},
                "input": {"type": "object"}
            },
            "required": ["op"]
        }
    });
    if read_only && let Some(obj) = tool.as_object_mut() {
        obj.insert("annotations".into(), json!({"readOnlyHint": true}));
    }
    tool
}

/// The [`Behaviour::Normal`] list: `describe`, `agents`, `billing`, `git`
/// (the last collides with the local `git` tool), in that order.
pub fn normal_tools() -> Vec<Value> {
    vec![
        tool("describe", "Describe one operation's input.", &[], true),
        tool(
            "agents",
            "Agents subsystem.",
            &["list_agents", "deploy_agent"],
            false,
        ),
        tool("billing", "Billing subsystem.", &["get_balance"], true),
        tool(
            "git",
            "Cloud git subsystem.",
            &["list_repos", "create_repo"],
            false,
        ),
    ]
}

/// The `_meta` of every [`Behaviour::Normal`] list result:
/// `{"hanzo.ai/refused":{"count":3,"rule":"discloses a bearer secret or mutates an identity"},
///   "hanzo.ai/unavailable":["kms"]}` (HIP-0300 §1.4).
pub fn normal_meta() -> Value {
    json!({
        "hanzo.ai/refused": {
            "count": 3,
            "rule": "discloses a bearer secret or mutates an identity"
        },
        "hanzo.ai/unavailable": ["kms"]
    })
}

/// The [`Behaviour::InvalidNames`] list: `describe`, `a.b:c`, a name of
/// [`LONG_NAME_LEN`] `x` characters, `git`, `agents`.
pub fn invalid_name_tools() -> Vec<Value> {
    let long = "x".repeat(LONG_NAME_LEN);
    vec![
        tool("describe", "Describe one operation's input.", &[], true),
        tool("a.b:c", "Colon in the name.", &["op"], false),
        tool(&long, "Name too long.", &["op"], false),
        tool("git", "Cloud git subsystem.", &["list_repos"], false),
        tool("agents", "Agents subsystem.", &["list_agents"], false),
    ]
}

/// The [`Behaviour::MissingSchema`] list: `describe`, `a.b:c` (invalid
/// name), `{"name":"noschema"}` (valid name, no `inputSchema`), `git`.
pub fn missing_schema_tools() -> Vec<Value> {
    vec![
        tool("describe", "Describe one operation's input.", &[], true),
        tool("a.b:c", "Colon in the name.", &["op"], false),
        json!({"name": "noschema"}),
        tool("git", "Cloud git subsystem.", &["list_repos"], false),
    ]
}

/// The [`Behaviour::Huge`] list: [`HUGE_TOOL_COUNT`] tools named
/// `op_0000` … `op_1199`, each about 850 bytes of JSON (about 1 MB in all,
/// the shape of the per-operation door HIP-0300 §Motivation measured).
pub fn huge_tools() -> Vec<Value> {
    let filler = "Performs one typed operation of the deployment's API. ".repeat(13);
    (0..HUGE_TOOL_COUNT)
        .map(|i| {
            let name = format!("op_{i:04}");
            tool(&name, &format!("{name}: {filler}"), &[&name], false)
        })
        .collect()
}

/// `count` tools shaped like the grouped door's (HIP-0300 §1.3: 110 tools
/// in 81 KB): `describe` first, then `subsystem_001` …, each with eight
/// ops in its `op` enum and a one-sentence description, about 740 bytes each.
pub fn grouped_tools(count: usize) -> Vec<Value> {
    let mut tools = vec![tool(
        "describe",
        "Describe one operation's input.",
        &[],
        true,
    )];
    tools.extend((1..count).map(|i| {
        let name = format!("subsystem_{i:03}");
        let ops: Vec<String> = ["list", "get", "create", "update", "delete", "deploy", "describe", "watch"]
            .iter()
            .map(|verb| format!("{verb}_{name}_items"))
            .collect();
        let ops: Vec<&str> = ops.iter().map(String::as_str).collect();
        tool(
            &name,
            &format!("Operations of the {name} subsystem: list, read, create, change, remove, deploy and watch its items."),
            &ops,
            i % 3 == 0,
        )
    }));
    tools
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri
        .path_and_query()
        .map_or_else(|| uri.path().to_owned(), |pq| pq.as_str().to_owned());
    lock(&shared.log).push(LoggedRequest {
        method: method.as_str().to_owned(),
        path: path.clone(),
        headers: headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: body.to_vec(),
    });
    let behaviour = lock(&shared.behaviour).clone();
    let route = uri.path();

    if method == Method::GET && route.starts_with(METADATA_PATH) {
        let metadata = json!({
            "resource": format!("{}{DOOR_PATH}", shared.origin),
            "authorization_servers": ["https://hanzo.id"],
            "bearer_methods_supported": ["header"]
        });
        return json_response(StatusCode::OK, &metadata);
    }
    if method != Method::POST {
        return plain(StatusCode::METHOD_NOT_ALLOWED, "text/plain", "POST only");
    }
    if route == LEGACY_PATH {
        return redirect(StatusCode::PERMANENT_REDIRECT, DOOR_PATH);
    }
    if route != DOOR_PATH {
        return plain(StatusCode::NOT_FOUND, "text/plain", "not found");
    }

    match behaviour {
        Behaviour::Unauthorized => return challenge(&shared, true),
        Behaviour::UnauthorizedBare => return challenge(&shared, false),
        Behaviour::Html502 => {
            return plain(
                StatusCode::BAD_GATEWAY,
                "text/html; charset=utf-8",
                "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n\
                 <body><h1>502 Bad Gateway</h1><p>The upstream did not answer.</p></body></html>\n",
            );
        }
        Behaviour::Garbage => {
            return plain(StatusCode::OK, "application/json", "this is not json {]");
        }
        Behaviour::Hang => {
            std::future::pending::<()>().await;
        }
        Behaviour::Slow(delay) => tokio::time::sleep(delay).await,
        Behaviour::Held | Behaviour::HeldRawCallResult(_) => {
            let mut released = shared.released.subscribe();
            // The sender lives in `shared`, so waiting can only end by release.
            let _ = released.wait_for(|released| *released).await;
        }
        Behaviour::RedirectTo(ref location) => {
            return redirect(StatusCode::TEMPORARY_REDIRECT, location);
        }
        Behaviour::RedirectLoop => return redirect(StatusCode::PERMANENT_REDIRECT, DOOR_PATH),
        _ => {}
    }

    let Some(message) = parse_lenient(&body) else {
        let error = rpc_error(Value::Null, -32700, "Parse error", None);
        return json_response(StatusCode::BAD_REQUEST, &error);
    };
    let id = message.get("id").cloned();
    let rpc_method = message
        .get("method")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let Some(id) = id else {
        // A notification: accepted, nothing to answer.
        return plain(StatusCode::ACCEPTED, "text/plain", "");
    };
    if let Some(mismatch) = header_mismatch(&headers, &rpc_method, &params) {
        let error = rpc_error(id, -32020, &mismatch, None);
        return json_response(StatusCode::BAD_REQUEST, &error);
    }

    let answer = match rpc_method.as_str() {
        "tools/list" => {
            let n = shared.lists_answered.fetch_add(1, Ordering::SeqCst) + 1;
            let ttl = *lock(&shared.ttl_ms);
            rpc_result(id.clone(), list_result(&behaviour, &params, n, ttl))
        }
        "tools/call" => {
            if headers.get(header::AUTHORIZATION).is_none() {
                return challenge(&shared, true);
            }
            match &behaviour {
                Behaviour::CallResult(result) => rpc_result(id.clone(), result.clone()),
                Behaviour::RawCallResult(result) | Behaviour::HeldRawCallResult(result) => {
                    return plain(
                        StatusCode::OK,
                        "application/json",
                        &raw_response(&id, result),
                    );
                }
                Behaviour::RawCallResultSse(result) => {
                    return sse_answer(&rpc_method, &params, &raw_response(&id, result));
                }
                _ => call_answer(id.clone(), &params),
            }
        }
        "server/discover" => rpc_result(
            id.clone(),
            json!({
                "supportedVersions": [PROTOCOL_REVISION],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "mcp-fake-door", "version": "0.0.0"},
                "resultType": "complete"
            }),
        ),
        other => rpc_error(
            id.clone(),
            -32601,
            &format!("Method not found: {other}"),
            None,
        ),
    };

    if behaviour == Behaviour::Sse {
        let pretty = serde_json::to_string_pretty(&answer).unwrap_or_default();
        return sse_answer(&rpc_method, &params, &pretty);
    }
    json_response(StatusCode::OK, &answer)
}

/// Checks the 2026-07-28 HTTP headers against the body.
fn header_mismatch(headers: &HeaderMap, rpc_method: &str, params: &Value) -> Option<String> {
    let get = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let body_version = params
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str);
    match (get("mcp-protocol-version"), body_version) {
        (None, _) => return Some("Header mismatch: MCP-Protocol-Version is missing".into()),
        (Some(h), Some(b)) if h != b => {
            return Some(format!(
                "Header mismatch: MCP-Protocol-Version header value '{h}' does not match body value '{b}'"
            ));
        }
        _ => {}
    }
    match get("mcp-method") {
        Some(m) if m == rpc_method => {}
        Some(m) => {
            return Some(format!(
                "Header mismatch: Mcp-Method header value '{m}' does not match body value '{rpc_method}'"
            ));
        }
        None => return Some("Header mismatch: Mcp-Method is missing".into()),
    }
    if rpc_method == "tools/call" {
        let name = params.get("name").and_then(Value::as_str).unwrap_or("");
        match get("mcp-name") {
            Some(h) if h == name => {}
            Some(h) => {
                return Some(format!(
                    "Header mismatch: Mcp-Name header value '{h}' does not match body value '{name}'"
                ));
            }
            None => return Some("Header mismatch: Mcp-Name is missing".into()),
        }
    }
    None
}

fn list_result(behaviour: &Behaviour, params: &Value, n: u64, ttl_ms: Option<u64>) -> Value {
    let cursor = params.get("cursor").and_then(Value::as_str);
    let (tools, next): (Vec<Value>, Option<&str>) = match behaviour {
        Behaviour::ThreePages => {
            let all = three_page_tools();
            match cursor {
                None => (all[0..2].to_vec(), Some("page-2")),
                Some("page-2") => (all[2..4].to_vec(), Some("page-3")),
                _ => (all[4..6].to_vec(), None),
            }
        }
        Behaviour::CursorLoop => (normal_tools()[0..2].to_vec(), Some("again")),
        Behaviour::InvalidNames => (invalid_name_tools(), None),
        Behaviour::MissingSchema => (missing_schema_tools(), None),
        Behaviour::Huge => (huge_tools(), None),
        Behaviour::Grouped(count) => (grouped_tools(*count), None),
        Behaviour::Changing => (
            vec![
                tool("describe", "Describe one operation's input.", &[], true),
                tool(
                    &format!("changing_{n}"),
                    "A list that changes.",
                    &["op"],
                    false,
                ),
            ],
            None,
        ),
        _ => (normal_tools(), None),
    };
    let mut result = Map::new();
    result.insert("resultType".into(), json!("complete"));
    result.insert("tools".into(), Value::Array(tools));
    match next {
        Some(next) => {
            result.insert("nextCursor".into(), json!(next));
        }
        None => {
            if let Some(ttl) = ttl_ms {
                result.insert("ttlMs".into(), json!(ttl));
            }
        }
    }
    if matches!(
        behaviour,
        Behaviour::Normal | Behaviour::Sse | Behaviour::Slow(_) | Behaviour::Held
    ) {
        result.insert("_meta".into(), normal_meta());
    }
    Value::Object(result)
}

fn three_page_tools() -> Vec<Value> {
    let mut tools = normal_tools();
    tools.push(tool(
        "kms",
        "Key management subsystem.",
        &["list_keys"],
        true,
    ));
    tools.push(tool(
        "storage",
        "Storage subsystem.",
        &["list_buckets"],
        true,
    ));
    tools
}

fn call_answer(id: Value, params: &Value) -> Value {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    match name {
        "explode" => rpc_error(
            id,
            -32603,
            "subsystem exploded",
            Some(json!({"subsystem": "explode"})),
        ),
        "fail" => rpc_result(
            id,
            json!({
                "content": [{"type": "text", "text": "operation failed"}],
                "structuredContent": {"name": name, "arguments": arguments},
                "isError": true,
                "resultType": "complete"
            }),
        ),
        _ => rpc_result(
            id,
            json!({
                "content": [{"type": "text", "text": format!("called {name}")}],
                "structuredContent": {"name": name, "arguments": arguments},
                "isError": false,
                "resultType": "complete"
            }),
        ),
    }
}

/// The text of a response to `id` whose `result` is `result`, byte for byte.
fn raw_response(id: &Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// An event stream ending in the response `answer` (JSON text), one
/// `data:` line per line of it.
fn sse_answer(rpc_method: &str, params: &Value, answer: &str) -> Response {
    let mut body = String::new();
    let mut event = |data: &str| {
        body.push_str("event: message\n");
        for line in data.split('\n') {
            body.push_str("data: ");
            body.push_str(line);
            body.push('\n');
        }
        body.push('\n');
    };
    event(
        &json!({"jsonrpc": "2.0", "method": "notifications/message",
                "params": {"level": "info", "data": "working"}})
        .to_string(),
    );
    if rpc_method == "tools/call"
        && let Some(token) = params.pointer("/_meta/progressToken")
    {
        event(
            &json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": 1, "total": 2}})
            .to_string(),
        );
    }
    event(&json!({"jsonrpc": "2.0", "id": "not-yours", "result": {}}).to_string());
    event(answer);
    plain(StatusCode::OK, "text/event-stream", &body)
}

fn challenge(shared: &Shared, with_metadata: bool) -> Response {
    let value = if with_metadata {
        format!(
            "Bearer resource_metadata=\"{}{METADATA_PATH}{DOOR_PATH}\"",
            shared.origin
        )
    } else {
        "Bearer".to_owned()
    };
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "application/json",
        r#"{"error":"unauthorized"}"#,
    );
    if let Ok(value) = HeaderValue::from_str(&value) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

fn rpc_result(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn rpc_error(id: Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut error = BTreeMap::new();
    error.insert("code", json!(code));
    error.insert("message", json!(message));
    if let Some(data) = data {
        error.insert("data", data);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

fn json_response(status: StatusCode, value: &Value) -> Response {
    plain(status, "application/json", &value.to_string())
}

fn redirect(status: StatusCode, location: &str) -> Response {
    let mut response = plain(status, "text/plain", "");
    if let Ok(value) = HeaderValue::from_str(location) {
        response.headers_mut().insert(header::LOCATION, value);
    }
    response
}

fn plain(status: StatusCode, content_type: &'static str, body: &str) -> Response {
    let mut response = Response::new(Body::from(body.to_owned()));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// `body` as JSON, reading a `\u` escape of a lone UTF-16 surrogate as
/// `\ufffd`; `None` when it is not JSON (or not UTF-8).
fn parse_lenient(body: &[u8]) -> Option<Value> {
    if let Ok(value) = serde_json::from_slice(body) {
        return Some(value);
    }
    let text = std::str::from_utf8(body).ok()?;
    serde_json::from_str(&without_lone_surrogates(text)).ok()
}

/// `text` with each `\uXXXX` escape inside a string that is a UTF-16
/// surrogate not part of a high-low pair replaced by `\ufffd`.
fn without_lone_surrogates(text: &str) -> String {
    let bytes = text.as_bytes();
    let unit_at = |at: usize| {
        let digits = bytes.get(at..at + 4)?;
        u16::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| {
        if bytes.get(at) == Some(&b'\\') && bytes.get(at + 1) == Some(&b'u') {
            unit_at(at + 2)
        } else {
            None
        }
    };
    let (mut out, mut copied, mut at, mut in_string) = (String::new(), 0, 0, false);
    while at < bytes.len() {
        match bytes[at] {
            b'"' => {
                in_string = !in_string;
                at += 1;
            }
            b'\\' if in_string => match escape_at(at) {
                Some(0xD800..=0xDBFF) if matches!(escape_at(at + 6), Some(0xDC00..=0xDFFF)) => {
                    at += 12;
                }
                Some(0xD800..=0xDFFF) => {
                    out.push_str(&text[copied..at]);
                    out.push_str("\\ufffd");
                    at += 6;
                    copied = at;
                }
                Some(_) => at += 6,
                None => at += 2,
            },
            _ => at += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(
            without_lone_surrogates(r#"{"v":"\ud800","w":"a\udc00b"}"#),
            r#"{"v":"\ufffd","w":"a\ufffdb"}"#
        );
        assert_eq!(
            without_lone_surrogates(r#"["\ud83d\ude00","\ud83d\u0041","\\ud800"]"#),
            r#"["\ud83d\ude00","\ufffd\u0041","\\ud800"]"#
        );
        assert_eq!(
            without_lone_surrogates(r#"{"\"\ud800":"\u00e9\ud800"}"#),
            r#"{"\"\ufffd":"\u00e9\ufffd"}"#
        );
    }

    #[test]
    fn a_body_with_a_lone_surrogate_is_read_leniently() {
        let body = br#"{"name":"billing","arguments":{"v":"\ud800"}}"#;
        assert_eq!(
            parse_lenient(body),
            Some(json!({"name": "billing", "arguments": {"v": "\u{fffd}"}}))
        );
        assert_eq!(parse_lenient(b"{]"), None);
    }

    #[test]
    fn raw_responses_insert_the_text_unchanged() {
        assert_eq!(
            raw_response(&json!(7), r#"{"n":1E2, "b":-0}"#),
            r#"{"jsonrpc":"2.0","id":7,"result":{"n":1E2, "b":-0}}"#
        );
    }
}
