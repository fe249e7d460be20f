//! [`MountedServer`]: one mounted server, kept running.
//!
//! A task per server connects (starts the child, or opens the HTTP
//! session), sends `initialize` and `notifications/initialized`, reads every
//! page of `tools/list`, and then serves the connection until it ends: it
//! answers the server's requests through the [`ClientHandler`], routes
//! progress to the call it belongs to, and reads the list again on
//! `notifications/tools/list_changed`. When the connection ends, calls in
//! flight get an `isError` result naming the server, the list empties (a
//! change, so clients hear `list_changed`), and the task connects again
//! after a backoff that doubles from [`Limits::backoff_min`] to
//! [`Limits::backoff_max`].

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use mcp_proto::methods::{
    CallTool, Cancelled, CreateMessage, Elicit, Initialize, Initialized, ListRoots, ListTools,
    LoggingMessage, Ping, Progress, ToolListChanged,
};
use mcp_proto::{ErrorObject, FromValue, Implementation, RequestId, Revision, Tool};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::link::{Deliver, Link, Outbound, Outgoing};
use crate::spec::{Limits, MountSpec, Transport};
use crate::wire::{self, Incoming};

/// A boxed, sendable future, as [`ClientHandler`] methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Answers what a mounted server asks of its client (MCP 2025-11-25
/// client/roots, client/sampling, client/elicitation).
pub trait ClientHandler: Send + Sync {
    /// The `capabilities` declared in `initialize`. The default declares
    /// `roots` (with `listChanged`), `sampling` and `elicitation`, which
    /// [`list_roots`](Self::list_roots) and [`relay`](Self::relay) answer.
    fn capabilities(&self) -> Value {
        json!({ "roots": { "listChanged": true }, "sampling": {}, "elicitation": {} })
    }

    /// The result of the server's `roots/list` (`{"roots": [...]}`).
    fn list_roots(&self) -> BoxFuture<'static, Result<Value, ErrorObject>>;

    /// Folders added to [`StdioServer::untrusted_dirs`](crate::StdioServer)
    /// at each start of a child (the folders the client's tools may write
    /// now, which can change while the server runs). Asked again before
    /// each `tools/call`: when it names a folder it did not name at the
    /// child's start and a start now would differ because of it (the
    /// child's `PATH`, working directory, home or a variable lies there),
    /// the child is stopped and started again, and that call gets an
    /// `isError` result saying so. None by default.
    fn untrusted_dirs(&self) -> Vec<std::path::PathBuf> {
        Vec::new()
    }

    /// Completes when the server may be started the first time (the
    /// folders [`untrusted_dirs`](Self::untrusted_dirs) gives are known:
    /// the client's roots, say). At once by default.
    fn ready(&self) -> BoxFuture<'static, ()> {
        Box::pin(std::future::ready(()))
    }

    /// The result of the server's `sampling/createMessage` or
    /// `elicitation/create`, `method` saying which; the future is dropped
    /// when the server cancels the request.
    fn relay(
        &self,
        method: &'static str,
        params: Option<Value>,
    ) -> BoxFuture<'static, Result<Value, ErrorObject>>;
}

/// A handler with no roots that refuses sampling and elicitation with
/// -32601, and declares only `roots`.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoClient;

impl ClientHandler for NoClient {
    fn capabilities(&self) -> Value {
        json!({ "roots": {} })
    }

    fn list_roots(&self) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        Box::pin(async { Ok(json!({ "roots": [] })) })
    }

    fn relay(
        &self,
        method: &'static str,
        _: Option<Value>,
    ) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        Box::pin(async move { Err(ErrorObject::method_not_found(method)) })
    }
}

/// Where a mounted server is now.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Status {
    /// Not connected yet (the first attempt is under way).
    Starting,
    /// Initialized; its tools are known.
    Ready,
    /// Not connected; the reason, in one line. Another attempt follows.
    Down(String),
}

/// One mounted server, connected in the background and reconnected when
/// its connection ends. Cloning is cheap; the server is stopped (its child
/// killed) when the last clone is dropped.
#[derive(Clone)]
pub struct MountedServer {
    shared: Arc<Shared>,
    _stop: Arc<StopOnDrop>,
}

