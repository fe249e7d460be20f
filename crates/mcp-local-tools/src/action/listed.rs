//! What `tools/list` and `help` show of each local tool, kept in
//! `listed.json`.
//!
//! A tool's input schema and the field lists of its `help` text follow
//! from its argument types alone. Making them (schemars over about a
//! hundred argument structs, then every action's fields merged into one
//! object schema) is the work of a test (`generate`), which fails when
//! this file differs from what the types make now, and rewrites it when
//! run with `UPDATE_LISTED=1`. The server only reads it: no schema code
//! runs in it, and none of that work's memory is ever taken. A schema
//! stays the file's text ([`ObjectSchema`]) until something reads it as
//! a map (gating narrowing a tool's actions, a mode).

use std::collections::HashMap;
use std::sync::OnceLock;

use mcp_proto::ObjectSchema;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// Every tool's entry, by tool name, one line each: `"<tool>":
/// {"fields": {"<action>": [...]}, "inputSchema": {...}}`. The schemas are
/// written compact, since `tools/list` writes them as they are here.
pub(super) const LISTED: &str = include_str!("listed.json");

/// One tool's entry, its members kept as text until one is asked for.
#[derive(serde::Deserialize)]
struct Entry<'a> {
    #[serde(borrow, rename = "inputSchema")]
    input_schema: &'a RawValue,
    #[serde(borrow)]
    fields: &'a RawValue,
}

/// The entry of `tool`, if the file has one. The file is read once.
fn entry(tool: &str) -> Option<&'static Entry<'static>> {
    static ALL: OnceLock<HashMap<&'static str, Entry<'static>>> = OnceLock::new();
    ALL.get_or_init(|| serde_json::from_str(LISTED).unwrap_or_default())
        .get(tool)
}

/// The input schema of `tool`, kept as the file's text; an object schema
/// without properties for a tool the file does not have (which the test
/// rules out).
pub(super) fn input_schema(tool: &str) -> ObjectSchema {
    let Some(entry) = entry(tool) else {
        return Map::from_iter([("type".to_owned(), Value::from("object"))]).into();
    };
    let text = entry.input_schema.get();
    // Read once already, with the file. Text that cannot be kept as it is
    // (the test rules that out too) is parsed, never dropped: a mode or an
    // allowlist reads its action enum.
    ObjectSchema::from_static_raw(entry.input_schema).unwrap_or_else(|_| {
        serde_json::from_str::<Map<String, Value>>(text)
            .unwrap_or_default()
            .into()
    })
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
