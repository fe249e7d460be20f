//! Keys of `_meta` objects that MCP reserves (MCP 2025-11-25 basic "_meta",
//! MCP 2026-07-28 basic: `RequestMetaObject`, `ResultMetaObject`).

/// The revision a stateless request is written for (2026-07-28, required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The client's capabilities for this request (2026-07-28, required).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// The client's [`crate::Implementation`] (2026-07-28, should be sent).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The server's [`crate::Implementation`] in a result's `_meta` (2026-07-28).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// The [`crate::LoggingLevel`] the client wants for this request (2026-07-28;
/// replaces `logging/setLevel`).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// The token to send `notifications/progress` for (all revisions).
pub const PROGRESS_TOKEN: &str = "progressToken";
