//! The single writer of a connection's output: every protocol message goes
//! through an [`Outbox`] to one task that writes it as one line and flushes
//! (stdio), or to the HTTP transport, which routes it by its [`Kind`]
//! without reading it again.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use mcp_proto::{ErrorObject, Message, RequestId, ResponsePayload, meta};
use serde::ser::Serialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Notify, mpsc};

/// One serialized message on its way out, with the client request it belongs
/// to, if any.
///
/// `related` is what the streamable HTTP transport routes by: a server
/// request or notification sent while handling client request `related`
/// travels on the SSE stream of the POST that carried it (MCP 2025-11-25
/// basic/transports, "sending messages to the server"). Over stdio it is
/// ignored.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// The message as JSON text, without a newline.
    pub bytes: Vec<u8>,
    /// The client request this message was sent while handling.
    pub related: Option<RequestId>,
    /// What the message is, for routing without reading `bytes` again.
    pub kind: Kind,
}

impl Outgoing {
    /// The message, parsed again from [`Outgoing::bytes`] (for a consumer
    /// that wants the value rather than the text).
    ///
    /// # Errors
    /// None in practice: the bytes are a message this crate serialized.
    pub fn message(&self) -> Result<Message, ErrorObject> {
        mcp_proto::parse_message(&self.bytes).map_err(|bad| bad.error)
    }
}

/// What an [`Outgoing`] message is.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    /// A response to client request `id` (`None`: an error answering input
    /// whose id could not be read); `error` is the error code when it is
    /// an error response.
    Response {
        /// The request answered.
        id: Option<RequestId>,
        /// The error code of an error response.
        error: Option<i64>,
    },
    /// A request to the client, with our id.
    Request {
        /// Our request id.
        id: RequestId,
    },
    /// A notification; `progress_token` is the token of a
    /// `notifications/progress` (its JSON text).
    Notification {
        /// The token a progress notification names.
        progress_token: Option<String>,
    },
}

impl Kind {
    /// The kind of `message`.
    pub fn of(message: &Message) -> Self {
        match message {
            Message::Response(response) => Kind::Response {
                id: response.id.clone(),
                error: match &response.payload {
                    ResponsePayload::Error(error) => Some(error.code),
                    ResponsePayload::Result(_) => None,
                },
            },
            Message::Request(request) => Kind::Request {
                id: request.id.clone(),
            },
            Message::Notification(notification) => Kind::Notification {
                progress_token: (notification.method == mcp_proto::methods::Progress::NAME)
                    .then(|| notification.params.as_ref()?.get(meta::PROGRESS_TOKEN))
                    .flatten()
                    .map(|token| token.to_string()),
            },
        }
    }
}

