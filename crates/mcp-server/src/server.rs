//! The MCP server's connection: reads messages (newline-delimited over
//! stdio, or parsed by the HTTP transport), answers each request
//! concurrently, and shuts down cleanly.
//!
//! - Over stdio one reader task frames lines with a size bound and the
//!   connection loop parses each; the HTTP transport hands the loop the
//!   messages it parsed ([`crate::http`]). The loop either answers inline
//!   (`initialize`, `ping`, `server/discover`, errors) or spawns the request
//!   (`tools/list`, `tools/call`). Responses are written when ready, to
//!   their own id.
//! - `notifications/cancelled` aborts the named call; no response is sent
//!   for it (MCP 2025-11-25 basic/utilities/cancellation).
//! - Besides tools, a server may hold a [`ResourceSource`], a
//!   [`PromptSource`], a [`CompletionSource`] and logging; it advertises
//!   exactly those. A client response is routed to the server-to-client
//!   request waiting for its id ([`crate::peer`]).
//! - On end of input or the shutdown signal, calls in flight finish and are
//!   flushed; after [`ServerConfig::shutdown_grace`] the rest are answered
//!   with -32603 so every request still gets exactly one response.

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::FutureExt as _;
use mcp_proto::{
    CallToolRequestParams, CompleteRequestParams, ErrorObject, FromValue, GetPromptRequestParams,
    Implementation, LoggingLevel, Message, Notification, ProgressToken, ReadResourceRequestParams,
    Request, RequestId, Response, Revision, SetLevelRequestParams, meta,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;
use crate::features::{CompletionSource, PromptSource, ResourceSource, RootsListener};
use crate::framing::{LineEvent, read_lines};
use crate::lifecycle::{Era, Lifecycle, Phase};
use crate::logging::{ConnectionLevel, Logger};
use crate::outbox::{Outbox, write_loop};
use crate::peer::PeerShared;
use crate::progress::ProgressReporter;
use crate::source::{CallContext, Composition};

/// How long the server waits for the client's `roots/list` answer.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(30);

/// The most resource URIs one connection may subscribe to at once.
pub const MAX_SUBSCRIPTIONS: usize = 1_000;

/// The longest resource URI `resources/subscribe` accepts, in bytes.
pub const MAX_SUBSCRIBED_URI_BYTES: usize = 8 * 1024;

/// How long a stateless (2026-07-28) client may cache our `tools/list` and
/// `server/discover` results, in milliseconds.
const LIST_TTL_MS: u64 = 60_000;

/// Settings of a [`Server`].
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `serverInfo`: our name and version.
    pub info: Implementation,
    /// `instructions` in the `initialize` and `server/discover` results.
    pub instructions: Option<String>,
    /// Whether a source's list can change (the door): then the handshake
    /// advertises `tools.listChanged` and `notifications/tools/list_changed`
    /// is sent when it does.
    pub list_changed: bool,
    /// How long calls in flight may run after input ends before they are
    /// answered with -32603.
    pub shutdown_grace: Duration,
    /// The longest line accepted, in bytes; a longer one is discarded as it
    /// streams and answered with -32600, without an id (mcp-proto framing).
    pub max_line_bytes: usize,
    /// How long a request to the client (sampling, elicitation, roots) may
    /// wait for its answer unless the caller gives its own bound
    /// ([`crate::peer::Peer::request_with_timeout`]).
    pub client_request_timeout: Duration,
    /// How many bytes of output may wait for the client to read them
    /// ([`Server::serve`]): above this the server stops reading input until
    /// the writer catches up, and drops progress and log notifications.
    pub max_output_backlog_bytes: usize,
}

impl ServerConfig {
    /// The defaults for `hanzo-mcp`: our package name and version, no
    /// instructions, no list changes, 10 s grace, 8 MiB lines, 300 s for a
    /// request to the client, 16 MiB of unread output.
    pub fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            list_changed: false,
            shutdown_grace: Duration::from_secs(10),
            max_line_bytes: mcp_proto::framing::DEFAULT_MAX_LINE_LEN,
            client_request_timeout: Duration::from_secs(300),
            max_output_backlog_bytes: 16 * 1024 * 1024,
        }
    }
}

/// An MCP server: tool sources, the optional resource, prompt and
/// completion handlers, and settings. One server can serve any number of
/// connections ([`Server::serve`]).
pub struct Server {
    composition: Composition,
    config: ServerConfig,
    resources: Option<Arc<dyn ResourceSource>>,
    prompts: Option<Arc<dyn PromptSource>>,
    completions: Option<Arc<dyn CompletionSource>>,
    roots: Option<Arc<dyn RootsListener>>,
    logging: bool,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("composition", &self.composition)
            .field("config", &self.config)
            .field("resources", &self.resources.is_some())
            .field("prompts", &self.prompts.is_some())
            .field("completions", &self.completions.is_some())
            .field("logging", &self.logging)
            .field("roots", &self.roots.is_some())
            .finish()
    }
}

/// A call in flight: how to stop its task, and the token its work watches.
struct Running {
    task: AbortHandle,
    cancel: CancellationToken,
}

type InFlight = Arc<Mutex<HashMap<RequestId, Running>>>;

impl Server {
    /// A server over `composition`, with tools only.
    pub fn new(composition: Composition, config: ServerConfig) -> Self {
        Self {
            composition,
            config,
            resources: None,
            prompts: None,
            completions: None,
            roots: None,
            logging: false,
        }
    }

