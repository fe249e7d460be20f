//! What `tools/list` and `help` show of each local tool, kept in
//! `listed.json`.
//!
//! A tool's input schema and the field lists of its `help` text follow
//! from its argument types alone. Making them (schemars over about a
//! hundred argument structs, then every action's fields merged into one
//! object schema) is the work of a test (`generate`), which fails when
//! this file differs from what the types make now, and rewrites it when
//! run with `UPDATE_LISTED=1`. The server only reads it: no schema code
//! runs in it, and none of that work's memory is ever taken.

use std::collections::HashMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Every tool's entry, by tool name: `{"fields": {"<action>": [...]},
/// "inputSchema": {...}}`.
pub(super) const LISTED: &str = include_str!("listed.json");

/// One tool's entry, its members kept as text until one is asked for.
#[derive(serde::Deserialize)]
struct Entry<'a> {
    #[serde(borrow, rename = "inputSchema")]
    input_schema: &'a RawValue,
    #[serde(borrow)]
    fields: &'a RawValue,
}

/// The entry of `tool`, if the file has one.
fn entry(tool: &str) -> Option<Entry<'static>> {
    let mut all: HashMap<&str, Entry<'static>> = serde_json::from_str(LISTED).ok()?;
    all.remove(tool)
}

/// The input schema of `tool`; an object schema without properties for a
/// tool the file does not have (which the test rules out).
pub(super) fn input_schema(tool: &str) -> Map<String, Value> {
    entry(tool)
        .and_then(|entry| serde_json::from_str(entry.input_schema.get()).ok())
        .unwrap_or_else(|| Map::from_iter([("type".to_owned(), Value::from("object"))]))
}

/// Each action's fields as `help` shows them, by action name: the
/// required ones, then the optional ones in brackets (`["path",
/// "[offset]"]`); none for a tool the file does not have (which the test
/// rules out).
pub(super) fn field_lists(tool: &str) -> HashMap<String, Vec<String>> {
    entry(tool)
        .and_then(|entry| serde_json::from_str(entry.fields.get()).ok())
        .unwrap_or_default()
}
