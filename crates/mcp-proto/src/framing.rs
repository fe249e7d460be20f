//! Newline-delimited framing for the stdio transport (MCP 2025-11-25
//! basic/transports "stdio"): one JSON-RPC message per line, lines end in
//! `\n` (a `\r` before it is dropped), messages never contain a raw newline.
//!
//! The reader bounds memory: a line longer than the maximum (default
//! [`DEFAULT_MAX_LINE_LEN`], 8 MiB) is discarded as it streams in, never held
//! whole, and reported as [`FrameError::LineTooLong`]; the next call reads
//! the next line. Blank lines (only whitespace) are skipped. A last line
//! without `\n` at end of input is still returned.
//!
//! ```
//! use mcp_proto::framing::{FrameReader, FrameWriter};
//! use mcp_proto::{Message, Notification};
//!
//! let mut out = Vec::new();
//! let mut writer = FrameWriter::new(&mut out);
//! writer.write_message(&Message::Notification(Notification::new("ping/me", None))).unwrap();
//! writer.write_message(&Message::Notification(Notification::new("again", None))).unwrap();
//! assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), 2);
//!
//! let mut reader = FrameReader::new(&out[..]);
//! let first = reader.read_message().unwrap().unwrap().unwrap();
//! assert_eq!(first, Message::Notification(Notification::new("ping/me", None)));
//! assert!(reader.read_message().unwrap().is_some());
//! assert!(reader.read_message().unwrap().is_none()); // end of input
//! ```
//!
//! With the `tokio` feature, `AsyncFrameReader` and `AsyncFrameWriter`
//! do the same over `AsyncBufRead` / `AsyncWrite`.

use std::io::{self, BufRead, Write};

use serde::Serialize;

use crate::error::ErrorObject;
use crate::message::{Message, MessageError, RequestId, parse_message};
use crate::recover::IdFinder;

/// The default maximum line length: 8 MiB (8,388,608 bytes).
pub const DEFAULT_MAX_LINE_LEN: usize = 8 * 1024 * 1024;

