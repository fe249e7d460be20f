//! The integration tests of `mcp-proto`, one binary: each module is one
//! area (the envelope, the types, framing, bad input, the official schemas
//! and examples, wire snapshots, properties), sharing the helpers in
//! `common`. Fixtures stay in `tests/fixtures`; snapshots are in
//! `tests/it/snapshots`.

mod common;

mod bad_input;
mod envelope;
mod examples;
mod framing;
mod own_schema;
mod properties;
mod router;
mod schema_validation;
mod types;
mod wire_snapshots;