    /// Asks each client that declares the `roots` capability for its roots
    /// (`roots/list` after `notifications/initialized` and on
    /// `notifications/roots/list_changed`) and hands them to `listener`
    /// (MCP 2025-11-25 client/roots).
    pub fn with_roots_listener(mut self, listener: Arc<dyn RootsListener>) -> Self {
        self.roots = Some(listener);
        self
    }

    /// Serves `resources/list`, `resources/templates/list` and
    /// `resources/read` from `source`, and advertises `resources` (with
    /// `subscribe` when the source has [`ResourceSource::updates`]).
    pub fn with_resources(mut self, source: Arc<dyn ResourceSource>) -> Self {
        self.resources = Some(source);
        self
    }

    /// Serves `prompts/list` and `prompts/get` from `source`, and advertises
    /// `prompts`.
    pub fn with_prompts(mut self, source: Arc<dyn PromptSource>) -> Self {
        self.prompts = Some(source);
        self
    }

    /// Serves `completion/complete` from `source`, and advertises
    /// `completions`.
    pub fn with_completions(mut self, source: Arc<dyn CompletionSource>) -> Self {
        self.completions = Some(source);
        self
    }

    /// Advertises `logging`, answers `logging/setLevel` (revisions up to
    /// 2025-11-25), and gives every call a [`Logger`]
    /// ([`CallContext::log`]).
    pub fn with_logging(mut self) -> Self {
        self.logging = true;
        self
    }

    /// The tool sources.
    pub fn composition(&self) -> &Composition {
        &self.composition
    }

    /// The capabilities we advertise: `tools` (with `listChanged` in the
    /// handshake era when a source's list can change), and `resources`,
    /// `prompts`, `completions` and `logging` exactly when the server holds
    /// them. `resources.subscribe` is advertised in the handshake era when
    /// the resource source has a change feed; 2026-07-28 replaced
    /// `resources/subscribe` with `subscriptions/listen`, which we do not
    /// implement, so that era advertises neither `subscribe` nor
    /// `listChanged`.
    pub fn capabilities(&self, era: Era) -> Value {
        let mut caps = Map::new();
        caps.insert(
            "tools".into(),
            if self.config.list_changed && !era.is_stateless() {
                json!({ "listChanged": true })
            } else {
                json!({})
            },
        );
        if let Some(resources) = &self.resources {
            let subscribe = resources.updates().is_some() && !era.is_stateless();
            caps.insert(
                "resources".into(),
                if subscribe {
                    json!({ "subscribe": true })
                } else {
                    json!({})
                },
            );
        }
        if self.prompts.is_some() {
            caps.insert("prompts".into(), json!({}));
        }
        if self.completions.is_some() {
            caps.insert("completions".into(), json!({}));
        }
        if self.logging {
            caps.insert("logging".into(), json!({}));
        }
        Value::Object(caps)
    }

    /// Serves one connection: reads messages from `input`, writes messages to
    /// `output`, until `input` ends or `shutdown` completes; then lets calls
    /// in flight finish (bounded by [`ServerConfig::shutdown_grace`]) and
    /// flushes. Returns an error only when reading or writing fails.
    ///
    /// When more than [`ServerConfig::max_output_backlog_bytes`] of output
    /// wait unread, no more input is read until the client reads
    /// (backpressure). When writing fails (the client closed our output),
    /// reading stops, calls in flight are cancelled and the write error is
    /// returned at once.
    pub async fn serve<R, W, S>(
        self: Arc<Self>,
        input: R,
        output: W,
        shutdown: S,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
        S: Future<Output = ()> + Send,
    {
        let (outbox, out_rx, backlog) = Outbox::bounded(self.config.max_output_backlog_bytes);
        let mut writer = tokio::spawn(write_loop(output, out_rx, Some(backlog)));
        let mut serving = Box::pin(self.serve_outbox(input, outbox, shutdown));
        let (read, written) = tokio::select! {
            read = &mut serving => (read, writer.await),
            // The writer ends early only on a write error (the connection
            // holds an outbox): dropping `serving` stops reading and
            // aborts the calls in flight.
            written = &mut writer => (Ok(()), written),
        };
        drop(serving);
        read?;
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(ServerError::Write(error)),
            Err(join) => Err(ServerError::Write(std::io::Error::other(join.to_string()))),
        }
    }