/// A line could not be read or a message could not be written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A line was longer than the maximum. It was discarded without being
    /// held in memory; reading carries on with the next line.
    #[error("line of {len} bytes exceeds the maximum line length of {max} bytes; it was discarded")]
    LineTooLong {
        /// The configured maximum, in bytes.
        max: usize,
        /// The length of the discarded line, in bytes (without its `\n`).
        len: usize,
        /// The line's request id, when it names one: the line is searched
        /// as it streams past, in constant memory
        /// ([`crate::recover::IdFinder`]), so an id after megabytes of
        /// `params` is still found.
        id: Option<RequestId>,
    },
    /// The underlying reader or writer failed.
    #[error("I/O error: {0}")]
    Io(#[from] io::Error),
    /// A value could not be turned into JSON (never for this crate's types).
    #[error("cannot serialize message: {0}")]
    Serialize(#[source] serde_json::Error),
}

impl FrameError {
    /// The JSON-RPC error to answer a framing failure with, if any:
    /// -32600 for an over-long line (`None` for I/O and serialization
    /// failures, which cannot be answered on the same stream).
    pub fn to_error_object(&self) -> Option<ErrorObject> {
        match self {
            Self::LineTooLong { max, len, .. } => Some(ErrorObject::invalid_request(format!(
                "message of {len} bytes exceeds the maximum line length of {max} bytes"
            ))),
            _ => None,
        }
    }
}

/// What one step of line assembly produced.
enum Outcome {
    Line(Vec<u8>),
    TooLong(usize, Option<RequestId>),
}

/// What `read_line` returns: the next line, `None` at end of input.
type LineResult = Result<Option<Vec<u8>>, FrameError>;

/// The line-assembly state shared by the sync and async readers.
#[derive(Debug)]
struct LineState {
    buf: Vec<u8>,
    max: usize,
    /// `Some((n, finder))` while discarding an over-long line of `n` bytes
    /// so far; `finder` looks for its request id.
    discarding: Option<(usize, IdFinder)>,
    /// The input has ended: the readers stop asking it for bytes.
    eof: bool,
}

/// Where the first `\n` of `bytes` is: looked for 16 bytes at a time (a
/// comparison without early exit, which the compiler makes one vector
/// instruction), then byte by byte in the block that has it.
fn newline_in(bytes: &[u8]) -> Option<usize> {
    let mut blocks = bytes.chunks_exact(16);
    let mut at = 0;
    for block in blocks.by_ref() {
        if block.iter().fold(false, |seen, &b| seen | (b == b'\n')) {
            return block.iter().position(|&b| b == b'\n').map(|i| at + i);
        }
        at += 16;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| b == b'\n')
        .map(|i| at + i)
}

impl LineState {
    fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            max,
            discarding: None,
            eof: false,
        }
    }

    /// One turn of a reader's loop over `chunk`, the bytes its input has
    /// buffered (empty when the input has ended; the readers pass an empty
    /// chunk once [`LineState::eof`] is set, without reading). Returns how
    /// many bytes of `chunk` to consume, and what `read_line` returns when
    /// this turn has it; `None` means read on.
    fn step(&mut self, chunk: &[u8]) -> (usize, Option<LineResult>) {
        let (consumed, outcome) = if self.eof {
            match self.finish() {
                Some(outcome) => (0, outcome),
                None => return (0, Some(Ok(None))),
            }
        } else if chunk.is_empty() {
            self.eof = true;
            return (0, None);
        } else {
            match self.feed(chunk) {
                (consumed, Some(outcome)) => (consumed, outcome),
                (consumed, None) => return (consumed, None),
            }
        };
        (consumed, self.deliver(outcome))
    }

    /// Feeds bytes; returns how many were consumed and what was completed.
    fn feed(&mut self, chunk: &[u8]) -> (usize, Option<Outcome>) {
        let newline = newline_in(chunk);
        let take = newline.unwrap_or(chunk.len());
        let consumed = newline.map_or(take, |i| i + 1);

        if let Some((seen, finder)) = self.discarding.as_mut() {
            *seen += take;
            finder.feed(&chunk[..take]);
            if newline.is_some() {
                let (len, finder) = self.discarding.take().unwrap_or_default();
                return (consumed, Some(Outcome::TooLong(len, finder.id())));
            }
            return (consumed, None);
        }
        if self.buf.len() + take > self.max {
            let head = std::mem::take(&mut self.buf);
            let mut finder = IdFinder::new();
            finder.feed(&head);
            self.discarding = Some((head.len(), finder));
            return self.feed(chunk);
        }
        self.buf.extend_from_slice(&chunk[..take]);
        if newline.is_some() {
            return (consumed, Some(Outcome::Line(self.take_line())));
        }
        (consumed, None)
    }

    /// At end of input: the unterminated last line, if any.
    fn finish(&mut self) -> Option<Outcome> {
        if let Some((len, finder)) = self.discarding.take() {
            return Some(Outcome::TooLong(len, finder.id()));
        }
        if self.buf.is_empty() {
            None
        } else {
            Some(Outcome::Line(self.take_line()))
        }
    }

    fn take_line(&mut self) -> Vec<u8> {
        let mut line = std::mem::take(&mut self.buf);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        line
    }

    /// Turns an outcome into what the reader returns; `None` = blank line, skip it.
    fn deliver(&self, outcome: Outcome) -> Option<LineResult> {
        match outcome {
            Outcome::Line(line) if line.trim_ascii().is_empty() => None,
            Outcome::Line(line) => Some(Ok(Some(line))),
            Outcome::TooLong(len, id) => Some(Err(FrameError::LineTooLong {
                max: self.max,
                len,
                id,
            })),
        }
    }
}

/// `new`, `with_max_line_len` and `into_inner`: the same for the sync and
/// the async reader, each a `{ inner, state }` struct.
macro_rules! reader_constructors {
    () => {
        /// A reader with the default maximum line length (8 MiB).
        pub fn new(inner: R) -> Self {
            Self::with_max_line_len(inner, DEFAULT_MAX_LINE_LEN)
        }

        /// A reader that discards lines longer than `max` bytes.
        pub fn with_max_line_len(inner: R, max: usize) -> Self {
            Self {
                inner,
                state: LineState::new(max),
            }
        }

        /// The underlying reader.
        pub fn into_inner(self) -> R {
            self.inner
        }
    };
}

/// Reads newline-delimited messages from a [`BufRead`].
#[derive(Debug)]
pub struct FrameReader<R> {
    inner: R,
    state: LineState,
}

impl<R: BufRead> FrameReader<R> {
    reader_constructors!();

    /// The next non-blank line without its line ending; `Ok(None)` at end
    /// of input.
    ///
    /// # Errors
    /// [`FrameError::LineTooLong`] for an over-long line (call again for the
    /// next line); [`FrameError::Io`] when the reader fails.
    pub fn read_line(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
        loop {
            let chunk = if self.state.eof {
                &[][..]
            } else {
                match self.inner.fill_buf() {
                    Ok(chunk) => chunk,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e.into()),
                }
            };
            let (consumed, line) = self.state.step(chunk);
            self.inner.consume(consumed);
            if let Some(line) = line {
                return line;
            }
        }
    }

    /// The next message: `Ok(None)` at end of input, `Ok(Some(Err(_)))` for
    /// a line that is not a valid message (answer it and read on).
    ///
    /// # Errors
    /// As [`FrameReader::read_line`].
    pub fn read_message(&mut self) -> Result<Option<Result<Message, MessageError>>, FrameError> {
        Ok(self.read_line()?.map(|line| parse_message(&line)))
    }
}

