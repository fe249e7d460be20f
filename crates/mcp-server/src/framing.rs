//! The reader side of the stdio transport: mcp-proto's bounded
//! newline framing, delivered to the connection loop over a channel so the
//! loop never holds a half-read line.

use mcp_proto::ErrorObject;
use mcp_proto::framing::{AsyncFrameReader, FrameError};
use tokio::io::{AsyncRead, BufReader};
use tokio::sync::mpsc;

/// One thing the reader saw.
#[derive(Debug)]
pub enum LineEvent {
    /// A complete, non-blank line without its line end.
    Line(Vec<u8>),
    /// A line that cannot be a message (longer than the limit; discarded as
    /// it streamed): answer with this error and id null.
    Rejected(ErrorObject),
    /// Reading failed; nothing follows.
    Failed(std::io::Error),
}

/// Reads `input` line by line into `tx` until end of input, a read error, or
/// `tx` closing. A line over `max_line_bytes` is skipped without being held
/// in memory (mcp-proto framing); blank lines are skipped.
pub async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    max_line_bytes: usize,
    tx: mpsc::Sender<LineEvent>,
) {
    let mut reader = AsyncFrameReader::with_max_line_len(
        BufReader::with_capacity(64 * 1024, input),
        max_line_bytes,
    );
    loop {
        let event = match reader.read_line().await {
            Ok(Some(line)) => LineEvent::Line(line),
            Ok(None) => return,
            Err(error) => match error.to_error_object() {
                Some(answer) => LineEvent::Rejected(answer),
                None => LineEvent::Failed(match error {
                    FrameError::Io(io) => io,
                    other => std::io::Error::other(other.to_string()),
                }),
            },
        };
        let last = matches!(event, LineEvent::Failed(_));
        if tx.send(event).await.is_err() || last {
            return;
        }
    }
}
