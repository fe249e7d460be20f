//! The sessions behind the HTTP transport, fed with the messages it parsed
//! and routing what they send without reading it again.
//!
//! A 2025-11-25 session is a long-lived [`LiveSession`]: one task runs the
//! session ([`crate::session::run`]) and routes its output by each
//! message's [`Kind`]: a response goes to the HTTP request waiting for its
//! id; a server request or notification related to a request still being
//! answered goes on that POST's stream (MCP 2025-11-25 basic/transports:
//! "the server MAY send JSON-RPC requests and notifications before sending
//! the JSON-RPC response"), which is how sampling, elicitation and
//! `notifications/message` reach the client; anything else goes to the
//! standalone stream (`GET`) when one is open, and is dropped otherwise. A
//! server request that no stream can carry is answered at once, in the
//! client's place, with -32603, so the call waiting for it fails instead of
//! hanging.
//!
//! A 2026-07-28 request is a [`OneShot`]: a session of its own that answers
//! it and nothing else, with no task besides the request's own work.
//!
//! Output is bounded per request: notifications wait in a channel of
//! [`EVENT_BACKLOG`] messages and are dropped when it is full (progress and
//! log messages may be lost; a server request is then refused as
//! undeliverable); the response has a slot of its own.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use mcp_proto::{ErrorObject, Message, Request, RequestId};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::connection::{ConnectionInput, Incoming, spawn_session};
use crate::outbox::{Kind, Outbox, Outgoing};
use crate::server::Server;
use crate::session::Session;

/// Messages for one HTTP request that may wait before its stream takes
/// them.
pub const EVENT_BACKLOG: usize = 64;

/// The code of the error the transport answers, in the client's place, to
/// a server request it cannot deliver (JSON-RPC 2.0 internal error).
const UNDELIVERABLE: i64 = -32603;

/// What comes next for one HTTP request.
pub enum Reply {
    /// A message for its stream (a notification or a server request).
    Event(Outgoing),
    /// Its response; nothing follows.
    Response(Outgoing),
    /// The client cancelled it: no response will come (MCP 2025-11-25
    /// basic/utilities/cancellation).
    Cancelled,
}

/// Where the messages for one HTTP request come from.
pub trait Replies: Send + 'static {
    /// The next message; `None` when the session ended without answering.
    fn next(&mut self) -> impl std::future::Future<Output = Option<Reply>> + Send;
}

/// The end of a request of a long-lived session.
enum Done {
    Response(Outgoing),
    Cancelled,
}

/// The HTTP request waiting for one client request.
struct Waiter {
    events: mpsc::Sender<Outgoing>,
    done: oneshot::Sender<Done>,
    /// Whether its POST takes `text/event-stream`, without which a server
    /// request sent while handling it cannot reach the client.
    sse: bool,
}

#[derive(Default)]
struct Routes {
    pending: HashMap<RequestId, Waiter>,
    /// Progress token (its JSON text) → the request that named it.
    progress: HashMap<String, RequestId>,
    /// The standalone SSE stream of a session, when open.
    standalone: Option<mpsc::Sender<Outgoing>>,
}

/// What a request of a long-lived session receives.
pub struct SessionReplies {
    events: mpsc::Receiver<Outgoing>,
    done: Option<oneshot::Receiver<Done>>,
}

impl Replies for SessionReplies {
    async fn next(&mut self) -> Option<Reply> {
        let done = self.done.as_mut()?;
        tokio::select! {
            biased;
            Some(event) = self.events.recv() => Some(Reply::Event(event)),
            finished = done => {
                self.done = None;
                match finished.ok()? {
                    Done::Response(response) => Some(Reply::Response(response)),
                    Done::Cancelled => Some(Reply::Cancelled),
                }
            }
        }
    }
}

/// The standalone stream of a session (`GET`).
pub struct Standalone(mpsc::Receiver<Outgoing>);