impl<R: BufRead> Iterator for FrameReader<R> {
    type Item = Result<Vec<u8>, FrameError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.read_line().transpose()
    }
}

/// Serializes `value` as one line: compact JSON followed by `\n`. Compact
/// JSON never contains a raw newline (strings escape it), so the result is
/// exactly one line.
///
/// # Errors
/// [`FrameError::Serialize`] if `value` cannot be turned into JSON.
pub fn encode_line<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, FrameError> {
    let mut buf = serde_json::to_vec(value).map_err(FrameError::Serialize)?;
    buf.push(b'\n');
    Ok(buf)
}

/// Writes messages one per line to a [`Write`], flushing after each.
#[derive(Debug)]
pub struct FrameWriter<W> {
    inner: W,
}

impl<W: Write> FrameWriter<W> {
    /// A writer over `inner`.
    pub fn new(inner: W) -> Self {
        Self { inner }
    }

    /// Writes `message` as one line and flushes.
    ///
    /// # Errors
    /// [`FrameError::Io`] when the writer fails.
    pub fn write_message(&mut self, message: &Message) -> Result<(), FrameError> {
        self.write_json(message)
    }

    /// Writes any serializable value as one line and flushes.
    ///
    /// # Errors
    /// [`FrameError::Serialize`] or [`FrameError::Io`].
    pub fn write_json<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), FrameError> {
        let line = encode_line(value)?;
        self.inner.write_all(&line)?;
        self.inner.flush()?;
        Ok(())
    }

    /// The underlying writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

#[cfg(feature = "tokio")]
pub use self::tokio_impl::{AsyncFrameReader, AsyncFrameWriter};

#[cfg(feature = "tokio")]
mod tokio_impl {
    use serde::Serialize;
    use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

    use super::{DEFAULT_MAX_LINE_LEN, FrameError, LineState, encode_line};
    use crate::message::{Message, MessageError, parse_message};

    /// The async twin of [`super::FrameReader`] (feature `tokio`).
    #[derive(Debug)]
    pub struct AsyncFrameReader<R> {
        inner: R,
        state: LineState,
    }

    impl<R: AsyncBufRead + Unpin> AsyncFrameReader<R> {
        reader_constructors!();

        /// The next non-blank line; `Ok(None)` at end of input.
        ///
        /// Cancel safety: bytes already taken from the reader are kept in
        /// `self`, so dropping the future and calling again loses nothing.
        ///
        /// # Errors
        /// As [`super::FrameReader::read_line`].
        pub async fn read_line(&mut self) -> Result<Option<Vec<u8>>, FrameError> {
            loop {
                let chunk = if self.state.eof {
                    &[][..]
                } else {
                    self.inner.fill_buf().await?
                };
                let (consumed, line) = self.state.step(chunk);
                self.inner.consume(consumed);
                if let Some(line) = line {
                    return line;
                }
            }
        }

        /// The next message; see [`super::FrameReader::read_message`].
        ///
        /// # Errors
        /// As [`AsyncFrameReader::read_line`].
        pub async fn read_message(
            &mut self,
        ) -> Result<Option<Result<Message, MessageError>>, FrameError> {
            Ok(self.read_line().await?.map(|line| parse_message(&line)))
        }
    }

    /// The async twin of [`super::FrameWriter`] (feature `tokio`).
    #[derive(Debug)]
    pub struct AsyncFrameWriter<W> {
        inner: W,
    }

    impl<W: AsyncWrite + Unpin> AsyncFrameWriter<W> {
        /// A writer over `inner`.
        pub fn new(inner: W) -> Self {
            Self { inner }
        }

        /// Writes `message` as one line and flushes.
        ///
        /// # Errors
        /// [`FrameError::Io`] when the writer fails.
        pub async fn write_message(&mut self, message: &Message) -> Result<(), FrameError> {
            self.write_json(message).await
        }

        /// Writes any serializable value as one line and flushes.
        ///
        /// # Errors
        /// [`FrameError::Serialize`] or [`FrameError::Io`].
        pub async fn write_json<T: Serialize + ?Sized>(
            &mut self,
            value: &T,
        ) -> Result<(), FrameError> {
            let line = encode_line(value)?;
            self.inner.write_all(&line).await?;
            self.inner.flush().await?;
            Ok(())
        }

        /// The underlying writer.
        pub fn into_inner(self) -> W {
            self.inner
        }
    }
}

#[cfg(test)]
mod tests {
    use super::newline_in;

    #[test]
    fn the_first_line_feed_is_found_wherever_it_is() {
        for len in 0..70 {
            let none = vec![b'a'; len];
            assert_eq!(newline_in(&none), None);
            for at in 0..len {
                let mut bytes = none.clone();
                bytes[at] = b'\n';
                bytes[len - 1] = b'\n';
                assert_eq!(newline_in(&bytes), Some(at), "{len} {at}");
            }
        }
    }
}