    /// Serves one connection whose messages go to `outbox` (each tagged with
    /// the client request it belongs to, which the HTTP transport routes
    /// by). Returns when input ends or `shutdown` completes, after calls in
    /// flight finished (bounded by [`ServerConfig::shutdown_grace`]); the
    /// outbox's receiver then sees every message. Errs only when reading
    /// fails.
    pub async fn serve_outbox<R, S>(
        self: Arc<Self>,
        input: R,
        outbox: Outbox,
        shutdown: S,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        S: Future<Output = ()> + Send,
    {
        let (line_tx, lines) = mpsc::channel(16);
        let reader = tokio::spawn(read_lines(input, self.config.max_line_bytes, line_tx));
        self.serve_events(lines, Some(reader.abort_handle()), outbox, shutdown)
            .await
    }

    /// One `()` on the returned receiver for every change of a source's
    /// tool list, and the tasks that watch the sources.
    fn watch_list_changes(&self) -> (mpsc::UnboundedReceiver<()>, Vec<JoinHandle<()>>) {
        let (changed_tx, changed) = mpsc::unbounded_channel::<()>();
        let mut watchers = Vec::new();
        for mut rx in self.composition.list_changes() {
            let tx = changed_tx.clone();
            watchers.push(tokio::spawn(async move {
                while rx.changed().await.is_ok() {
                    if tx.send(()).is_err() {
                        break;
                    }
                }
            }));
        }
        (changed, watchers)
    }

    /// [`Server::serve_outbox`] for input that arrives as [`LineEvent`]s:
    /// lines for the connection to parse, or messages a transport parsed
    /// already (the HTTP transport hands over each POST's message as is).
    /// `reader`, when given, is the task feeding `lines`; it is stopped when
    /// the connection ends.
    pub(crate) async fn serve_events<S>(
        self: Arc<Self>,
        mut lines: mpsc::Receiver<LineEvent>,
        reader: Option<AbortHandle>,
        outbox: Outbox,
        shutdown: S,
    ) -> Result<(), ServerError>
    where
        S: Future<Output = ()> + Send,
    {
        let (mut changed, mut watchers) = self.watch_list_changes();
        let subscriptions = self
            .resources
            .as_ref()
            .and_then(|r| r.updates())
            .map(|updates| {
                let subscribed: Subscriptions = Arc::default();
                watchers.push(tokio::spawn(forward_updates(
                    updates.listen(),
                    subscribed.clone(),
                    outbox.clone(),
                )));
                subscribed
            });
        // Stops the reader and the watchers also when this future is dropped
        // ([`Server::serve`] on a write error).
        let _stop = AbortOnDrop(
            reader
                .iter()
                .cloned()
                .chain(watchers.iter().map(JoinHandle::abort_handle))
                .collect(),
        );
        let mut conn = Connection {
            server: self.clone(),
            lifecycle: Lifecycle::new(),
            peer: PeerShared::new(outbox.clone(), self.config.client_request_timeout),
            level: ConnectionLevel::default(),
            subscriptions,
            roots_fetch: None,
            roots_state: Arc::default(),
            outbox,
            inflight: Arc::default(),
            tasks: JoinSet::new(),
        };

        let backlog = conn.outbox.backlog().cloned();
        let full = || backlog.as_ref().is_some_and(|b| b.is_full());
        let mut read_error = None;
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                biased;
                () = &mut shutdown => {
                    tracing::info!("shutdown signal: finishing calls in flight");
                    break;
                }
                Some(()) = changed.recv() => conn.send_list_changed(),
                // Backpressure: while the client leaves too much output
                // unread, wait for the writer instead of reading more.
                () = async { if let Some(b) = &backlog { b.drained().await } }, if full() => {}
                line = lines.recv(), if !full() => match line {
                    Some(LineEvent::Line(bytes)) => conn.on_line(&bytes),
                    Some(LineEvent::Message(message)) => conn.on_message(message),
                    Some(LineEvent::Rejected(error)) => conn.send_error(None, error),
                    Some(LineEvent::Failed(error)) => {
                        read_error = Some(error);
                        break;
                    }
                    None => {
                        tracing::debug!("end of input: finishing calls in flight");
                        break;
                    }
                },
                Some(_) = conn.tasks.join_next(), if !conn.tasks.is_empty() => {}
            }
        }
        if let Some(reader) = reader {
            reader.abort();
        }
        for watcher in watchers {
            watcher.abort();
        }
        if let Some(fetch) = conn.roots_fetch.take() {
            fetch.abort();
        }
        conn.drain(self.config.shutdown_grace).await;
        drop(conn);
        match read_error {
            Some(error) => Err(ServerError::Read(error)),
            None => Ok(()),
        }
    }
}

/// Refuses an `initialize` whose `capabilities` is no object or whose
/// `clientInfo` is no `Implementation` (an object with string `name` and
/// `version`; MCP 2025-11-25 basic/lifecycle): -32602 naming the field.
/// Absent fields are tolerated.
fn check_client_declaration(params: Option<&Value>) -> Result<(), ErrorObject> {
    let field = |name: &str| params.and_then(|p| p.get(name));
    if let Some(capabilities) = field("capabilities")
        && !capabilities.is_object()
    {
        return Err(ErrorObject::invalid_params(format!(
            "initialize: capabilities must be an object, found {capabilities}"
        )));
    }
    if let Some(info) = field("clientInfo") {
        let text = |key: &str| info.get(key).is_some_and(Value::is_string);
        if !(info.is_object() && text("name") && text("version")) {
            return Err(ErrorObject::invalid_params(format!(
                "initialize: clientInfo must be an object with string name and version \
                 (Implementation), found {info}"
            )));
        }
    }
    Ok(())
}

/// Aborts its tasks when dropped.
struct AbortOnDrop(Vec<AbortHandle>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

/// The resource URIs one connection subscribed to.
type Subscriptions = Arc<Mutex<HashSet<String>>>;

/// Sends `notifications/resources/updated` for every announced URI the
/// connection subscribed to (MCP 2025-11-25 server/resources,
/// subscriptions).
async fn forward_updates(
    mut updates: tokio::sync::broadcast::Receiver<String>,
    subscribed: Subscriptions,
    outbox: Outbox,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match updates.recv().await {
            Ok(uri) => {
                let wanted = subscribed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .contains(&uri);
                if wanted {
                    outbox.send(&Message::Notification(Notification {
                        method: "notifications/resources/updated".into(),
                        params: Some(json!({ "uri": uri })),
                    }));
                }
            }
            Err(RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "resource updates skipped: the connection fell behind"
                );
            }
            Err(RecvError::Closed) => break,
        }
    }
}

/// The coalescing of `roots/list` fetches: at most one in flight; changes
/// announced meanwhile make one more fetch after its answer.
#[derive(Debug, Default)]
struct RootsState {
    running: bool,
    again: bool,
}

