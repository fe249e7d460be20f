//! One MCP session: the state of a stdio connection, of an HTTP session,
//! or of one stateless (2026-07-28) request, and the loop that feeds it.
//!
//! A session takes parsed [`Message`]s in and sends its messages to an
//! [`Outbox`], each tagged with the client request it belongs to; the
//! transports only frame them (stdio, [`crate::stdio`]) or route them
//! (streamable HTTP, [`crate::http`]). The concerns live one to a file:
//!
//! - [`router`]: dispatch by method type (`mcp_proto::methods`), params
//!   decoding and the per-revision shape of results;
//! - [`handshake`]: `initialize` and `server/discover`;
//! - [`inflight`]: requests in flight, their bound, cancellation, drain;
//! - [`tools`]: `tools/list` and `tools/call`;
//! - [`resources_prompts`]: resources, prompts and completions;
//! - [`subscriptions`]: `resources/subscribe` and its updates;
//! - [`roots`]: the client's roots (`roots/list`);
//! - [`mode`]: the session's `mode`, narrowing its tools.

mod handshake;
pub(crate) mod inflight;
mod mode;
mod resources_prompts;
mod roots;
mod router;
pub(crate) mod subscriptions;
mod tools;

use std::future::Future;
use std::sync::{Arc, Mutex};

use mcp_proto::{ErrorObject, Message, Notification, RequestId, Response};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio::task::{AbortHandle, JoinHandle};

use crate::connection::Incoming;
use crate::error::ServerError;
use crate::lifecycle::{Lifecycle, Phase};
use crate::logging::ConnectionLevel;
use crate::outbox::{Outbox, write_loop};
use crate::peer::PeerShared;
use crate::server::Server;
use crate::stdio::read_lines;
use inflight::InFlight;
use roots::RootsState;
use subscriptions::Subscriptions;

/// The state of one session, owned by whoever feeds it messages.
pub(crate) struct Session {
    server: Arc<Server>,
    /// This session's number (the `mode` tool's key for it).
    number: u64,
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
    /// What the server offers besides tools ([`router`]'s bits).
    features: usize,
    /// Each source's list stamp in the last tool list this session
    /// answered (`None` before its first): a source's change that list
    /// already shows is not announced again.
    listed: Arc<Mutex<Option<Vec<Option<u64>>>>>,
    /// A `mode` call in flight: no request read after it is dispatched
    /// until it ends, so each is checked by the mode it leaves (a client
    /// that sends `mode set review` and a write at once gets the write
    /// refused).
    mode_call: Option<RequestId>,
}

impl Session {
    /// A fresh session of `server` whose messages go to `outbox`.
    pub(crate) fn new(server: Arc<Server>, outbox: Outbox) -> Self {
        let config = server.config();
        let features = router::features(&server);
        Self {
            number: mode::next_session(),
            peer: PeerShared::new(outbox.clone(), config.client_request_timeout),
            inflight: InFlight::new(config.max_in_flight),
            server,
            lifecycle: Lifecycle::new(),
            level: ConnectionLevel::default(),
            subscriptions: None,
            roots_fetch: None,
            roots_state: Arc::default(),
            outbox,
            features,
            listed: Arc::default(),
            mode_call: None,
        }
    }

    /// Waits until a request in flight ends (never, while none runs).
    pub(crate) async fn request_ended(&mut self) {
        self.inflight.join_next().await;
    }

    /// Whether a request read now must wait: every slot is taken, or a
    /// `mode` call is still changing what later calls may do.
    fn must_wait(&mut self) -> bool {
        if let Some(id) = &self.mode_call
            && !self.inflight.is_running(id)
        {
            self.mode_call = None;
        }
        self.inflight.is_full() || self.mode_call.is_some()
    }

    /// Lets the requests in flight finish, at most the server's shutdown
    /// grace; the rest are answered with -32603.
    pub(crate) async fn finish(mut self) {
        if let Some(fetch) = self.roots_fetch.take() {
            fetch.abort();
        }
        let grace = self.server.config().shutdown_grace;
        self.inflight.drain(grace, &self.outbox).await;
    }

    fn send_error(&self, id: Option<RequestId>, error: ErrorObject) {
        self.outbox
            .send(&Message::Response(Response::error(id, error)));
    }

    fn send_list_changed(&self) {
        let ready = matches!(self.lifecycle.phase(), Phase::Initialized { .. });
        if ready && self.server.lists_can_change() {
            list_changed(&self.outbox);
        }
    }

    /// A source's tool list changed: `notifications/tools/list_changed`,
    /// unless the client has not listed the tools yet (its first list will
    /// be current) or the last list it was answered already shows every
    /// source's current list (the change was the first list of a source
    /// that list waited for). A source that cannot stamp its list is
    /// always announced.
    fn source_changed(&self) {
        let current = self.server.composition().stamps();
        let shown = self
            .listed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_none_or(|listed| *listed == current && !current.contains(&None));
        if !shown {
            self.send_list_changed();
        }
    }

