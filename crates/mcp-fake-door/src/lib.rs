//! mcp-fake-door (being built).
#![deny(missing_docs)]
