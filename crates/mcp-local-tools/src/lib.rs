//! mcp-local-tools (being built).
#![deny(missing_docs)]
