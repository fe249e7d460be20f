use serde::Serialize;
use serde_json::Value;

use crate::decode::{DecodeError, FromValue, wire_deserialize, wire_struct};

/// Severity of a log message, RFC 5424 levels from `debug` to `emergency`
/// (MCP 2025-11-25 server/utilities/logging). Ordered: `Debug < Emergency`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Debugging detail.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// Warning.
    Warning,
    /// Error.
    Error,
    /// Critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

/// The levels' wire names in words: one literal for [`LoggingLevel::NAMES`]
/// and the decode error, which needs a `&'static str` built by `concat!`.
macro_rules! level_names {
    () => {
        "debug, info, notice, warning, error, critical, alert or emergency"
    };
}

impl LoggingLevel {
    /// Every level, least severe first (RFC 5424 order).
    pub const ALL: [LoggingLevel; 8] = [
        LoggingLevel::Debug,
        LoggingLevel::Info,
        LoggingLevel::Notice,
        LoggingLevel::Warning,
        LoggingLevel::Error,
        LoggingLevel::Critical,
        LoggingLevel::Alert,
        LoggingLevel::Emergency,
    ];

    /// The levels' wire names in words, for error messages.
    pub const NAMES: &'static str = level_names!();

    /// The wire name, such as `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

impl FromValue for LoggingLevel {
    fn from_value(value: Value) -> Result<Self, DecodeError> {
        value
            .as_str()
            .and_then(|s| Self::ALL.into_iter().find(|l| l.as_str() == s))
            .ok_or_else(|| {
                DecodeError::invalid(concat!("a logging level (", level_names!(), ")"), &value)
            })
    }
}

wire_deserialize!(LoggingLevel);

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
