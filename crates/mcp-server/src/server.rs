//! The MCP server over one byte stream (stdio): reads newline-delimited
//! messages, answers each request concurrently, and shuts down cleanly.
//!
//! - One reader task frames lines with a size bound; the connection loop
//!   parses each and either answers inline (`initialize`, `ping`,
//!   `server/discover`, errors) or spawns the request (`tools/list`,
//!   `tools/call`). Responses are written when ready, to their own id.
//! - `notifications/cancelled` aborts the named call; no response is sent
//!   for it (MCP 2025-11-25 basic/utilities/cancellation).
//! - On end of input or the shutdown signal, calls in flight finish and are
//!   flushed; after [`ServerConfig::shutdown_grace`] the rest are answered
//!   with -32603 so every request still gets exactly one response.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_proto::{
    CallToolRequestParams, ErrorObject, FromValue, Implementation, Message, Notification,
    ProgressToken, Request, RequestId, Response, Revision, meta,
};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::error::ServerError;
use crate::framing::{LineEvent, read_lines};
use crate::lifecycle::{Era, Lifecycle, Phase};
use crate::outbox::{Outbox, write_loop};
use crate::progress::ProgressReporter;
use crate::source::{CallContext, Composition};

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
    /// streams and answered with -32600 and id null (mcp-proto framing).
    pub max_line_bytes: usize,
}

impl ServerConfig {
    /// The defaults for `hanzo-mcp`: our package name and version, no
    /// instructions, no list changes, 10 s grace, 8 MiB lines.
    pub fn new(info: Implementation) -> Self {
        Self {
            info,
            instructions: None,
            list_changed: false,
            shutdown_grace: Duration::from_secs(10),
            max_line_bytes: mcp_proto::framing::DEFAULT_MAX_LINE_LEN,
        }
    }
}

/// An MCP server: tool sources plus settings. One server can serve any
/// number of connections ([`Server::serve`]).
#[derive(Debug)]
pub struct Server {
    composition: Composition,
    config: ServerConfig,
}

/// A call in flight: how to stop its task, and the token its work watches.
struct Running {
    task: AbortHandle,
    cancel: CancellationToken,
}

type InFlight = Arc<Mutex<HashMap<RequestId, Running>>>;

impl Server {
    /// A server over `composition`.
    pub fn new(composition: Composition, config: ServerConfig) -> Self {
        Self {
            composition,
            config,
        }
    }

    /// The tool sources.
    pub fn composition(&self) -> &Composition {
        &self.composition
    }

    /// The capabilities we advertise: `tools` only (that is all we
    /// implement), with `listChanged` in the handshake era when a source's
    /// list can change. The stateless era has no `subscriptions/listen` here,
    /// so it never advertises `listChanged`.
    pub fn capabilities(&self, era: Era) -> Value {
        if self.config.list_changed && !era.is_stateless() {
            json!({ "tools": { "listChanged": true } })
        } else {
            json!({ "tools": {} })
        }
    }

    /// Serves one connection: reads messages from `input`, writes messages to
    /// `output`, until `input` ends or `shutdown` completes; then lets calls
    /// in flight finish (bounded by [`ServerConfig::shutdown_grace`]) and
    /// flushes. Returns an error only when reading or writing fails.
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
        let (outbox, out_rx) = Outbox::channel();
        let writer = tokio::spawn(write_loop(output, out_rx));
        let (line_tx, mut lines) = mpsc::channel(16);
        let reader = tokio::spawn(read_lines(input, self.config.max_line_bytes, line_tx));

        let (changed_tx, mut changed) = mpsc::unbounded_channel::<()>();
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
        drop(changed_tx);

        let mut conn = Connection {
            server: self.clone(),
            lifecycle: Lifecycle::new(),
            outbox,
            inflight: Arc::default(),
            tasks: JoinSet::new(),
        };

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
                line = lines.recv() => match line {
                    Some(LineEvent::Line(bytes)) => conn.on_line(&bytes),
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
        reader.abort();
        for watcher in watchers {
            watcher.abort();
        }
        conn.drain(self.config.shutdown_grace).await;
        drop(conn);
        let written = writer.await;
        if let Some(error) = read_error {
            return Err(ServerError::Read(error));
        }
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(ServerError::Write(error)),
            Err(join) => Err(ServerError::Write(std::io::Error::other(join.to_string()))),
        }
    }
}

/// The state of one connection, owned by its loop.
struct Connection {
    server: Arc<Server>,
    lifecycle: Lifecycle,
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
            Err(bad) => self.send_error(bad.id, bad.error),
            Ok(Message::Request(request)) => self.on_request(request),
            Ok(Message::Notification(notification)) => self.on_notification(notification),
            Ok(Message::Response(_)) => {
                // We send no requests, so no response can be ours.
                tracing::debug!("ignoring a response from the client");
            }
        }
    }

    fn on_notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            "notifications/initialized" => self.lifecycle.initialized(),
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
                return self.spawn_checked(id, &method, params, Self::call_tool);
            }
            other => Err(ErrorObject::method_not_found(other)),
        };
        match outcome {
            Ok(result) => self.send_result(id, result),
            Err(error) => self.send_error(Some(id), error),
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
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
        let revision = self.lifecycle.initialize(&requested)?;
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
        let cancel = CancellationToken::new();
        let prepared = self
            .lifecycle
            .era_for(method, params.as_ref())
            .and_then(|era| make(self, era, params, cancel.clone()));
        match prepared {
            Ok(work) => self.spawn(id, work, cancel),
            Err(error) => self.send_error(Some(id), error),
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
                if let Some(cursor) = map.get("cursor") {
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
        let progress = params
            .get("_meta")
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .and_then(|t| serde_json::from_value::<ProgressToken>(t.clone()).ok())
            .map(|token| ProgressReporter::new(token, self.outbox.clone()));
        let params = CallToolRequestParams::from_value(params)
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call: {e}")))?;
        let server = self.server.clone();
        Ok(Box::pin(async move {
            let result = server
                .composition
                .call_tool(params, CallContext { progress, cancel })
                .await?;
            Ok(Reply::Value(finish(era, result)))
        }))
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
            let outcome = work.await;
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

/// The revisions this server implements, newest first, as `--version` and
/// the README list them.
pub fn implemented_revisions() -> Vec<&'static str> {
    let mut all: Vec<&'static str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
    all.reverse();
    all
}
