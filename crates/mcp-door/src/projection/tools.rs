//! The tools of `tools/list` (HIP-0300 §1.3): `describe`, and one tool per
//! subsystem taking `{op, input}`.

use mcp_proto::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use super::{DESCRIBE, OpEntry};
use crate::naming::words;

/// The members of `v`, an object literal (empty for anything else).
fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    }
}

/// `describe`, listed first: `{op}` to an op's input schema.
pub(crate) fn describe_tool() -> Tool {
    Tool {
        name: DESCRIBE.into(),
        description: Some(
            "Returns the input schema of one op of the tools listed here: call it with \
             {\"op\": \"<name from a tool's op enum>\"}. The schema merges the op's path, query \
             and header parameters and its request body into one object; pass that object as \
             `input` to the op's tool."
                .into(),
        ),
        input_schema: object(json!({
            "type": "object",
            "properties": {"op": {"type": "string", "description": "An op name from any tool's op enum."}},
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

/// The tool of subsystem `name`: its ops as the enum of `op`, read-only
/// when every op is a GET or HEAD.
pub(crate) fn subsystem_tool(name: &str, description: Option<String>, entries: &[OpEntry]) -> Tool {
    let ops: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let lead = description
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| format!("The {} operations.", words(name).join(" ")));
    let description = format!(
        "{lead} Ops: {}. Call describe with {{\"op\"}} for an op's input, then this tool with {{\"op\", \"input\"}}.",
        ops.join(", ")
    );
    let read_only = entries.iter().all(|e| matches!(e.method, "get" | "head"));
    Tool {
        name: name.to_owned(),
        description: Some(description),
        input_schema: object(json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ops},
                "input": {"type": "object", "description": "The op's input, as describe returns its schema."}
            },
            "required": ["op"],
            "additionalProperties": false
        })),
        annotations: read_only.then(|| ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }),
        ..Tool::default()
    }
}

/// The first sentence of `text`'s first non-blank line, at most 200
/// characters, ending in a full stop: a tag description made a tool's lead.
pub(crate) fn first_sentence(text: &str) -> String {
    let line = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let end = line.find(". ").map_or(line.len(), |i| i + 1);
    let mut s: String = line[..end].chars().take(200).collect();
    if !s.ends_with('.') && !s.is_empty() {
        s.push('.');
    }
    s
}
