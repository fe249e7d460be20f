//! The single writer of a connection's output: every protocol message goes
//! through an [`Outbox`] to one task that writes it as one line and flushes.

use mcp_proto::RequestId;
use serde::Serialize;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// One serialized message on its way out, with the client request it belongs
/// to, if any.
///
/// `related` is what the streamable HTTP transport routes by: a server
/// request or notification sent while handling client request `related`
/// travels on the SSE stream of the POST that carried it (MCP 2025-11-25
/// basic/transports, "sending messages to the server"). Over stdio it is
/// ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outgoing {
    /// The message as JSON text, without a newline.
    pub bytes: Vec<u8>,
    /// The client request this message was sent while handling.
    pub related: Option<RequestId>,
}

/// A handle that queues protocol messages for the connection's writer.
///
/// Cloning is cheap. Messages are serialized by the sender, so the writer
/// only copies bytes; each is written on its own line (MCP 2025-11-25
/// basic/transports, stdio: messages are newline-delimited and contain no
/// embedded newline, which `serde_json` guarantees).
#[derive(Debug, Clone)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<Outgoing>,
    related: Option<RequestId>,
}

impl Outbox {
    /// A new outbox and the receiving end its writer drains.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Outgoing>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx, related: None }, rx)
    }

    /// A handle on the same queue whose messages are marked as sent while
    /// handling client request `id` (see [`Outgoing::related`]).
    pub fn related_to(&self, id: RequestId) -> Self {
        Self {
            tx: self.tx.clone(),
            related: Some(id),
        }
    }

    /// The client request this handle's messages belong to.
    pub fn related(&self) -> Option<&RequestId> {
        self.related.as_ref()
    }

    /// Queues `message`. Returns `false` when the writer is gone (output
    /// closed) or the message cannot be serialized (logged, never sent).
    pub fn send<T: Serialize>(&self, message: &T) -> bool {
        match serde_json::to_vec(message) {
            Ok(bytes) => self
                .tx
                .send(Outgoing {
                    bytes,
                    related: self.related.clone(),
                })
                .is_ok(),
            Err(error) => {
                tracing::error!(%error, "cannot serialize an outgoing message");
                false
            }
        }
    }
}

/// Writes every queued message to `out`, one per line, flushing whenever the
/// queue runs empty. Ends when every [`Outbox`] is dropped and the queue is
/// drained, or on the first write error.
pub async fn write_loop<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
) -> std::io::Result<()> {
    while let Some(first) = rx.recv().await {
        let mut buf = first.bytes;
        buf.push(b'\n');
        // Gather what is already queued so a burst costs one flush.
        while buf.len() < 64 * 1024 {
            match rx.try_recv() {
                Ok(next) => {
                    buf.extend_from_slice(&next.bytes);
                    buf.push(b'\n');
                }
                Err(_) => break,
            }
        }
        out.write_all(&buf).await?;
        out.flush().await?;
    }
    out.flush().await
}
