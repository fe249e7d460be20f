//! One server connection fed with the messages the HTTP transport parsed,
//! so HTTP shares the stdio dispatch path (lifecycle, concurrency,
//! cancellation, progress) instead of having a second one, without a byte
//! stream between them: a POST's message enters the connection as it was
//! parsed, never written out and read again.
//!
//! A [`Pipe`] hands each client message to the connection's input channel
//! and takes its output from the connection's outbox, where each
//! message names the client request it was sent while handling: a response
//! goes to the HTTP request waiting for its id; a server request or
//! notification related to a request still being answered goes on that
//! POST's stream (MCP 2025-11-25 basic/transports: "the server MAY send
//! JSON-RPC requests and notifications before sending the JSON-RPC
//! response"), which is how sampling, elicitation and `notifications/message`
//! reach the client; anything else goes to the standalone stream (`GET`)
//! when one is open, and is dropped otherwise. A server request that no
//! stream can carry (its POST takes no SSE, or no GET stream is open) is
//! answered at once, in the client's place, with a -32603 error, so the
//! call waiting for it fails instead of hanging. The client's answer to a
//! server request comes as a POST of its own and enters the connection like
//! any message, where it is routed to the waiting request by id.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_proto::{ErrorObject, Message, RequestId};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::framing::LineEvent;
use crate::outbox::Outbox;
use crate::server::Server;

/// Client messages that may wait for the connection to take them; a POST
/// beyond them waits (backpressure), as a full pipe made it wait before.
const INPUT_BACKLOG: usize = 64;

/// Where the messages for one HTTP request go: its notifications, then its
/// response. A JSON `null` (never a message) is the end of a request the
/// client cancelled: no response follows it (MCP 2025-11-25
/// basic/utilities/cancellation).
pub type Replies = mpsc::UnboundedReceiver<Value>;

/// The HTTP request waiting for one client request.
struct Waiter {
    tx: mpsc::UnboundedSender<Value>,
    /// Whether its POST takes `text/event-stream`, without which a server
    /// request sent while handling it cannot reach the client.
    sse: bool,
}

/// The code of the error the transport answers, in the client's place, to
/// a server request it cannot deliver (JSON-RPC 2.0 internal error).
const UNDELIVERABLE: i64 = -32603;

#[derive(Default)]
struct Routes {
    /// Request id (its JSON text) → the HTTP request waiting for it.
    pending: HashMap<String, Waiter>,
    /// Progress token (its JSON text) → request id (its JSON text).
    progress: HashMap<String, String>,
    /// The standalone SSE stream of a session, when open.
    standalone: Option<mpsc::UnboundedSender<Value>>,
}

/// A running connection of a [`Server`] fed by the HTTP transport.
pub struct Pipe {
    input: mpsc::Sender<LineEvent>,
    routes: Arc<Mutex<Routes>>,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl std::fmt::Debug for Pipe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipe").finish_non_exhaustive()
    }
}

impl Pipe {
    /// Starts a connection of `server`: one task, which serves the
    /// connection and routes its output.
    pub fn start(server: Arc<Server>) -> Self {
        let (outbox, mut from_server) = Outbox::channel();
        let (input, messages) = mpsc::channel::<LineEvent>(INPUT_BACKLOG);
        let routes: Arc<Mutex<Routes>> = Arc::default();
        let stop = CancellationToken::new();

        let reader = {
            let routes = routes.clone();
            let input = input.clone();
            async move {
                while let Some(out) = from_server.recv().await {
                    match serde_json::from_slice::<Value>(&out.bytes) {
                        Ok(message) => {
                            if let Some(refusal) = route(&routes, message, out.related.as_ref()) {
                                // The server's request fails at once instead
                                // of waiting for an answer that cannot come.
                                let _ = input.send(LineEvent::Message(refusal)).await;
                            }
                        }
                        Err(error) => tracing::error!(%error, "unreadable message from the server"),
                    }
                }
                // The connection ended: wake every waiter.
                let mut routes = routes.lock().unwrap_or_else(PoisonError::into_inner);
                routes.pending.clear();
                routes.standalone = None;
            }
        };
        let serving = server.serve_events(messages, None, outbox, stop.clone().cancelled_owned());
        let task = tokio::spawn(async move {
            let (served, ()) = tokio::join!(serving, reader);
            if let Err(error) = served {
                tracing::debug!(%error, "HTTP connection ended with an error");
            }
        });
        Self {
            input,
            routes,
            stop,
            task,
        }
    }

    /// Sends one message that expects no reply (a notification or a
    /// response). Returns `false` when the connection has ended.
    pub async fn send(&self, message: Message) -> bool {
        self.input.send(LineEvent::Message(message)).await.is_ok()
    }

    /// Sends a body that did not parse as a message but was meant as a
    /// response (JSON-RPC 2.0 §5): the connection parses it again to fail
    /// the server request it answers. Returns `false` when the connection
    /// has ended.
    pub async fn send_malformed(&self, body: &Value) -> bool {
        match serde_json::to_vec(body) {
            Ok(line) => self.input.send(LineEvent::Line(line)).await.is_ok(),
            Err(_) => false,
        }
    }

