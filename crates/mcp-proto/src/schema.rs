//! JSON Schema of the wire types, generated from the Rust types by schemars
//! (JSON Schema draft 2020-12).
//!
//! The schemas describe what this crate reads and writes: member names in
//! their wire form (`inputSchema`, `_meta`), optional members not required,
//! and unknown members allowed (they are kept).
//!
//! ```
//! use mcp_proto::{schema::schema_for, Tool};
//!
//! let schema = serde_json::to_value(schema_for::<Tool>()).unwrap();
//! assert_eq!(schema["required"], serde_json::json!(["name", "inputSchema"]));
//! assert!(schema["properties"]["_meta"].is_object());
//! ```

pub use schemars::{JsonSchema, Schema};

/// The JSON Schema of `T`, with the schemas of the types it uses in `$defs`.
pub fn schema_for<T: JsonSchema>() -> Schema {
    schemars::schema_for!(T)
}
