//! mcp-door-client (being built).
#![deny(missing_docs)]
