use serde_json::Value;

use crate::decode::{wire_enum, wire_struct};

/// The levels' wire names in words: one literal for [`LoggingLevel::NAMES`]
/// and the decode error, which needs a `&'static str` built by `concat!`.
macro_rules! level_names {
    () => {
        "debug, info, notice, warning, error, critical, alert or emergency"
    };
}

wire_enum! {
    /// Severity of a log message, RFC 5424 levels from `debug` to `emergency`
    /// (MCP 2025-11-25 server/utilities/logging). Ordered: `Debug < Emergency`;
    /// [`LoggingLevel::ALL`] holds them least severe first.
    #[derive(PartialOrd, Ord)]
    pub enum LoggingLevel {
        /// Debugging detail.
        Debug as "debug",
        /// Informational.
        Info as "info",
        /// Normal but significant.
        Notice as "notice",
        /// Warning.
        Warning as "warning",
        /// Error.
        Error as "error",
        /// Critical condition.
        Critical as "critical",
        /// Action must be taken at once.
        Alert as "alert",
        /// The system is unusable.
        Emergency as "emergency",
    }
    expecting concat!("a logging level (", level_names!(), ")")
}

impl LoggingLevel {
    /// The levels' wire names in words, for error messages.
    pub const NAMES: &'static str = level_names!();
}

wire_struct! {
    /// Params of `logging/setLevel` (MCP 2025-11-25 server/utilities/logging;
    /// replaced by `_meta` key [`crate::meta::LOG_LEVEL`] in 2026-07-28).
    pub struct SetLevelRequestParams {
        /// The lowest level the client wants to receive.
        pub level: LoggingLevel as "level",
        use RequestParams;
    }

    /// Params of `notifications/message`, one log message (MCP 2025-11-25
    /// server/utilities/logging).
    pub struct LoggingMessageNotificationParams {
        /// Severity.
        pub level: LoggingLevel as "level",
        /// The logger's name.
        pub logger: Option<String> as "logger",
        /// The message: any JSON (a string or an object).
        pub data: Value as "data",
        use NotificationParams;
    }
}
