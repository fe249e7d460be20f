//! mcp-door's integration tests: one binary, one module per concern.

mod common;
mod conformance;
mod forwarding;
mod garbage;
mod github;
mod hostile;
mod listen;
mod names;
mod own_document;
mod projection;
mod refusal;
mod security;