/// The state of one connection, owned by its loop.
struct Connection {
    server: Arc<Server>,
    lifecycle: Lifecycle,
    /// Requests we sent to the client, and its declared capabilities.
    peer: Arc<PeerShared>,
    /// `logging/setLevel`'s level (read only when the server has logging).
    level: ConnectionLevel,
    /// Present when the resource source has a change feed.
    subscriptions: Option<Subscriptions>,
    /// The task fetching the client's roots, if one ran.
    roots_fetch: Option<AbortHandle>,
    /// Whether a `roots/list` is in flight, and whether the roots changed
    /// again meanwhile.
    roots_state: Arc<Mutex<RootsState>>,
    outbox: Outbox,
    inflight: InFlight,
    tasks: JoinSet<()>,
}

impl Connection {
    fn send_result(&self, id: RequestId, result: Value) {
        self.outbox
            .send(&Message::Response(Response::success(id, result)));
    }

    fn send_error(&self, id: Option<RequestId>, error: ErrorObject) {
        self.outbox
            .send(&Message::Response(Response::error(id, error)));
    }

    fn send_list_changed(&self) {
        let ready = matches!(self.lifecycle.phase(), Phase::Initialized { .. });
        if ready && self.server.config.list_changed {
            self.outbox.send(&Message::Notification(Notification {
                method: "notifications/tools/list_changed".into(),
                params: None,
            }));
        }
    }

    fn on_line(&mut self, bytes: &[u8]) {
        match mcp_proto::parse_message(bytes) {
            Err(bad) if meant_as_response(bytes) => {
                // JSON-RPC 2.0 §5: a response is never answered. A bad one
                // to a request of ours fails that request now rather than
                // at its timeout.
                let failed = bad
                    .id
                    .as_ref()
                    .is_some_and(|id| self.peer.fail_malformed(id, &bad.error.message));
                if !failed {
                    tracing::debug!(
                        error = bad.error.message,
                        "dropping a malformed response to no request of ours"
                    );
                }
            }
            Err(bad) => self.send_error(bad.id, bad.error),
            Ok(message) => self.on_message(message),
        }
    }

    fn on_message(&mut self, message: Message) {
        match message {
            Message::Request(request) => self.on_request(request),
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(response) => {
                if !self.peer.deliver(response) {
                    tracing::debug!("ignoring a response to no request of ours");
                }
            }
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            "notifications/initialized" => {
                self.lifecycle.initialized();
                self.fetch_roots();
            }
            "notifications/roots/list_changed" => self.fetch_roots(),
            "notifications/cancelled" => {
                let id = notification
                    .params
                    .as_ref()
                    .and_then(|p| p.get("requestId"))
                    .and_then(|v| serde_json::from_value::<RequestId>(v.clone()).ok());
                match id {
                    Some(id) => self.cancel(&id),
                    None => tracing::debug!("notifications/cancelled without a valid requestId"),
                }
            }
            other => tracing::debug!(method = other, "ignoring notification"),
        }
    }

    /// Sends `roots/list` and hands the answer to the server's roots
    /// listener, when it has one and the client declared `roots`. At most
    /// one `roots/list` is in flight: a change announced meanwhile (any
    /// number of `notifications/roots/list_changed`) makes exactly one more
    /// fetch once the answer is in.
    fn fetch_roots(&mut self) {
        let Some(listener) = self.server.roots.clone() else {
            return;
        };
        let peer = self.peer.handle(None, CancellationToken::new());
        if !peer.declares("roots") {
            return;
        }
        {
            let mut state = self
                .roots_state
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if state.running {
                state.again = true;
                return;
            }
            state.running = true;
        }
        let state = self.roots_state.clone();
        let fetch = tokio::spawn(async move {
            loop {
                let listed = peer
                    .request_with_timeout("roots/list", json!({}), ROOTS_TIMEOUT)
                    .await
                    .and_then(|value| {
                        mcp_proto::ListRootsResult::from_value(value).map_err(|e| {
                            ErrorObject::internal_error(format!("malformed roots/list result: {e}"))
                        })
                    });
                match listed {
                    Ok(list) => listener.roots_changed(list.roots),
                    Err(error) => tracing::warn!(
                        code = error.code,
                        message = error.message,
                        "roots/list failed; keeping the roots"
                    ),
                }
                let mut state = state.lock().unwrap_or_else(PoisonError::into_inner);
                if state.again {
                    state.again = false;
                } else {
                    state.running = false;
                    break;
                }
            }
        });
        self.roots_fetch = Some(fetch.abort_handle());
    }

    fn cancel(&mut self, id: &RequestId) {
        let running = self
            .inflight
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        match running {
            Some(running) => {
                running.cancel.cancel();
                running.task.abort();
                tracing::debug!(?id, "cancelled");
            }
            None => tracing::debug!(?id, "cancel for a request not in flight"),
        }
    }