impl std::fmt::Debug for MountedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MountedServer")
            .field("name", &self.shared.spec.name)
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

struct StopOnDrop(CancellationToken);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

struct Shared {
    spec: MountSpec,
    limits: Limits,
    info: Implementation,
    handler: Arc<dyn ClientHandler>,
    live: Mutex<Live>,
    /// Bumped whenever the list changes (arrives, is read again, empties).
    generation: watch::Sender<u64>,
    /// True once the first attempt has ended, either way.
    settled: watch::Sender<bool>,
    /// Every name the server has listed since it was mounted.
    known: Mutex<HashSet<String>>,
    /// The bound on what the server's log notifications write to ours.
    output: crate::stdio::OutputLimit,
    /// Whether the current outage has had its warning (one per outage).
    outage_reported: std::sync::atomic::AtomicBool,
    stop: CancellationToken,
}

struct Live {
    conn: Option<Arc<Conn>>,
    tools: Arc<Vec<Tool>>,
    status: Status,
}

/// Why a request got no result.
enum Failure {
    /// The server answered with this JSON-RPC error.
    Server(ErrorObject),
    /// The connection ended, or the message could not be delivered.
    Gone(String),
    /// No answer within the limit.
    Timeout(Duration),
}

type Waiter = oneshot::Sender<Result<Box<RawValue>, Failure>>;

/// One live connection.
struct Conn {
    /// Set once the transport is up (messages the server sends before
    /// then cannot be answered, and are not).
    out: std::sync::OnceLock<Outbound>,
    pending: Mutex<HashMap<RequestId, Waiter>>,
    /// Our progress token (as sent) → where its notifications go.
    progress: Mutex<HashMap<String, mpsc::UnboundedSender<Value>>>,
    /// The server's requests being answered, by its id.
    relays: Mutex<HashMap<RequestId, tokio::task::AbortHandle>>,
    next: AtomicU64,
    closed: CancellationToken,
    /// For a child process: the folders [`ClientHandler::untrusted_dirs`]
    /// gave when it was started. Its `PATH`, working directory and
    /// variables were chosen against them.
    launched_with: Mutex<Option<Vec<std::path::PathBuf>>>,
}

/// Sends `notifications/cancelled` for a request whose wait ended without
/// a result (timed out, or the caller stopped waiting).
struct Pending<'a> {
    conn: &'a Conn,
    id: RequestId,
    done: bool,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let removed = lock(&self.conn.pending).remove(&self.id).is_some();
        if removed && !self.conn.closed.is_cancelled() {
            let params = json!({ "requestId": self.id, "reason": "the caller stopped waiting" });
            if let Some(out) = self.conn.out.get() {
                out.send_soon(Outgoing {
                    id: None,
                    body: wire::notification(Cancelled::NAME, Some(&params)),
                });
            }
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Conn {
    fn new(closed: CancellationToken) -> Self {
        Self {
            out: std::sync::OnceLock::new(),
            pending: Mutex::default(),
            progress: Mutex::default(),
            relays: Mutex::default(),
            next: AtomicU64::new(1),
            closed,
            launched_with: Mutex::new(None),
        }
    }

    async fn request(
        &self,
        method: &str,
        params: &str,
        timeout: Duration,
    ) -> Result<Box<RawValue>, Failure> {
        let id = RequestId::from(self.next.fetch_add(1, Ordering::Relaxed) as i64);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), tx);
        let mut pending = Pending {
            conn: self,
            id: id.clone(),
            done: false,
        };
        let message = Outgoing {
            id: Some(id.clone()),
            body: wire::request(&id, method, params),
        };
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let Some(out) = self.out.get() else {
            pending.done = true;
            lock(&self.pending).remove(&id);
            return Err(Failure::Gone("its connection is not open".to_owned()));
        };
        // `biased`: polled in order, no random start to draw per call.
        tokio::select! {
            biased;
            sent = out.send(message) => if sent.is_err() {
                pending.done = true;
                lock(&self.pending).remove(&id);
                return Err(Failure::Gone("its connection is closed".to_owned()));
            },
            () = &mut deadline => return Err(Failure::Timeout(timeout)),
        }
        tokio::select! {
            biased;
            outcome = rx => {
                pending.done = true;
                outcome.unwrap_or_else(|_| Err(Failure::Gone("its connection closed during the request".to_owned())))
            }
            () = &mut deadline => Err(Failure::Timeout(timeout)),
        }
    }

    /// Sends a notification and waits until it is written (or queued in
    /// order), so what is sent next comes after it.
    async fn notify_in_order(&self, method: &str, params: Option<&Value>) {
        if let Some(out) = self.out.get() {
            let _ = out
                .send(Outgoing {
                    id: None,
                    body: wire::notification(method, params),
                })
                .await;
        }
    }

    fn notify(&self, method: &str, params: Option<&Value>) {
        if let Some(out) = self.out.get() {
            out.send_soon(Outgoing {
                id: None,
                body: wire::notification(method, params),
            });
        }
    }

    /// Ends every wait with `why`.
    fn close(&self, why: &str) {
        self.closed.cancel();
        for (_, waiter) in lock(&self.pending).drain() {
            let _ = waiter.send(Err(Failure::Gone(why.to_owned())));
        }
        lock(&self.progress).clear();
        for (_, relay) in lock(&self.relays).drain() {
            relay.abort();
        }
    }
}

