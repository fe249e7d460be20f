//! The reader side of the stdio transport: newline-delimited lines with a
//! size bound, delivered to the connection loop over a channel.

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::sync::mpsc;

/// One thing the reader saw.
#[derive(Debug)]
pub enum LineEvent {
    /// A complete line, without its line end (`\n` or `\r\n`).
    Line(Vec<u8>),
    /// A line longer than `limit` bytes; it was discarded as it streamed.
    TooLong {
        /// The limit in bytes.
        limit: usize,
    },
    /// Reading failed; nothing follows.
    Failed(std::io::Error),
}

/// Reads `input` line by line into `tx` until end of input, a read error, or
/// `tx` closing. A line over `max_line_bytes` is skipped without being held
/// in memory: at most `max_line_bytes` plus one read buffer are kept.
/// The last line is delivered even without a final newline.
pub async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    max_line_bytes: usize,
    tx: mpsc::Sender<LineEvent>,
) {
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    let mut discarding = false;
    loop {
        let chunk = match input.fill_buf().await {
            Ok(chunk) => chunk,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => {
                let _ = tx.send(LineEvent::Failed(error)).await;
                return;
            }
        };
        if chunk.is_empty() {
            if !discarding && !line.is_empty() {
                let _ = tx
                    .send(LineEvent::Line(trim_cr(std::mem::take(&mut line))))
                    .await;
            }
            return;
        }
        let (used, complete) = match memchr_newline(chunk) {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let body = &chunk[..if complete { used - 1 } else { used }];
        if !discarding {
            if line.len() + body.len() > max_line_bytes {
                discarding = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(body);
            }
        }
        input.consume(used);
        if complete {
            let event = if discarding {
                discarding = false;
                LineEvent::TooLong {
                    limit: max_line_bytes,
                }
            } else {
                LineEvent::Line(trim_cr(std::mem::take(&mut line)))
            };
            if tx.send(event).await.is_err() {
                return;
            }
        }
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

fn trim_cr(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    line
}
