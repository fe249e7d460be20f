//! Requests from the server to the client: sampling, elicitation, roots
//! (MCP 2025-11-25 client/sampling, client/elicitation, client/roots).
//!
//! A connection has one request table; each call gets a [`Peer`] handle on
//! it through [`CallContext::client`](crate::CallContext::client). A
//! request gets an id minted by the server (`"s-<n>"`), goes out through
//! the connection's outbox (over streamable HTTP, on the SSE stream of the
//! POST being handled), and waits for the client's response, which the
//! connection routes back by id. The wait is bounded: by a timeout
//! ([`ServerConfig::client_request_timeout`](crate::ServerConfig::client_request_timeout)
//! unless given), and by the call's cancellation; either way the client is
//! told with `notifications/cancelled` (MCP 2025-11-25
//! basic/utilities/cancellation, basic/lifecycle timeouts).
//!
//! The client's JSON-RPC error to one of these requests is never passed on
//! as is: a tool that answered with it (`?`) would claim the client's code
//! (say -32601) for its own `tools/call`. It comes back as -32603 with the
//! client's error object in `data.clientError` (see [`client_error`]). A
//! response the client got wrong (both `result` and `error`, a bad error
//! object) fails its request at once with -32603 "the client's response
//! to `<method>` was malformed: `<why>`", and is never answered (JSON-RPC 2.0
//! §5).
//!
//! Revision 2026-07-28 has no server-to-client requests (a server that needs
//! input answers with an `input_required` result instead), so its calls get
//! no [`Peer`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use mcp_proto::{
    ErrorObject, Message, Notification, Request, RequestId, Response, ResponsePayload, error_code,
};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::outbox::Outbox;

/// The error code of a request to the client that got no response within
/// its timeout (mcp-proto's named code).
pub use mcp_proto::error_code::REQUEST_TIMEOUT;

type Waiter = oneshot::Sender<Result<Value, ErrorObject>>;

/// A request sent to the client: its method (for error messages) and who
/// waits for the answer.
#[derive(Debug)]
struct Waiting {
    method: String,
    waiter: Waiter,
}

/// A connection's table of requests sent to the client and not yet
/// answered, plus what the client declared in `initialize`.
#[derive(Debug)]
pub(crate) struct PeerShared {
    outbox: Outbox,
    pending: Mutex<HashMap<RequestId, Waiting>>,
    next_id: AtomicU64,
    capabilities: OnceLock<Value>,
    timeout: Duration,
}

impl PeerShared {
    pub(crate) fn new(outbox: Outbox, timeout: Duration) -> Arc<Self> {
        Arc::new(Self {
            outbox,
            pending: Mutex::default(),
            next_id: AtomicU64::new(1),
            capabilities: OnceLock::new(),
            timeout,
        })
    }

    /// Records the client's `initialize` capabilities (first call wins).
    pub(crate) fn set_capabilities(&self, capabilities: Value) {
        let _ = self.capabilities.set(capabilities);
    }

    /// The client's declared capabilities, once `initialize` was answered.
    pub(crate) fn capabilities(&self) -> Option<&Value> {
        self.capabilities.get()
    }

    /// Hands a client response to the request waiting for it. Returns
    /// `false` when no request of ours has that id (unknown, timed out or
    /// cancelled).
    pub(crate) fn deliver(&self, response: Response) -> bool {
        let Some(id) = response.id else {
            return false;
        };
        let waiter = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        match waiter {
            Some(Waiting { method, waiter }) => {
                let outcome = match response.payload {
                    ResponsePayload::Result(value) => Ok(value),
                    ResponsePayload::Error(error) => Err(client_error(&method, error)),
                };
                let _ = waiter.send(outcome);
                true
            }
            None => false,
        }
    }

    /// Fails the request `id` at once because the client's response to it
    /// could not be read (`detail` says why): -32603 "the client's response
    /// to `<method>` was malformed: `<detail>`". Returns `false` when no request
    /// of ours has that id.
    pub(crate) fn fail_malformed(&self, id: &RequestId, detail: &str) -> bool {
        let waiting = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        match waiting {
            Some(Waiting { method, waiter }) => {
                let _ = waiter.send(Err(ErrorObject::internal_error(format!(
                    "the client's response to {method} was malformed: {detail}"
                ))));
                true
            }
            None => false,
        }
    }

    /// A handle for one call: its messages are related to request
    /// `related`, and its requests stop when `cancel` fires.
    pub(crate) fn handle(
        self: &Arc<Self>,
        related: Option<RequestId>,
        cancel: CancellationToken,
    ) -> Peer {
        let outbox = match related {
            Some(id) => self.outbox.related_to(id),
            None => self.outbox.clone(),
        };
        Peer {
            shared: self.clone(),
            outbox,
            cancel,
        }
    }
}

/// Sends requests to the client of one connection, on behalf of one call.
/// Cloning is cheap.
#[derive(Debug, Clone)]
pub struct Peer {
    shared: Arc<PeerShared>,
    outbox: Outbox,
    cancel: CancellationToken,
}

/// Removes a pending request when its wait ends for any reason, and tells
/// the client with `notifications/cancelled` unless a response arrived.
struct Pending<'a> {
    peer: &'a Peer,
    id: RequestId,
    answered: bool,
    reason: &'static str,
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let removed = self
            .peer
            .shared
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.id)
            .is_some();
        if removed {
            self.peer.outbox.send(&Message::Notification(Notification {
                method: mcp_proto::methods::Cancelled::NAME.into(),
                params: Some(json!({ "requestId": self.id, "reason": self.reason })),
            }));
        }
    }
}