    fn on_request(&mut self, request: Request) {
        let Request { id, method, params } = request;
        let outcome = match method.as_str() {
            "initialize" => self.initialize(params.as_ref()),
            "ping" => self
                .lifecycle
                .era_for(&method, params.as_ref())
                .map(|era| finish(era, json!({}))),
            "server/discover" => self
                .lifecycle
                .era_for(&method, params.as_ref())
                .map(|era| self.discover(era)),
            "tools/list" => {
                return self.spawn_checked(id, &method, params, Self::list_tools);
            }
            "tools/call" => {
                return self.spawn_for(id, &method, params, Self::call_tool);
            }
            "resources/list" => {
                return self.spawn_for(id, &method, params, Self::list_resources);
            }
            "resources/templates/list" => {
                return self.spawn_for(id, &method, params, Self::list_resource_templates);
            }
            "resources/read" => {
                return self.spawn_for(id, &method, params, Self::read_resource);
            }
            "prompts/list" => {
                return self.spawn_for(id, &method, params, Self::list_prompts);
            }
            "prompts/get" => {
                return self.spawn_for(id, &method, params, Self::get_prompt);
            }
            "completion/complete" => {
                return self.spawn_for(id, &method, params, Self::complete);
            }
            "logging/setLevel" => self
                .lifecycle
                .era_for(&method, params.as_ref())
                .and_then(|era| self.set_level(era, params)),
            "resources/subscribe" => {
                return self.spawn_for(id, &method, params, Self::subscribe_resource);
            }
            "resources/unsubscribe" => self
                .lifecycle
                .era_for(&method, params.as_ref())
                .and_then(|era| self.unsubscribe(era, &method, params.as_ref())),
            other => Err(ErrorObject::method_not_found(other)),
        };
        match outcome {
            Ok(result) => self.send_result(id, result),
            Err(error) => self.send_error(Some(id), error),
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let stateless = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(meta::PROTOCOL_VERSION))
            .and_then(Value::as_str)
            .and_then(Revision::parse)
            .is_some_and(Revision::is_stateless);
        if stateless {
            // 2026-07-28 has no `initialize` (basic/versioning).
            return Err(ErrorObject::method_not_found("initialize"));
        }
        let requested = match params.and_then(|p| p.get("protocolVersion")) {
            Some(Value::String(v)) => v.clone(),
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "initialize: protocolVersion must be a string",
                ));
            }
            None => {
                return Err(ErrorObject::invalid_params(
                    "initialize: params.protocolVersion is required",
                ));
            }
        };
        check_client_declaration(params)?;
        let revision = self.lifecycle.initialize(&requested)?;
        self.peer.set_capabilities(
            params
                .and_then(|p| p.get("capabilities"))
                .cloned()
                .unwrap_or_else(|| json!({})),
        );
        tracing::info!(
            requested,
            negotiated = revision.as_str(),
            "initialize answered"
        );
        let config = &self.server.config;
        let mut result = Map::new();
        result.insert("protocolVersion".into(), json!(revision.as_str()));
        result.insert(
            "capabilities".into(),
            self.server.capabilities(Era::Handshake(revision)),
        );
        result.insert("serverInfo".into(), json!(config.info));
        if let Some(instructions) = &config.instructions {
            result.insert("instructions".into(), json!(instructions));
        }
        Ok(Value::Object(result))
    }

    fn discover(&self, era: Era) -> Value {
        let config = &self.server.config;
        let supported: Vec<&str> = Lifecycle::stateless_revisions()
            .iter()
            .map(|r| r.as_str())
            .collect();
        let mut result = json!({
            "supportedVersions": supported,
            "capabilities": self.server.capabilities(era),
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "private",
            "_meta": { meta::SERVER_INFO: config.info },
        });
        if let Some(instructions) = &config.instructions {
            result["instructions"] = json!(instructions);
        }
        finish(era, result)
    }

    /// Decides the era, validates, and spawns the request; answers the error
    /// inline when any step fails.
    fn spawn_checked<F>(&mut self, id: RequestId, method: &str, params: Option<Value>, make: F)
    where
        F: FnOnce(&Self, Era, Option<Value>, CancellationToken) -> Result<Work, ErrorObject>,
    {
        self.spawn_for(id, method, params, |conn, _id, era, params, cancel| {
            make(conn, era, params, cancel)
        });
    }

    /// [`Self::spawn_checked`] for work that needs its request id (for the
    /// [`CallContext`]: related messages, requests to the client).
    fn spawn_for<F>(&mut self, id: RequestId, method: &str, params: Option<Value>, make: F)
    where
        F: FnOnce(
            &Self,
            &RequestId,
            Era,
            Option<Value>,
            CancellationToken,
        ) -> Result<Work, ErrorObject>,
    {
        let cancel = CancellationToken::new();
        let prepared = self
            .lifecycle
            .era_for(method, params.as_ref())
            .and_then(|era| make(self, &id, era, params, cancel.clone()));
        match prepared {
            Ok(work) => self.spawn(id, work, cancel),
            Err(error) => self.send_error(Some(id), error),
        }
    }

    /// What a request's work gets besides its params: progress (when
    /// `_meta.progressToken` is set), cancellation, a [`Logger`] when the
    /// server has logging (level: the connection's, or in 2026-07-28 the
    /// request's `_meta` level), and a [`crate::peer::Peer`] for requests
    /// to the client outside 2026-07-28. Messages they send are related to
    /// request `id`.
    fn context(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<&Value>,
        cancel: &CancellationToken,
    ) -> CallContext {
        let request_meta = params.and_then(|p| p.get("_meta"));
        let progress = request_meta
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok())
            .map(|token| ProgressReporter::new(token, self.outbox.related_to(id.clone())));
        let log = self.server.logging.then(|| {
            let outbox = self.outbox.related_to(id.clone());
            if era.is_stateless() {
                let level = request_meta
                    .and_then(|m| m.get(meta::LOG_LEVEL))
                    .and_then(|l| LoggingLevel::from_value(l.clone()).ok());
                Logger::for_request(outbox, level)
            } else {
                Logger::for_connection(outbox, self.level.clone())
            }
        });
        let client =
            (!era.is_stateless()).then(|| self.peer.handle(Some(id.clone()), cancel.clone()));
        CallContext {
            progress,
            cancel: cancel.clone(),
            log,
            client,
        }
    }

    fn list_tools(
        &self,
        era: Era,
        params: Option<Value>,
        _cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        match &params {
            None | Some(Value::Null) => {}
            Some(Value::Object(map)) => {
                // An explicit null cursor is the first page, as for the
                // other lists (`cursor_of`).
                if let Some(cursor) = map.get("cursor").filter(|c| !c.is_null()) {
                    // One page holds every tool, so no cursor is ours.
                    return Err(ErrorObject::invalid_params(format!(
                        "tools/list: unknown cursor {cursor}"
                    )));
                }
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "tools/list: params must be an object",
                ));
            }
        }
        let server = self.server.clone();
        Ok(Box::pin(async move {
            // Rendered once per merged list and form, then only copied: the
            // result depends on the era only through `is_stateless`.
            let stateless = era.is_stateless();
            let form = if stateless {
                "tools/list stateless"
            } else {
                "tools/list handshake"
            };
            let merged = server.composition.merged().await;
            let json = merged
                .rendered(form, |list| {
                    let mut result = Map::new();
                    result.insert("tools".into(), json!(list.tools));
                    if let Some(meta) = &list.meta {
                        result.insert("_meta".into(), Value::Object(meta.clone()));
                    }
                    if stateless {
                        result.insert("ttlMs".into(), json!(LIST_TTL_MS));
                        result.insert("cacheScope".into(), json!("private"));
                    }
                    finish(era, Value::Object(result))
                })
                .map_err(|e| {
                    ErrorObject::internal_error(format!("cannot encode the tool list: {e}"))
                })?;
            Ok(Reply::Json(json))
        }))
    }

    fn call_tool(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        let params = match params {
            Some(value @ Value::Object(_)) => value,
            Some(_) => {
                return Err(ErrorObject::invalid_params(
                    "tools/call: params must be an object",
                ));
            }
            None => {
                return Err(ErrorObject::invalid_params(
                    "tools/call: params are required",
                ));
            }
        };
        let cx = self.context(id, era, Some(&params), &cancel);
        let params = CallToolRequestParams::from_value(params)
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call: {e}")))?;
        let server = self.server.clone();
        Ok(Box::pin(async move {
            let result = server.composition.call_tool(params, cx).await?;
            Ok(Reply::Value(finish(era, result)))
        }))
    }

    fn resources(&self, method: &str) -> Result<Arc<dyn ResourceSource>, ErrorObject> {
        self.server
            .resources
            .clone()
            .ok_or_else(|| ErrorObject::method_not_found(method))
    }

    fn prompts(&self, method: &str) -> Result<Arc<dyn PromptSource>, ErrorObject> {
        self.server
            .prompts
            .clone()
            .ok_or_else(|| ErrorObject::method_not_found(method))
    }

    /// A paginated list (`resources/list`, `resources/templates/list`,
    /// `prompts/list`): the cursor checked, then `fetch(cursor, cx)`; the
    /// result cacheable for [`LIST_TTL_MS`] in 2026-07-28.
    #[allow(clippy::too_many_arguments)]
    fn list_page<T, F, Fut>(
        &self,
        method: &str,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
        fetch: F,
    ) -> Result<Work, ErrorObject>
    where
        T: Serialize,
        F: FnOnce(Option<String>, CallContext) -> Fut,
        Fut: Future<Output = Result<T, ErrorObject>> + Send + 'static,
    {
        let cursor = cursor_of(method, params.as_ref())?;
        let cx = self.context(id, era, params.as_ref(), &cancel);
        let listing = fetch(cursor, cx);
        Ok(Box::pin(async move {
            typed_result(era, &listing.await?, Some(LIST_TTL_MS))
        }))
    }

    /// A request with typed params (`resources/read`, `prompts/get`,
    /// `completion/complete`): the params decoded as `P` (-32602 naming
    /// `method` and the member otherwise), then `answer(params, cx)`;
    /// `ttl_ms` as [`typed_result`] takes it.
    #[allow(clippy::too_many_arguments)]
    fn typed_request<P, T, F, Fut>(
        &self,
        method: &str,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
        ttl_ms: Option<u64>,
        answer: F,
    ) -> Result<Work, ErrorObject>
    where
        P: FromValue,
        T: Serialize,
        F: FnOnce(P, CallContext) -> Fut,
        Fut: Future<Output = Result<T, ErrorObject>> + Send + 'static,
    {
        let cx = self.context(id, era, params.as_ref(), &cancel);
        let params = P::from_value(params.unwrap_or(Value::Null))
            .map_err(|e| ErrorObject::invalid_params(format!("{method}: {e}")))?;
        let answering = answer(params, cx);
        Ok(Box::pin(async move {
            typed_result(era, &answering.await?, ttl_ms)
        }))
    }

    fn list_resources(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "resources/list";
        let source = self.resources(METHOD)?;
        self.list_page(METHOD, id, era, params, cancel, |cursor, cx| async move {
            source.list_resources(cursor, cx).await
        })
    }

    fn list_resource_templates(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "resources/templates/list";
        let source = self.resources(METHOD)?;
        self.list_page(METHOD, id, era, params, cancel, |cursor, cx| async move {
            source.list_resource_templates(cursor, cx).await
        })
    }

    fn read_resource(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "resources/read";
        let source = self.resources(METHOD)?;
        // A read is not cached unless the source says for how long.
        self.typed_request(
            METHOD,
            id,
            era,
            params,
            cancel,
            Some(0),
            |params: ReadResourceRequestParams, cx| async move {
                source
                    .read_resource(params, cx)
                    .await
                    .map_err(|error| not_found_for(era, error))
            },
        )
    }

    fn list_prompts(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "prompts/list";
        let source = self.prompts(METHOD)?;
        self.list_page(METHOD, id, era, params, cancel, |cursor, cx| async move {
            source.list_prompts(cursor, cx).await
        })
    }

    fn get_prompt(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "prompts/get";
        let source = self.prompts(METHOD)?;
        self.typed_request(
            METHOD,
            id,
            era,
            params,
            cancel,
            None,
            |params: GetPromptRequestParams, cx| async move { source.get_prompt(params, cx).await },
        )
    }

    fn complete(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "completion/complete";
        let source = self
            .server
            .completions
            .clone()
            .ok_or_else(|| ErrorObject::method_not_found(METHOD))?;
        self.typed_request(
            METHOD,
            id,
            era,
            params,
            cancel,
            None,
            |params: CompleteRequestParams, cx| async move { source.complete(params, cx).await },
        )
    }

    /// `logging/setLevel` (revisions up to 2025-11-25; 2026-07-28 removed it
    /// for the per-request `_meta` level, so there it is -32601).
    fn set_level(&self, era: Era, params: Option<Value>) -> Result<Value, ErrorObject> {
        if !self.server.logging || era.is_stateless() {
            return Err(ErrorObject::method_not_found("logging/setLevel"));
        }
        let params = SetLevelRequestParams::from_value(params.unwrap_or(Value::Null))
            .map_err(|e| ErrorObject::invalid_params(format!("logging/setLevel: {e}")))?;
        self.level.set(params.level);
        Ok(json!({}))
    }

    /// `resources/subscribe`: only when the resource source has a change
    /// feed, not in 2026-07-28, and only for a URI the source knows
    /// ([`ResourceSource::check_resource`]: -32002 otherwise, as
    /// `resources/read`). A URI longer than [`MAX_SUBSCRIBED_URI_BYTES`], or
    /// a new one beyond [`MAX_SUBSCRIPTIONS`] per connection, is -32602.
    fn subscribe_resource(
        &self,
        id: &RequestId,
        era: Era,
        params: Option<Value>,
        cancel: CancellationToken,
    ) -> Result<Work, ErrorObject> {
        const METHOD: &str = "resources/subscribe";
        let (Some(subscriptions), Some(source)) = (&self.subscriptions, &self.server.resources)
        else {
            return Err(ErrorObject::method_not_found(METHOD));
        };
        if era.is_stateless() {
            return Err(ErrorObject::method_not_found(METHOD));
        }
        let Some(uri) = params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(ErrorObject::invalid_params(format!(
                "{METHOD}: params.uri (a string) is required"
            )));
        };
        if uri.len() > MAX_SUBSCRIBED_URI_BYTES {
            return Err(ErrorObject::invalid_params(format!(
                "{METHOD}: params.uri is {} bytes, over the limit of {MAX_SUBSCRIBED_URI_BYTES}",
                uri.len()
            )));
        }
        let full = || {
            ErrorObject::invalid_params(format!(
                "{METHOD}: this connection already has {MAX_SUBSCRIPTIONS} subscriptions, \
                 the most allowed; unsubscribe from one first"
            ))
        };
        let at_limit =
            |set: &HashSet<String>, uri: &str| !set.contains(uri) && set.len() >= MAX_SUBSCRIPTIONS;
        if at_limit(
            &subscriptions.lock().unwrap_or_else(PoisonError::into_inner),
            &uri,
        ) {
            return Err(full());
        }
        let cx = self.context(id, era, params.as_ref(), &cancel);
        let subscriptions = subscriptions.clone();
        let source = source.clone();
        Ok(Box::pin(async move {
            source.check_resource(&uri, cx).await?;
            let mut subscribed = subscriptions.lock().unwrap_or_else(PoisonError::into_inner);
            if at_limit(&subscribed, &uri) {
                return Err(full());
            }
            subscribed.insert(uri);
            Ok(Reply::Value(json!({})))
        }))
    }

    /// `resources/unsubscribe`: only when the resource source has a change
    /// feed, and not in 2026-07-28 (which replaced it with
    /// `subscriptions/listen`). Unsubscribing a URI not subscribed is a
    /// success.
    fn unsubscribe(
        &self,
        era: Era,
        method: &str,
        params: Option<&Value>,
    ) -> Result<Value, ErrorObject> {
        let subscriptions = match &self.subscriptions {
            Some(subscriptions) if !era.is_stateless() => subscriptions,
            _ => return Err(ErrorObject::method_not_found(method)),
        };
        let Some(uri) = params.and_then(|p| p.get("uri")).and_then(Value::as_str) else {
            return Err(ErrorObject::invalid_params(format!(
                "{method}: params.uri (a string) is required"
            )));
        };
        subscriptions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(uri);
        Ok(json!({}))
    }

    /// Runs `work` as its own task, registered under `id` so it can be
    /// cancelled; its response is sent only if it was not.
    fn spawn(&mut self, id: RequestId, work: Work, cancel: CancellationToken) {
        let mut inflight = self.inflight.lock().unwrap_or_else(PoisonError::into_inner);
        if inflight.contains_key(&id) {
            drop(inflight);
            self.send_error(
                Some(id.clone()),
                ErrorObject::invalid_request(format!(
                    "request id {} is already in flight",
                    serde_json::to_string(&id).unwrap_or_default()
                )),
            );
            return;
        }
        let registry = self.inflight.clone();
        let outbox = self.outbox.clone();
        let task_id = id.clone();
        let handle = self.tasks.spawn(async move {
            // A handler that panics still answers its request (-32603).
            let outcome = std::panic::AssertUnwindSafe(work)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| {
                    tracing::error!("a request handler panicked");
                    Err(ErrorObject::internal_error(
                        "the server failed while answering this request",
                    ))
                });
            let wanted = registry
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&task_id)
                .is_some();
            if wanted {
                match outcome {
                    Ok(Reply::Value(result)) => {
                        outbox.send(&Message::Response(Response::success(task_id, result)))
                    }
                    Ok(Reply::Json(result)) => outbox.send(&JsonResponse {
                        id: &task_id,
                        result: &result,
                    }),
                    Err(error) => {
                        outbox.send(&Message::Response(Response::error(Some(task_id), error)))
                    }
                };
            }
        });
        inflight.insert(
            id,
            Running {
                task: handle,
                cancel,
            },
        );
    }

    /// Waits for calls in flight, at most `grace`; answers the rest with
    /// -32603 so that every request gets its one response.
    async fn drain(&mut self, grace: Duration) {
        let tasks = &mut self.tasks;
        let finished =
            tokio::time::timeout(grace, async { while tasks.join_next().await.is_some() {} }).await;
        if finished.is_err() {
            let late: Vec<(RequestId, Running)> = self
                .inflight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .drain()
                .collect();
            tracing::warn!(
                count = late.len(),
                "calls still running at shutdown were stopped"
            );
            for (id, running) in late {
                running.cancel.cancel();
                running.task.abort();
                self.send_error(
                    Some(id),
                    ErrorObject::internal_error(
                        "the server shut down before this request finished",
                    ),
                );
            }
            self.tasks.abort_all();
        }
    }
}

