//! MCP types: wire names, unknown members kept, optional members skipped.

use mcp_proto::{
    CallToolRequestParams, CallToolResult, ContentBlock, FromValue, ListToolsResult, Tool,
};
use serde_json::json;

use crate::common::round_trip;

#[test]
fn tool_keeps_unknown_members() {
    let v = json!({
        "name": "fs",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true, "x-vendor": 1},
        "execution": {"taskSupport": "optional"},
        "_meta": {"k": "v"},
        "futureField": [1, 2]
    });
    assert_eq!(round_trip::<Tool>(v.clone()), Ok(v.clone()));
    let tool = Tool::from_value(v).unwrap();
    assert_eq!(tool.extra["futureField"], json!([1, 2]));
    assert_eq!(tool.annotations.unwrap().read_only_hint, Some(true));
}

#[test]
fn list_result_names_bad_tool() {
    let err = ListToolsResult::from_value(
        json!({"tools": [{"name": "a", "inputSchema": {}}, {"inputSchema": {}}]}),
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "tools[1].name is required");
}

#[test]
fn list_result_page_reads_its_members_beside_the_items() {
    let v = json!({
        "tools": [],
        "nextCursor": "2",
        "ttlMs": 0,
        "cacheScope": "public",
        "x-vendor": true
    });
    assert_eq!(round_trip::<ListToolsResult>(v.clone()), Ok(v.clone()));
    let list = ListToolsResult::from_value(v).unwrap();
    assert_eq!(list.page.next_cursor.as_deref(), Some("2"));
    assert_eq!(list.page.extra["x-vendor"], json!(true));
    let err = ListToolsResult::from_value(json!({"tools": [], "ttlMs": "soon"})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "ttlMs must be a non-negative integer, found a string"
    );
}

#[test]
fn resource_link_is_a_resource_with_its_type() {
    let v = json!({"type": "resource_link", "uri": "file:///a", "name": "a", "size": 3, "x": 1});
    assert_eq!(round_trip::<ContentBlock>(v.clone()), Ok(v.clone()));
    let ContentBlock::ResourceLink(link) = ContentBlock::from_value(v).unwrap() else {
        panic!("a resource link");
    };
    assert_eq!(link.resource.size, Some(3));
    assert_eq!(link.resource.extra["x"], json!(1));
}

#[test]
fn call_tool_result_constructors() {
    assert_eq!(
        serde_json::to_value(CallToolResult::text("ok")).unwrap(),
        json!({"content": [{"type": "text", "text": "ok"}]})
    );
    assert_eq!(
        serde_json::to_value(CallToolResult::error("no")).unwrap(),
        json!({"content": [{"type": "text", "text": "no"}], "isError": true})
    );
}

#[test]
fn unknown_content_block_passes_through() {
    let v = json!({"type": "hologram", "frames": 3});
    let block = ContentBlock::from_value(v.clone()).unwrap();
    assert!(matches!(block, ContentBlock::Other(_)));
    assert_eq!(serde_json::to_value(&block).unwrap(), v);
}

#[test]
fn content_block_errors_name_members() {
    let err = ContentBlock::from_value(json!({"type": "image", "data": "AA=="})).unwrap_err();
    assert_eq!(err.to_string(), "mimeType is required");
    let err = ContentBlock::from_value(json!({"text": "x"})).unwrap_err();
    assert_eq!(err.to_string(), "type is required");
}

#[test]
fn call_params_serde_deserialize_uses_same_errors() {
    let err =
        serde_json::from_value::<CallToolRequestParams>(json!({"name": "x", "arguments": []}))
            .unwrap_err();
    assert_eq!(
        err.to_string(),
        "arguments must be an object, found an array"
    );
}