impl Replies for Standalone {
    async fn next(&mut self) -> Option<Reply> {
        self.0.recv().await.map(Reply::Event)
    }
}

/// A running 2025-11-25 session fed by the HTTP transport.
pub struct LiveSession {
    input: ConnectionInput,
    routes: Arc<Mutex<Routes>>,
    stop: CancellationToken,
    /// The session's task and the task routing its output.
    tasks: [JoinHandle<()>; 2],
}

impl std::fmt::Debug for LiveSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSession").finish_non_exhaustive()
    }
}

impl LiveSession {
    /// Starts a session of `server`: one task, which runs the session and
    /// routes its output.
    pub fn start(server: Arc<Server>) -> Self {
        let stop = CancellationToken::new();
        let (input, mut from_server, session) =
            spawn_session(server, stop.clone().cancelled_owned());
        let routes: Arc<Mutex<Routes>> = Arc::default();

        let router = {
            let routes = routes.clone();
            let input = input.clone();
            async move {
                while let Some(out) = from_server.recv().await {
                    if let Some(refusal) = route(&routes, out) {
                        // The server's request fails at once instead of
                        // waiting for an answer that cannot come.
                        let _ = input.send(refusal).await;
                    }
                }
                // The session ended: wake every waiter.
                let mut routes = routes.lock().unwrap_or_else(PoisonError::into_inner);
                routes.pending.clear();
                routes.standalone = None;
            }
        };
        Self {
            input,
            routes,
            stop,
            tasks: [session, tokio::spawn(router)],
        }
    }

    /// Sends one message that expects no reply (a notification or a
    /// response). Returns `false` when the session has ended.
    pub async fn send(&self, message: Message) -> bool {
        self.input.send(message).await.is_ok()
    }

    /// Sends a body that did not parse as a message but was meant as a
    /// response (JSON-RPC 2.0 §5): the session reads it to fail the server
    /// request it answers. Returns `false` when the session has ended.
    pub async fn send_malformed(&self, body: Vec<u8>) -> bool {
        self.input.send(Incoming::Text(body)).await.is_ok()
    }

    /// Sends `request`; the messages the session sends while handling it
    /// (progress when it names `progress_token`, log messages, and requests
    /// to the client when `sse` says its POST takes `text/event-stream`)
    /// and then its response arrive on the returned [`SessionReplies`].
    ///
    /// `None` when a request with the same id is still being answered: its
    /// route is left alone (JSON-RPC 2.0 §4: ids are unique among requests
    /// in flight) and the caller refuses the new one.
    pub async fn request(
        &self,
        request: Request,
        progress_token: Option<String>,
        sse: bool,
    ) -> Option<SessionReplies> {
        let (events_tx, events) = mpsc::channel(EVENT_BACKLOG);
        let (done_tx, done) = oneshot::channel();
        {
            let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
            if routes
                .pending
                .get(&request.id)
                .is_some_and(|w| !w.done.is_closed())
            {
                return None;
            }
            let waiter = Waiter {
                events: events_tx,
                done: done_tx,
                sse,
            };
            routes.pending.insert(request.id.clone(), waiter);
            if let Some(token) = progress_token {
                routes.progress.insert(token, request.id.clone());
            }
        }
        self.send(Message::Request(request)).await;
        Some(SessionReplies {
            events,
            done: Some(done),
        })
    }

    /// Ends the HTTP request waiting for request `id`, which the client
    /// cancelled: the session sends no response for it, so its waiter is
    /// told so and its route dropped.
    pub fn cancelled(&self, id: &RequestId) {
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        routes.progress.retain(|_, waiting| waiting != id);
        if let Some(waiter) = routes.pending.remove(id) {
            let _ = waiter.done.send(Done::Cancelled);
        }
    }

