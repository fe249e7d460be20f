//! mcp-door's integration tests: one binary, one module per concern.

mod common;
mod conformance;
mod forwarding;
mod garbage;
mod github;
mod listen;
mod own_document;
mod projection;
mod refusal;
