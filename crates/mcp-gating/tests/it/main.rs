//! The integration tests of `mcp-gating`, one binary: each module is one
//! part of the crate (the configuration, the pure core, the gated surface,
//! `mcp_proto::Tool` with feature `proto`, the properties), sharing the test
//! tool type and configuration helpers in `common`.

mod common;

mod config;
mod properties;
#[cfg(feature = "proto")]
mod proto;
mod resolve_spec;
mod surface;
