//! An incremental parser for `text/event-stream` (WHATWG HTML "Server-sent
//! events", §9.2.6 "Interpreting an event stream"), as MCP's streamable
//! HTTP transport uses it (MCP 2025-11-25 basic/transports).
//!
//! Feed it bytes as they arrive, split anywhere; it returns each event once
//! its closing blank line is seen. Lines end in CR, LF or CRLF; `field:
//! value` loses one optional space after the colon; several `data:` lines
//! join with `\n`; lines starting with `:` are comments; `id` and `retry`
//! are remembered across events. An event larger than the size bound is
//! dropped with an error instead of growing without end.
//!
//! ```
//! use mcp_proto::sse::SseParser;
//!
//! let mut parser = SseParser::new();
//! assert!(parser.feed(b"event: message\nid: 7\ndata: {\"a\":").is_empty());
//! let events = parser.feed(b"1}\ndata: x\r\n\r\n");
//! let event = events[0].as_ref().unwrap();
//! assert_eq!(event.event, "message");
//! assert_eq!(event.data, "{\"a\":1}\nx");
//! assert_eq!(event.id.as_deref(), Some("7"));
//! ```

/// The default bound on one event: 8 MiB (8,388,608 bytes) of raw lines.
pub const DEFAULT_MAX_EVENT_SIZE: usize = 8 * 1024 * 1024;

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type: the last `event:` field, or `"message"` when none.
    pub event: String,
    /// The `data:` lines joined with `\n`. An event with no `data:` line
    /// at all is not dispatched (WHATWG); one with `data:` and nothing
    /// after it has empty data.
    pub data: String,
    /// The last event id seen so far in the stream (`id:` persists across
    /// events), `None` while it is empty.
    pub id: Option<String>,
}

/// An event could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SseError {
    /// An event grew past the size bound; the rest of it, up to its closing
    /// blank line, is discarded and parsing resumes after it.
    #[error("event exceeds the maximum size of {max} bytes; it was discarded")]
    EventTooLarge {
        /// The configured bound, in bytes.
        max: usize,
    },
}

/// The incremental `text/event-stream` parser; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct SseParser {
    max_event_size: usize,
    /// The current, incomplete line (raw bytes; decoded once complete).
    line: Vec<u8>,
    /// Whether the previous byte was a CR, so a following LF is skipped.
    after_cr: bool,
    /// Whether the first line (which may start with a BOM) is still to come.
    first_line: bool,
    /// Raw bytes of the completed lines of the current event.
    event_size: usize,
    /// Whether the current event is being discarded for size.
    discarding: bool,
    data: String,
    event_type: String,
    last_event_id: String,
    retry: Option<u64>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new()
    }
}

impl SseParser {
    /// A parser with the default event size bound (8 MiB).
    pub fn new() -> Self {
        Self::with_max_event_size(DEFAULT_MAX_EVENT_SIZE)
    }

    /// A parser that drops events larger than `max` bytes of raw lines.
    pub fn with_max_event_size(max: usize) -> Self {
        Self {
            max_event_size: max,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            event_size: 0,
            discarding: false,
            data: String::new(),
            event_type: String::new(),
            last_event_id: String::new(),
            retry: None,
        }
    }

    /// The last event id seen (`id:` field), empty when none; what a client
    /// sends as `Last-Event-ID` when it reconnects.
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The reconnection time from the last valid `retry:` field, in
    /// milliseconds.
    pub fn retry(&self) -> Option<u64> {
        self.retry
    }

