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

/// A mounted server's tool whose schema has no `action` values: an entry
/// `"tool:value"` cannot be enforced (a call's `action` would be checked
/// while the tool reads another argument), so the tool is withheld and the
/// entry reported; the tool named alone is kept.
#[test]
fn a_mounted_tool_without_the_discriminator_is_withheld_from_a_value_entry() {
    use mcp_gating::{GatedSurface, Mismatch, Policy, SurfaceRules};
    let tools: Vec<Tool> = serde_json::from_value(json!([
        { "name": "message", "inputSchema": { "type": "object",
            "properties": { "messageType": { "enum": ["error", "success"] } } } },
        { "name": "ops", "inputSchema": { "type": "object",
            "properties": { "action": { "enum": ["read", "write"] } } } }
    ]))
    .unwrap();
    // `kb`'s surface under the allowlist `entries`, its discriminator
    // being `discriminator`.
    let gate = |entries: Value, discriminator: &str| {
        let allowed: AllowedTools = serde_json::from_value(json!({ "kb": entries })).unwrap();
        GatedSurface::new(
            "kb",
            &tools,
            &allowed,
            Policy::FailOpen,
            SurfaceRules::mounted(discriminator),
        )
    };
    let surface = gate(json!(["message:error", "ops:read"]), "action");
    let names: Vec<&str> = surface.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["ops"]);
    let sneaky = json!({ "messageType": "success", "action": "error" });
    assert_eq!(
        surface.check_call_arguments("message", sneaky.as_object()),
        CallDecision::NotOwned
    );
    let unmatched = surface.unmatched_entries();
    assert_eq!(unmatched.len(), 1);
    assert_eq!(unmatched[0].mismatch, Mismatch::NoDiscriminator);
    // The same entry under `messageType` narrows it, as for any tool.
    let surface = gate(json!(["message:error"]), "messageType");
    assert_eq!(
        surface.tools()[0].op_values("messageType"),
        Some(vec!["error".to_owned()])
    );
    // Named alone, it is kept whole.
    assert_eq!(gate(json!(["message"]), "action").tools().len(), 1);
}
