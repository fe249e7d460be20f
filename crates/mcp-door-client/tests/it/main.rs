//! The integration tests of `mcp-door-client`, one binary: each module is
//! one area (the fake door's behaviours, the bearer canary, the
//! `hanzo auth token` fallback, hostile sign-in metadata, the 2026-07-28
//! client rules), sharing the helpers in `common`.

mod common;

mod bearer_canary;
mod bearer_cli;
mod door_behaviours;
mod hostile_metadata;
mod raw_forwarding;
mod spec_client_rules;
