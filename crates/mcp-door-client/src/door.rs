//! The door handle: the cached list, background refresh, forwarded calls,
//! and the failure rules of HIP-0300 §2.2.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_proto::{
    CallToolRequestParams, CallToolResult, ErrorObject, FromValue, InputRequiredResult,
    validate_tool_name,
};
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, watch};

use crate::config::DoorClientConfig;
use crate::error::DoorClientError;
use crate::list::{DoorList, fetch_list, shorten};
use crate::raw::{Object, Parsed};
use crate::transport::{CallParams, Transport};

/// Where the door's list stands.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DoorStatus {
    /// No fetch has finished yet.
    Pending,
    /// The last fetch succeeded; the snapshot holds its list.
    Ready,
    /// The last fetch failed (down, hang, timeout, 5xx, HTML, garbage,
    /// redirect trouble); tools/list is local-only. Carries the one-line reason.
    Unavailable {
        /// What went wrong, one line, e.g. `answered HTTP 502`.
        reason: String,
    },
    /// The door answered 401 to tools/list; tools/list is local-only.
    SignInRequired {
        /// The resource metadata URL (RFC 9728).
        resource_metadata: String,
    },
}

/// What the server sees of the door at one moment; cheap to clone.
#[derive(Debug, Clone, PartialEq)]
pub struct DoorSnapshot {
    /// Counts the changes of `list` (0 before the first list arrives; bumped
    /// only when the tools or `_meta` differ from the previous snapshot's, or
    /// the list appears or disappears).
    pub generation: u64,
    /// Where the list stands.
    pub status: DoorStatus,
    /// The door's tools to merge, or `None` for a local-only list.
    pub list: Option<Arc<DoorList>>,
}

struct Inner {
    address: String,
    config: DoorClientConfig,
    transport: Transport,
    state: watch::Sender<DoorSnapshot>,
    /// The snapshot's generation alone, for servers that only need to know
    /// that the list changed.
    generations: watch::Sender<u64>,
    /// Held by the one fetch in flight (HIP-0300 §2.2: one fetch at a time).
    fetch_lock: Arc<tokio::sync::Mutex<()>>,
    /// When the current list (or failure) stops being fresh.
    expires: Mutex<Option<Instant>>,
    /// Its outages' stderr lines.
    outage: OutageLog,
    /// Fetches finished so far.
    fetches: AtomicU64,
    runtime: Mutex<Option<tokio::runtime::Handle>>,
}

/// A handle on one door: cached `tools/list`, forwarded `tools/call`.
/// Clones share the cache. Creating one touches no network and runs nothing.
///
/// Typical server use (HIP-0300 §2.2):
/// 1. [`DoorClient::new`] then [`DoorClient::start`] at start-up (in the runtime);
/// 2. for `tools/list`: [`DoorClient::list_within`] with the wait budget (it
///    waits only while the first fetch is unfinished, then serves the cache
///    and refreshes a stale list in the background), and [`crate::merge`]
///    with the local tools;
/// 3. [`DoorClient::generations`] (or [`DoorClient::subscribe`] for whole snapshots)
///    and send `notifications/tools/list_changed` when it changes;
/// 4. for `tools/call` of a name no local tool has and [`DoorClient::owns`]:
///    [`DoorClient::call_tool_raw`] with the caller's params text, whose result
///    text goes back to the caller as it is (HIP-0300 §2.2: verbatim).
#[derive(Clone)]
pub struct DoorClient {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for DoorClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DoorClient")
            .field("address", &self.inner.address)
            .finish_non_exhaustive()
    }
}

impl DoorClient {
    /// A door handle for `config`.
    ///
    /// Errors: [`DoorClientError::InvalidAddress`] when the address is not an
    /// absolute http(s) URL; [`DoorClientError::Proxy`] when a proxy variable
    /// of the environment would be passed by; [`DoorClientError::Client`]
    /// when no HTTP client can be built.
    pub fn new(config: DoorClientConfig) -> Result<DoorClient, DoorClientError> {
        DoorClient::with_outage_log(config, OutageLog::new())
    }

