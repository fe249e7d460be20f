//! The schemars JSON Schema of the types accepts what the types write and
//! refuses what they cannot read.

use mcp_proto::schema::schema_for;
use mcp_proto::*;
use serde_json::{Value, json};

use crate::common::obj;

fn validator<T: schemars::JsonSchema>() -> jsonschema::Validator {
    let schema = serde_json::to_value(schema_for::<T>()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn tool_schema_matches_the_wire_form() {
    let v = validator::<Tool>();
    let tool = Tool {
        name: "fs".into(),
        input_schema: obj(json!({"type": "object"})).into(),
        annotations: Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    };
    let written = serde_json::to_value(&tool).unwrap();
    assert!(v.is_valid(&written), "{written}");
    assert!(
        !v.is_valid(&json!({"name": "fs"})),
        "inputSchema is required"
    );
    assert!(
        !v.is_valid(&json!({"name": 1, "inputSchema": {}})),
        "name is a string"
    );
}

#[test]
fn call_tool_result_schema_covers_content_blocks() {
    let v = validator::<CallToolResult>();
    let mut result = CallToolResult::error("boom");
    result.content.push(ContentBlock::Image(ImageContent {
        data: "AA==".into(),
        mime_type: "image/png".into(),
        ..Default::default()
    }));
    let written: Value = serde_json::to_value(&result).unwrap();
    assert!(v.is_valid(&written), "{written}");
    assert!(
        !v.is_valid(&json!({"content": "text"})),
        "content is an array"
    );
}

#[test]
fn schema_uses_wire_names() {
    let schema = serde_json::to_value(schema_for::<ListToolsResult>()).unwrap();
    let props = schema["properties"].as_object().unwrap();
    let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "_meta",
            "cacheScope",
            "nextCursor",
            "resultType",
            "tools",
            "ttlMs"
        ]
    );
}
