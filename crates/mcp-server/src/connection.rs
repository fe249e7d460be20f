//! A session driven by messages instead of bytes: [`Server::connect`]
//! gives the two ends a transport holds, [`Incoming`] messages in and
//! [`Outgoing`] messages out. The stdio transport ([`Server::serve`]) and
//! the streamable HTTP transport ([`crate::http`]) are adapters over the
//! same session; an embedder with a transport of its own (a WebSocket, a
//! channel inside one process, a test) uses these ends directly.
//!
//! The session answers every request it is given, with its id (MCP
//! 2025-11-25 basic, JSON-RPC 2.0 §5), in the order its work finishes.
//! It ends when the input is closed (every [`ConnectionInput`] dropped):
//! requests in flight finish, bounded by
//! [`ServerConfig::shutdown_grace`](crate::ServerConfig::shutdown_grace),
//! their answers are sent, then the output ends.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use futures_util::Stream;
use mcp_proto::{ErrorObject, Message, RequestId};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::outbox::{Backlog, Outbox, Outgoing};
use crate::server::Server;

/// How many inputs wait for the session before [`ConnectionInput::send`]
/// waits (input back-pressure).
const INPUT_BACKLOG: usize = 64;

/// One piece of a client's input, as a transport read it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Incoming {
    /// A message the transport parsed already.
    Message(Message),
    /// The text of one message, not parsed yet (a stdio line, an HTTP
    /// body). The session parses it. Text that is not a message is
    /// answered with -32700 or -32600 and the id the text names, if any
    /// can be read (JSON-RPC 2.0 §5.1), except text meant as a response,
    /// which is never answered: a malformed answer to one of the server's
    /// own requests fails that request at once.
    Text(Vec<u8>),
    /// Input the transport refused before it could be read (a stdio line
    /// over the length limit): answered with `error`, to `id` when the
    /// transport could read one.
    Refused {
        /// The id the refused input named.
        id: Option<RequestId>,
        /// The error to answer with.
        error: ErrorObject,
    },
}

impl From<Message> for Incoming {
    fn from(message: Message) -> Self {
        Self::Message(message)
    }
}

/// The input ended: the session is over and takes nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session has ended")]
pub struct SessionEnded;

/// A running session's two ends: [`Connection::send`] client messages in,
/// [`Connection::recv`] the server's messages out. Split it with
/// [`Connection::split`] to read and write from different tasks.
///
/// Read the output: while more than
/// [`ServerConfig::max_output_backlog_bytes`](crate::ServerConfig::max_output_backlog_bytes)
/// of it wait unread, the session reads no more input (so `send` waits)
/// and drops progress and log notifications.
#[derive(Debug)]
pub struct Connection {
    input: ConnectionInput,
    output: ConnectionOutput,
}

impl Connection {
    /// Hands `incoming` to the session; waits while the session is behind
    /// on its input.
    ///
    /// # Errors
    /// [`SessionEnded`] once the session has ended.
    pub async fn send(&self, incoming: impl Into<Incoming>) -> Result<(), SessionEnded> {
        self.input.send(incoming).await
    }

    /// The next message the server sends; `None` once the session has
    /// ended and everything it sent was read.
    pub async fn recv(&mut self) -> Option<Outgoing> {
        self.output.recv().await
    }

    /// The input and output ends, for different tasks.
    pub fn split(self) -> (ConnectionInput, ConnectionOutput) {
        (self.input, self.output)
    }
}

/// The input end of a [`Connection`]. Clones feed the same session; the
/// session ends when every clone is dropped.
#[derive(Debug, Clone)]
pub struct ConnectionInput {
    tx: mpsc::Sender<Incoming>,
}

impl ConnectionInput {
    /// Hands `incoming` to the session; waits while the session is behind
    /// on its input.
    ///
    /// # Errors
    /// [`SessionEnded`] once the session has ended.
    pub async fn send(&self, incoming: impl Into<Incoming>) -> Result<(), SessionEnded> {
        self.tx
            .send(incoming.into())
            .await
            .map_err(|_| SessionEnded)
    }
}

/// The output end of a [`Connection`]: every message the server sends,
/// in order, each serialized once ([`Outgoing::bytes`]) and tagged with
/// the client request it belongs to. Also a [`Stream`] of them.
#[derive(Debug)]
pub struct ConnectionOutput {
    rx: mpsc::UnboundedReceiver<Outgoing>,
    backlog: Arc<Backlog>,
}

impl ConnectionOutput {
    /// The next message the server sends; `None` once the session has
    /// ended and everything it sent was read.
    pub async fn recv(&mut self) -> Option<Outgoing> {
        let out = self.rx.recv().await?;
        self.backlog.written(out.bytes.len() + 1);
        Some(out)
    }
}

impl Stream for ConnectionOutput {
    type Item = Outgoing;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        let this = self.get_mut();
        let polled = this.rx.poll_recv(cx);
        if let Poll::Ready(Some(out)) = &polled {
            this.backlog.written(out.bytes.len() + 1);
        }
        polled
    }
}

impl Server {
    /// Starts a session of this server on the current Tokio runtime and
    /// returns its ends: messages in, messages out. The session runs as a
    /// task of its own until every input end is dropped (see the module
    /// documentation).
    pub fn connect(self: Arc<Self>) -> Connection {
        let (input, output) = self.connect_until(std::future::pending());
        Connection { input, output }
    }

    /// [`Server::connect`], also ending when `shutdown` completes (input
    /// still queued is then not read).
    pub fn connect_until<S>(self: Arc<Self>, shutdown: S) -> (ConnectionInput, ConnectionOutput)
    where
        S: std::future::Future<Output = ()> + Send + 'static,
    {
        let (input, output, _task) = spawn_session(self, shutdown);
        (input, output)
    }
}

/// [`Server::connect_until`], with the session's task: aborting it stops
/// the session and the requests in flight at once, unanswered.
pub(crate) fn spawn_session<S>(
    server: Arc<Server>,
    shutdown: S,
) -> (ConnectionInput, ConnectionOutput, JoinHandle<()>)
where
    S: std::future::Future<Output = ()> + Send + 'static,
{
    let (outbox, rx, backlog) = Outbox::bounded(server.config().max_output_backlog_bytes);
    let (tx, messages) = mpsc::channel(INPUT_BACKLOG);
    let task = tokio::spawn(async move {
        crate::session::run(server, messages, outbox, shutdown).await;
    });
    (
        ConnectionInput { tx },
        ConnectionOutput { rx, backlog },
        task,
    )
}