    /// Opens the standalone stream for server messages related to no
    /// request in progress; `None` when one is already open (a message goes
    /// on one stream only, MCP 2025-11-25 basic/transports).
    pub fn open_standalone(&self) -> Option<Standalone> {
        let mut routes = self.routes.lock().unwrap_or_else(PoisonError::into_inner);
        if routes.standalone.as_ref().is_some_and(|tx| !tx.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::channel(EVENT_BACKLOG);
        routes.standalone = Some(tx);
        Some(Standalone(rx))
    }

    /// Ends input: calls in flight finish (the server's shutdown grace) and
    /// are answered, then the session ends.
    pub fn finish_input(&self) {
        self.stop.cancel();
    }
}

impl Drop for LiveSession {
    fn drop(&mut self) {
        // Nobody can read what the session would still say.
        for task in &self.tasks {
            task.abort();
        }
    }
}

/// Delivers one message from the session to whoever waits for it. Returns
/// the error response to feed back to the session when `out` is a server
/// request no stream can carry.
fn route(routes: &Mutex<Routes>, out: Outgoing) -> Option<Message> {
    let mut routes = routes.lock().unwrap_or_else(PoisonError::into_inner);
    let server_request = match &out.kind {
        Kind::Response { id, .. } => {
            let Some(id) = id.clone() else {
                tracing::debug!("an error without an id has no HTTP request to go to");
                return None;
            };
            routes.progress.retain(|_, waiting| *waiting != id);
            match routes.pending.remove(&id) {
                Some(waiter) => {
                    let _ = waiter.done.send(Done::Response(out));
                }
                None => tracing::debug!(?id, "response nobody waits for"),
            }
            return None;
        }
        Kind::Request { id } => Some(id.clone()),
        Kind::Notification { .. } => None,
    };
    if let Some(waiter) = out.related.as_ref().and_then(|r| routes.pending.get(r)) {
        if let Some(id) = server_request {
            if !waiter.sse {
                return undeliverable(id, "the client's POST does not accept text/event-stream");
            }
            return match waiter.events.try_send(out) {
                Ok(()) => None,
                Err(_) => undeliverable(id, "the client is not reading its stream"),
            };
        }
        if waiter.events.try_send(out).is_err() {
            tracing::debug!("a notification was dropped: the client is not reading its stream");
        }
        return None;
    }
    if let Kind::Notification {
        progress_token: Some(token),
    } = &out.kind
    {
        let waiter = routes
            .progress
            .get(token)
            .and_then(|id| routes.pending.get(id));
        if let Some(waiter) = waiter {
            let _ = waiter.events.try_send(out);
        }
        return None;
    }
    let delivered = routes
        .standalone
        .as_ref()
        .is_some_and(|tx| tx.try_send(out).is_ok());
    match server_request {
        Some(id) if !delivered => undeliverable(id, "no open stream reaches the client"),
        _ => None,
    }
}

/// The error response to server request `id` that no stream can carry.
fn undeliverable(id: RequestId, why: &str) -> Option<Message> {
    Some(Message::Response(mcp_proto::Response::error(
        Some(id),
        ErrorObject::new(UNDELIVERABLE, format!("cannot reach the client: {why}")),
    )))
}

/// One stateless (2026-07-28) request: a session of its own that answers
/// it, with no connection loop. Dropping it (the client closed the stream)
/// stops the request's work.
pub struct OneShot {
    /// Owns the request's task: dropped, it aborts it.
    _session: Session,
    output: mpsc::UnboundedReceiver<Outgoing>,
}

impl OneShot {
    /// Starts answering `request`.
    pub fn start(server: Arc<Server>, request: Request) -> Self {
        let (outbox, output) = Outbox::channel();
        let mut session = Session::new(server, outbox);
        session.on_message(Message::Request(request));
        Self {
            _session: session,
            output,
        }
    }
}

impl Replies for OneShot {
    async fn next(&mut self) -> Option<Reply> {
        let out = self.output.recv().await?;
        Some(match out.kind {
            Kind::Response { .. } => Reply::Response(out),
            _ => Reply::Event(out),
        })
    }
}
