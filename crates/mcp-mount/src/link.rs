//! One connection to a mounted server, whatever carries it: messages go
//! out through an [`Outbound`], messages that come in are handed to a
//! [`Deliver`] function as they are read, and a token fires when the
//! connection is gone.

use std::sync::Arc;

use mcp_proto::RequestId;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::wire::Incoming;

/// A message for the server: its JSON text, and the request id when it is
/// a request (so a transport that fails to deliver it can answer it).
#[derive(Debug)]
pub(crate) struct Outgoing {
    pub(crate) id: Option<RequestId>,
    pub(crate) body: Vec<u8>,
}

/// What reads a connection calls with each message, on the reading task
/// (no queue and no hop between the pipe and the waiting call).
pub(crate) type Deliver = Arc<dyn Fn(Incoming) + Send + Sync>;

/// Where messages for the server go.
#[derive(Clone)]
pub(crate) enum Outbound {
    /// Written by the sender to the child's stdin, one line at a time
    /// (the lock keeps lines whole).
    Pipe(Arc<tokio::sync::Mutex<tokio::process::ChildStdin>>),
    /// Queued for a transport task (streamable HTTP: a POST each).
    Queue(mpsc::Sender<Outgoing>),
}

impl Outbound {
    /// Sends `message`; an error when the connection is closed.
    pub(crate) async fn send(&self, message: Outgoing) -> Result<(), ()> {
        match self {
            Self::Pipe(pipe) => {
                let mut line = crate::wire::one_line(message.body);
                line.push(b'\n');
                let mut pipe = pipe.lock().await;
                pipe.write_all(&line).await.map_err(|_| ())?;
                pipe.flush().await.map_err(|_| ())
            }
            Self::Queue(queue) => queue.send(message).await.map_err(|_| ()),
        }
    }

    /// Sends `message` from code that cannot wait (a drop): on a task of
    /// its own (call inside a Tokio runtime; otherwise it is lost).
    pub(crate) fn send_soon(&self, message: Outgoing) {
        let message = match self {
            Self::Queue(queue) => match queue.try_send(message) {
                Ok(()) => return,
                Err(mpsc::error::TrySendError::Full(message)) => message,
                Err(mpsc::error::TrySendError::Closed(_)) => return,
            },
            Self::Pipe(_) => message,
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let out = self.clone();
        runtime.spawn(async move {
            let _ = out.send(message).await;
        });
    }
}

/// What a transport gives the client.
pub(crate) struct Link {
    /// Messages to the server.
    pub(crate) out: Outbound,
    /// Fires when the connection is gone (a child exited, its pipes
    /// closed, an HTTP session ended).
    pub(crate) closed: CancellationToken,
    /// Ends the connection when dropped (kills the child's process group,
    /// stops the transport's tasks).
    pub(crate) guard: Box<dyn Send + Sync>,
    /// Called once the revision is agreed (streamable HTTP sends it as
    /// `MCP-Protocol-Version` from then on).
    pub(crate) negotiated: Box<dyn Fn(&str) + Send + Sync>,
}

/// How many messages wait for a transport task before the sender waits.
pub(crate) const QUEUE: usize = 256;