    /// As [`DoorClient::new`], reporting outages through `outage`, which the
    /// caller may have used before the handle existed (a server that
    /// probes the door's address at start): an outage it reported is not
    /// reported again, and the door's next answer ends it.
    ///
    /// Errors: as [`DoorClient::new`].
    pub fn with_outage_log(
        config: DoorClientConfig,
        outage: OutageLog,
    ) -> Result<DoorClient, DoorClientError> {
        let transport = Transport::new(&config)?;
        let (state, _) = watch::channel(DoorSnapshot {
            generation: 0,
            status: DoorStatus::Pending,
            list: None,
        });
        Ok(DoorClient {
            inner: Arc::new(Inner {
                address: transport.address().to_string(),
                config,
                transport,
                state,
                generations: watch::channel(0).0,
                fetch_lock: Arc::new(tokio::sync::Mutex::new(())),
                expires: Mutex::new(None),
                outage,
                fetches: AtomicU64::new(0),
                runtime: Mutex::new(tokio::runtime::Handle::try_current().ok()),
            }),
        })
    }

    /// The door's URL.
    pub fn address(&self) -> &str {
        &self.inner.address
    }

    /// The configuration the handle was built with.
    pub fn config(&self) -> &DoorClientConfig {
        &self.inner.config
    }

    /// Starts fetching the list in the background. Call it inside a Tokio
    /// runtime (the runtime is kept for later background refreshes).
    /// Returns at once.
    pub fn start(&self) {
        if let Ok(handle) = tokio::runtime::Handle::try_current() {
            *lock(&self.inner.runtime) = Some(handle);
        }
        self.refresh();
    }

    /// Starts a background fetch unless one is in flight. Returns whether
    /// it started one (`false` also when called outside a Tokio runtime on a
    /// handle that was built and started outside one).
    pub fn refresh(&self) -> bool {
        let known = lock(&self.inner.runtime).clone();
        let Some(runtime) = known.or_else(|| tokio::runtime::Handle::try_current().ok()) else {
            return false;
        };
        let Ok(guard) = Arc::clone(&self.inner.fetch_lock).try_lock_owned() else {
            return false;
        };
        let door = self.clone();
        runtime.spawn(async move {
            door.fetch_locked().await;
            drop(guard);
        });
        true
    }

    /// Fetches the list now and returns the new snapshot. When a fetch is
    /// already in flight, waits for it instead of starting a second one.
    pub async fn fetch_now(&self) -> DoorSnapshot {
        let seen = self.inner.fetches.load(Ordering::SeqCst);
        let _guard = self.inner.fetch_lock.lock().await;
        if self.inner.fetches.load(Ordering::SeqCst) == seen {
            self.fetch_locked().await;
        }
        self.inner.state.borrow().clone()
    }

    /// The current snapshot; starts a background refresh when the list (or
    /// the last failure) is stale. Never waits.
    pub fn snapshot(&self) -> DoorSnapshot {
        let stale = lock(&self.inner.expires).is_some_and(|at| Instant::now() >= at);
        if stale {
            self.refresh();
        }
        self.inner.state.borrow().clone()
    }

    /// Waits until the first fetch has finished (list or failure), at most
    /// `timeout`, and returns the snapshot then (status
    /// [`DoorStatus::Pending`] when the time ran out).
    pub async fn wait_first(&self, timeout: Duration) -> DoorSnapshot {
        let mut receiver = self.inner.state.subscribe();
        let waited = tokio::time::timeout(
            timeout,
            receiver.wait_for(|s| s.status != DoorStatus::Pending),
        )
        .await;
        match waited {
            Ok(Ok(snapshot)) => snapshot.clone(),
            _ => self.inner.state.borrow().clone(),
        }
    }

    /// The list to answer a `tools/list` with now: while the first fetch has
    /// not finished, starts it if needed and waits for it at most `wait`
    /// (the server's `--door-wait`, HIP-0300 §2.2); afterwards, the cached
    /// snapshot at once ([`DoorClient::snapshot`], which refreshes a stale list in
    /// the background). `list: None` means answer local-only.
    pub async fn list_within(&self, wait: Duration) -> DoorSnapshot {
        if self.inner.state.borrow().status != DoorStatus::Pending {
            return self.snapshot();
        }
        self.refresh();
        self.wait_first(wait).await
    }

    /// A receiver of the list's generation: it changes exactly when a new
    /// list replaces a different one (or the list appears or goes away), so
    /// a server sends one `notifications/tools/list_changed` per change.
    pub fn generations(&self) -> watch::Receiver<u64> {
        self.inner.generations.subscribe()
    }