    /// The text of one message, not parsed yet ([`Incoming::Text`]).
    pub(crate) fn on_text(&mut self, bytes: &[u8]) {
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

    /// One parsed message.
    pub(crate) fn on_message(&mut self, message: Message) {
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
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(modes) = self.server.modes() {
            modes.forget(self.number);
        }
    }
}

/// Queues `notifications/tools/list_changed` (MCP 2025-11-25
/// server/tools) on `outbox`.
fn list_changed(outbox: &Outbox) {
    outbox.send(&Message::Notification(Notification::new(
        mcp_proto::methods::ToolListChanged::NAME,
        None,
    )));
}

/// Whether a line that failed to parse was meant as a response
/// ([`mcp_proto::message::meant_as_response`]); such a line is never
/// answered.
fn meant_as_response(bytes: &[u8]) -> bool {
    serde_json::from_slice::<serde_json::Value>(bytes)
        .is_ok_and(|value| mcp_proto::message::meant_as_response(&value))
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

/// What changed a session's tool list.
#[derive(Debug, Clone, Copy)]
enum ListChange {
    /// A source's list.
    Source,
    /// The mode of this session (or, when the watcher fell behind, maybe
    /// another's: a needless `list_changed` costs only a re-list).
    Mode,
}

/// One task per source whose list can change (and one for the mode of
/// session `number`, when the server has modes), each forwarding its
/// changes into the one channel the session's loop reads. Mode changes
/// come this way so the loop waits on one receiver for every change, not
/// a second one polled at each turn.
fn watch_list_changes(
    server: &Server,
    number: u64,
) -> (mpsc::UnboundedReceiver<ListChange>, Vec<JoinHandle<()>>) {
    let (changed_tx, changed) = mpsc::unbounded_channel();
    let mut watchers = Vec::new();
    for mut rx in server.composition().list_changes() {
        let tx = changed_tx.clone();
        watchers.push(tokio::spawn(async move {
            while rx.changed().await.is_ok() {
                if tx.send(ListChange::Source).is_err() {
                    break;
                }
            }
        }));
    }
    if let Some(modes) = server.modes() {
        // Subscribed now, so no change after the session's start is missed.
        let mut rx = modes.subscribe();
        watchers.push(tokio::spawn(async move {
            use tokio::sync::broadcast::error::RecvError;
            loop {
                match rx.recv().await {
                    Ok(changed) if changed != number => {}
                    Ok(_) | Err(RecvError::Lagged(_)) => {
                        if changed_tx.send(ListChange::Mode).is_err() {
                            break;
                        }
                    }
                    Err(RecvError::Closed) => break,
                }
            }
        }));
    }
    (changed, watchers)
}

/// Serves one long-lived session (a stdio connection, an HTTP session, a
/// [`crate::Connection`]): takes its input from `input` until it ends or
/// `shutdown` completes, then lets the requests in flight finish.
///
/// While the session answers
/// [`ServerConfig::max_in_flight`](crate::ServerConfig::max_in_flight)
/// requests, input is still read, but the first request read waits, and
/// nothing more is read, until a slot frees: notifications (a
/// cancellation) and responses are acted on meanwhile. Nothing is read
/// while the outbox holds more unread output than its bound. The client
/// sees back-pressure, and no request is dropped.
///
/// Returns whether the input ended (`false`: `shutdown` completed first).
pub(crate) async fn run<S>(
    server: Arc<Server>,
    mut input: mpsc::Receiver<Incoming>,
    outbox: Outbox,
    shutdown: S,
) -> bool
where
    S: Future<Output = ()> + Send,
{
    let mut session = Session::new(server.clone(), outbox);
    let (mut changed, mut watchers) = watch_list_changes(&server, session.number);
    if let Some((subscribed, forwarder)) = subscriptions::start(&server, &session.outbox) {
        session.subscriptions = Some(subscribed);
        watchers.push(forwarder);
    }
    // Stops the watchers also when this future is dropped ([`Server::serve`]
    // on a write error).
    let _stop = AbortOnDrop(watchers.iter().map(JoinHandle::abort_handle).collect());
    let backlog = session.outbox.backlog().cloned();
    let full = || backlog.as_ref().is_some_and(|b| b.is_full());
    // A request read while the session is at its bound waits here (one at
    // most: reading stops until it is dispatched), so notifications such
    // as a cancellation, and responses to our requests, are still read
    // and acted on while every slot is taken.
    let mut parked: Option<Message> = None;
    let mut input_done = false;
    tokio::pin!(shutdown);
    loop {
        let busy = session.must_wait();
        if !busy && let Some(message) = parked.take() {
            session.on_message(message);
            continue;
        }
        if input_done && parked.is_none() {
            tracing::debug!("end of input: finishing calls in flight");
            break;
        }
        tokio::select! {
            biased;
            () = &mut shutdown => {
                tracing::info!("shutdown signal: finishing calls in flight");
                break;
            }
            Some(change) = changed.recv() => match change {
                ListChange::Source => session.source_changed(),
                ListChange::Mode => session.send_list_changed(),
            },
            // Back-pressure: while the client leaves too much output
            // unread, wait for the writer instead of reading more.
            () = async { if let Some(b) = &backlog { b.drained().await } }, if full() => {}
            () = session.request_ended(), if !session.inflight.is_empty() => {}
            incoming = input.recv(), if !full() && parked.is_none() && !input_done => match incoming {
                Some(Incoming::Text(bytes)) if busy => match mcp_proto::parse_message(&bytes) {
                    Ok(Message::Request(request)) => parked = Some(Message::Request(request)),
                    _ => session.on_text(&bytes),
                },
                Some(Incoming::Text(bytes)) => session.on_text(&bytes),
                Some(Incoming::Message(message @ Message::Request(_))) if busy => {
                    parked = Some(message);
                }
                Some(Incoming::Message(message)) => session.on_message(message),
                Some(Incoming::Refused { id, error }) => session.send_error(id, error),
                None => input_done = true,
            },
        }
    }
    for watcher in watchers {
        watcher.abort();
    }
    session.finish().await;
    input_done
}

/// Serving a connection is the session's work: these methods of
/// [`Server`] live here, so the server's module does not depend on the
/// session's.
impl Server {
    /// Serves one connection: reads messages from `input`, writes messages to
    /// `output`, until `input` ends or `shutdown` completes; then lets calls
    /// in flight finish (bounded by
    /// [`ServerConfig::shutdown_grace`](crate::ServerConfig::shutdown_grace))
    /// and flushes (bounded by the same grace: when the client reads
    /// nothing more, the answers left are dropped and
    /// [`ServerError::Write`] is returned). Returns an error only when
    /// reading or writing fails.
    ///
    /// When more than
    /// [`ServerConfig::max_output_backlog_bytes`](crate::ServerConfig::max_output_backlog_bytes)
    /// of output wait unread, no more input is read until the client reads
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
        S: Future<Output = ()> + Send + 'static,
    {
        let (outbox, out_rx, backlog) = Outbox::bounded(self.config().max_output_backlog_bytes);
        let mut writer = tokio::spawn(write_loop(output, out_rx, Some(backlog)));
        // The session runs as a task of its own and `shutdown` as another,
        // which it hears of through a oneshot: the caller's future (often
        // the runtime's `block_on`, whose every wake-up is a system call)
        // is woken only at the end, and the session's loop polls a
        // oneshot at each turn instead of `shutdown` (a signal listener
        // is costly to poll).
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let shutdown_task = tokio::spawn(async move {
            shutdown.await;
            let _ = stop_tx.send(());
        });
        let stop = async move {
            // An error means the shutdown task is gone (the runtime is
            // ending): that ends serving too.
            let _ = stop_rx.await;
        };
        let grace = self.config().shutdown_grace;
        let mut serving = tokio::spawn(self.serve_outbox(input, outbox, stop));
        // Dropping this future (or a write error, below) stops reading and
        // aborts the calls in flight.
        let _stop = AbortOnDrop(vec![serving.abort_handle(), shutdown_task.abort_handle()]);
        let (read, written) = tokio::select! {
            // Once reading ends, what is left to write gets the grace
            // period too: a client that reads nothing more cannot hold the
            // server open.
            read = &mut serving => match tokio::time::timeout(grace, &mut writer).await {
                Ok(written) => (read, written),
                Err(_) => {
                    writer.abort();
                    (read, Ok(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!("the client read no more output for {} s; the answers left were dropped", grace.as_secs()),
                    ))))
                }
            },
            // The writer ends early only on a write error (the connection
            // holds an outbox).
            written = &mut writer => {
                serving.abort();
                (Ok(Ok(())), written)
            }
        };
        match read {
            Ok(read) => read?,
            Err(join) if join.is_cancelled() => {}
            Err(join) => {
                return Err(ServerError::Read(std::io::Error::other(join.to_string())));
            }
        }
        match written {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(ServerError::Write(error)),
            Err(join) => Err(ServerError::Write(std::io::Error::other(join.to_string()))),
        }
    }

    /// [`Server::serve`] with the messages going to `outbox`, whose
    /// receiver the caller drains: the stdio reader feeds the session.
    async fn serve_outbox<R, S>(
        self: Arc<Self>,
        input: R,
        outbox: Outbox,
        shutdown: S,
    ) -> Result<(), ServerError>
    where
        R: AsyncRead + Unpin + Send + 'static,
        S: Future<Output = ()> + Send + 'static,
    {
        let (line_tx, lines) = mpsc::channel(16);
        let mut reader = tokio::spawn(read_lines(input, self.config().max_line_bytes, line_tx));
        // Stops the reader also when this future is dropped
        // ([`Server::serve`] on a write error).
        let _stop = AbortOnDrop(vec![reader.abort_handle()]);
        if !run(self, lines, outbox, shutdown).await {
            // Shutdown came first: nothing more is read.
            reader.abort();
            return Ok(());
        }
        match (&mut reader).await {
            Ok(read) => read.map_err(ServerError::Read),
            Err(join) => Err(ServerError::Read(std::io::Error::other(join.to_string()))),
        }
    }
}