impl Peer {
    /// The capabilities the client declared in `initialize`; `None` before
    /// the handshake.
    pub fn capabilities(&self) -> Option<&Value> {
        self.shared.capabilities()
    }

    /// Whether the client declared capability `name` (`sampling`,
    /// `elicitation`, `roots`).
    pub fn declares(&self, name: &str) -> bool {
        self.capabilities()
            .and_then(|c| c.get(name))
            .is_some_and(|v| !v.is_null())
    }

    /// Sends request `method` with `params` and waits for the client's
    /// answer, at most the connection's default timeout. See
    /// [`request_with_timeout`](Self::request_with_timeout).
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, ErrorObject> {
        self.request_with_timeout(method, params, self.shared.timeout)
            .await
    }

    /// Sends request `method` with `params` and waits for the client's
    /// result, at most `timeout`.
    ///
    /// Errors: -32021 (missing client capability, `data.requiredCapabilities`)
    /// when `method` needs a capability the client did not declare
    /// (`sampling/createMessage` → `sampling`, `elicitation/create` →
    /// `elicitation`, `roots/list` → `roots`), checked before anything is
    /// sent; -32603 with the client's error object in `data.clientError`
    /// when the client answered with an error (see [`client_error`]), or
    /// when its response was malformed; [`REQUEST_TIMEOUT`]
    /// after `timeout`; -32800 when the call was cancelled; -32603 when the
    /// connection ended first. On timeout and cancellation the client gets
    /// `notifications/cancelled` for the request.
    pub async fn request_with_timeout(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ErrorObject> {
        if let Some(capability) = required_capability(method)
            && !self.declares(capability)
        {
            return Err(ErrorObject::new(
                error_code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                format!(
                    "the client did not declare the `{capability}` capability that {method} needs"
                ),
            )
            .with_data(json!({ "requiredCapabilities": { capability: {} } })));
        }
        let n = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("s-{n}"));
        let (tx, rx) = oneshot::channel();
        self.shared
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                id.clone(),
                Waiting {
                    method: method.to_owned(),
                    waiter: tx,
                },
            );
        let mut pending = Pending {
            peer: self,
            id: id.clone(),
            answered: false,
            reason: "the server stopped waiting",
        };
        let request = Message::Request(Request::new(id, method, Some(params)));
        if !self.outbox.send(&request) {
            pending.answered = true;
            return Err(connection_ended());
        }
        tokio::select! {
            outcome = rx => {
                pending.answered = true;
                outcome.unwrap_or_else(|_| Err(connection_ended()))
            }
            () = tokio::time::sleep(timeout) => {
                pending.reason = "timed out";
                Err(ErrorObject::new(
                    REQUEST_TIMEOUT,
                    format!("the client did not answer {method} within {} ms", timeout.as_millis()),
                ))
            }
            () = self.cancel.cancelled() => {
                pending.reason = "the request that needed it was cancelled";
                Err(ErrorObject::new(-32800, format!("{method} cancelled: the call was cancelled")))
            }
        }
    }
}

/// The typed requests (`create_message`, `elicit`, `list_roots`) are
/// `mcp_sources::ClientRequests`' own, on `dyn ClientRequests`: a call's
/// [`CallContext::client`](crate::CallContext::client) gives one.
impl mcp_sources::ClientRequests for Peer {
    fn capabilities(&self) -> Option<&Value> {
        Peer::capabilities(self)
    }

    fn request<'a>(
        &'a self,
        method: &'a str,
        params: Value,
    ) -> mcp_sources::BoxFuture<'a, Result<Value, ErrorObject>> {
        Box::pin(Peer::request(self, method, params))
    }

    fn request_with_timeout<'a>(
        &'a self,
        method: &'a str,
        params: Value,
        timeout: Duration,
    ) -> mcp_sources::BoxFuture<'a, Result<Value, ErrorObject>> {
        Box::pin(Peer::request_with_timeout(self, method, params, timeout))
    }
}

/// The client capability a server-to-client request needs.
fn required_capability(method: &str) -> Option<&'static str> {
    match method {
        mcp_proto::methods::CreateMessage::NAME => Some("sampling"),
        mcp_proto::methods::Elicit::NAME => Some("elicitation"),
        mcp_proto::methods::ListRoots::NAME => Some("roots"),
        _ => None,
    }
}

/// The error a request to the client fails with when the client answered
/// with JSON-RPC error `error`: code -32603 (the client's code belongs to
/// its own request, not to the call that asked: a `tools/call` must not say
/// -32601 because the client lacks `sampling/createMessage`), message "the
/// client answered `<method>` with error `<code>`: `<message>`", and data
/// `{"clientError": <the client's error object>}`. A tool that passes it on
/// with `?` makes its `tools/call` a -32603 error carrying the client's
/// error; a tool that wants a tool failure instead answers `isError: true`
/// itself (MCP 2025-11-25 server/tools, error handling).
pub fn client_error(method: &str, error: ErrorObject) -> ErrorObject {
    ErrorObject::internal_error(format!(
        "the client answered {method} with error {}: {}",
        error.code, error.message
    ))
    .with_data(json!({ "clientError": error }))
}

fn connection_ended() -> ErrorObject {
    ErrorObject::internal_error("the connection ended before the client answered")
}
