//! Feature `proto`: gating real `mcp_proto::Tool` values, as a door's
//! `tools/list` answers them (HIP-0300 §1.3), and reading call arguments.
//! Declared only with that feature (in `main.rs`).

use mcp_gating::{AllowedTools, CallDecision, OpArg, OpTool, resolve_allowed_tools};
use mcp_proto::{CallToolRequestParams, Tool};
use serde_json::{Value, json};

use crate::common::{door_surface, local_surface};

fn door_tools() -> Vec<Tool> {
    serde_json::from_value(json!([
        {
            "name": "describe",
            "description": "Input schema of one operation.",
            "inputSchema": {"type": "object", "properties": {"op": {"type": "string"}}, "required": ["op"]},
            "annotations": {"readOnlyHint": true}
        },
        {
            "name": "billing",
            "description": "Billing operations.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["get_invoice", "list_invoices", "refund_invoice"]},
                    "input": {"type": "object"}
                },
                "required": ["op"]
            },
            "x-hanzo-subsystem": "billing"
        },
        {
            "name": "git",
            "inputSchema": {"type": "object", "properties": {"op": {"enum": ["create_repo"]}}}
        }
    ]))
    .expect("fixture tools parse")
}

fn call(json: Value) -> CallToolRequestParams {
    serde_json::from_value(json).expect("fixture call parses")
}

#[test]
fn door_tools_are_narrowed_in_a_new_schema() {
    let tools = door_tools();
    let before = tools.clone();
    let allowed: AllowedTools =
        serde_json::from_str(r#"{"door": ["billing:get_invoice", "billing:list_invoices"]}"#)
            .unwrap();
    let door = door_surface(&tools, &allowed);
    assert_eq!(tools, before);
    assert_eq!(
        serde_json::to_value(door.tools()).unwrap(),
        json!([{
            "name": "billing",
            "description": "Billing operations.\n\nAllowed here: `op` get_invoice, list_invoices.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "enum": ["get_invoice", "list_invoices"]},
                    "input": {"type": "object"}
                },
                "required": ["op"]
            },
            "x-hanzo-subsystem": "billing"
        }])
    );
    assert_eq!(
        door.check_call_params(&call(
            json!({"name": "billing", "arguments": {"op": "list_invoices", "input": {}}})
        )),
        CallDecision::Permitted
    );
    assert!(matches!(
        door.check_call_params(&call(
            json!({"name": "billing", "arguments": {"op": "refund_invoice"}})
        )),
        CallDecision::Refused(_)
    ));
    assert!(matches!(
        door.check_call_params(&call(json!({"name": "billing"}))),
        CallDecision::Refused(_)
    ));
    assert_eq!(
        door.check_call_params(&call(
            json!({"name": "describe", "arguments": {"op": "get_invoice"}})
        )),
        CallDecision::NotOwned
    );
    assert_eq!(
        door.check_call_params(&call(
            json!({"name": "get_invoice", "arguments": {"id": "in_1"}})
        )),
        CallDecision::Permitted
    );
}

#[test]
fn a_local_tool_s_action_union_is_narrowed() {
    let tools: Vec<Tool> = serde_json::from_value(json!([{
        "name": "fs",
        "inputSchema": {
            "type": "object",
            "oneOf": [
                {"type": "object", "properties": {"action": {"const": "read"}, "path": {"type": "string"}}},
                {"type": "object", "properties": {"action": {"const": "write"}, "path": {"type": "string"}, "content": {"type": "string"}}},
                {"type": "object", "properties": {"action": {"const": "help"}}}
            ]
        }
    }]))
    .unwrap();
    assert_eq!(
        tools[0].op_values("action"),
        Some(vec![
            "read".to_owned(),
            "write".to_owned(),
            "help".to_owned()
        ])
    );
    let allowed = AllowedTools::from_servers([("local", ["fs:read"])]).unwrap();
    let local = local_surface(&tools, &allowed);
    assert_eq!(
        local.tools()[0].op_values("action"),
        Some(vec!["read".to_owned()])
    );
    assert_eq!(
        local.tools()[0].input_schema["oneOf"],
        json!([{"type": "object", "properties": {"action": {"const": "read"}, "path": {"type": "string"}}}])
    );
    let args = json!({"action": "write", "path": "x"});
    assert!(matches!(
        local.check_call_arguments("fs", args.as_object()),
        CallDecision::Refused(_)
    ));
    assert_eq!(
        OpArg::from_arguments(json!({"action": 7}).as_object(), "action"),
        OpArg::NotAString
    );
    assert_eq!(OpArg::from_arguments(None, "action"), OpArg::Absent);
}

#[test]
fn resolve_works_on_tools_by_reference() {
    let tools = door_tools();
    let allowed = AllowedTools::from_servers([("door", ["git", "describe"])]).unwrap();
    let kept: Vec<&str> = resolve_allowed_tools(&tools, &allowed, "door")
        .into_iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert_eq!(kept, ["describe", "git"]);
}
