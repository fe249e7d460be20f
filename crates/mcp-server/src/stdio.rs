//! The stdio transport's streams: the reader side (mcp-proto's bounded
//! newline framing, delivered to the connection loop over a channel so the
//! loop never holds a half-read line), and a writer that tells when the
//! first answer has gone out.

use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_proto::framing::{AsyncFrameReader, FrameError};
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::mpsc;

use crate::connection::Incoming;

/// Reads `input` line by line into `tx` until end of input, a read error, or
/// `tx` closing. A line over `max_line_bytes` is skipped without being held
/// in memory (mcp-proto framing) and sent as [`Incoming::Refused`]; blank
/// lines are skipped.
///
/// # Errors
/// The read error that ended the input.
pub async fn read_lines<R: AsyncRead + Unpin>(
    input: R,
    max_line_bytes: usize,
    tx: mpsc::Sender<Incoming>,
) -> std::io::Result<()> {
    // 16 KiB: most messages in one read. The buffer is zeroed when it is
    // made; 64 KiB cost a start 66,000 instructions and 16 page faults.
    let mut reader = AsyncFrameReader::with_max_line_len(
        BufReader::with_capacity(16 * 1024, input),
        max_line_bytes,
    );
    loop {
        let incoming = match reader.read_line().await {
            Ok(Some(line)) => Incoming::Text(line),
            Ok(None) => return Ok(()),
            Err(error) => match error.to_error_object() {
                Some(answer) => Incoming::Refused {
                    id: match &error {
                        FrameError::LineTooLong { id, .. } => id.clone(),
                        _ => None,
                    },
                    error: answer,
                },
                None => {
                    return Err(match error {
                        FrameError::Io(io) => io,
                        other => std::io::Error::other(other.to_string()),
                    });
                }
            },
        };
        if tx.send(incoming).await.is_err() {
            return Ok(());
        }
    }
}

/// A boxed reader for [`pipes`].
pub(crate) type Input = Box<dyn AsyncRead + Unpin + Send>;
/// A boxed writer for [`pipes`].
pub(crate) type Output = Box<dyn tokio::io::AsyncWrite + Unpin + Send>;

/// A writer that says when its first bytes have been written: over stdio,
/// when a session's first answer has gone out.
pub(crate) struct FirstWrite<W> {
    inner: W,
    written: Option<tokio::sync::oneshot::Sender<()>>,
}

impl<W> FirstWrite<W> {
    /// `inner`, completing `written` after its first write of one byte or
    /// more.
    pub(crate) fn new(inner: W, written: tokio::sync::oneshot::Sender<()>) -> Self {
        Self {
            inner,
            written: Some(written),
        }
    }

    fn wrote(&mut self, result: &Poll<std::io::Result<usize>>) {
        if matches!(result, Poll::Ready(Ok(n)) if *n > 0)
            && let Some(written) = self.written.take()
        {
            let _ = written.send(());
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for FirstWrite<W> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.wrote(&result);
        result
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let result = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.wrote(&result);
        result
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The process's stdin and stdout as async streams (call inside a Tokio
/// runtime).
///
/// When they are pipes or Unix sockets (how MCP clients spawn a server:
/// pipes from most, a socket pair from Node's `child_process`), they are
/// set non-blocking and driven by the runtime's event loop, so a message in
/// or out costs a system call and no hop to a blocking thread. Anything
/// else (a terminal, a file, stdout shared with stderr) falls back to
/// Tokio's `stdin()` / `stdout()`, which do each read and write on the
/// blocking pool.
pub(crate) fn pipes() -> (Input, Output) {
    let input = unix::event_driven_stdin().unwrap_or_else(|| Box::new(tokio::io::stdin()));
    let output = unix::event_driven_stdout().unwrap_or_else(|| Box::new(tokio::io::stdout()));
    (input, output)
}

#[cfg(unix)]
mod unix {
    use std::fs::File;
    use std::os::fd::{AsFd, OwnedFd};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};

    use tokio::net::unix::pipe;

    use super::{Input, Output};

    /// What a standard stream is, when the event loop can drive it.
    enum Kind {
        Pipe(File),
        Socket(std::os::unix::net::UnixStream),
    }

    /// A duplicate of `fd` when it is a pipe or a Unix stream socket.
    fn classify(fd: impl AsFd) -> Option<Kind> {
        let file = File::from(fd.as_fd().try_clone_to_owned().ok()?);
        let kind = file.metadata().ok()?.file_type();
        if kind.is_fifo() {
            return Some(Kind::Pipe(file));
        }
        if kind.is_socket() {
            let socket = std::os::unix::net::UnixStream::from(OwnedFd::from(file));
            // A TCP socket (inetd-style) is no Unix socket: leave it alone.
            socket.local_addr().ok()?;
            socket.set_nonblocking(true).ok()?;
            return Some(Kind::Socket(socket));
        }
        None
    }

    pub(super) fn event_driven_stdin() -> Option<Input> {
        match classify(std::io::stdin())? {
            Kind::Pipe(file) => Some(Box::new(pipe::Receiver::from_file(file).ok()?)),
            Kind::Socket(socket) => Some(Box::new(tokio::net::UnixStream::from_std(socket).ok()?)),
        }
    }

    pub(super) fn event_driven_stdout() -> Option<Output> {
        // Non-blocking mode belongs to the open file, which stdout and
        // stderr share after `2>&1`: then keep stdout blocking so log lines
        // on stderr are never cut short by EAGAIN.
        let same =
            |a: &std::fs::Metadata, b: &std::fs::Metadata| a.dev() == b.dev() && a.ino() == b.ino();
        let out = File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
        let err = File::from(std::io::stderr().as_fd().try_clone_to_owned().ok()?);
        if let (Ok(out), Ok(err)) = (out.metadata(), err.metadata())
            && same(&out, &err)
        {
            return None;
        }
        match classify(std::io::stdout())? {
            Kind::Pipe(file) => Some(Box::new(pipe::Sender::from_file(file).ok()?)),
            Kind::Socket(socket) => Some(Box::new(tokio::net::UnixStream::from_std(socket).ok()?)),
        }
    }
}

#[cfg(not(unix))]
mod unix {
    use super::{Input, Output};

    pub(super) fn event_driven_stdin() -> Option<Input> {
        None
    }

    pub(super) fn event_driven_stdout() -> Option<Output> {
        None
    }
}