/// A spawned request's work.
type Work = crate::source::BoxFuture<'static, Result<Reply, ErrorObject>>;

/// What a spawned request answers.
enum Reply {
    /// A result, serialized when the response is sent.
    Value(Value),
    /// A result already serialized (a `tools/list` from the merged list's
    /// memo), copied into the response as is.
    Json(Arc<RawValue>),
}

/// A success response whose result is JSON text already: the same bytes as
/// `Message::Response` of the parsed result (`jsonrpc`, `id`, `result`, in
/// that order).
struct JsonResponse<'a> {
    id: &'a RequestId,
    result: &'a RawValue,
}

impl Serialize for JsonResponse<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3))?;
        map.serialize_entry("jsonrpc", "2.0")?;
        map.serialize_entry("id", self.id)?;
        map.serialize_entry("result", self.result)?;
        map.end()
    }
}

/// A result as `era` requires it: 2026-07-28 results carry
/// `resultType: "complete"` (MCP 2026-07-28 schema, `Result`).
fn finish(era: Era, mut result: Value) -> Value {
    if era.is_stateless()
        && let Value::Object(map) = &mut result
    {
        map.entry("resultType")
            .or_insert_with(|| Value::String("complete".into()));
    }
    result
}

/// A resource-not-found error as `era` spells it: -32002 up to 2025-11-25,
/// -32602 (message and data kept) from 2026-07-28 on (SEP-2164, MCP
/// 2026-07-28 server/resources, error handling).
fn not_found_for(era: Era, mut error: ErrorObject) -> ErrorObject {
    if era.is_stateless() && error.code == mcp_proto::error_code::RESOURCE_NOT_FOUND {
        error.code = mcp_proto::error_code::INVALID_PARAMS;
    }
    error
}