impl MountedServer {
    /// Mounts `spec`: starts connecting in the background (call inside a
    /// Tokio runtime) and returns at once. `handler` answers the server's
    /// requests; `info` is the `clientInfo` of `initialize`.
    pub fn start(
        spec: MountSpec,
        limits: Limits,
        info: Implementation,
        handler: Arc<dyn ClientHandler>,
    ) -> Self {
        let stop = CancellationToken::new();
        let shared = Arc::new(Shared {
            spec,
            limits,
            info,
            handler,
            live: Mutex::new(Live {
                conn: None,
                tools: Arc::new(Vec::new()),
                status: Status::Starting,
            }),
            generation: watch::Sender::new(0),
            settled: watch::Sender::new(false),
            known: Mutex::default(),
            output: crate::stdio::OutputLimit::default(),
            outage_reported: std::sync::atomic::AtomicBool::new(false),
            stop: stop.clone(),
        });
        tokio::spawn(supervise(shared.clone()));
        Self {
            shared,
            _stop: Arc::new(StopOnDrop(stop)),
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.shared.spec.name
    }

    /// What was mounted.
    pub fn spec(&self) -> &MountSpec {
        &self.shared.spec
    }

    /// Where the server is now.
    pub fn status(&self) -> Status {
        lock(&self.shared.live).status.clone()
    }

    /// The server's tools now: empty while it is not connected.
    pub fn tools(&self) -> Arc<Vec<Tool>> {
        lock(&self.shared.live).tools.clone()
    }

    /// The tools once the first attempt to connect has ended, waiting at
    /// most `wait` for it.
    pub async fn tools_within(&self, wait: Duration) -> Arc<Vec<Tool>> {
        let mut settled = self.shared.settled.subscribe();
        let _ = tokio::time::timeout(wait, settled.wait_for(|done| *done)).await;
        self.tools()
    }

    /// Whether the first attempt to connect has ended.
    pub fn settled(&self) -> bool {
        *self.shared.settled.borrow()
    }

    /// Whether the server lists `tool` now.
    pub fn lists(&self, tool: &str) -> bool {
        lock(&self.shared.live).tools.iter().any(|t| t.name == tool)
    }

    /// Whether the server has listed `tool` at any time since it was
    /// mounted (its names stay its own while it restarts).
    pub fn has_listed(&self, tool: &str) -> bool {
        lock(&self.shared.known).contains(tool)
    }

    /// A receiver whose value changes whenever the list does.
    pub fn generations(&self) -> watch::Receiver<u64> {
        self.shared.generation.subscribe()
    }

    /// The current list's generation.
    pub fn generation(&self) -> u64 {
        *self.shared.generation.borrow()
    }

    /// Tells the server its roots changed (`notifications/roots/list_changed`).
    pub fn roots_changed(&self) {
        if let Some(conn) = lock(&self.shared.live).conn.clone() {
            conn.notify(mcp_proto::methods::RootsListChanged::NAME, None);
        }
    }

    /// Calls a tool: `params` is the `tools/call` params object's text,
    /// sent as written except for `_meta.progressToken`, which is replaced
    /// by a token of this connection when `progress` is given (the
    /// server's `notifications/progress` params for the call are sent to
    /// `progress`, for the caller to put its own token back). The result
    /// is the server's `result` text, as written. Dropping the future
    /// sends the server `notifications/cancelled`.
    ///
    /// # Errors
    /// The server's JSON-RPC error, as it sent it. A server that is not
    /// connected, goes away during the call or does not answer within
    /// [`Limits::call`] gives `Ok` with an `isError: true` result naming
    /// the server and what happened.
    pub async fn call_tool_raw(
        &self,
        params: &RawValue,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let name = &self.shared.spec.name;
        let conn = lock(&self.shared.live).conn.clone();
        let Some(conn) = conn else {
            let why = match self.status() {
                Status::Down(why) => why,
                _ => "it is starting".to_owned(),
            };
            return Ok(failed_call(&format!(
                "the MCP server {name:?} is not running ({why}); try again shortly"
            )));
        };
        // A child started before the tools could write a folder it uses
        // (on its PATH, its working directory, its home) is started again
        // under the new folders before it runs anything for a call.
        if let Some(why) = self.started_under_fewer_folders(&conn) {
            conn.close(&why);
            return Ok(failed_call(&format!(
                "the MCP server {name:?} is restarting ({why}); try again shortly"
            )));
        }
        let mut token = None;
        let mut text = std::borrow::Cow::Borrowed(params.get());
        if let Some(progress) = progress {
            let ours = format!("{name}-{}", conn.next.fetch_add(1, Ordering::Relaxed));
            let quoted = serde_json::to_string(&ours).unwrap_or_default();
            if let Some(edited) = wire::with_progress_token(params.get(), &quoted) {
                lock(&conn.progress).insert(ours.clone(), progress);
                token = Some(ours);
                text = std::borrow::Cow::Owned(edited);
            }
        }
        let outcome = conn
            .request(CallTool::NAME, &text, self.shared.limits.call)
            .await;
        if let Some(token) = token {
            lock(&conn.progress).remove(&token);
        }
        match outcome {
            Ok(result) => Ok(result),
            Err(Failure::Server(error)) => Err(error),
            Err(Failure::Gone(why)) => Ok(failed_call(&format!(
                "the MCP server {name:?} did not answer: {why}"
            ))),
            Err(Failure::Timeout(limit)) => Ok(failed_call(&format!(
                "the MCP server {name:?} did not answer within {} s",
                limit.as_secs()
            ))),
        }
    }

    /// Why the running child must be started again, when the handler now
    /// names folders it did not at the child's start and a start now would
    /// differ because of them ([`ClientHandler::untrusted_dirs`]); folders
    /// that change nothing are taken as seen.
    fn started_under_fewer_folders(&self, conn: &Conn) -> Option<String> {
        let Transport::Stdio(spec) = &self.shared.spec.transport else {
            return None;
        };
        let mut seen = lock(&conn.launched_with);
        let before = seen.as_ref()?;
        let now = self.shared.handler.untrusted_dirs();
        let added: Vec<std::path::PathBuf> = now
            .iter()
            .filter(|dir| !before.contains(dir))
            .cloned()
            .collect();
        let first = added.first()?.clone();
        let mut started = spec.clone();
        started.untrusted_dirs.extend(before.iter().cloned());
        if crate::stdio::started_otherwise(&started, &added) {
            return Some(format!(
                "the tools may now write {}, so it is started again",
                first.display()
            ));
        }
        *seen = Some(now);
        None
    }
}

/// An `isError: true` result with one text block.
fn failed_call(text: &str) -> Box<RawValue> {
    let result = json!({ "content": [{ "type": "text", "text": text }], "isError": true });
    serde_json::value::to_raw_value(&result).expect("a JSON value is JSON text")
}

fn connect(shared: &Shared, conn: &Conn, deliver: Deliver) -> Result<Link, String> {
    let name = &shared.spec.name;
    match &shared.spec.transport {
        Transport::Stdio(spec) => {
            let now = shared.handler.untrusted_dirs();
            *lock(&conn.launched_with) = Some(now.clone());
            if now.is_empty() {
                crate::stdio::connect(name, spec, &shared.limits, deliver)
            } else {
                let mut spec = spec.clone();
                spec.untrusted_dirs.extend(now);
                crate::stdio::connect(name, &spec, &shared.limits, deliver)
            }
        }
        Transport::Http(spec) => crate::http::connect(name, spec, &shared.limits, deliver),
    }
}

/// Connects, serves and reconnects until the server is unmounted.
async fn supervise(shared: Arc<Shared>) {
    let mut backoff = shared.limits.backoff_min;
    tokio::select! {
        () = shared.handler.ready() => {}
        () = shared.stop.cancelled() => return,
    }
    loop {
        let started = Instant::now();
        let why = tokio::select! {
            why = run_once(&shared) => why,
            () = shared.stop.cancelled() => "unmounted".to_owned(),
        };
        let had_tools = {
            let mut live = lock(&shared.live);
            if let Some(conn) = live.conn.take() {
                conn.close(&why);
            }
            live.status = Status::Down(why.clone());
            !std::mem::take(&mut live.tools).is_empty()
        };
        if had_tools {
            shared.generation.send_modify(|g| *g += 1);
        }
        shared.settled.send_replace(true);
        if shared.stop.is_cancelled() {
            return;
        }
        if started.elapsed() >= Duration::from_secs(60) {
            backoff = shared.limits.backoff_min;
        }
        if shared.outage_reported.swap(true, Ordering::Relaxed) {
            tracing::debug!(
                server = %shared.spec.name,
                "the MCP server is still down ({why}); starting it again in {} ms",
                backoff.as_millis()
            );
        } else {
            tracing::warn!(
                server = %shared.spec.name,
                "the MCP server is down ({why}); its tools are gone until it is back (starting it again in {} ms, then less often)",
                backoff.as_millis()
            );
        }
        tokio::select! {
            () = tokio::time::sleep(backoff) => {}
            () = shared.stop.cancelled() => return,
        }
        backoff = (backoff * 2).min(shared.limits.backoff_max);
    }
}

/// One connection, from start to end; what ended it, in one line.
async fn run_once(shared: &Arc<Shared>) -> String {
    let closed = CancellationToken::new();
    let conn = Arc::new(Conn::new(closed.clone()));
    let refresh = Arc::new(Notify::new());
    // Each message is handled where it is read: a response wakes its call
    // with no queue between.
    let deliver: Deliver = {
        let conn = conn.clone();
        let shared = shared.clone();
        let refresh = refresh.clone();
        Arc::new(move |message| dispatch(&shared, &conn, &refresh, message))
    };
    let link = match connect(shared, &conn, deliver) {
        Ok(link) => link,
        Err(why) => return why,
    };
    let Link {
        out,
        closed: link_closed,
        guard,
        negotiated,
    } = link;
    let _guard = guard;
    let _ = conn.out.set(out);
    // The connection's end is the transport's.
    let _follow = AbortOnDrop(tokio::spawn({
        let closed = closed.clone();
        async move {
            link_closed.cancelled().await;
            closed.cancel();
        }
    }));
    let initialize = json!({
        "protocolVersion": Revision::LATEST_WITH_HANDSHAKE.as_str(),
        "capabilities": shared.handler.capabilities(),
        "clientInfo": shared.info,
    })
    .to_string();
    let answer = tokio::select! {
        answer = conn.request(Initialize::NAME, &initialize, shared.limits.initialize) => answer,
        () = closed.cancelled() => return "it closed its connection before answering initialize".to_owned(),
    };
    let revision = match answer {
        Ok(result) => {
            let result: Value = serde_json::from_str(result.get()).unwrap_or_default();
            match result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .and_then(Revision::parse)
            {
                Some(revision) if revision.has_handshake() => revision,
                Some(revision) => {
                    return format!(
                        "it answered initialize with revision {revision}, which needs no handshake"
                    );
                }
                None => {
                    return "its initialize result names no revision this client knows".to_owned();
                }
            }
        }
        Err(Failure::Server(error)) => return format!("it refused initialize: {}", error.message),
        Err(Failure::Gone(why)) => return why,
        Err(Failure::Timeout(limit)) => {
            return format!(
                "it did not answer initialize within {} ms",
                limit.as_millis()
            );
        }
    };
    negotiated(revision.as_str());
    // Written before anything else is sent: the server may take no other
    // request until it has it (MCP 2025-11-25 basic/lifecycle).
    conn.notify_in_order(Initialized::NAME, None).await;
    lock(&shared.live).conn = Some(conn.clone());
    loop {
        match list_tools(shared, &conn).await {
            Ok(tools) => {
                {
                    let mut known = lock(&shared.known);
                    known.extend(tools.iter().map(|t| t.name.clone()));
                }
                {
                    let mut live = lock(&shared.live);
                    live.tools = Arc::new(tools);
                    live.status = Status::Ready;
                }
                if shared.outage_reported.swap(false, Ordering::Relaxed) {
                    tracing::info!(server = %shared.spec.name, "the MCP server is back");
                }
                shared.generation.send_modify(|g| *g += 1);
                shared.settled.send_replace(true);
            }
            Err(why) if closed.is_cancelled() => return why,
            Err(why) => tracing::warn!(server = %shared.spec.name, "its tools/list failed: {why}"),
        }
        // At most one read of the list per REFRESH_GAP, however often the
        // server says it changed.
        tokio::select! {
            () = tokio::time::sleep(REFRESH_GAP) => {}
            () = closed.cancelled() => return "its connection ended".to_owned(),
            () = shared.stop.cancelled() => return "unmounted".to_owned(),
        }
        tokio::select! {
            () = refresh.notified() => {}
            () = closed.cancelled() => return "its connection ended".to_owned(),
            () = shared.stop.cancelled() => return "unmounted".to_owned(),
        }
    }
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The most tools kept from one server: a list beyond any model's use
/// (HIP-0300 §1 measured clients truncating at 128), bounded so that a
/// server cannot make every merge and gating pass slow.
const MAX_TOOLS: usize = 4096;

/// The least time between two reads of a server's list.
const REFRESH_GAP: Duration = Duration::from_millis(100);

/// The most requests of a server's own being answered at once (sampling,
/// elicitation, roots); one more closes its connection (an outage, then a
/// restart), so a server that asks in a loop cannot grow our memory.
const MAX_RELAYS: usize = 64;

/// Every page of the server's `tools/list`; a tool whose name breaks the
/// MCP name rule or that has no `inputSchema` object is dropped with a
/// warning.
async fn list_tools(shared: &Shared, conn: &Conn) -> Result<Vec<Tool>, String> {
    let name = &shared.spec.name;
    let mut tools: Vec<Tool> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    let mut seen_cursors = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..shared.limits.max_pages {
        let params = match &cursor {
            Some(cursor) => json!({ "cursor": cursor }),
            None => json!({}),
        };
        let page = match conn
            .request(ListTools::NAME, &params.to_string(), shared.limits.list)
            .await
        {
            Ok(page) => page,
            Err(Failure::Server(error)) => {
                return Err(format!("error {}: {}", error.code, error.message));
            }
            Err(Failure::Gone(why)) => return Err(why),
            Err(Failure::Timeout(limit)) => {
                return Err(format!("no answer within {} ms", limit.as_millis()));
            }
        };
        let page: Value = serde_json::from_str(page.get()).map_err(|e| format!("not JSON: {e}"))?;
        let Some(items) = page.get("tools").and_then(Value::as_array) else {
            return Err("its result has no tools array".to_owned());
        };
        for item in items {
            if tools.len() >= MAX_TOOLS {
                tracing::warn!(server = %name, max = MAX_TOOLS, "the server lists more tools than are kept; the rest are dropped");
                return Ok(tools);
            }
            match Tool::from_value(item.clone()) {
                Ok(tool) => match mcp_proto::validate_tool_name(&tool.name) {
                    Ok(()) if names.insert(tool.name.clone()) => tools.push(tool),
                    Ok(()) => {
                        tracing::warn!(server = %name, tool = %tool.name, "a tool listed twice was kept once")
                    }
                    Err(error) => {
                        tracing::warn!(server = %name, tool = %tool.name, %error, "a tool was dropped: its name breaks the MCP name rule")
                    }
                },
                Err(error) => {
                    tracing::warn!(server = %name, %error, "a tool was dropped: it is malformed")
                }
            }
        }
        match page.get("nextCursor").and_then(Value::as_str) {
            Some(next) if seen_cursors.insert(next.to_owned()) => cursor = Some(next.to_owned()),
            Some(_) => {
                tracing::warn!(server = %name, "its tools/list repeated a cursor; the pages read so far are kept");
                return Ok(tools);
            }
            None => return Ok(tools),
        }
    }
    tracing::warn!(server = %name, pages = shared.limits.max_pages, "its tools/list has more pages than read");
    Ok(tools)
}

/// Handles one message from the server.
fn dispatch(shared: &Arc<Shared>, conn: &Arc<Conn>, refresh: &Notify, message: Incoming) {
    let name = &shared.spec.name;
    match message {
        Incoming::Response { id, outcome } => {
            if let Some(waiter) = lock(&conn.pending).remove(&id) {
                let _ = waiter.send(outcome.map_err(Failure::Server));
            }
        }
        Incoming::Undelivered { id, why } => {
            if let Some(waiter) = lock(&conn.pending).remove(&id) {
                let _ = waiter.send(Err(Failure::Gone(why)));
            }
        }
        Incoming::Notification { method, params } => match method.as_str() {
            Progress::NAME => {
                let token = params
                    .as_ref()
                    .and_then(|p| p.get("progressToken"))
                    .and_then(Value::as_str);
                let target = token.and_then(|t| lock(&conn.progress).get(t).cloned());
                if let (Some(target), Some(params)) = (target, params) {
                    let _ = target.send(params);
                }
            }
            ToolListChanged::NAME => refresh.notify_one(),
            Cancelled::NAME => {
                let id = params
                    .and_then(|p| p.get("requestId").cloned())
                    .and_then(|id| RequestId::from_value(id).ok());
                if let Some(relay) = id.and_then(|id| lock(&conn.relays).remove(&id)) {
                    relay.abort();
                }
            }
            LoggingMessage::NAME => {
                let data = params
                    .as_ref()
                    .and_then(|p| p.get("data"))
                    .map(Value::to_string)
                    .unwrap_or_default();
                shared.output.line(name, &data);
            }
            _ => tracing::debug!(server = %name, %method, "a notification was ignored"),
        },
        Incoming::Request { id, method, params } => {
            if lock(&conn.relays).len() >= MAX_RELAYS {
                // Answering would queue without bound: a server that asks
                // this much is treated as broken, like one that floods.
                tracing::warn!(server = %name, max = MAX_RELAYS, "the server has more of its own requests outstanding than allowed; its connection is closed");
                conn.closed.cancel();
                return;
            }
            let handler = shared.handler.clone();
            let answer: BoxFuture<'static, Result<Value, ErrorObject>> = match method.as_str() {
                Ping::NAME => Box::pin(async { Ok(json!({})) }),
                ListRoots::NAME => handler.list_roots(),
                CreateMessage::NAME => handler.relay(CreateMessage::NAME, params),
                Elicit::NAME => handler.relay(Elicit::NAME, params),
                _ => {
                    let method = method.clone();
                    Box::pin(async move { Err(ErrorObject::method_not_found(&method)) })
                }
            };
            let task_conn = conn.clone();
            let task_id = id.clone();
            let task = tokio::spawn(async move {
                let outcome = answer.await;
                lock(&task_conn.relays).remove(&task_id);
                if let Some(out) = task_conn.out.get() {
                    let _ = out
                        .send(Outgoing {
                            id: None,
                            body: wire::response(task_id, outcome),
                        })
                        .await;
                }
            });
            lock(&conn.relays).insert(id, task.abort_handle());
        }
    }
}