    /// A receiver that wakes whenever the snapshot's list changes (its
    /// `generation` grows) and when the first fetch finishes. The server
    /// sends `notifications/tools/list_changed` on a generation it has not
    /// announced yet.
    pub fn subscribe(&self) -> watch::Receiver<DoorSnapshot> {
        self.inner.state.subscribe()
    }

    /// Whether a call to `name` goes to this door: an ungated door owns
    /// every name that is not a local tool (it accepts op names it did not
    /// list), so the answer is "the name follows the MCP tool-name rule".
    /// Ask only after the local tools said no (docs/ARCHITECTURE.md, "Gating").
    pub fn owns(&self, name: &str) -> bool {
        validate_tool_name(name).is_ok()
    }

    /// Forwards a call given as typed params and answers with a typed
    /// outcome: the tool's [`CallToolResult`], or, when the server needs
    /// something first (MCP 2026-07-28 `resultType: "input_required"`),
    /// its [`InputRequiredResult`]. Failures are as for
    /// [`DoorClient::call_tool`]: an `isError` result naming the door and
    /// what went wrong, or the door's JSON-RPC error.
    ///
    /// # Errors
    /// The door's JSON-RPC error; -32602 when `params` cannot be written
    /// as JSON; -32603 when the door's result has the right top-level
    /// shape but a member of the wrong type (the message names it).
    pub async fn call(
        &self,
        params: &CallToolRequestParams,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Result<CallOutcome, ErrorObject> {
        let Value::Object(params) = serde_json::to_value(params)
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call params: {e}")))?
        else {
            return Err(not_an_object());
        };
        let result = self.call_tool(params, progress).await?;
        let decoded = if result.get("resultType").and_then(Value::as_str) == Some(INPUT_REQUIRED) {
            InputRequiredResult::from_value(result).map(CallOutcome::InputRequired)
        } else {
            CallToolResult::from_value(result).map(CallOutcome::Complete)
        };
        decoded.map_err(|e| {
            ErrorObject::internal_error(format!(
                "{} {}: answered a tools/call result that does not decode: {}",
                self.inner.config.wording.name,
                self.inner.address,
                e.at_key("result")
            ))
        })
    }

    /// Forwards a `tools/call` (HIP-0300 §2.2): [`DoorClient::call_tool_raw`]
    /// with `params` written as JSON text, and the answer decoded.
    ///
    /// Returns what [`DoorClient::call_tool_raw`] returns, as a [`Value`]. The
    /// decoding loses what a `Value` cannot hold (number spellings, member
    /// order, lone surrogate escapes): a server that forwards a caller's
    /// call uses [`DoorClient::call_tool_raw`]. A door result that is valid JSON
    /// but cannot be decoded (a lone surrogate escape, a number beyond
    /// `f64`) is a failure like an answer that is not JSON:
    /// `hanzo door <address>: answered a body that is not a JSON-RPC
    /// response: not JSON`.
    pub async fn call_tool(
        &self,
        params: Map<String, Value>,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Result<Value, ErrorObject> {
        let written = serde_json::value::to_raw_value(&params)
            .map_err(|e| ErrorObject::invalid_params(format!("tools/call params: {e}")))?;
        let Some(call) = self.inner.transport.read_call(&written) else {
            return Err(not_an_object());
        };
        match self.forward(&call, progress).await {
            Forwarded::Door(result) => match serde_json::from_str(result.get()) {
                Ok(result) => Ok(result),
                Err(_) => {
                    let error = DoorClientError::Garbage("not JSON".into());
                    self.door_failed(&error);
                    Ok(error_result(
                        &self.failed_call_text(call.name.as_deref(), &error),
                    ))
                }
            },
            Forwarded::Local(result) => Ok(result),
            Forwarded::Rpc(error) => Err(error),
        }
    }

    /// Forwards a caller's `tools/call` verbatim (HIP-0300 §2.2).
    ///
    /// `params` is the caller's params object as the caller wrote it (JSON
    /// text, which may hold anything JSON allows, lone surrogate escapes
    /// such as `"\ud800"` included). The door receives the body
    /// `{"jsonrpc":"2.0","id":<n>,"method":"tools/call","params":<params>}`
    /// where `<params>` is that text byte for byte, except that the `_meta`
    /// keys revision 2026-07-28 requires
    /// (`io.modelcontextprotocol/protocolVersion` `"2026-07-28"`,
    /// `io.modelcontextprotocol/clientCapabilities` `{}`,
    /// `io.modelcontextprotocol/clientInfo` from
    /// [`DoorClientConfig::client_info`]) are added when missing: appended to the
    /// caller's `_meta` object after its last member, or as a `_meta`
    /// member after the params' last member when there is none, or, when
    /// `_meta` is not an object, in an object that replaces it. The
    /// headers are those of every request plus `Mcp-Name` (`name`) and the
    /// `Mcp-Param-*` headers of the tool's `x-mcp-header` annotations;
    /// only `name`, `_meta` and the annotated arguments are read. A -32022
    /// answer that offers 2026-07-28 is retried once with only the
    /// protocol version's value changed. Progress notifications the door
    /// streams (SSE) go to `progress` as their `params`, when given.
    ///
    /// Returns `Ok(result)`: the door's `result` member as the exact JSON
    /// text the door sent (an `application/json` body or the SSE event
    /// answering the request), when it is an object whose `content`, if
    /// present, is an array (`isError`, any `resultType` and unknown
    /// members included); otherwise a result the client writes itself,
    /// `{"content":[{"type":"text","text":…}],"isError":true}` with one
    /// line: `hanzo door <address>: answered a tools/call result that is
    /// not an object` (or `… whose content is not an array`); when the
    /// door could not be used, `hanzo door <address>: <reason>` for a tool
    /// of the door's cached list, and for any other name (call only after
    /// the local tools said no) `tool '<name>' is not a local tool, and the
    /// door (<address>) could not be reached: <reason>` (`failed:
    /// <reason>` when the door did answer, e.g. `answered HTTP 502`); on a
    /// 401, a line that says to run `hanzo auth login` or set
    /// `HANZO_API_KEY` and names the resource metadata URL.
    ///
    /// Errors: the door's JSON-RPC error, unchanged; -32602 (invalid
    /// params) without contacting the door when `params` is not a JSON
    /// object.
    pub async fn call_tool_raw(
        &self,
        params: &RawValue,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Result<Box<RawValue>, ErrorObject> {
        let Some(call) = self.inner.transport.read_call(params) else {
            return Err(not_an_object());
        };
        match self.forward(&call, progress).await {
            Forwarded::Door(result) => Ok(result),
            Forwarded::Local(result) => serde_json::value::to_raw_value(&result)
                .map_err(|e| ErrorObject::internal_error(format!("tools/call result: {e}"))),
            Forwarded::Rpc(error) => Err(error),
        }
    }

    /// Sends one call within the call time limit and sorts out the answer:
    /// the door's result when it has the shape of a `CallToolResult`, the
    /// door's JSON-RPC error, or an `isError` result naming the door and
    /// what went wrong (see [`DoorClient::call_tool_raw`]). Notes the door
    /// answering or failing for the outage log.
    async fn forward(
        &self,
        call: &CallParams<'_>,
        progress: Option<mpsc::UnboundedSender<Value>>,
    ) -> Forwarded {
        let limit = self.inner.config.timeouts.call;
        let sent = tokio::time::timeout(limit, self.inner.transport.call(call, progress.as_ref()))
            .await
            .unwrap_or(Err(DoorClientError::Timeout(limit)));
        match sent {
            Ok(Ok(result)) => {
                self.door_answered();
                match call_result_problem(&result) {
                    None => Forwarded::Door(result),
                    Some(problem) => Forwarded::Local(error_result(&format!(
                        "{} {}: {problem}",
                        self.inner.config.wording.name, self.inner.address
                    ))),
                }
            }
            Ok(Err(error)) => {
                self.door_answered();
                Forwarded::Rpc(error)
            }
            Err(DoorClientError::Unauthorized { resource_metadata }) => {
                self.door_answered();
                Forwarded::Local(error_result(&sign_in_text(
                    &self.inner.config.wording,
                    &self.inner.address,
                    &resource_metadata,
                )))
            }
            Err(error) => {
                self.door_failed(&error);
                Forwarded::Local(error_result(
                    &self.failed_call_text(call.name.as_deref(), &error),
                ))
            }
        }
    }

    /// The one line of a forwarded call the door could not answer. A name
    /// the door's cached list does not hold may be a typo of a local tool,
    /// so the text names the tool and says it is not local (the caller
    /// asked the local tools first); a listed tool gets `hanzo door
    /// <address>: <reason>`.
    fn failed_call_text(&self, tool: Option<&str>, error: &DoorClientError) -> String {
        let address = &self.inner.address;
        let reason = one_line(&error.to_string());
        let listed = |name: &str| {
            self.inner
                .state
                .borrow()
                .list
                .as_ref()
                .is_some_and(|list| list.tools.iter().any(|t| t.name == name))
        };
        match tool {
            Some(name) if !listed(name) => {
                let (outcome, reason) = match error {
                    DoorClientError::Connect(cause) => ("could not be reached", one_line(cause)),
                    DoorClientError::Timeout(_) | DoorClientError::Http(_) => {
                        ("could not be reached", reason)
                    }
                    _ => ("failed", reason),
                };
                format!(
                    "tool '{}' is not a local tool, and the door ({address}) {outcome}: {reason}",
                    quoted_name(name)
                )
            }
            _ => format!("{} {address}: {reason}", self.inner.config.wording.name),
        }
    }

    /// One fetch; the caller holds the fetch lock.
    async fn fetch_locked(&self) {
        let inner = &self.inner;
        let limit = inner.config.timeouts.list;
        let fetched = tokio::time::timeout(
            limit,
            fetch_list(
                &inner.transport,
                inner.config.max_pages,
                &inner.config.cache,
            ),
        )
        .await
        .unwrap_or(Err(DoorClientError::Timeout(limit)));
        let (status, list, fresh_for) = match fetched {
            Ok(list) => {
                self.door_answered();
                self.warn_dropped(&list);
                let ttl = list.ttl;
                (DoorStatus::Ready, Some(Arc::new(list)), ttl)
            }
            Err(DoorClientError::Unauthorized { resource_metadata }) => {
                self.door_failed(&DoorClientError::Unauthorized {
                    resource_metadata: resource_metadata.clone(),
                });
                (
                    DoorStatus::SignInRequired { resource_metadata },
                    None,
                    inner.config.cache.retry_after,
                )
            }
            Err(error) => {
                self.door_failed(&error);
                (
                    DoorStatus::Unavailable {
                        reason: one_line(&error.to_string()),
                    },
                    None,
                    inner.config.cache.retry_after,
                )
            }
        };
        *lock(&inner.expires) = Some(Instant::now() + fresh_for);
        let mut generation = None;
        inner.state.send_if_modified(|snapshot| {
            let list_changed = match (&snapshot.list, &list) {
                (None, None) => false,
                (Some(old), Some(new)) => old.tools != new.tools || old.meta != new.meta,
                _ => true,
            };
            let status_changed = snapshot.status != status;
            if list_changed {
                snapshot.generation += 1;
                generation = Some(snapshot.generation);
            }
            snapshot.list = list;
            snapshot.status = status;
            list_changed || status_changed
        });
        inner.fetches.fetch_add(1, Ordering::SeqCst);
        if let Some(generation) = generation {
            inner.generations.send_replace(generation);
        }
    }

    /// One warning for the dropped tools of a list, each with its reason,
    /// unless the previous list dropped the very same tools for the same
    /// reasons (no warning every refresh).
    fn warn_dropped(&self, list: &DoorList) {
        let previous = self.inner.state.borrow().list.clone();
        let same = previous.is_some_and(|old| old.dropped == list.dropped);
        if list.dropped.is_empty() || same {
            return;
        }
        let dropped: Vec<String> = list
            .dropped
            .iter()
            .map(|tool| format!("{} ({})", shorten(&tool.name), tool.reason))
            .collect();
        tracing::warn!(
            door = %self.inner.address,
            "the door listed {} tool(s) that break the MCP tool rules; dropped: {}",
            list.dropped.len(),
            dropped.join(", ")
        );
    }

    fn door_answered(&self) {
        self.inner.outage.answered(&self.inner.address);
    }

    /// Logs one line per outage: the first failure after a success.
    fn door_failed(&self, error: &DoorClientError) {
        self.inner
            .outage
            .failed(&self.inner.address, &one_line(&error.to_string()));
    }
}

/// The stderr lines of a door's outages (HIP-0300 §2.2: a door that does
/// not answer costs one line): one `warn` line when an outage starts,
/// naming the door and why, and one `info` line when the door answers
/// again. Clones share the state, so a server that checks the door's
/// address before it builds the [`DoorClient`] (a TCP connect at start, say)
/// and the door's own requests report one outage once, whoever notices
/// it first ([`DoorClient::with_outage_log`]).
#[derive(Debug, Clone, Default)]
pub struct OutageLog {
    down: Arc<AtomicBool>,
}

impl OutageLog {
    /// A log with no outage in progress.
    pub fn new() -> OutageLog {
        OutageLog::default()
    }

    /// The door at `address` did not answer, because of `why` (one short
    /// line): writes the outage line unless this outage was reported
    /// already. Returns whether it wrote.
    pub fn failed(&self, address: &str, why: &str) -> bool {
        let first = !self.down.swap(true, Ordering::SeqCst);
        if first {
            tracing::warn!(
                door = %address,
                "door unavailable ({why}); serving local tools only until it answers"
            );
        }
        first
    }

    /// The door at `address` answered: writes the recovery line when an
    /// outage was in progress. Returns whether it wrote.
    pub fn answered(&self, address: &str) -> bool {
        let recovered = self.down.swap(false, Ordering::SeqCst);
        if recovered {
            tracing::info!(door = %address, "the door answers again");
        }
        recovered
    }

    /// Takes the report of an outage that the caller says in a line of its
    /// own (a start-up line that says the door is unreachable): `true`
    /// when no line reported this outage yet, and from then on later
    /// failures are not reported again and the next answer ends it;
    /// `false` when it was reported already.
    pub fn take_report(&self) -> bool {
        !self.down.swap(true, Ordering::SeqCst)
    }

    /// Whether an outage is in progress (reported, not yet ended).
    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::SeqCst)
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What a forwarded call came to.
enum Forwarded {
    /// The door's result, as the door wrote it.
    Door(Box<RawValue>),
    /// A result the client wrote (`isError`: the door failed, needs a
    /// sign-in, or answered a result of the wrong shape).
    Local(Value),
    /// The door's JSON-RPC error.
    Rpc(ErrorObject),
}

/// The `resultType` of a call that needs input before it completes (MCP
/// 2026-07-28).
const INPUT_REQUIRED: &str = "input_required";

/// A `tools/call` answered: completed, or waiting for input (MCP
/// 2026-07-28 `CallToolResult` and `InputRequiredResult`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum CallOutcome {
    /// The tool's result (`isError` set when the tool, or the door, failed).
    Complete(CallToolResult),
    /// What the server needs before the call can complete.
    InputRequired(InputRequiredResult),
}

/// What is wrong with a door's `tools/call` result, `None` when it is a
/// JSON object (any `resultType`, e.g. `input_required`, MCP 2026-07-28
/// SEP-2322) whose `content`, when present, is an array: the MCP client
/// expects a `CallToolResult`. Only the top level is read.
fn call_result_problem(result: &RawValue) -> Option<&'static str> {
    match Object::parse(result.get()) {
        Ok(Parsed::Object(members)) => match members.get("content") {
            Some(content) if !content.get().starts_with('[') => {
                Some("answered a tools/call result whose content is not an array")
            }
            _ => None,
        },
        _ => Some("answered a tools/call result that is not an object"),
    }
}

/// The error for `tools/call` params that are not a JSON object.
fn not_an_object() -> ErrorObject {
    ErrorObject::invalid_params("tools/call params must be a JSON object")
}

/// The text of the 401 result (HIP-0300 §2.2).
fn sign_in_text(wording: &crate::Wording, address: &str, resource_metadata: &str) -> String {
    format!(
        "{} {address}: sign-in required; {} and try again (resource metadata: \
         {resource_metadata})",
        wording.name, wording.sign_in
    )
}

/// A tool result with `isError: true` and one text block (MCP tools).
fn error_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A tool name as it goes between single quotes in a result: at most 128
/// characters (the MCP name limit), quotes, backslashes, control and
/// non-ASCII characters escaped.
fn quoted_name(name: &str) -> String {
    let short: String = name
        .chars()
        .take(128)
        .flat_map(char::escape_default)
        .collect();
    if name.chars().count() > 128 {
        short + "…"
    } else {
        short
    }
}

/// At most 300 characters, no line breaks.
fn one_line(text: &str) -> String {
    let flat = text.replace(['\n', '\r'], " ");
    if flat.chars().count() <= 300 {
        return flat;
    }
    let mut short: String = flat.chars().take(299).collect();
    short.push('…');
    short
}
