//! mcp-proto (being built).
#![deny(missing_docs)]