    /// Feeds the next bytes of the stream; returns the events (and size
    /// errors) completed by them, in stream order.
    pub fn feed(&mut self, mut chunk: &[u8]) -> Vec<Result<SseEvent, SseError>> {
        let mut out = Vec::new();
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match chunk.iter().position(|&b| b == b'\r' || b == b'\n') {
                Some(i) => {
                    self.append(&chunk[..i], &mut out);
                    self.after_cr = chunk[i] == b'\r';
                    chunk = &chunk[i + 1..];
                    self.end_line(&mut out);
                }
                None => {
                    self.append(chunk, &mut out);
                    chunk = &[];
                }
            }
        }
        out
    }

    /// Adds bytes to the current line, enforcing the size bound.
    fn append(&mut self, bytes: &[u8], out: &mut Vec<Result<SseEvent, SseError>>) {
        if self.discarding {
            // Only whether the line is empty matters while discarding.
            if !bytes.is_empty() && self.line.is_empty() {
                self.line.push(b'x');
            }
            return;
        }
        if self.event_size + self.line.len() + bytes.len() > self.max_event_size {
            self.discarding = true;
            self.line.clear();
            self.line.push(b'x');
            self.data = String::new();
            out.push(Err(SseError::EventTooLarge {
                max: self.max_event_size,
            }));
            return;
        }
        self.line.extend_from_slice(bytes);
    }

    fn end_line(&mut self, out: &mut Vec<Result<SseEvent, SseError>>) {
        let raw = std::mem::take(&mut self.line);
        if self.discarding {
            if raw.is_empty() {
                self.discarding = false;
                self.event_size = 0;
                self.event_type.clear();
                self.data.clear();
            }
            return;
        }
        let mut bytes = &raw[..];
        if self.first_line {
            self.first_line = false;
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.is_empty() {
            self.dispatch(out);
            return;
        }
        self.event_size += raw.len();
        let line = String::from_utf8_lossy(bytes);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event_type),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            "id" if !value.contains('\0') => value.clone_into(&mut self.last_event_id),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut Vec<Result<SseEvent, SseError>>) {
        self.event_size = 0;
        let event_type = std::mem::take(&mut self.event_type);
        if self.data.is_empty() {
            return;
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the `\n` after the last data line
        out.push(Ok(SseEvent {
            event: if event_type.is_empty() {
                "message".to_owned()
            } else {
                event_type
            },
            data,
            id: (!self.last_event_id.is_empty()).then(|| self.last_event_id.clone()),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(parser: &mut SseParser, input: &[u8]) -> Vec<Result<SseEvent, SseError>> {
        parser.feed(input)
    }

    #[test]
    fn whatwg_example_fields() {
        let mut p = SseParser::new();
        let got = events(
            &mut p,
            b": comment\ndata\ndata:  two spaces\nretry: 1500\nretry: x\n\n",
        );
        assert_eq!(
            got,
            vec![Ok(SseEvent {
                event: "message".into(),
                data: "\n two spaces".into(),
                id: None
            })]
        );
        assert_eq!(p.retry(), Some(1500));
    }

    #[test]
    fn data_less_event_is_not_dispatched_but_id_is_kept() {
        let mut p = SseParser::new();
        assert_eq!(
            events(&mut p, b"id: prime-1\ndata:\n\n"),
            vec![Ok(SseEvent {
                event: "message".into(),
                data: String::new(),
                id: Some("prime-1".into())
            })]
        );
        let mut p = SseParser::new();
        assert!(events(&mut p, b"id: prime-1\n\n").is_empty());
        assert_eq!(p.last_event_id(), "prime-1");
    }

    #[test]
    fn cr_only_and_bom() {
        let mut p = SseParser::new();
        let got = events(&mut p, b"\xEF\xBB\xBFdata: a\rdata: b\r\r");
        assert_eq!(got[0].as_ref().unwrap().data, "a\nb");
    }

    #[test]
    fn oversized_event_is_dropped_and_parsing_resumes() {
        let mut p = SseParser::with_max_event_size(16);
        let got = events(
            &mut p,
            b"data: 0123456789abcdef\ndata: more\n\ndata: ok\n\n",
        );
        assert_eq!(
            got,
            vec![
                Err(SseError::EventTooLarge { max: 16 }),
                Ok(SseEvent {
                    event: "message".into(),
                    data: "ok".into(),
                    id: None
                })
            ]
        );
    }
}