/// The bytes of a success response to `id` whose result is the JSON text
/// `result`: the same bytes as `Message::Response` of the parsed result
/// (`jsonrpc`, `id`, `result`, in that order). With `result_type`, an
/// object result gets `"resultType":"complete"` as its first member (the
/// 2026-07-28 shape of a result that lacks it); line ends between tokens
/// become spaces; everything else of the text is kept as it is.
fn result_response(id: &RequestId, result: &str, result_type: bool) -> serde_json::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(result.len() + 64);
    bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    serde_json::to_writer(&mut bytes, id)?;
    bytes.extend_from_slice(br#","result":"#);
    match result.strip_prefix('{') {
        Some(members) if result_type => {
            bytes.extend_from_slice(br#"{"resultType":"complete""#);
            if !members.trim_start().starts_with('}') {
                bytes.push(b',');
            }
            bytes.extend_from_slice(members.as_bytes());
        }
        _ => bytes.extend_from_slice(result.as_bytes()),
    }
    bytes.push(b'}');
    // A line end in the text can only be whitespace between tokens (JSON
    // strings escape theirs), but it would split the message on a
    // newline-delimited stream (MCP 2025-11-25 basic/transports, stdio:
    // messages contain no embedded newline): each becomes a space.
    let at: Vec<usize> = memchr::memchr2_iter(b'\n', b'\r', &bytes).collect();
    for at in at {
        bytes[at] = b' ';
    }
    Ok(bytes)
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
    backlog: Option<Arc<Backlog>>,
}

/// The bytes queued for a [`write_loop`] and not yet written, shared by
/// every handle of a bounded outbox ([`Outbox::bounded`]).
#[derive(Debug)]
pub struct Backlog {
    /// Bytes queued and not yet written.
    queued: AtomicUsize,
    /// Above this many queued bytes the outbox is full.
    limit: usize,
    /// Signalled whenever the writer wrote a batch.
    drained: Notify,
    /// Whether a dropped notification was already reported.
    warned: AtomicBool,
}

impl Backlog {
    /// Whether more than the limit is queued.
    pub fn is_full(&self) -> bool {
        self.queued.load(Ordering::Relaxed) > self.limit
    }

    /// Completes once the writer wrote something since the last call (or
    /// right away when it did meanwhile).
    pub async fn drained(&self) {
        self.drained.notified().await;
    }

    pub(crate) fn written(&self, bytes: usize) {
        self.queued.fetch_sub(bytes, Ordering::Relaxed);
        self.drained.notify_one();
    }
}

impl Outbox {
    /// A new outbox without a bound and the receiving end its writer drains.
    pub fn channel() -> (Self, mpsc::UnboundedReceiver<Outgoing>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (
            Self {
                tx,
                related: None,
                backlog: None,
            },
            rx,
        )
    }

    /// A new outbox that counts the bytes queued for [`write_loop`]: once
    /// more than `limit_bytes` wait, [`Backlog::is_full`] says so (the
    /// connection loop stops reading input until the writer catches up) and
    /// [`Outbox::send_lossy`] drops its message. The receiver must be
    /// drained by [`write_loop`] with the same backlog.
    pub fn bounded(limit_bytes: usize) -> (Self, mpsc::UnboundedReceiver<Outgoing>, Arc<Backlog>) {
        let (mut outbox, rx) = Self::channel();
        let backlog = Arc::new(Backlog {
            queued: AtomicUsize::new(0),
            limit: limit_bytes,
            drained: Notify::new(),
            warned: AtomicBool::new(false),
        });
        outbox.backlog = Some(backlog.clone());
        (outbox, rx, backlog)
    }

    /// A handle on the same queue whose messages are marked as sent while
    /// handling client request `id` (see [`Outgoing::related`]).
    pub fn related_to(&self, id: RequestId) -> Self {
        Self {
            tx: self.tx.clone(),
            related: Some(id),
            backlog: self.backlog.clone(),
        }
    }

    /// The shared byte count of a bounded outbox.
    pub fn backlog(&self) -> Option<&Arc<Backlog>> {
        self.backlog.as_ref()
    }

    /// Like [`Outbox::send`] for a message that may be lost (progress and
    /// log notifications): when the outbox is full it is dropped (one
    /// warning per full spell) and `false` returned, so a tool that
    /// reports faster than the client reads never grows memory or blocks.
    pub fn send_lossy(&self, message: &Message) -> bool {
        if let Some(backlog) = &self.backlog {
            if backlog.is_full() {
                if !backlog.warned.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "output backlog full: dropping progress and log notifications until the client reads"
                    );
                }
                return false;
            }
            backlog.warned.store(false, Ordering::Relaxed);
        }
        self.send(message)
    }

    /// Queues `message`. Returns `false` when the writer is gone (output
    /// closed) or the message cannot be serialized (logged, never sent).
    pub fn send(&self, message: &Message) -> bool {
        self.queue(message, Kind::of(message))
    }

    /// Queues the success response to `id` whose result is the JSON text
    /// `result`, copied as it is; with `result_type`, an object result gets
    /// `"resultType":"complete"` as its first member on the way (a
    /// 2026-07-28 result that lacks it). Returns `false` when the writer is
    /// gone.
    pub fn send_result_text(&self, id: &RequestId, result: &RawValue, result_type: bool) -> bool {
        let kind = Kind::Response {
            id: Some(id.clone()),
            error: None,
        };
        self.queue_bytes(result_response(id, result.get(), result_type), kind)
    }

    fn queue<T: Serialize>(&self, message: &T, kind: Kind) -> bool {
        self.queue_bytes(serde_json::to_vec(message), kind)
    }

    fn queue_bytes(&self, bytes: serde_json::Result<Vec<u8>>, kind: Kind) -> bool {
        match bytes {
            Ok(bytes) => {
                // Counted before it is queued, so the writer never
                // subtracts what was not added yet.
                let len = bytes.len() + 1;
                if let Some(backlog) = &self.backlog {
                    backlog.queued.fetch_add(len, Ordering::Relaxed);
                }
                let sent = self
                    .tx
                    .send(Outgoing {
                        bytes,
                        related: self.related.clone(),
                        kind,
                    })
                    .is_ok();
                if !sent && let Some(backlog) = &self.backlog {
                    backlog.queued.fetch_sub(len, Ordering::Relaxed);
                }
                sent
            }
            Err(error) => {
                tracing::error!(%error, "cannot serialize an outgoing message");
                false
            }
        }
    }
}

