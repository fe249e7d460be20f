//! mcp-gating (being built).
#![deny(missing_docs)]
