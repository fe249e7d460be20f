//! HTTP/1.1 on a bare byte stream, for tests that must see what a server
//! framework hides: which connection a request came on, answers sent
//! unasked, late or twice, a connection closed without a word.
//!
//! [`RawConnection`] reads request heads (up to the blank line) from any
//! `AsyncRead + AsyncWrite` stream, plain TCP or TLS, and writes whatever
//! bytes the test chooses; [`json_answer`] spells the usual `200` with a
//! JSON body. Request bodies are not read: the requests these tests see
//! carry none.
//!
//! # Example: an upstream that answers every request with its connection's number
//!
//! ```no_run
//! use mcp_fake_door::raw_http::{RawConnection, json_answer};
//!
//! # async fn run() {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! let mut accepted = 0;
//! while let Ok((stream, _)) = listener.accept().await {
//!     accepted += 1;
//!     let number = accepted;
//!     tokio::spawn(async move {
//!         let mut connection = RawConnection::new(stream);
//!         while let Some(_head) = connection.next_head().await {
//!             let body = format!(r#"{{"connection":{number}}}"#);
//!             if !connection.send(&json_answer(&body)).await {
//!                 return;
//!             }
//!         }
//!     });
//! }
//! # }
//! ```

use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};

/// One accepted connection read as a sequence of HTTP/1.1 request heads.
#[derive(Debug)]
pub struct RawConnection<S> {
    stream: S,
    /// Bytes read and not yet returned as a head.
    seen: Vec<u8>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> RawConnection<S> {
    /// Wraps an accepted stream.
    pub fn new(stream: S) -> Self {
        RawConnection {
            stream,
            seen: Vec::new(),
        }
    }

    /// The next request's head (request line and header lines, without the
    /// blank line that ends it), read as UTF-8 with bad bytes replaced;
    /// `None` once the peer closed the connection or reading failed.
    pub async fn next_head(&mut self) -> Option<String> {
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = self.seen.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.seen[..end]).into_owned();
                self.seen.drain(..end + 4);
                return Some(head);
            }
            match self.stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.seen.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Writes `bytes` as they are; `false` when the peer is gone.
    pub async fn send(&mut self, bytes: &str) -> bool {
        self.stream.write_all(bytes.as_bytes()).await.is_ok()
    }
}

/// `HTTP/1.1 200 OK` with `content-type: application/json`, the body's
/// `content-length` and `body`.
pub fn json_answer(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
}

/// The value of header `name` (compared without regard to case) in a head
/// read by [`RawConnection::next_head`], its surrounding spaces trimmed.
pub fn header<'h>(head: &'h str, name: &str) -> Option<&'h str> {
    head.lines().skip(1).find_map(|line| {
        let (key, value) = line.split_once(':')?;
        key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
    })
}
