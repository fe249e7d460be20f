//! mcp-local-server (being built).
#![deny(missing_docs)]