/// Whether a line that failed to parse was meant as a response
/// ([`mcp_proto::message::meant_as_response`]); such a line is never
/// answered.
fn meant_as_response(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .is_ok_and(|value| mcp_proto::message::meant_as_response(&value))
}

/// The revisions this server implements, newest first, as `--version` and
/// the README list them.
pub fn implemented_revisions() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
    all.reverse();
    all
}

/// The `cursor` of a paginated request's params (MCP 2025-11-25
/// server/utilities/pagination): absent or null is the first page.
fn cursor_of(method: &str, params: Option<&Value>) -> Result<Option<String>, ErrorObject> {
    match params {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => match map.get("cursor") {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(cursor)) => Ok(Some(cursor.clone())),
            Some(_) => Err(ErrorObject::invalid_params(format!(
                "{method}: cursor must be a string"
            ))),
        },
        Some(_) => Err(ErrorObject::invalid_params(format!(
            "{method}: params must be an object"
        ))),
    }
}

/// A handler's typed result as the wire value `era` requires; in 2026-07-28
/// a cacheable result (`ttl_ms` given) gets `ttlMs` and `cacheScope:
/// "private"` unless the handler set them (MCP 2026-07-28 schema: required
/// on list and read results).
fn typed_result<T: Serialize>(
    era: Era,
    result: &T,
    ttl_ms: Option<u64>,
) -> Result<Reply, ErrorObject> {
    let mut value = serde_json::to_value(result)
        .map_err(|e| ErrorObject::internal_error(format!("cannot serialize a result: {e}")))?;
    if era.is_stateless()
        && let (Some(ttl_ms), Value::Object(map)) = (ttl_ms, &mut value)
    {
        map.entry("ttlMs").or_insert_with(|| json!(ttl_ms));
        map.entry("cacheScope")
            .or_insert_with(|| Value::String("private".into()));
    }
    Ok(Reply::Value(finish(era, value)))
}