/// How many bytes of queued messages one write gathers.
const BATCH_BYTES: usize = 64 * 1024;

/// Above this size a message is not copied to gather it with others, and
/// a buffer this full gathers only what fits its spare room: a `tools/list`
/// of tens of KiB is written from its own bytes, not copied into a buffer
/// grown to twice its size (peak memory).
const GATHER_COPY_MAX: usize = 4 * 1024;

/// Writes every queued message to `out`, one per line, flushing whenever the
/// queue runs empty. Ends when every [`Outbox`] is dropped and the queue is
/// drained, or on the first write error (the queue is then closed, so every
/// later [`Outbox::send`] returns `false`). `backlog`, from
/// [`Outbox::bounded`], is told of every byte written.
pub async fn write_loop<W: AsyncWrite + Unpin>(
    mut out: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
    backlog: Option<Arc<Backlog>>,
) -> std::io::Result<()> {
    // A message taken while gathering that is written on the next turn.
    let mut carried: Option<Outgoing> = None;
    loop {
        let first = match carried.take() {
            Some(message) => message,
            None => match rx.recv().await {
                Some(message) => message,
                None => break,
            },
        };
        if first.bytes.len() >= BATCH_BYTES {
            // A large message goes out as it is, its line end after it,
            // rather than being copied to add one byte.
            out.write_all(&first.bytes).await?;
            out.write_all(b"\n").await?;
            out.flush().await?;
            if let Some(backlog) = &backlog {
                backlog.written(first.bytes.len() + 1);
            }
            continue;
        }
        let mut buf = first.bytes;
        buf.push(b'\n');
        // Gather what is already queued so a burst costs one flush.
        while buf.len() < BATCH_BYTES {
            match rx.try_recv() {
                Ok(next) => {
                    let spare = buf.capacity() - buf.len();
                    if next.bytes.len() > GATHER_COPY_MAX
                        || (buf.len() > GATHER_COPY_MAX && next.bytes.len() >= spare)
                    {
                        carried = Some(next);
                        break;
                    }
                    buf.extend_from_slice(&next.bytes);
                    buf.push(b'\n');
                }
                Err(_) => break,
            }
        }
        out.write_all(&buf).await?;
        out.flush().await?;
        if let Some(backlog) = &backlog {
            backlog.written(buf.len());
        }
    }
    out.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(result: &str, result_type: bool) -> String {
        let bytes = result_response(&RequestId::Number(7), result, result_type).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn result_text_is_copied_and_result_type_spliced_first() {
        // The bytes `Message::Response` of the parsed result has.
        let compact = r#"{"content":[{"text":"a","type":"text"}],"isError":false}"#;
        let value: serde_json::Value = serde_json::from_str(compact).unwrap();
        let message = Message::Response(mcp_proto::Response::success(RequestId::Number(7), value));
        assert_eq!(
            response(compact, false),
            serde_json::to_string(&message).unwrap()
        );
        let plain = r#"{"content":[],"n":1E2}"#;
        assert_eq!(
            response(plain, false),
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"n":1E2}}"#
        );
        assert_eq!(
            response(plain, true),
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[],"n":1E2}}"#
        );
        assert_eq!(
            response("{ }", true),
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete" }}"#
        );
        assert_eq!(
            response("[1]", true),
            r#"{"jsonrpc":"2.0","id":7,"result":[1]}"#
        );
    }

    /// Queued messages of every size come out in order, one a line, and
    /// the writer is told of every byte, whether a message was gathered
    /// with others, written from its own bytes or held for the next write.
    #[test]
    fn the_writer_keeps_order_whatever_it_gathers() {
        let (outbox, rx, backlog) = Outbox::bounded(1 << 30);
        let sizes = [10, 9_000, 20, 30, 5_000, 3_000, 70_000, 40, 4_500, 50];
        let mut expected = String::new();
        for (n, size) in sizes.into_iter().enumerate() {
            let text = format!("\"{}\"", "x".repeat(size));
            let result = RawValue::from_string(text.clone()).unwrap();
            let id = RequestId::Number(i64::try_from(n).unwrap());
            assert!(outbox.send_result_text(&id, &result, false));
            expected.push_str(&format!(r#"{{"jsonrpc":"2.0","id":{n},"result":{text}}}"#));
            expected.push('\n');
        }
        drop(outbox);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut written = Vec::new();
        runtime
            .block_on(write_loop(&mut written, rx, Some(backlog.clone())))
            .unwrap();
        assert_eq!(String::from_utf8(written).unwrap(), expected);
        assert_eq!(backlog.queued.load(Ordering::Relaxed), 0);
    }
}
