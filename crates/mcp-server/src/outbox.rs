//! The single writer of stdout: every protocol message goes through an
//! [`Outbox`] to one task that writes it as one line and flushes.

use serde::Serialize;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

/// A handle that queues protocol messages for the connection's writer.
///
/// Cloning is cheap. Messages are serialized by the sender, so the writer
/// only copies bytes; each is written on its own line (MCP 2025-11-25
/// basic/transports, stdio: messages are newline-delimited and contain no
/// embedded newline, which `serde_json` guarantees).
#[derive(Debug, Clone)]
pub struct Outbox {
    tx: mpsc::UnboundedSender<Vec<u8>>,
}

impl Outbox {
    /// A new outbox and the receiving end its writer drains.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Vec<u8>>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (Self { tx }, rx)
    }

    /// Queues `message`. Returns `false` when the writer is gone (stdout
    /// closed) or the message cannot be serialized (logged, never sent).
    pub fn send<T: Serialize>(&self, message: &T) -> bool {
        match serde_json::to_vec(message) {
            Ok(bytes) => self.tx.send(bytes).is_ok(),
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
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
) -> std::io::Result<()> {
    while let Some(first) = rx.recv().await {
        let mut buf = first;
        buf.push(b'\n');
        // Gather what is already queued so a burst costs one flush.
        while buf.len() < 64 * 1024 {
            match rx.try_recv() {
                Ok(next) => {
                    buf.extend_from_slice(&next);
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