    /// Sends request `message` with id `id`; the messages the server sends
    /// while handling it (progress when it carries `progress_token`, log
    /// messages, and requests to the client when `sse` says its POST takes
    /// `text/event-stream`) and then its response arrive on the returned
    /// receiver, which closes after the response, after a `null` when the
    /// client cancels it, or when the connection ends.
    ///
    /// `None` when a request with the same id is still being answered: its
    /// route is left alone (JSON-RPC 2.0 §4: ids are unique among requests
    /// in flight) and the caller refuses the new one.
    pub async fn request(
        &self,
        id: &RequestId,
        progress_token: Option<&Value>,
        message: Message,
        sse: bool,
    ) -> Option<Replies> {
        let (tx, rx) = mpsc::unbounded_channel();
        let key = serde_json::to_string(id).unwrap_or_default();
        {
            let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
            if routes.pending.get(&key).is_some_and(|w| !w.tx.is_closed()) {
                return None;
            }
            routes.pending.insert(key.clone(), Waiter { tx, sse });
            if let Some(token) = progress_token {
                routes.progress.insert(token.to_string(), key);
            }
        }
        self.send(message).await;
        Some(rx)
    }

    /// Ends the HTTP request waiting for request `id` (a JSON-RPC id), which
    /// the client cancelled: the server sends no response for it (MCP
    /// 2025-11-25 basic/utilities/cancellation), so its waiter gets `null`
    /// and its route is dropped.
    pub fn cancelled(&self, id: &Value) {
        let key = id.to_string();
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        routes.progress.retain(|_, waiting| *waiting != key);
        if let Some(waiter) = routes.pending.remove(&key) {
            let _ = waiter.tx.send(Value::Null);
        }
    }

    /// Opens the standalone stream for server messages related to no
    /// request in progress; `None` when one is already open (a message goes
    /// on one stream only, MCP 2025-11-25 basic/transports).
    pub fn open_standalone(&self) -> Option<Replies> {
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        if routes.standalone.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::unbounded_channel();
        routes.standalone = Some(tx);
        Some(rx)
    }

    /// Ends input: calls in flight finish (the server's shutdown grace) and
    /// are answered, then the connection ends.
    pub fn finish_input(&self) {
        self.stop.cancel();
    }
}

impl Drop for Pipe {
    fn drop(&mut self) {
        // Nobody can read what the connection would still say.
        self.task.abort();
    }
}

/// Delivers one message from the server to whoever waits for it; `related`
/// is the client request it was sent while handling. Returns the error
/// response to feed back to the server when `message` is a server request
/// no stream can carry (its POST takes no SSE, or it relates to no request
/// and no GET stream is open).
fn route(routes: &Mutex<Routes>, message: Value, related: Option<&RequestId>) -> Option<Message> {
    let mut routes = routes.lock().unwrap_or_else(PoisonError::into_inner);
    let is_response = message.get("method").is_none();
    if is_response {
        let key = message.get("id").map(Value::to_string).unwrap_or_default();
        routes.progress.retain(|_, id| *id != key);
        match routes.pending.remove(&key) {
            Some(waiter) => {
                let _ = waiter.tx.send(message);
            }
            None => tracing::debug!(id = key, "response nobody waits for"),
        }
        return None;
    }
    let server_request = message.get("id").cloned();
    if let Some(related) = related {
        let key = serde_json::to_string(related).unwrap_or_default();
        if let Some(waiter) = routes.pending.get(&key) {
            if let Some(id) = server_request
                && !waiter.sse
            {
                return undeliverable(id, "the client's POST does not accept text/event-stream");
            }
            let _ = waiter.tx.send(message);
            return None;
        }
    }
    let method = message.get("method").and_then(Value::as_str).unwrap_or("");
    if method == "notifications/progress" {
        let token = message
            .get("params")
            .and_then(|p| p.get("progressToken"))
            .map(Value::to_string)
            .unwrap_or_default();
        let waiter = routes
            .progress
            .get(&token)
            .and_then(|id| routes.pending.get(id));
        if let Some(waiter) = waiter {
            let _ = waiter.tx.send(message);
        }
        return None;
    }
    let delivered = routes
        .standalone
        .as_ref()
        .is_some_and(|tx| tx.send(message).is_ok());
    match server_request {
        Some(id) if !delivered => undeliverable(id, "no open stream reaches the client"),
        _ => None,
    }
}

/// The error response to server request `id` that no stream can carry.
fn undeliverable(id: Value, why: &str) -> Option<Message> {
    // Our own requests have integer ids; one that is not is no request of
    // ours, and nothing waits for it.
    let id = serde_json::from_value::<RequestId>(id).ok()?;
    Some(Message::Response(mcp_proto::Response::error(
        Some(id),
        ErrorObject::new(UNDELIVERABLE, format!("cannot reach the client: {why}")),
    )))
}
