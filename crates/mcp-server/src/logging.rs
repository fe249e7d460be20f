//! Log messages from the server to the client (MCP 2025-11-25
//! server/utilities/logging; 2026-07-28 per-request `_meta` level).
//!
//! - 2024-11-05 to 2025-11-25: `logging/setLevel` sets the connection's
//!   level; until then nothing is sent (the spec lets the server choose, and
//!   silence is what 2026-07-28 requires, so both behave alike).
//! - 2026-07-28: the request's `_meta["io.modelcontextprotocol/logLevel"]`
//!   is the level for that request alone; without it nothing is sent
//!   (`RequestMetaObject`: "the server MUST NOT send any
//!   notifications/message for this request").
//!
//! A [`Logger`] reaches a call through [`CallContext::log`](crate::CallContext::log)
//! when the server has logging ([`Server::with_logging`](crate::Server::with_logging)).

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use mcp_proto::{LoggingLevel, Message, Notification};
use serde_json::{Map, Value};

use crate::outbox::Outbox;

/// Every level, least severe first (RFC 5424 order, as the spec lists them).
const LEVELS: [LoggingLevel; 8] = [
    LoggingLevel::Debug,
    LoggingLevel::Info,
    LoggingLevel::Notice,
    LoggingLevel::Warning,
    LoggingLevel::Error,
    LoggingLevel::Critical,
    LoggingLevel::Alert,
    LoggingLevel::Emergency,
];

/// A connection's level as set by `logging/setLevel`: 0 while unset, else
/// the level's position in [`LEVELS`] plus one. Shared by every call's
/// [`Logger`], so a change applies to calls already running.
#[derive(Debug, Default, Clone)]
pub(crate) struct ConnectionLevel(Arc<AtomicU8>);

impl ConnectionLevel {
    pub(crate) fn set(&self, level: LoggingLevel) {
        self.0.store(encode(level), Ordering::Relaxed);
    }

    fn get(&self) -> Option<LoggingLevel> {
        decode(self.0.load(Ordering::Relaxed))
    }
}

fn encode(level: LoggingLevel) -> u8 {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .map_or(0, |i| i as u8 + 1)
}

fn decode(raw: u8) -> Option<LoggingLevel> {
    LEVELS.get(usize::from(raw).checked_sub(1)?).copied()
}

#[derive(Debug, Clone)]
enum Threshold {
    /// Handshake revisions: the connection's `logging/setLevel`.
    Connection(ConnectionLevel),
    /// 2026-07-28: the request's own `_meta` level, if any.
    Request(Option<LoggingLevel>),
}

/// Sends `notifications/message` for one request, filtered by the level the
/// client asked for. Cloning is cheap.
#[derive(Debug, Clone)]
pub struct Logger {
    outbox: Outbox,
    threshold: Threshold,
}

impl Logger {
    pub(crate) fn for_connection(outbox: Outbox, level: ConnectionLevel) -> Self {
        Self {
            outbox,
            threshold: Threshold::Connection(level),
        }
    }

    pub(crate) fn for_request(outbox: Outbox, level: Option<LoggingLevel>) -> Self {
        Self {
            outbox,
            threshold: Threshold::Request(level),
        }
    }

    /// The least severe level the client wants now; `None` when it wants no
    /// log messages.
    pub fn level(&self) -> Option<LoggingLevel> {
        match &self.threshold {
            Threshold::Connection(level) => level.get(),
            Threshold::Request(level) => *level,
        }
    }

    /// Whether a message at `level` would be sent.
    pub fn enabled(&self, level: LoggingLevel) -> bool {
        self.level().is_some_and(|min| level >= min)
    }

    /// Sends `notifications/message` with `level`, the optional `logger`
    /// name and `data` (any JSON value), when the client's level lets it
    /// through. Returns whether it was queued.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        if !self.enabled(level) {
            return false;
        }
        let mut params = Map::new();
        params.insert("level".into(), Value::String(level.as_str().into()));
        if let Some(logger) = logger {
            params.insert("logger".into(), Value::String(logger.into()));
        }
        params.insert("data".into(), data);
        self.outbox.send_lossy(&Message::Notification(Notification {
            method: mcp_proto::methods::LoggingMessage::NAME.into(),
            params: Some(Value::Object(params)),
        }))
    }
}

impl mcp_sources::ClientLog for Logger {
    fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> bool {
        Logger::log(self, level, logger, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_and_unset_is_none() {
        assert_eq!(decode(0), None);
        for level in LEVELS {
            assert_eq!(decode(encode(level)), Some(level));
        }
        assert_eq!(decode(9), None);
    }

    #[test]
    fn connection_level_filters_less_severe_messages() {
        let (outbox, mut rx) = Outbox::channel();
        let level = ConnectionLevel::default();
        let logger = Logger::for_connection(outbox, level.clone());
        assert!(!logger.log(LoggingLevel::Emergency, None, Value::Null));
        level.set(LoggingLevel::Warning);
        assert!(!logger.log(LoggingLevel::Info, None, Value::Null));
        assert!(logger.log(LoggingLevel::Error, Some("db"), Value::from("down")));
        let sent = rx.try_recv().map(|o| o.bytes).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&sent),
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"down","level":"error","logger":"db"}}"#
        );
        assert!(rx.try_recv().is_err());
    }
}
